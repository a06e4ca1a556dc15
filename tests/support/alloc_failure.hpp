// Runs an operation with its k-th allocation failing, for every k up to the number of
// allocations it makes (the failing allocator is fuzz/alloc_count.cpp's: link the test with
// mpk_test_fail_allocations() in tests/CMakeLists.txt, so that malloc, calloc and realloc
// fail too).
//
//     mpk_test::fail_each_allocation([] {
//       auto doc = mpk::document::parse(bytes);
//       mpk_test::operation_done();  // what follows checks the result: it may allocate
//       if (!doc) return doc.error();
//       EXPECT_EQ(...);              // succeeded: the value must be complete and right
//       return mpk::error{};
//     });
#pragma once

#include <gtest/gtest.h>
#include <mpk/error.hpp>

#include <cstddef>
#include <new>

#include "../../fuzz/alloc_count.hpp"

namespace mpk_test {

namespace detail {
inline thread_local bool operation_is_done = false;
inline thread_local std::size_t operation_done_at = 0;
}  // namespace detail

/// Called by an operation under fail_each_allocation() once the calls under test have
/// returned: the checks of their result that follow may allocate freely (no failure is
/// armed for them, and their allocations are not counted as the operation's).
inline void operation_done() noexcept {
  detail::operation_done_at = mpk_fuzz::allocation_calls();
  detail::operation_is_done = true;
  mpk_fuzz::fail_nth_allocation(0);
}

/// What fail_each_allocation() saw: the allocations of the run without failure, and how the
/// runs with a failure ended.
struct failure_runs {
  std::size_t allocations = 0;    ///< requests of the run without failure
  std::size_t out_of_memory = 0;  ///< runs that reported errc::out_of_memory
  std::size_t recovered = 0;      ///< runs that succeeded all the same (their op checked it)
};

/// Runs `op` (a callable returning the mpk::error the operation reported, errc::ok when it
/// says it succeeded; on success it checks its result itself, after operation_done()) once
/// normally, which must succeed, then once for each allocation request k of that run (up to
/// operation_done()), with the k-th failing.
/// Each of those runs must report errc::out_of_memory, or succeed (a failure the operation
/// could work around); never throw, and never keep memory: the bytes live through operator
/// new are the same after each run as before (unless `same_live_bytes` is false: for an
/// operation on objects that live across runs and keep memory for reuse, such as a decoder
/// reset() at the start of each; LeakSanitizer still checks them, in the asan preset, once
/// they are destroyed). Returns what it saw, for the caller to assert more.
template <class Op>
failure_runs fail_each_allocation(Op&& op, bool same_live_bytes = true) {
  failure_runs seen;
  if (!mpk_fuzz::wraps_malloc()) {
    ADD_FAILURE() << "the malloc family is not wrapped: link with mpk_test_fail_allocations()";
    return seen;
  }
  // A first run for what it allocates lazily once (static tables, gtest's own state).
  EXPECT_EQ(op(), mpk::error{}) << "the operation fails without an allocation failure";
  const std::size_t live_before = mpk_fuzz::live_bytes();
  const std::size_t calls_before = mpk_fuzz::allocation_calls();
  detail::operation_is_done = false;
  const mpk::error clean = op();
  seen.allocations =
      (detail::operation_is_done ? detail::operation_done_at : mpk_fuzz::allocation_calls()) -
      calls_before;
  EXPECT_EQ(clean, mpk::error{});
  if (same_live_bytes) {
    EXPECT_EQ(mpk_fuzz::live_bytes(), live_before) << "memory kept after a successful run";
  }
  for (std::size_t k = 1; k <= seen.allocations; ++k) {
    mpk::error e{};
    bool threw = false;
    mpk_fuzz::fail_nth_allocation(k);
    // Only the code and offset are kept: an unpack error's note (the member path) is memory
    // of its own, freed with the error it came in, before the live bytes are compared.
    const auto plain = [](const mpk::error& full) { return mpk::error{full.code, full.offset}; };
#if __cpp_exceptions
    try {
      e = plain(op());
    } catch (const std::bad_alloc&) {
      threw = true;
    }
#else
    e = plain(op());
#endif
    const bool failed = mpk_fuzz::allocation_failed();
    mpk_fuzz::fail_nth_allocation(0);
    EXPECT_FALSE(threw) << "allocation " << k << " of " << seen.allocations
                        << ": std::bad_alloc escaped instead of errc::out_of_memory";
    EXPECT_TRUE(failed) << "allocation " << k << " of " << seen.allocations
                        << " was never requested: the operation is not deterministic";
    if (e.code == mpk::errc::out_of_memory) {
      ++seen.out_of_memory;
    } else {
      EXPECT_EQ(e, mpk::error{}) << "allocation " << k << " of " << seen.allocations
                                 << " failed: another error than errc::out_of_memory: "
                                 << e.to_string();
      if (!e) ++seen.recovered;
    }
    if (same_live_bytes) {
      EXPECT_EQ(mpk_fuzz::live_bytes(), live_before)
          << "allocation " << k << " of " << seen.allocations << " failed: memory leaked";
    }
  }
  EXPECT_GT(seen.allocations, 0u) << "the operation allocates nothing: nothing was tested";
  return seen;
}

}  // namespace mpk_test
