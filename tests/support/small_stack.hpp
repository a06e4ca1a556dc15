// Runs a test body on a thread with a small stack: a decoder (or copy, comparison, destructor)
// that recursed once per nesting level would overflow it on 100000 levels.
#pragma once

#include <gtest/gtest.h>
#include <pthread.h>

#include <cstddef>
#include <functional>

namespace mpk_test {

/// Runs `fn` on a new thread whose stack is `stack_size` bytes (256 KiB by default: enough
/// for any non-recursive code path, even under ASan), and waits for it.
inline void on_small_stack(const std::function<void()>& fn, std::size_t stack_size = 256 * 1024) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, stack_size), 0);
  pthread_t thread;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, trampoline, const_cast<std::function<void()>*>(&fn)), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
}

}  // namespace mpk_test
