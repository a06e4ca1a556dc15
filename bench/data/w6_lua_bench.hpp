// bench/data/w6_lua_bench.hpp - workload W6 lua_bench (docs/workloads.md, normative).
//
// The luajit-msgpack-pure / lua-MessagePack bench: each dataset is packed then unpacked as
// one operation.
//
//   empty   []                  iary1  [1]              iary10  [-5 ... 4]
//   iaryN   floor(i - N/2) for i = 1 ... N (N = 100, 1000, 10000)
//   dary1   [1.5e35]            daryN  1.5e35 * i for i = 1 ... N (N = 10, 100, 1000), float64
//   str1    ["a"]               strN   one string of N-1 "a" then "b" (N = 10 ... 80000)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpk_bench::lua_bench {

/// One dataset. Exactly one of its parts is used, as `kind` says.
struct dataset {
  enum class kind { ints, doubles, strings, text };
  std::string name;
  kind k = kind::ints;
  std::vector<std::int64_t> ints;    ///< kind::ints: an array of integers
  std::vector<double> doubles;       ///< kind::doubles: an array of float64
  std::vector<std::string> strings;  ///< kind::strings: an array of strings
  std::string text;                  ///< kind::text: one string (not in an array)
};

/// Every dataset, in the order of the original bench.
inline std::vector<dataset> datasets() {
  using K = dataset::kind;
  std::vector<dataset> out;
  out.push_back({"empty", K::ints, {}, {}, {}, {}});
  out.push_back({"iary1", K::ints, {1}, {}, {}, {}});
  dataset d10{"iary10", K::ints, {}, {}, {}, {}};
  for (std::int64_t v = -5; v <= 4; ++v)
    d10.ints.push_back(v);
  out.push_back(d10);
  for (std::int64_t n : {100, 1000, 10000}) {
    dataset d{"iary" + std::to_string(n), K::ints, {}, {}, {}, {}};
    for (std::int64_t i = 1; i <= n; ++i)
      d.ints.push_back(i - n / 2);  // floor(i - N/2): N is even
    out.push_back(std::move(d));
  }
  out.push_back({"dary1", K::doubles, {}, {1.5e35}, {}, {}});
  for (int n : {10, 100, 1000}) {
    dataset d{"dary" + std::to_string(n), K::doubles, {}, {}, {}, {}};
    for (int i = 1; i <= n; ++i)
      d.doubles.push_back(1.5e35 * i);
    out.push_back(std::move(d));
  }
  out.push_back({"str1", K::strings, {}, {}, {"a"}, {}});
  for (std::size_t n : {10, 100, 1000, 10000, 20000, 30000, 40000, 80000})
    out.push_back({"str" + std::to_string(n), K::text, {}, {}, {}, std::string(n - 1, 'a') + "b"});
  return out;
}

/// Writes a dataset canonically (smallest integer forms, doubles as float64) with a writer of
/// mpk's API.
template <class Writer>
void write(Writer& w, const dataset& d) {
  switch (d.k) {
    case dataset::kind::ints:
      w.begin_array(d.ints.size());
      for (std::int64_t v : d.ints)
        w.write(v);
      break;
    case dataset::kind::doubles:
      w.begin_array(d.doubles.size());
      for (double v : d.doubles)
        w.write_float64(v);
      break;
    case dataset::kind::strings:
      w.begin_array(d.strings.size());
      for (const std::string& s : d.strings)
        w.write(std::string_view(s));
      break;
    case dataset::kind::text:
      w.write(std::string_view(d.text));
      break;
  }
}

}  // namespace mpk_bench::lua_bench
