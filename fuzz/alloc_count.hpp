// fuzz/alloc_count.hpp - a counting global operator new, to bound the memory mpk allocates.
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
#pragma once

#include <cstddef>

namespace mpk_fuzz {

/// Bytes allocated through operator new and not yet freed, now.
std::size_t live_bytes() noexcept;
/// Starts a new peak measurement at the bytes live now; returns them.
std::size_t reset_peak() noexcept;
/// Highest live_bytes() since the last reset_peak().
std::size_t peak_bytes() noexcept;

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
