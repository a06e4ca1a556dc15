// bench/data/deep_nesting.hpp - the data of workload W4 deep_nesting (docs/workloads.md).
//
// nest(1) = [1, 2, 3]; nest(k) = [1, 2, 3, nest(k - 1)], for N in 1, 2, 4, ..., 128. Each
// benchmark pass handles a stream of copies of nest(N): about 64 Ki levels in all (4 Ki in
// quick mode), so that every N takes a comparable time per pass.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace mpk_bench::deep_nesting {

constexpr std::array<std::size_t, 8> depths = {1, 2, 4, 8, 16, 32, 64, 128};
constexpr std::size_t full_levels = 1u << 16;
constexpr std::size_t quick_levels = 1u << 12;

/// Copies of nest(n) per pass.
constexpr std::size_t copies(std::size_t n, bool quick) noexcept {
  const std::size_t levels = quick ? quick_levels : full_levels;
  return levels / n == 0 ? 1 : levels / n;
}

/// What examining nest(n) must see, level by level from the outside: an array of 4 elements
/// (3 for the innermost), then the integers 1, 2, 3. `visit(depth, count)` per array and
/// `value(v)` per integer, in input order.
template <class Visitor>
void walk(std::size_t n, Visitor& v) {
  for (std::size_t depth = 1; depth <= n; ++depth) {
    v.array(depth, depth == n ? 3 : 4);
    v.i(1);
    v.i(2);
    v.i(3);
  }
}

}  // namespace mpk_bench::deep_nesting
