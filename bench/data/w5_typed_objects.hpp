// bench/data/w5_typed_objects.hpp - workload W5 typed_objects (docs/workloads.md, normative).
//
// The MsgPack.Light workloads:
//
//   int_array     100 integers, element k = (k * 7919) % 65536 - 1000
//   double_array  100 doubles, element k = k * 1.1 + 0.5
//   beer          {brand: "Ale Brewery Lager", alcohol: 4.5, brewery: "Brew Co",
//                  sort: ["pale", "amber", "dark", "stout", "porter"]}
//   beer_list     10 beers, beer k: brand "Ale " + str(k), alcohol 4.5 + k / 4
//
// Objects are written in map mode (keys are field names, in the order above) or array mode
// (positional). mpk_gen writes the reference encodings with write_case(); mpk_bench times them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpk_bench::typed_objects {

inline constexpr std::size_t array_size = 100;
inline constexpr std::size_t list_size = 10;
inline constexpr std::array<std::string_view, 5> sorts = {"pale", "amber", "dark", "stout",
                                                          "porter"};

struct beer {
  std::string brand;
  double alcohol = 0;
  std::string brewery;
  std::vector<std::string> sort;

  friend bool operator==(const beer&, const beer&) = default;
};

/// int_array: element k = (k * 7919) % 65536 - 1000.
inline std::vector<std::int64_t> int_array() {
  std::vector<std::int64_t> v;
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(array_size); ++k)
    v.push_back((k * 7919) % 65536 - 1000);
  return v;
}

/// double_array: element k = k * 1.1 + 0.5 (IEEE double arithmetic, as written).
inline std::vector<double> double_array() {
  std::vector<double> v;
  for (std::size_t k = 0; k < array_size; ++k)
    v.push_back(static_cast<double>(k) * 1.1 + 0.5);
  return v;
}

inline beer make_beer(std::string brand, double alcohol) {
  return {std::move(brand), alcohol, "Brew Co",
          std::vector<std::string>(sorts.begin(), sorts.end())};
}

/// The single beer of the `beer` case.
inline beer the_beer() {
  return make_beer("Ale Brewery Lager", 4.5);
}

/// beer_list: beer k has brand "Ale " + str(k) and alcohol 4.5 + k / 4.
inline std::vector<beer> beer_list() {
  std::vector<beer> v;
  for (std::size_t k = 0; k < list_size; ++k)
    v.push_back(make_beer("Ale " + std::to_string(k), 4.5 + static_cast<double>(k) / 4));
  return v;
}

/// Writes a beer canonically (smallest forms; keys in declaration order in map mode) with a
/// writer of mpk's API (mpk::writer<Sink>).
template <class Writer>
void write_beer(Writer& w, const beer& b, bool map_mode) {
  if (map_mode)
    w.begin_map(4);
  else
    w.begin_array(4);
  if (map_mode) w.write("brand");
  w.write(std::string_view(b.brand));
  if (map_mode) w.write("alcohol");
  w.write(b.alcohol);
  if (map_mode) w.write("brewery");
  w.write(std::string_view(b.brewery));
  if (map_mode) w.write("sort");
  w.begin_array(b.sort.size());
  for (const std::string& s : b.sort)
    w.write(std::string_view(s));
}

/// The cases of the reference encodings (mpk_gen: typed_objects/<name>.msgpack).
inline constexpr std::array<std::string_view, 6> case_names = {
    "int_array", "double_array", "beer_map", "beer_array", "beer_list_map", "beer_list_array"};

/// Writes the case `name` (one of case_names) canonically; false for an unknown name.
template <class Writer>
bool write_case(Writer& w, std::string_view name) {
  if (name == "int_array") {
    const auto v = int_array();
    w.begin_array(v.size());
    for (std::int64_t x : v)
      w.write(x);
  } else if (name == "double_array") {
    const auto v = double_array();
    w.begin_array(v.size());
    for (double x : v)
      w.write(x);
  } else if (name == "beer_map" || name == "beer_array") {
    write_beer(w, the_beer(), name == "beer_map");
  } else if (name == "beer_list_map" || name == "beer_list_array") {
    const auto v = beer_list();
    w.begin_array(v.size());
    for (const beer& b : v)
      write_beer(w, b, name == "beer_list_map");
  } else {
    return false;
  }
  return true;
}

}  // namespace mpk_bench::typed_objects
