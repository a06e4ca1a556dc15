// mpk/detail/level_stack.hpp - the stack of open containers that the iterative walks keep
// (the reader's skip, mpk::visit, mpk::write of a value). Not a public API.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

#include "mpk/config.hpp"

namespace mpk::detail {

/// The per-level counts of a walk: 64 levels inline, then heap memory that doubles as the
/// walk goes deeper (a walk of input: never beyond limits::max_depth levels, nor beyond one
/// level per input byte, since every container takes at least one byte). `T` is what a level keeps
/// (trivially copyable): the reader's walk keeps a count, mpk::visit a count and a map flag,
/// mpk::write of a value the container and its next item. Inline, so that a walk of a shallow value
/// allocates nothing (W7 `encode_tiny`: a heap stack was a malloc and a free per message).
template <class T>
class basic_owed_stack {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  basic_owed_stack() noexcept = default;
  basic_owed_stack(const basic_owed_stack&) = delete;
  basic_owed_stack& operator=(const basic_owed_stack&) = delete;
  ~basic_owed_stack() {
    if (data_ != inline_) delete[] data_;
  }

  /// False when memory ran out.
  MPK_ALWAYS_INLINE bool push(T v) noexcept {
    if (end_ == limit_) [[unlikely]] {
      if (!grow()) return false;
    }
    *end_++ = v;
    return true;
  }
  MPK_ALWAYS_INLINE T pop() noexcept { return *--end_; }
  /// The innermost level; the stack must not be empty.
  MPK_ALWAYS_INLINE T& top() noexcept { return end_[-1]; }
  MPK_ALWAYS_INLINE bool empty() const noexcept { return end_ == data_; }
  MPK_ALWAYS_INLINE std::size_t size() const noexcept {
    return static_cast<std::size_t>(end_ - data_);
  }

 private:
  MPK_COLD bool grow() noexcept {
    const std::size_t size = this->size();
    const std::size_t cap = static_cast<std::size_t>(limit_ - data_) * 2;
    auto* bigger = new (std::nothrow) T[cap];
    if (bigger == nullptr) return false;
    std::memcpy(bigger, data_, size * sizeof(T));
    if (data_ != inline_) delete[] data_;
    data_ = bigger;
    end_ = bigger + size;
    limit_ = bigger + cap;
    return true;
  }

  static constexpr std::size_t inline_capacity = 64;
  // Pointers, not a size: top() is one load, as std::vector's back() (W7 `encode_medium`).
  T inline_[inline_capacity];
  T* data_ = inline_;
  T* end_ = inline_;
  T* limit_ = inline_ + inline_capacity;
};
}  // namespace mpk::detail
