// bench/data/small_fields.hpp - workload W1 small_fields (docs/workloads.md, normative).
//
// A flat sequence of top-level values (no enclosing array) in records of 8. Record i holds:
//
//   f0  i % 128                       positive fixint
//   f1  -(i % 1000) - 1               negative fixint / int8 / int16
//   f2  40000 + i % 1000              uint16
//   f3  -100000 - i                   int32
//   f4  5000000000 + i                uint64
//   f5  i + 0.25                      float64
//   f6  1.0 / (i + 3)                 float64
//   f7  "field" + str(i % 1000), the number left-padded with zeros to 3 digits (8 bytes)
//
// The full workload is 1,000,000 values (125,000 records); `--quick` uses fewer, so the
// count is a parameter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace mpk_bench::small_fields {

inline constexpr std::size_t fields_per_record = 8;
/// Values in the full workload.
inline constexpr std::size_t full_values = 1'000'000;
/// Values in `--quick` mode.
inline constexpr std::size_t quick_values = 100'000;

/// One record of 8 fields, in the C++ types of the explicit schema.
struct record {
  std::uint64_t f4;
  double f5;
  double f6;
  std::int32_t f3;
  std::int16_t f1;
  std::uint16_t f2;
  std::uint8_t f0;
  char f7_chars[8];

  std::string_view f7() const noexcept { return {f7_chars, sizeof f7_chars}; }
};

/// Record `i` exactly as docs/workloads.md defines it.
inline record make_record(std::uint64_t i) noexcept {
  record r{};
  r.f0 = static_cast<std::uint8_t>(i % 128);
  r.f1 = static_cast<std::int16_t>(-static_cast<std::int64_t>(i % 1000) - 1);
  r.f2 = static_cast<std::uint16_t>(40000 + i % 1000);
  r.f3 = static_cast<std::int32_t>(-100000 - static_cast<std::int64_t>(i));
  r.f4 = 5000000000ull + i;
  r.f5 = static_cast<double>(i) + 0.25;
  r.f6 = 1.0 / static_cast<double>(i + 3);
  const auto n = static_cast<unsigned>(i % 1000);
  constexpr std::string_view prefix = "field";
  for (std::size_t k = 0; k < prefix.size(); ++k)
    r.f7_chars[k] = prefix[k];
  r.f7_chars[5] = static_cast<char>('0' + n / 100);
  r.f7_chars[6] = static_cast<char>('0' + n / 10 % 10);
  r.f7_chars[7] = static_cast<char>('0' + n % 10);
  return r;
}

/// The records of a workload of `values` values (a multiple of 8; a remainder is dropped).
inline std::vector<record> generate(std::size_t values = full_values) {
  std::vector<record> records;
  const std::size_t count = values / fields_per_record;
  records.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    records.push_back(make_record(i));
  return records;
}

}  // namespace mpk_bench::small_fields
