// fuzz/alloc_count.hpp - a counting global operator new, to bound the memory mpk allocates,
// and a failing one, to test what mpk does when memory runs out.
//
// alloc_count.cpp replaces the global operator new and delete (plain, array and nothrow) with
// versions that call malloc and free and keep the bytes currently live and their peak. The
// fuzz targets and tests/hostile_test.cpp link it, then measure a library call like this:
//
//     mpk_fuzz::alloc_scope scope;         // starts counting the peak from here
//     r.skip();
//     assert(scope.peak() <= 24 * input.size() + 8192);
//
// What it sees: everything allocated through operator new (mpk's skip/field_size stack, the
// standard containers of other layers). What it does not see: malloc/realloc called directly
// (mpk::buffer grows with realloc: its targets check buffer::capacity() instead).
// Under AddressSanitizer the replacements still call the sanitizer's malloc, so heap errors
// are still found.
//
// Failing allocations (tests/support/alloc_failure.hpp builds on this): fail_nth_allocation(k)
// makes the k-th allocation request of the calling thread fail. A test binary that must see
// the malloc family too (mpk::buffer grows with realloc, stream_decoder's buffer is malloc'd)
// is linked with tests/CMakeLists.txt's mpk_test_fail_allocations(): alloc_count.cpp is
// compiled with MPK_ALLOC_WRAP_MALLOC and the binary with -Wl,--wrap=malloc,--wrap=calloc,
// --wrap=realloc, so that every call to those in the code linked statically into it (the
// library, the test) goes through alloc_count.cpp first. The wrappers count and fail
// requests; they do not count bytes (live_bytes() stays operator new's).
#pragma once

#include <cstddef>

namespace mpk_fuzz {

/// Bytes allocated through operator new and not yet freed, now.
std::size_t live_bytes() noexcept;
/// Starts a new peak measurement at the bytes live now; returns them.
std::size_t reset_peak() noexcept;
/// Highest live_bytes() since the last reset_peak().
std::size_t peak_bytes() noexcept;

/// Allocation requests the calling thread has made so far: every operator new, and malloc,
/// calloc and realloc where they are wrapped (see the top of this file).
std::size_t allocation_calls() noexcept;
/// True when malloc, calloc and realloc go through this file (MPK_ALLOC_WRAP_MALLOC).
bool wraps_malloc() noexcept;
/// Makes the `n`-th allocation request (1: the next one) of the calling thread fail, once:
/// operator new throws std::bad_alloc (its nothrow form returns nullptr), malloc, calloc and
/// realloc return nullptr (realloc leaves the block as it was). 0 disarms (and leaves
/// allocation_failed() as it is). Requests of other threads are not affected.
void fail_nth_allocation(std::size_t n) noexcept;
/// True when the failure armed by the last fail_nth_allocation() has happened.
bool allocation_failed() noexcept;

/// Measures the peak of bytes allocated (beyond those live at its construction) during its
/// lifetime. Scopes do not nest: an inner scope restarts the outer one's peak.
class alloc_scope {
 public:
  alloc_scope() noexcept : base_(reset_peak()) {}
  /// The most bytes live at once since construction, beyond those live at construction.
  std::size_t peak() const noexcept {
    const std::size_t p = peak_bytes();
    return p > base_ ? p - base_ : 0;
  }

 private:
  std::size_t base_;
};

}  // namespace mpk_fuzz
