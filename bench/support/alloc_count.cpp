// bench/support/alloc_count.cpp - the counting allocation functions (see alloc_count.hpp).
//
// glibc exports its allocator under __libc_malloc & co.; a malloc defined in the executable
// interposes the one in libc for every library of the process (libstdc++'s operator new,
// libbenchmark, ...). operator new is replaced too, so it is counted once, here, and
// forwards to __libc_malloc directly.
#include "alloc_count.hpp"

#include <malloc.h>

#include <cstdlib>
#include <new>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void __libc_free(void*);
}

namespace {
thread_local std::uint64_t t_calls = 0;
thread_local std::uint64_t t_bytes = 0;
thread_local void* t_last_block = nullptr;  // the block realloc returned last, and its size
thread_local std::size_t t_last_size = 0;
bool g_seen = false;

inline void forget(void* p) noexcept {
  if (p == t_last_block) t_last_block = nullptr;
}

inline void count(std::size_t n) noexcept {
  ++t_calls;
  t_bytes += n;
  g_seen = true;
}

void* new_impl(std::size_t n) {
  count(n);
  if (n == 0) n = 1;
  void* p = __libc_malloc(n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* new_impl_nothrow(std::size_t n) noexcept {
  count(n);
  return __libc_malloc(n == 0 ? 1 : n);
}

void* new_aligned(std::size_t n, std::align_val_t al) {
  count(n);
  void* p = nullptr;
  std::size_t a = static_cast<std::size_t>(al);
  if (a < sizeof(void*)) a = sizeof(void*);
  if (posix_memalign(&p, a, n == 0 ? 1 : n) != 0) throw std::bad_alloc();
  return p;
}
}  // namespace

extern "C" {
void* malloc(std::size_t n) {
  count(n);
  return __libc_malloc(n);
}
void* calloc(std::size_t k, std::size_t n) {
  count(k * n);
  return __libc_calloc(k, n);
}
void* realloc(void* p, std::size_t n) {
  // Counts what the call adds: new size minus the block's previous size (a buffer that grows
  // one byte at a time would otherwise "allocate" the sum of all its sizes). The previous
  // size of the block realloc'ed last is remembered, so that the usual pattern (one buffer
  // growing) costs no malloc_usable_size call: a counter must not slow the case it measures.
  std::size_t before = 0;
  if (p != nullptr) before = p == t_last_block ? t_last_size : malloc_usable_size(p);
  void* q = __libc_realloc(p, n);
  count(n > before ? n - before : 0);
  t_last_block = q;
  t_last_size = n;
  return q;
}
void free(void* p) {
  forget(p);
  __libc_free(p);
}
}

void* operator new(std::size_t n) {
  return new_impl(n);
}
void* operator new[](std::size_t n) {
  return new_impl(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return new_impl_nothrow(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return new_impl_nothrow(n);
}
void* operator new(std::size_t n, std::align_val_t al) {
  return new_aligned(n, al);
}
void* operator new[](std::size_t n, std::align_val_t al) {
  return new_aligned(n, al);
}
void operator delete(void* p) noexcept {
  __libc_free(p);
}
void operator delete[](void* p) noexcept {
  __libc_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  __libc_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  __libc_free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  __libc_free(p);
}

namespace mpk_bench::alloc_count {

snapshot now() noexcept {
  return {t_calls, t_bytes};
}

namespace {
// Keeps the test allocations below from being elided as unused.
void* volatile g_escape = nullptr;
}  // namespace

bool active() noexcept {
  // An allocation through each path must reach the counters.
  const snapshot before = now();
  g_escape = std::malloc(24);
  std::free(g_escape);
  g_escape = ::operator new(24);
  ::operator delete(g_escape);
  const snapshot after = now();
  return g_seen && after.calls - before.calls == 2;
}

}  // namespace mpk_bench::alloc_count
