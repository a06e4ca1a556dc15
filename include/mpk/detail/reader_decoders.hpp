// mpk/detail/reader_decoders.hpp - internals of mpk/reader.hpp: one decoder per family of
// first bytes (integers, floats, str, bin, ext, headers), each reading one value from a
// pointer with at least 9 readable bytes after it. Not a public API.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mpk/config.hpp"
#include "mpk/detail/coerce.hpp"
#include "mpk/detail/endian.hpp"
#include "mpk/error.hpp"
#include "mpk/format.hpp"
#include "mpk/reader/options.hpp"
#include "mpk/unicode.hpp"

namespace mpk::inline v0 {
namespace detail {

/// A decoded value: `size` bytes consumed, or `ec` says why not.
template <class T>
struct decoded {
  T value{};
  std::size_t size = 0;
  errc ec = errc::ok;
};

template <class T>
MPK_ALWAYS_INLINE constexpr decoded<T> fail_with(errc ec) noexcept {
  return {T{}, 0, ec};
}

MPK_ALWAYS_INLINE constexpr std::uint8_t u8(const std::byte* p) noexcept {
  return std::to_integer<std::uint8_t>(*p);
}

/// The error for a marker that does not fit what was asked: 0xc1 is never valid.
MPK_ALWAYS_INLINE constexpr errc mismatch(std::uint8_t m) noexcept {
  return m == marker::never_used ? errc::invalid_marker : errc::type_mismatch;
}

/// The family of every first byte, for peek(): 256 bytes, four cache lines.
inline constexpr auto family_table = [] {
  std::array<type, 256> t{};
  for (std::size_t i = 0; i < 256; ++i)
    t[i] = marker_table[i].family;
  return t;
}();

/// Integers the typed reads accept: every integer type but bool and the character types.
template <class T>
inline constexpr bool is_read_integer =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
    !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> &&
    !std::is_same_v<T, char32_t>;

/// Converts the integer `v` (any width) into T (an integer type, float or double), checked by
/// detail::out_of_range_for when Checked.
template <bool Checked, class T, class Src>
MPK_ALWAYS_INLINE constexpr decoded<T> int_into(Src v, std::size_t n) noexcept {
  if constexpr (Checked) {
    if (out_of_range_for<T>(v)) [[unlikely]]
      return fail_with<T>(errc::out_of_range);
  }
  return {static_cast<T>(v), n, errc::ok};
}

// --- decoders --------------------------------------------------------------------------
//
// Each decoder reads the header at `h`, where at least `avail` bytes are readable (avail >= 1;
// the fast path passes avail >= 9, and the path for the last 8 bytes the real count): every
// header byte after the first is checked against `avail` before it is read (MPK_NEED_), and
// with avail >= 9 the compiler drops those checks. `at` is where the value is, for views.
// When Checked is false, `avail` is ignored and the input is trusted.
//
// A copy of the wire format kept for speed: these decoders, value_extent() (skip) and the
// document's parse loop read first bytes with branches of their own instead of through
// marker_table (mpk/format.hpp), the one description of every first byte. A table lookup
// puts a second load before the next value's address (marker, then table) where a predicted
// branch does not: measured on skip (docs/investigations.md, "W1: skip"). Cells these
// decoders carry, in instructions per unit at 1e5ba45 (mpk_bench --instructions under
// callgrind): small_fields/read_typed 21.8 and read_unchecked 16.0 per field,
// deep_nesting/examine_128 7,729. tests/wire_agreement_test.cpp checks every copy against
// marker_table for every first byte and every truncation.

#define MPK_NEED_(n)                                   \
  do {                                                 \
    if constexpr (Checked) {                           \
      if (avail < (n)) [[unlikely]]                    \
        return fail_with<value_type>(errc::truncated); \
    }                                                  \
  } while (0)

template <class T>
struct int_decoder {
  using value_type = T;
  template <bool Checked>
  MPK_ALWAYS_INLINE static decoded<T> run(const std::byte* h, const std::byte*, std::size_t avail,
                                          const limits&) noexcept {
    const std::uint8_t m = u8(h);
    if (m <= marker::positive_fixint_max) return {static_cast<T>(m), 1, errc::ok};
    if (m >= marker::negative_fixint_min)
      return int_into<Checked, T>(static_cast<std::int8_t>(m), 1);
    switch (m) {
      case marker::uint8:
        MPK_NEED_(2);
        return int_into<Checked, T>(u8(h + 1), 2);
      case marker::uint16:
        MPK_NEED_(3);
        return int_into<Checked, T>(load_be16(h + 1), 3);
      case marker::uint32:
        MPK_NEED_(5);
        return int_into<Checked, T>(load_be32(h + 1), 5);
      case marker::uint64:
        MPK_NEED_(9);
        return int_into<Checked, T>(load_be64(h + 1), 9);
      case marker::int8:
        MPK_NEED_(2);
        return int_into<Checked, T>(static_cast<std::int8_t>(u8(h + 1)), 2);
      case marker::int16:
        MPK_NEED_(3);
        return int_into<Checked, T>(static_cast<std::int16_t>(load_be16(h + 1)), 3);
      case marker::int32:
        MPK_NEED_(5);
        return int_into<Checked, T>(static_cast<std::int32_t>(load_be32(h + 1)), 5);
      case marker::int64:
        MPK_NEED_(9);
        return int_into<Checked, T>(static_cast<std::int64_t>(load_be64(h + 1)), 9);
      default:
        return fail_with<T>(mismatch(m));
    }
  }
};

template <class F>
struct float_decoder {
  using value_type = F;
  template <bool Checked>
  MPK_ALWAYS_INLINE static decoded<F> run(const std::byte* h, const std::byte*, std::size_t avail,
                                          const limits&) noexcept {
    const std::uint8_t m = u8(h);
    if (m == marker::float64) {
      MPK_NEED_(9);
      const double d = std::bit_cast<double>(load_be64(h + 1));
      if constexpr (Checked) {
        if (out_of_range_for<F>(d)) [[unlikely]]
          return fail_with<F>(errc::out_of_range);
      }
      return {static_cast<F>(d), 9, errc::ok};
    }
    if (m == marker::float32) {
      MPK_NEED_(5);
      return {static_cast<F>(std::bit_cast<float>(load_be32(h + 1))), 5, errc::ok};
    }
    if (m <= marker::positive_fixint_max) return {static_cast<F>(m), 1, errc::ok};
    if (m >= marker::negative_fixint_min)
      return {static_cast<F>(static_cast<std::int8_t>(m)), 1, errc::ok};
    switch (m) {
      case marker::uint8:
        MPK_NEED_(2);
        return {static_cast<F>(u8(h + 1)), 2, errc::ok};
      case marker::uint16:
        MPK_NEED_(3);
        return {static_cast<F>(load_be16(h + 1)), 3, errc::ok};
      case marker::uint32:
        MPK_NEED_(5);
        return int_into<Checked, F>(load_be32(h + 1), 5);
      case marker::uint64:
        MPK_NEED_(9);
        return int_into<Checked, F>(load_be64(h + 1), 9);
      case marker::int8:
        MPK_NEED_(2);
        return {static_cast<F>(static_cast<std::int8_t>(u8(h + 1))), 2, errc::ok};
      case marker::int16:
        MPK_NEED_(3);
        return {static_cast<F>(static_cast<std::int16_t>(load_be16(h + 1))), 3, errc::ok};
      case marker::int32:
        MPK_NEED_(5);
        return int_into<Checked, F>(static_cast<std::int32_t>(load_be32(h + 1)), 5);
      case marker::int64:
        MPK_NEED_(9);
        return int_into<Checked, F>(static_cast<std::int64_t>(load_be64(h + 1)), 9);
      default:
        return fail_with<F>(mismatch(m));
    }
  }
};

struct bool_decoder {
  using value_type = bool;
  template <bool Checked>
  MPK_ALWAYS_INLINE static decoded<bool> run(const std::byte* h, const std::byte*, std::size_t,
                                             const limits&) noexcept {
    const std::uint8_t m = u8(h);
    if (m == marker::true_value) return {true, 1, errc::ok};
    if (m == marker::false_value) return {false, 1, errc::ok};
    return fail_with<bool>(mismatch(m));
  }
};

struct nil_decoder {
  using value_type = std::nullptr_t;
  template <bool Checked>
  MPK_ALWAYS_INLINE static decoded<std::nullptr_t> run(const std::byte* h, const std::byte*,
                                                       std::size_t, const limits&) noexcept {
    const std::uint8_t m = u8(h);
    if (m == marker::nil) return {nullptr, 1, errc::ok};
    return fail_with<std::nullptr_t>(mismatch(m));
  }
};

/// Checks a payload of `len` bytes after a header of `head` bytes (head <= avail).
template <bool Checked>
MPK_ALWAYS_INLINE constexpr errc check_payload(std::size_t len, std::size_t head, std::size_t avail,
                                               std::uint32_t max) noexcept {
  if constexpr (Checked) {
    if (len > max) [[unlikely]]
      return errc::limit_exceeded;
    if (len > avail - head) [[unlikely]]
      return errc::truncated;
  }
  return errc::ok;
}

struct str_decoder {
  using value_type = std::string_view;
  template <bool Checked>
  MPK_ALWAYS_INLINE static decoded<std::string_view> run(const std::byte* h, const std::byte* at,
                                                         std::size_t avail,
                                                         const limits& lim) noexcept {
    const std::uint8_t m = u8(h);
    std::size_t len;
    std::size_t head;
    if ((m & 0xe0u) == marker::fixstr) {
      len = m & 0x1fu;
      head = 1;
    } else if (m == marker::str8) {
      MPK_NEED_(2);
      len = u8(h + 1);
      head = 2;
    } else if (m == marker::str16) {
      MPK_NEED_(3);
      len = load_be16(h + 1);
      head = 3;
    } else if (m == marker::str32) {
      MPK_NEED_(5);
      len = load_be32(h + 1);
      head = 5;
    } else {
      return fail_with<std::string_view>(mismatch(m));
    }
    if (errc ec = check_payload<Checked>(len, head, avail, lim.max_str_len); ec != errc::ok)
        [[unlikely]]
      return fail_with<std::string_view>(ec);
    return {std::string_view(reinterpret_cast<const char*>(at + head), len), head + len, errc::ok};
  }
};

struct bin_decoder {
  using value_type = std::span<const std::byte>;
  template <bool Checked>
  MPK_ALWAYS_INLINE static decoded<value_type> run(const std::byte* h, const std::byte* at,
                                                   std::size_t avail, const limits& lim) noexcept {
    const std::uint8_t m = u8(h);
    std::size_t len;
    std::size_t head;
    if (m == marker::bin8) {
      MPK_NEED_(2);
      len = u8(h + 1);
      head = 2;
    } else if (m == marker::bin16) {
      MPK_NEED_(3);
      len = load_be16(h + 1);
      head = 3;
    } else if (m == marker::bin32) {
      MPK_NEED_(5);
      len = load_be32(h + 1);
      head = 5;
    } else {
      return fail_with<value_type>(mismatch(m));
    }
    if (errc ec = check_payload<Checked>(len, head, avail, lim.max_bin_len); ec != errc::ok)
        [[unlikely]]
      return fail_with<value_type>(ec);
    return {value_type(at + head, len), head + len, errc::ok};
  }
};

struct ext_decoder {
  using value_type = ext_view;
  template <bool Checked>
  MPK_ALWAYS_INLINE static decoded<ext_view> run(const std::byte* h, const std::byte* at,
                                                 std::size_t avail, const limits& lim) noexcept {
    const std::uint8_t m = u8(h);
    std::size_t len;
    std::size_t head;
    switch (m) {
      case marker::fixext1:
        len = 1;
        head = 2;
        break;
      case marker::fixext2:
        len = 2;
        head = 2;
        break;
      case marker::fixext4:
        len = 4;
        head = 2;
        break;
      case marker::fixext8:
        len = 8;
        head = 2;
        break;
      case marker::fixext16:
        len = 16;
        head = 2;
        break;
      case marker::ext8:
        MPK_NEED_(3);
        len = u8(h + 1);
        head = 3;
        break;
      case marker::ext16:
        MPK_NEED_(4);
        len = load_be16(h + 1);
        head = 4;
        break;
      case marker::ext32:
        MPK_NEED_(6);
        len = load_be32(h + 1);
        head = 6;
        break;
      default:
        return fail_with<ext_view>(mismatch(m));
    }
    MPK_NEED_(head);  // fixext: the type byte
    if (errc ec = check_payload<Checked>(len, head, avail, lim.max_ext_len); ec != errc::ok)
        [[unlikely]]
      return fail_with<ext_view>(ec);
    return {ext_view{static_cast<std::int8_t>(u8(h + head - 1)), {at + head, len}}, head + len,
            errc::ok};
  }
};

/// Checks a container count: its limit, then the bytes it needs (`per` per item) against
/// those that remain after the header.
template <bool Checked>
MPK_ALWAYS_INLINE constexpr errc check_count(std::uint32_t n, std::size_t head, std::size_t avail,
                                             std::uint32_t max, unsigned per) noexcept {
  if constexpr (Checked) {
    if (n > max) [[unlikely]]
      return errc::limit_exceeded;
    if (n > (avail - head) / per) [[unlikely]]
      return errc::truncated;
  }
  return errc::ok;
}

template <bool IsMap>
struct header_decoder {
  using value_type = std::uint32_t;
  template <bool Checked>
  MPK_ALWAYS_INLINE static decoded<std::uint32_t> run(const std::byte* h, const std::byte*,
                                                      std::size_t avail,
                                                      const limits& lim) noexcept {
    constexpr std::uint8_t fix = IsMap ? marker::fixmap : marker::fixarray;
    constexpr std::uint8_t m16 = IsMap ? marker::map16 : marker::array16;
    constexpr std::uint8_t m32 = IsMap ? marker::map32 : marker::array32;
    const std::uint8_t m = u8(h);
    std::uint32_t n;
    std::size_t head;
    if ((m & 0xf0u) == fix) {
      n = m & 0x0fu;
      head = 1;
    } else if (m == m16) {
      MPK_NEED_(3);
      n = load_be16(h + 1);
      head = 3;
    } else if (m == m32) {
      MPK_NEED_(5);
      n = load_be32(h + 1);
      head = 5;
    } else {
      return fail_with<std::uint32_t>(mismatch(m));
    }
    const errc ec = check_count<Checked>(
        n, head, avail, IsMap ? lim.max_map_len : lim.max_array_len, IsMap ? 2u : 1u);
    if (ec != errc::ok) [[unlikely]]
      return fail_with<std::uint32_t>(ec);
    return {n, head, errc::ok};
  }
};

#undef MPK_NEED_

/// The decoder for read<T>(); void for an unsupported T.
template <class T>
auto pick_decoder() {
  if constexpr (std::is_same_v<T, bool>)
    return bool_decoder{};
  else if constexpr (is_read_integer<T>)
    return int_decoder<T>{};
  else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return float_decoder<T>{};
  else if constexpr (std::is_same_v<T, std::string_view>)
    return str_decoder{};
  else if constexpr (std::is_same_v<T, std::span<const std::byte>>)
    return bin_decoder{};
  else if constexpr (std::is_same_v<T, ext_view>)
    return ext_decoder{};
  else if constexpr (std::is_same_v<T, std::nullptr_t>)
    return nil_decoder{};
  else
    return;
}
template <class T>
using decoder_for = decltype(pick_decoder<T>());

}  // namespace detail
}  // namespace mpk::inline v0
