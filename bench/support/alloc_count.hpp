// bench/support/alloc_count.hpp - counts the heap allocations of this thread.
//
// The benchmark binary replaces the global operator new/delete AND interposes malloc,
// calloc, realloc and free (glibc): mpk::buffer and msgpack::sbuffer allocate with
// malloc/realloc, not with operator new, so counting operator new alone would report zero
// bytes for both. Every request is counted once, with the size asked for; a realloc counts
// the bytes it adds to the block (new size minus its previous size; 0 when it shrinks). Counters are thread-local; benchmarks run on the main thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpk_bench::alloc_count {

struct snapshot {
  std::uint64_t calls = 0;  ///< allocation requests (new, malloc, calloc, realloc)
  std::uint64_t bytes = 0;  ///< bytes requested by them (by realloc: the growth)
};

/// The counts of the calling thread so far.
snapshot now() noexcept;

/// False when the allocation functions of this binary are not the counting ones (then the
/// counters stay at zero and the report says "not measured").
bool active() noexcept;

}  // namespace mpk_bench::alloc_count
