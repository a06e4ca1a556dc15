// mpk/format.hpp - MessagePack wire-format constants and the first-byte table.
//
// `marker_table` is the one description of every first byte; the one choice of header for a
// length, count or integer is in detail/header.hpp. Other layers name markers through these
// constants only. Three decoders branch on them themselves, for speed: the reader's
// (detail/reader_decoders.hpp), its extents behind skip() (detail/reader_extent.hpp) and the
// document's parse loop (src/document.cpp); tests/wire_agreement_test.cpp checks them against
// marker_table for every first byte.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mpk::inline v0 {

/// The family of a MessagePack value, as `reader::peek()` reports it.
///
/// `uint` covers positive fixint and uint8..uint64; `sint` covers negative fixint and
/// int8..int64 (whatever the sign of the stored value). `invalid` is the reserved byte 0xc1.
enum class type : std::uint8_t {
  nil,
  boolean,
  uint,
  sint,
  float32,
  float64,
  str,
  bin,
  array,
  map,
  ext,
  invalid,
};

/// Lower-case name of a type family ("nil", "uint", "str", ...).
constexpr std::string_view type_name(type t) noexcept {
  constexpr std::string_view names[] = {"nil", "boolean", "uint",  "sint", "float32", "float64",
                                        "str", "bin",     "array", "map",  "ext",     "invalid"};
  auto i = static_cast<std::size_t>(t);
  return i < std::size(names) ? names[i] : "unknown";
}

/// Marker bytes of the MessagePack specification.
namespace marker {
inline constexpr std::uint8_t positive_fixint_max = 0x7f;
inline constexpr std::uint8_t fixmap = 0x80;    // 0x80..0x8f, low nibble = entry count
inline constexpr std::uint8_t fixarray = 0x90;  // 0x90..0x9f, low nibble = element count
inline constexpr std::uint8_t fixstr = 0xa0;    // 0xa0..0xbf, low 5 bits = byte length
inline constexpr std::uint8_t nil = 0xc0;
inline constexpr std::uint8_t never_used = 0xc1;
inline constexpr std::uint8_t false_value = 0xc2;
inline constexpr std::uint8_t true_value = 0xc3;
inline constexpr std::uint8_t bin8 = 0xc4;
inline constexpr std::uint8_t bin16 = 0xc5;
inline constexpr std::uint8_t bin32 = 0xc6;
inline constexpr std::uint8_t ext8 = 0xc7;
inline constexpr std::uint8_t ext16 = 0xc8;
inline constexpr std::uint8_t ext32 = 0xc9;
inline constexpr std::uint8_t float32 = 0xca;
inline constexpr std::uint8_t float64 = 0xcb;
inline constexpr std::uint8_t uint8 = 0xcc;
inline constexpr std::uint8_t uint16 = 0xcd;
inline constexpr std::uint8_t uint32 = 0xce;
inline constexpr std::uint8_t uint64 = 0xcf;
inline constexpr std::uint8_t int8 = 0xd0;
inline constexpr std::uint8_t int16 = 0xd1;
inline constexpr std::uint8_t int32 = 0xd2;
inline constexpr std::uint8_t int64 = 0xd3;
inline constexpr std::uint8_t fixext1 = 0xd4;
inline constexpr std::uint8_t fixext2 = 0xd5;
inline constexpr std::uint8_t fixext4 = 0xd6;
inline constexpr std::uint8_t fixext8 = 0xd7;
inline constexpr std::uint8_t fixext16 = 0xd8;
inline constexpr std::uint8_t str8 = 0xd9;
inline constexpr std::uint8_t str16 = 0xda;
inline constexpr std::uint8_t str32 = 0xdb;
inline constexpr std::uint8_t array16 = 0xdc;
inline constexpr std::uint8_t array32 = 0xdd;
inline constexpr std::uint8_t map16 = 0xde;
inline constexpr std::uint8_t map32 = 0xdf;
inline constexpr std::uint8_t negative_fixint_min = 0xe0;  // 0xe0..0xff = -32..-1
}  // namespace marker

/// Largest count or length any MessagePack header can carry (32-bit fields).
inline constexpr std::uint32_t max_length = 0xffffffffu;

