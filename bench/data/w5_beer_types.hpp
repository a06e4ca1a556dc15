// bench/data/w5_beer_types.hpp - the beer of W5 (and of W7's records lists) as C++ structs that
// mpk and msgpack-cxx map: map mode (MPK_MAP, MSGPACK_DEFINE_MAP) and array mode (MPK_ARRAY,
// MSGPACK_DEFINE_ARRAY), and beer_plain, reflected by mpk without a description. Include after
// <msgpack.hpp> (built with MSGPACK_NO_BOOST).
#pragma once

#include <mpk/codec.hpp>

#include <msgpack.hpp>

#include <string>
#include <vector>

namespace mpk_bench::w5 {

/// A beer in map mode: {"brand": ..., "alcohol": ..., "brewery": ..., "sort": [...]}.
struct beer_map {
  std::string brand;
  double alcohol = 0;
  std::string brewery;
  std::vector<std::string> sort;
  friend bool operator==(const beer_map&, const beer_map&) = default;
  MSGPACK_DEFINE_MAP(brand, alcohol, brewery, sort)
};
MPK_MAP(beer_map, brand, alcohol, brewery, sort);

/// The same beer in array mode: [brand, alcohol, brewery, [sort...]].
struct beer_array {
  std::string brand;
  double alcohol = 0;
  std::string brewery;
  std::vector<std::string> sort;
  friend bool operator==(const beer_array&, const beer_array&) = default;
  MSGPACK_DEFINE_ARRAY(brand, alcohol, brewery, sort)
};
MPK_ARRAY(beer_array, brand, alcohol, brewery, sort);

/// The same beer with no description: mpk reflects it (the "mpk-reflected" cells), the same
/// bytes as beer_map's MPK_MAP.
struct beer_plain {
  std::string brand;
  double alcohol = 0;
  std::string brewery;
  std::vector<std::string> sort;
  friend bool operator==(const beer_plain&, const beer_plain&) = default;
};

}  // namespace mpk_bench::w5
