// fuzz/alloc_count.cpp - the counting global operator new and delete (see alloc_count.hpp).
//
// Each block carries its size in a 16-byte header (16 keeps the alignment that malloc gives
// and that operator new promises for ordinary types). Over-aligned allocations
// (operator new with std::align_val_t) are not replaced: the standard library serves them, and
// they never pass through these functions. Counters are atomic: tests run threads.
#include "alloc_count.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t header = 16;
std::atomic<std::size_t> live{0};
std::atomic<std::size_t> peak{0};

void* counted_alloc(std::size_t n) noexcept {
  if (n > static_cast<std::size_t>(-1) - header) return nullptr;
  void* block = std::malloc(n + header);
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
}  // namespace mpk_fuzz

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
