// The classes of hostile input of the catalogue (tests/hostile_test.cpp, docs/security.md),
// as data: the catalogue asserts what each entry point says about each class; other suites
// (tests/reuse_test.cpp: decoders used again after each of them) feed the same inputs.
#pragma once

#include <gtest/gtest.h>
#include <mpk/buffer.hpp>
#include <mpk/writer.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hex.hpp"

namespace mpk_test {

using byte_vector = std::vector<std::byte>;

inline byte_vector repeat(const byte_vector& unit, std::size_t n, const byte_vector& tail = {}) {
  byte_vector out;
  out.reserve(unit.size() * n + tail.size());
  for (std::size_t k = 0; k < n; ++k)
    out.insert(out.end(), unit.begin(), unit.end());
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

inline byte_vector concat(const byte_vector& a, const byte_vector& b) {
  byte_vector out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// --- declared counts and lengths beyond the input ----------------------------------------

/// Lengths and counts above the default limits (errc::limit_exceeded at 0 with them,
/// errc::truncated at 0 with limits::trusted()).
inline constexpr const char* lies_above_limits[] = {
    "dd ff ff ff ff", "df ff ff ff ff", "db ff ff ff ff 5a", "c6 ff ff ff ff", "c9 ff ff ff ff 01"};
/// Counts within the limits that the input cannot hold (errc::truncated at 0).
inline constexpr const char* lies_within_limits[] = {"dc ff ff", "9f 01 01 01", "de 00 02 01 01 01",
                                                     "8f 01 01"};
/// Map counts whose item counts overflow 32-bit arithmetic (errc::limit_exceeded at 0, or
/// errc::truncated at 0 with limits::trusted()).
inline constexpr const char* size_arithmetic[] = {"df 40 00 00 00", "df 80 00 00 00",
                                                  "df ff ff ff ff 01 01"};

// --- 0xc1, UTF-8, timestamps ----------------------------------------------------------------

/// The never-used marker alone, as an element, a key and a value (errc::invalid_marker).
inline constexpr const char* never_used_marker[] = {"c1", "91 c1", "81 c1 c0", "81 c0 c1"};
/// str that are not UTF-8: overlong, surrogate, above U+10FFFF, truncated, a lone
/// continuation byte (errc::invalid_utf8 at 0 where text is checked).
inline constexpr const char* invalid_utf8_strs[] = {"a2 c0 80", "a3 ed a0 80", "a4 f4 90 80 80",
                                                    "a2 e2 82", "a1 80"};
/// Timestamps a timestamp read refuses (errc::invalid_timestamp): nanoseconds = 10^9 in
/// the 64- and 96-bit forms, a length that is no timestamp's.
inline constexpr const char* invalid_timestamps[] = {"d7 ff ee 6b 28 00 00 00 00 00",
                                                     "c7 0c ff 3b 9a ca 00 00 00 00 00 00 00 00 00",
                                                     "c7 05 ff 00 00 00 00 00"};

// --- nesting 100000 deep -----------------------------------------------------------------

inline constexpr std::size_t deep = 100000;

/// [[[...nil...]]]: `levels` arrays.
inline byte_vector deep_arrays(std::size_t levels = deep) {
  return concat(repeat(hex("91"), levels), hex("c0"));
}
/// {{{...{nil: nil}...: nil}: nil}: nil}: each map is the key of its parent.
inline byte_vector deep_map_keys(std::size_t levels = deep) {
  return concat(concat(repeat(hex("81"), levels), hex("c0 c0")), repeat(hex("c0"), levels - 1));
}
/// {nil: {nil: {... nil}}}: each map is the value of its parent.
inline byte_vector deep_map_values(std::size_t levels = deep) {
  return concat(repeat(hex("81 c0"), levels), hex("c0"));
}

// --- valid messages, to truncate ----------------------------------------------------------

/// Valid messages with every family, containers nested, and lengths across the 1-, 2- and
/// 4-byte headers.
inline std::vector<byte_vector> valid_messages() {
  std::vector<byte_vector> out;
  auto encode = [&](auto&& fill) {
    mpk::buffer buf;
    mpk::writer w(buf);
    fill(w);
    EXPECT_TRUE(w.ok());
    out.emplace_back(buf.data(), buf.data() + buf.size());
  };
  encode([](auto& w) {
    w.begin_map(3);
    w.write("ints");
    w.begin_array(8);
    for (std::int64_t v : {0LL, 127LL, 255LL, 65535LL, -1LL, -33LL, -40000LL, -5000000000LL})
      w.write(v);
    w.write("floats");
    w.begin_array(2);
    w.write(1.5f);
    w.write(-0.25);
    w.write("nested");
    w.begin_array(2);
    w.begin_map(1);
    w.write_nil();
    w.write(true);
    w.write_ext(5, std::vector<std::byte>(3, std::byte{7}));
  });
  encode([](auto& w) {
    w.begin_array(3);
    w.write(std::string(40, 'x'));
    w.write(std::vector<std::byte>(300, std::byte{1}));
    w.write_ext(-1, std::vector<std::byte>(8, std::byte{0}));
  });
  encode([](auto& w) {
    w.begin_array(20);
    for (int k = 0; k < 20; ++k)
      w.write(k * 1000);
  });
  return out;
}

// --- the whole catalogue, flat -------------------------------------------------------------

/// One hostile input and the class it belongs to.
struct hostile_input {
  std::string what;
  byte_vector bytes;
};

/// Every class above as inputs (each truncation of each valid message; nesting `levels`
/// deep, beyond the default depth limit), plus the other classes of the catalogue that make
/// decoders fail in some layer: 100 lies in a row, a lie inside a map value, reserved
/// extension types, odd map keys, integers beyond int64, trailing bytes.
inline std::vector<hostile_input> hostile_catalogue(std::size_t levels = 1000) {
  std::vector<hostile_input> out;
  const auto add = [&](const std::string& what, const char* const* first, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      out.push_back({what + " " + first[i], hex(first[i])});
  };
  add("lie above the limits", lies_above_limits, std::size(lies_above_limits));
  add("lie within the limits", lies_within_limits, std::size(lies_within_limits));
  add("size arithmetic", size_arithmetic, std::size(size_arithmetic));
  add("0xc1", never_used_marker, std::size(never_used_marker));
  add("invalid UTF-8", invalid_utf8_strs, std::size(invalid_utf8_strs));
  add("invalid timestamp", invalid_timestamps, std::size(invalid_timestamps));
  out.push_back({"100 lies in a row", repeat(hex("dd ff ff ff ff"), 100)});
  out.push_back({"lie inside a map value", hex("81 a1 61 dd ff ff ff ff")});
  out.push_back({"deep arrays", deep_arrays(levels)});
  out.push_back({"deep map keys", deep_map_keys(levels)});
  out.push_back({"deep map values", deep_map_values(levels)});
  out.push_back({"0xc1 100 levels down", concat(repeat(hex("91"), 100), hex("c1"))});
  out.push_back({"reserved extension type", hex("d4 80 2a")});
  out.push_back({"duplicate keys", hex("82 a1 61 01 a1 61 02")});
  out.push_back({"container key", hex("81 90 01")});
  out.push_back({"NaN key", hex("81 cb 7f f8 00 00 00 00 00 00 01")});
  out.push_back({"UINT64_MAX", hex("cf ff ff ff ff ff ff ff ff")});
  out.push_back({"INT64_MIN", hex("d3 80 00 00 00 00 00 00 00")});
  out.push_back({"trailing bytes", hex("01 c1 ff ff")});
  for (const byte_vector& msg : valid_messages())
    for (std::size_t cut = 0; cut < msg.size(); ++cut)
      out.push_back({"truncated at " + std::to_string(cut),
                     byte_vector(msg.begin(), msg.begin() + static_cast<std::ptrdiff_t>(cut))});
  return out;
}

}  // namespace mpk_test
