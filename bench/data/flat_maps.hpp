// bench/data/flat_maps.hpp - the data of workload W3 flat_maps (docs/workloads.md).
//
// Map i has keys "k00" ... "k15" in that order; value j is: j % 4 == 0 -> integer i * 16 + j;
// 1 -> float64 i + (j + 0.5) / 16; 2 -> string "v" + str(i % 100); 3 -> boolean
// (i + j) % 2 == 0. As a C++ struct: one member per key, named like the key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mpk_bench::flat_maps {

constexpr std::size_t full_maps = 100'000;
constexpr std::size_t quick_maps = 2'000;  // as mpk_gen --quick and the other harnesses
constexpr std::size_t entries = 16;

/// One map of W3 as a typed struct (the "read typed" target of every implementation).
/// `Variant` only makes distinct types of the same members: record (0) is described with
/// MPK_MAP, record_of<1> is left to mpk's reflection (W3's mpk-reflected cells).
template <int Variant>
struct record_of {
  std::int64_t k00 = 0;
  double k01 = 0;
  std::string k02;
  bool k03 = false;
  std::int64_t k04 = 0;
  double k05 = 0;
  std::string k06;
  bool k07 = false;
  std::int64_t k08 = 0;
  double k09 = 0;
  std::string k10;
  bool k11 = false;
  std::int64_t k12 = 0;
  double k13 = 0;
  std::string k14;
  bool k15 = false;

  bool operator==(const record_of&) const = default;
};
using record = record_of<0>;

/// The same map as another variant.
template <int To, int From>
record_of<To> copy_as(const record_of<From>& r) {
  const auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p] = r;
  return {a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p};
}

/// Map i.
inline record make(std::size_t i) {
  const auto integer = [i](std::size_t j) { return static_cast<std::int64_t>(i * 16 + j); };
  const auto real = [i](std::size_t j) {
    return static_cast<double>(i) + (static_cast<double>(j) + 0.5) / 16;
  };
  char text[8];
  const int n = std::snprintf(text, sizeof text, "v%zu", i % 100);
  const std::string s(text, static_cast<std::size_t>(n));
  const auto flag = [i](std::size_t j) { return (i + j) % 2 == 0; };
  return {integer(0), real(1), s, flag(3),  integer(4),  real(5),  s, flag(7),
          integer(8), real(9), s, flag(11), integer(12), real(13), s, flag(15)};
}

/// Maps 0 .. n-1.
inline std::vector<record> generate(std::size_t n) {
  std::vector<record> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(make(i));
  return out;
}

}  // namespace mpk_bench::flat_maps
