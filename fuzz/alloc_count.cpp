// fuzz/alloc_count.cpp - the counting global operator new and delete (see alloc_count.hpp).
//
// Each block carries its size in a 16-byte header (16 keeps the alignment that malloc gives
// and that operator new promises for ordinary types). Over-aligned allocations
// (operator new with std::align_val_t) are not replaced: the standard library serves them, and
// they never pass through these functions. The byte counters are atomic (tests run threads);
// the request count and the armed failure are the calling thread's.
#include "alloc_count.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#ifndef MPK_ALLOC_WRAP_MALLOC
#define MPK_ALLOC_WRAP_MALLOC 0
#endif
#if MPK_ALLOC_WRAP_MALLOC
// The real functions, under the names the linker's --wrap gives them.
extern "C" {
void* __real_malloc(std::size_t);
void* __real_calloc(std::size_t, std::size_t);
void* __real_realloc(void*, std::size_t);
}
#define MPK_ALLOC_RAW_MALLOC __real_malloc
#else
#define MPK_ALLOC_RAW_MALLOC std::malloc
#endif

namespace {

constexpr std::size_t header = 16;
std::atomic<std::size_t> live{0};
std::atomic<std::size_t> peak{0};

// Trivial thread-locals: usable from the first allocation of a thread on.
thread_local std::size_t t_calls = 0;
thread_local std::size_t t_fail_at = 0;  // t_calls value whose request fails; 0: none
thread_local bool t_failed = false;

/// Counts one request; true when it is the one to fail.
bool must_fail() noexcept {
  ++t_calls;
  if (t_fail_at == 0 || t_calls != t_fail_at) [[likely]]
    return false;
  t_fail_at = 0;
  t_failed = true;
  return true;
}

void* counted_alloc(std::size_t n) noexcept {
  if (must_fail()) return nullptr;
  if (n > static_cast<std::size_t>(-1) - header) return nullptr;
  void* block = MPK_ALLOC_RAW_MALLOC(n + header);
  if (block == nullptr) return nullptr;
  *static_cast<std::size_t*>(block) = n;
  const std::size_t now = live.fetch_add(n, std::memory_order_relaxed) + n;
  std::size_t seen = peak.load(std::memory_order_relaxed);
  while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
  return static_cast<char*>(block) + header;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  void* block = static_cast<char*>(p) - header;
  live.fetch_sub(*static_cast<std::size_t*>(block), std::memory_order_relaxed);
  std::free(block);
}

void* alloc_or_throw(std::size_t n) {
  void* p = counted_alloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

namespace mpk_fuzz {
std::size_t live_bytes() noexcept {
  return live.load(std::memory_order_relaxed);
}
std::size_t reset_peak() noexcept {
  const std::size_t now = live.load(std::memory_order_relaxed);
  peak.store(now, std::memory_order_relaxed);
  return now;
}
std::size_t peak_bytes() noexcept {
  return peak.load(std::memory_order_relaxed);
}
std::size_t allocation_calls() noexcept {
  return t_calls;
}
bool wraps_malloc() noexcept {
  return MPK_ALLOC_WRAP_MALLOC != 0;
}
void fail_nth_allocation(std::size_t n) noexcept {
  t_fail_at = n == 0 ? 0 : t_calls + n;
  if (n != 0) t_failed = false;
}
bool allocation_failed() noexcept {
  return t_failed;
}
}  // namespace mpk_fuzz

#if MPK_ALLOC_WRAP_MALLOC
extern "C" {
void* __wrap_malloc(std::size_t n) {
  return must_fail() ? nullptr : __real_malloc(n);
}
void* __wrap_calloc(std::size_t k, std::size_t n) {
  return must_fail() ? nullptr : __real_calloc(k, n);
}
void* __wrap_realloc(void* p, std::size_t n) {
  return must_fail() ? nullptr : __real_realloc(p, n);
}
}
#endif

void* operator new(std::size_t n) {
  return alloc_or_throw(n);
}
void* operator new[](std::size_t n) {
  return alloc_or_throw(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counted_alloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return counted_alloc(n == 0 ? 1 : n);
}
void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete[](void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}