/// What the first byte of a value says about the bytes that follow it.
///
/// A value is laid out as: marker, then `length_size` bytes of big-endian length or count
/// (0, 1, 2 or 4), then for ext one type byte, then the payload. `header_size` counts all of
/// that before the payload. `inline_size` is the payload length when the marker fixes it
/// (scalars, fixstr, fixext) or the element count of fixarray/fixmap.
struct marker_info {
  type family = type::invalid;
  std::uint8_t header_size = 1;
  std::uint8_t length_size = 0;
  std::uint8_t inline_size = 0;
  /// Name of the wire format ("positive fixint", "uint16", "str8", "fixext4", ...).
  std::string_view format_name = "never used";
};

namespace detail {
constexpr marker_info describe_marker(std::uint8_t m) noexcept {
  using T = type;
  if (m <= marker::positive_fixint_max) return {T::uint, 1, 0, 0, "positive fixint"};
  if (m >= marker::negative_fixint_min) return {T::sint, 1, 0, 0, "negative fixint"};
  if (m < marker::fixarray) return {T::map, 1, 0, std::uint8_t(m & 0x0f), "fixmap"};
  if (m < marker::fixstr) return {T::array, 1, 0, std::uint8_t(m & 0x0f), "fixarray"};
  if (m < marker::nil) return {T::str, 1, 0, std::uint8_t(m & 0x1f), "fixstr"};
  switch (m) {
    case marker::nil:
      return {T::nil, 1, 0, 0, "nil"};
    case marker::false_value:
      return {T::boolean, 1, 0, 0, "false"};
    case marker::true_value:
      return {T::boolean, 1, 0, 0, "true"};
    case marker::bin8:
      return {T::bin, 2, 1, 0, "bin8"};
    case marker::bin16:
      return {T::bin, 3, 2, 0, "bin16"};
    case marker::bin32:
      return {T::bin, 5, 4, 0, "bin32"};
    case marker::ext8:
      return {T::ext, 3, 1, 0, "ext8"};
    case marker::ext16:
      return {T::ext, 4, 2, 0, "ext16"};
    case marker::ext32:
      return {T::ext, 6, 4, 0, "ext32"};
    case marker::float32:
      return {T::float32, 1, 0, 4, "float32"};
    case marker::float64:
      return {T::float64, 1, 0, 8, "float64"};
    case marker::uint8:
      return {T::uint, 1, 0, 1, "uint8"};
    case marker::uint16:
      return {T::uint, 1, 0, 2, "uint16"};
    case marker::uint32:
      return {T::uint, 1, 0, 4, "uint32"};
    case marker::uint64:
      return {T::uint, 1, 0, 8, "uint64"};
    case marker::int8:
      return {T::sint, 1, 0, 1, "int8"};
    case marker::int16:
      return {T::sint, 1, 0, 2, "int16"};
    case marker::int32:
      return {T::sint, 1, 0, 4, "int32"};
    case marker::int64:
      return {T::sint, 1, 0, 8, "int64"};
    case marker::fixext1:
      return {T::ext, 2, 0, 1, "fixext1"};
    case marker::fixext2:
      return {T::ext, 2, 0, 2, "fixext2"};
    case marker::fixext4:
      return {T::ext, 2, 0, 4, "fixext4"};
    case marker::fixext8:
      return {T::ext, 2, 0, 8, "fixext8"};
    case marker::fixext16:
      return {T::ext, 2, 0, 16, "fixext16"};
    case marker::str8:
      return {T::str, 2, 1, 0, "str8"};
    case marker::str16:
      return {T::str, 3, 2, 0, "str16"};
    case marker::str32:
      return {T::str, 5, 4, 0, "str32"};
    case marker::array16:
      return {T::array, 3, 2, 0, "array16"};
    case marker::array32:
      return {T::array, 5, 4, 0, "array32"};
    case marker::map16:
      return {T::map, 3, 2, 0, "map16"};
    case marker::map32:
      return {T::map, 5, 4, 0, "map32"};
    default:
      return {};  // 0xc1
  }
}

constexpr std::array<marker_info, 256> make_marker_table() noexcept {
  std::array<marker_info, 256> table{};
  for (unsigned m = 0; m < 256; ++m)
    table[m] = describe_marker(static_cast<std::uint8_t>(m));
  return table;
}
}  // namespace detail

/// The 256-entry first-byte table: `marker_table[b]` describes marker byte `b`.
inline constexpr std::array<marker_info, 256> marker_table = detail::make_marker_table();

/// True for the markers whose value is a container (array or map).
constexpr bool is_container(type t) noexcept {
  return t == type::array || t == type::map;
}

}  // namespace mpk::inline v0
