// mpk/reader.hpp - a MessagePack pull reader over a span of bytes.
//
//     mpk::reader r(bytes);
//     std::uint32_t n = r.read_map_header();
//     for (std::uint32_t i = 0; i < n; ++i) {
//       std::string_view key = r.read_str();
//       if (key == "id") id = r.read<std::int64_t>();
//       else r.skip();
//     }
//     if (!r.ok()) return r.error();   // errors are sticky: check once, at the end
//
// How it is fast: every read makes one bounds check ("at least 9 bytes left?"), decodes the
// first byte through branches (the fix formats are arithmetic) and reads any header without
// further checks; values that straddle the last 8 bytes of the input take a cold,
// out-of-line path that decodes from a zero-padded copy. Strings and binaries are views into
// the input. `skip()`, `field_size()` and `raw_value()` walk nested values with a count of
// items still owed per level, never by recursion.
//
// How it is safe: every length and count is checked against `limits` and against the bytes
// that remain (an array needs at least 1 byte per element, a map 2 per entry) before it is
// used; integer and float conversions are range-checked; nesting is bounded by
// `limits::max_depth`. `unchecked_reader` drops those checks for trusted input only.
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

#include "mpk/detail/endian.hpp"
#include "mpk/error.hpp"
#include "mpk/format.hpp"
#include "mpk/unicode.hpp"

#ifndef MPK_ALWAYS_INLINE
#define MPK_ALWAYS_INLINE inline __attribute__((always_inline))
#endif
#ifndef MPK_COLD
#define MPK_COLD __attribute__((noinline, cold))
#endif

namespace mpk::inline v0 {

/// Bounds that a reader enforces on untrusted input. An aggregate: set the fields you need.
///
///     mpk::reader r(bytes, mpk::limits{.max_depth = 32, .max_str_len = 4096});
///
/// Lengths count payload bytes (str, bin, ext data); counts count elements (array) or
/// entries (map). A value above its limit is errc::limit_exceeded; nesting deeper than
/// `max_depth` in skip(), field_size() or raw_value() is errc::depth_exceeded.
struct limits {
  std::uint32_t max_depth = 512;           ///< nested containers (a top-level array is depth 1)
  std::uint32_t max_str_len = 64u << 20;   ///< bytes in one str (64 MiB)
  std::uint32_t max_bin_len = 64u << 20;   ///< bytes in one bin (64 MiB)
  std::uint32_t max_ext_len = 64u << 20;   ///< data bytes in one ext, fixext included (64 MiB)
  std::uint32_t max_array_len = 1u << 24;  ///< elements in one array (16 Mi)
  std::uint32_t max_map_len = 1u << 24;    ///< entries in one map (16 Mi)

  /// Every limit at its maximum (2^32 - 1): for input you trust. Lengths are still checked
  /// against the bytes that remain, and memory stays bounded by the input size.
  static constexpr limits trusted() noexcept {
    constexpr std::uint32_t m = std::numeric_limits<std::uint32_t>::max();
    return limits{m, m, m, m, m, m};
  }
};

/// Which strings a reader checks for valid UTF-8 (invalid ones are errc::invalid_utf8).
///
///     mpk::reader r(bytes, {}, mpk::utf8_check::all);
enum class utf8_check : std::uint8_t {
  owned,  ///< the default: read<std::string>() and read<std::u16string>() check, views do not
  all,    ///< views too: read<std::string_view>() and read_str()
  none,   ///< nothing but read<std::u16string>(), which cannot transcode invalid UTF-8
};

/// An extension value as read: its type (-128..127; negative types are reserved by the spec,
/// -1 is the timestamp) and a view of its data inside the input.
struct ext_view {
  std::int8_t type = 0;
  std::span<const std::byte> data;
};

/// Reader policy: every bounds, limit and range check (the default).
struct checked {};
/// Reader policy for trusted input: no bounds, limit, depth or range checks. Reading
/// malformed or truncated input with it is undefined behaviour.
struct unchecked {};

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

/// Converts the integer `v` (any width) into T, range-checked when Checked.
template <bool Checked, class T, class Src>
MPK_ALWAYS_INLINE constexpr decoded<T> int_into(Src v, std::size_t n) noexcept {
  if constexpr (Checked) {
    if (!std::in_range<T>(v)) [[unlikely]]
      return fail_with<T>(errc::out_of_range);
  }
  return {static_cast<T>(v), n, errc::ok};
}

/// True when the integer `v` converts to the floating-point type F without rounding.
template <class F, class Src>
MPK_ALWAYS_INLINE constexpr bool exact_in(Src v) noexcept {
  if constexpr (std::numeric_limits<Src>::digits <= std::numeric_limits<F>::digits) {
    return true;
  } else {
    // Exact when the significant bits, from the highest set one to the lowest, fit F's
    // mantissa. The magnitude of INT64_MIN is 2^63: one significant bit.
    std::uint64_t mag = static_cast<std::uint64_t>(v);
    if constexpr (std::is_signed_v<Src>) {
      if (v < 0) mag = 0 - mag;
    }
    if (mag == 0) return true;
    return std::bit_width(mag) - static_cast<unsigned>(std::countr_zero(mag)) <=
           static_cast<unsigned>(std::numeric_limits<F>::digits);
  }
}

template <bool Checked, class F, class Src>
MPK_ALWAYS_INLINE constexpr decoded<F> int_into_float(Src v, std::size_t n) noexcept {
  if constexpr (Checked) {
    if (!exact_in<F>(v)) [[unlikely]]
      return fail_with<F>(errc::out_of_range);
  }
  return {static_cast<F>(v), n, errc::ok};
}

// --- decoders --------------------------------------------------------------------------
//
// Each decoder reads the header at `h`, where at least `avail` bytes are readable (avail >= 1;
// the fast path passes the real input with avail >= 9, the cold path a zero-padded copy of
// the last few bytes with the real count). `at` is where the value really is, for views.
// When Checked is false, `avail` is ignored and the input is trusted.

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
      if constexpr (Checked && std::is_same_v<F, float>) {
        const double a = std::fabs(d);
        if (a > static_cast<double>(std::numeric_limits<float>::max()) &&
            a != std::numeric_limits<double>::infinity()) [[unlikely]]
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
        return int_into_float<Checked, F>(load_be32(h + 1), 5);
      case marker::uint64:
        MPK_NEED_(9);
        return int_into_float<Checked, F>(load_be64(h + 1), 9);
      case marker::int8:
        MPK_NEED_(2);
        return {static_cast<F>(static_cast<std::int8_t>(u8(h + 1))), 2, errc::ok};
      case marker::int16:
        MPK_NEED_(3);
        return {static_cast<F>(static_cast<std::int16_t>(load_be16(h + 1))), 3, errc::ok};
      case marker::int32:
        MPK_NEED_(5);
        return int_into_float<Checked, F>(static_cast<std::int32_t>(load_be32(h + 1)), 5);
      case marker::int64:
        MPK_NEED_(9);
        return int_into_float<Checked, F>(static_cast<std::int64_t>(load_be64(h + 1)), 9);
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

// --- extents, for skip / field_size / raw_value -----------------------------------------

/// What the first bytes of a value say about its extent.
struct extent {
  std::size_t size = 0;  ///< bytes of a scalar (header and payload) or of a container header
  std::size_t owed = 0;  ///< items a container holds (2 per map entry); 0 for scalars
  bool container = false;
  errc ec = errc::ok;
};

MPK_ALWAYS_INLINE constexpr extent scalar_extent(std::size_t n) noexcept {
  return {n, 0, false};
}
MPK_ALWAYS_INLINE constexpr extent bad_extent(errc ec) noexcept {
  return {0, 0, false, ec};
}

/// The extent of the value whose header is at `h` (same contract as the decoders).
template <bool Checked>
MPK_ALWAYS_INLINE extent value_extent(const std::byte* h, std::size_t avail,
                                      const limits& lim) noexcept {
#define MPK_NEED_(n)                        \
  do {                                      \
    if constexpr (Checked) {                \
      if (avail < (n)) [[unlikely]]         \
        return bad_extent(errc::truncated); \
    }                                       \
  } while (0)
#define MPK_PAYLOAD_(len, head, max)                                      \
  do {                                                                    \
    const errc ec_ = check_payload<Checked>((len), (head), avail, (max)); \
    if (ec_ != errc::ok) [[unlikely]]                                     \
      return bad_extent(ec_);                                             \
    return scalar_extent((head) + (len));                                 \
  } while (0)
#define MPK_COUNT_(n, head, max, per)                                        \
  do {                                                                       \
    const errc ec_ = check_count<Checked>((n), (head), avail, (max), (per)); \
    if (ec_ != errc::ok) [[unlikely]]                                        \
      return bad_extent(ec_);                                                \
    return extent{(head), std::size_t{(n)} * (per), true};                   \
  } while (0)

  const std::uint8_t m = u8(h);
  if (m <= marker::positive_fixint_max || m >= marker::negative_fixint_min) return scalar_extent(1);
  if (m < marker::nil) {
    if (m >= marker::fixstr) MPK_PAYLOAD_(std::size_t{m & 0x1fu}, std::size_t{1}, lim.max_str_len);
    if (m >= marker::fixarray) MPK_COUNT_(std::uint32_t{m & 0x0fu}, 1, lim.max_array_len, 1u);
    MPK_COUNT_(std::uint32_t{m & 0x0fu}, 1, lim.max_map_len, 2u);
  }
  switch (m) {
    case marker::nil:
    case marker::false_value:
    case marker::true_value:
      return scalar_extent(1);
    case marker::uint8:
    case marker::int8:
      MPK_NEED_(2);
      return scalar_extent(2);
    case marker::uint16:
    case marker::int16:
      MPK_NEED_(3);
      return scalar_extent(3);
    case marker::uint32:
    case marker::int32:
    case marker::float32:
      MPK_NEED_(5);
      return scalar_extent(5);
    case marker::uint64:
    case marker::int64:
    case marker::float64:
      MPK_NEED_(9);
      return scalar_extent(9);
    case marker::str8:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{u8(h + 1)}, 2, lim.max_str_len);
    case marker::str16:
      MPK_NEED_(3);
      MPK_PAYLOAD_(std::size_t{load_be16(h + 1)}, 3, lim.max_str_len);
    case marker::str32:
      MPK_NEED_(5);
      MPK_PAYLOAD_(std::size_t{load_be32(h + 1)}, 5, lim.max_str_len);
    case marker::bin8:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{u8(h + 1)}, 2, lim.max_bin_len);
    case marker::bin16:
      MPK_NEED_(3);
      MPK_PAYLOAD_(std::size_t{load_be16(h + 1)}, 3, lim.max_bin_len);
    case marker::bin32:
      MPK_NEED_(5);
      MPK_PAYLOAD_(std::size_t{load_be32(h + 1)}, 5, lim.max_bin_len);
    case marker::fixext1:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{1}, 2, lim.max_ext_len);
    case marker::fixext2:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{2}, 2, lim.max_ext_len);
    case marker::fixext4:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{4}, 2, lim.max_ext_len);
    case marker::fixext8:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{8}, 2, lim.max_ext_len);
    case marker::fixext16:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{16}, 2, lim.max_ext_len);
    case marker::ext8:
      MPK_NEED_(3);
      MPK_PAYLOAD_(std::size_t{u8(h + 1)}, 3, lim.max_ext_len);
    case marker::ext16:
      MPK_NEED_(4);
      MPK_PAYLOAD_(std::size_t{load_be16(h + 1)}, 4, lim.max_ext_len);
    case marker::ext32:
      MPK_NEED_(6);
      MPK_PAYLOAD_(std::size_t{load_be32(h + 1)}, 6, lim.max_ext_len);
    case marker::array16:
      MPK_NEED_(3);
      MPK_COUNT_(load_be16(h + 1), 3, lim.max_array_len, 1u);
    case marker::array32:
      MPK_NEED_(5);
      MPK_COUNT_(load_be32(h + 1), 5, lim.max_array_len, 1u);
    case marker::map16:
      MPK_NEED_(3);
      MPK_COUNT_(load_be16(h + 1), 3, lim.max_map_len, 2u);
    case marker::map32:
      MPK_NEED_(5);
      MPK_COUNT_(load_be32(h + 1), 5, lim.max_map_len, 2u);
    default:
      return bad_extent(errc::invalid_marker);  // 0xc1
  }
#undef MPK_NEED_
#undef MPK_PAYLOAD_
#undef MPK_COUNT_
}

/// The per-level counts of a walk: 64 levels inline, then heap memory that doubles as the
/// walk goes deeper (never beyond limits::max_depth levels, nor beyond one level per input
/// byte, since every container takes at least one byte).
class owed_stack {
 public:
  owed_stack() noexcept = default;
  owed_stack(const owed_stack&) = delete;
  owed_stack& operator=(const owed_stack&) = delete;
  ~owed_stack() {
    if (data_ != inline_) delete[] data_;
  }

  /// False when memory ran out.
  MPK_ALWAYS_INLINE bool push(std::size_t v) noexcept {
    if (size_ == capacity_) [[unlikely]] {
      if (!grow()) return false;
    }
    data_[size_++] = v;
    return true;
  }
  MPK_ALWAYS_INLINE std::size_t pop() noexcept { return data_[--size_]; }

 private:
  MPK_COLD bool grow() noexcept {
    const std::size_t cap = capacity_ * 2;
    auto* bigger = new (std::nothrow) std::size_t[cap];
    if (bigger == nullptr) return false;
    std::memcpy(bigger, data_, size_ * sizeof(std::size_t));
    if (data_ != inline_) delete[] data_;
    data_ = bigger;
    capacity_ = cap;
    return true;
  }

  static constexpr std::size_t inline_capacity = 64;
  std::size_t inline_[inline_capacity];
  std::size_t* data_ = inline_;
  std::size_t size_ = 0;
  std::size_t capacity_ = inline_capacity;
};

/// Where a reader points after an error in unchecked mode: every byte is 0xc1, so every
/// later read fails at its first byte without touching the input.
inline constexpr std::byte poison[16] = {
    std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1},
    std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1},
    std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1},
    std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}};

/// Runs decoder D when fewer than 9 bytes remain: on a zero-padded copy of them, checking
/// every length against the real count. Cold: at most once per message in practice.
template <class D>
MPK_COLD decoded<typename D::value_type> decode_short(const std::byte* p, const std::byte* end,
                                                      limits lim) noexcept {
  const auto avail = static_cast<std::size_t>(end - p);
  if (avail == 0) return fail_with<typename D::value_type>(errc::truncated);
  std::byte pad[16] = {};
  std::memcpy(pad, p, avail);
  return D::template run<true>(pad, p, avail, lim);
}

/// value_extent() when fewer than 9 bytes remain.
MPK_COLD inline extent extent_short(const std::byte* p, const std::byte* end,
                                    const limits& lim) noexcept {
  const auto avail = static_cast<std::size_t>(end - p);
  if (avail == 0) return bad_extent(errc::truncated);
  std::byte pad[16] = {};
  std::memcpy(pad, p, avail);
  return value_extent<true>(pad, avail, lim);
}

/// Where a walk ended: the end of the value, or the start of the offending one and why.
struct walk_result {
  const std::byte* at;
  errc ec;
};

/// Walks the complete value at `p` (a container, a short input or an error: scalars take the
/// inline path) with a count of the items still owed per level.
template <bool Checked>
[[gnu::noinline]] walk_result walk_nested(const std::byte* p, const std::byte* const end,
                                          const limits lim) noexcept {
  if constexpr (Checked) {
    owed_stack stack;
    std::size_t owed = 1;     // items still owed at the current level
    std::uint32_t depth = 0;  // containers open
    for (;;) {
      const auto avail = static_cast<std::size_t>(end - p);
      const extent x = avail >= 9 ? value_extent<true>(p, avail, lim) : extent_short(p, end, lim);
      if (x.ec != errc::ok) [[unlikely]]
        return {p, x.ec};
      --owed;
      if (x.container) {
        if (depth >= lim.max_depth) [[unlikely]]
          return {p, errc::depth_exceeded};
        if (x.owed != 0) {
          if (!stack.push(owed)) [[unlikely]]
            return {p, errc::out_of_memory};
          owed = x.owed;
          ++depth;
        }
      }
      p += x.size;
      while (owed == 0) {
        if (depth == 0) return {p, errc::ok};
        owed = stack.pop();
        --depth;
      }
    }
  } else {
    (void)end;
    std::size_t owed = 1;  // items still owed, all levels together
    do {
      const extent x = value_extent<false>(p, 0, lim);
      if (x.ec != errc::ok) [[unlikely]]
        return {p, x.ec};
      p += x.size;
      owed += x.owed - 1;
    } while (owed != 0);
    return {p, errc::ok};
  }
}

}  // namespace detail

/// A MessagePack pull reader over bytes in memory. It never copies or allocates (except for
/// `skip()` and friends on values nested deeper than 64 levels) and never throws.
///
/// Errors are sticky: the first one is recorded with the offset of the value it concerns,
/// every later call is a no-op that returns a default value, and you check `ok()` or
/// `error()` once at the end. After an error, `position()` is the error's offset,
/// `remaining()` is 0 and `at_end()` is true.
///
/// A reader is cheap to copy: copy it to look ahead, and throw the copy away.
///
/// With the `unchecked` policy (`mpk::unchecked_reader`) the reader trusts its input: it
/// skips every bounds, limit, depth and range check, so malformed or truncated input, or
/// reading past the end, is undefined behaviour. Type mismatches and 0xc1 are still errors.
template <class Policy = checked>
class basic_reader {
  static_assert(std::is_same_v<Policy, checked> || std::is_same_v<Policy, unchecked>,
                "mpk::basic_reader: the policy is mpk::checked or mpk::unchecked");
  static constexpr bool is_checked = std::is_same_v<Policy, checked>;

 public:
  using policy = Policy;

  /// A reader with no input: every read is errc::truncated.
  basic_reader() noexcept = default;

  /// A reader over `input`, enforcing `lim` (the default limits unless given) and checking
  /// the strings that `utf8` says for valid UTF-8.
  ///
  ///     mpk::reader r(std::span<const std::byte>(buf.data(), buf.size()));
  explicit basic_reader(std::span<const std::byte> input, limits lim = {},
                        utf8_check utf8 = utf8_check::owned) noexcept
      : begin_(input.data()),
        p_(input.data()),
        end_(input.data() + input.size()),
        lim_(lim),
        utf8_(utf8) {}

  /// A reader over `size` bytes at `data`.
  basic_reader(const void* data, std::size_t size, limits lim = {},
               utf8_check utf8 = utf8_check::owned) noexcept
      : basic_reader(std::span<const std::byte>(static_cast<const std::byte*>(data), size), lim,
                     utf8) {}

  /// A reader over the bytes of `input` (e.g. a std::string holding a message).
  explicit basic_reader(std::string_view input, limits lim = {},
                        utf8_check utf8 = utf8_check::owned) noexcept
      : basic_reader(input.data(), input.size(), lim, utf8) {}

  /// Starts again on `input`, with the same limits, and clears the error.
  void reset(std::span<const std::byte> input) noexcept {
    begin_ = p_ = input.data();
    end_ = input.data() + input.size();
    err_ = {};
  }

  /// The limits this reader enforces.
  const limits& get_limits() const noexcept { return lim_; }
  /// Which strings this reader checks for valid UTF-8.
  utf8_check get_utf8_check() const noexcept { return utf8_; }

  // --- state ---------------------------------------------------------------------------

  /// True when no bytes remain (or after an error).
  bool at_end() const noexcept { return p_ == end_; }
  /// Offset of the next value from the start of the input (after an error: its offset).
  std::size_t position() const noexcept {
    return err_.code != errc::ok ? err_.offset : static_cast<std::size_t>(p_ - begin_);
  }
  /// Bytes not read yet (0 after an error).
  std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - p_); }
  /// The first error and the offset of the value it concerns; errc::ok when none.
  mpk::error error() const noexcept { return err_; }
  /// True while no error happened.
  bool ok() const noexcept { return err_.code == errc::ok; }

  /// Records `e` as the reader's error (when there is none yet) and stops the reader, as any
  /// read error does; `e.offset` is an offset into the input (clamped to its size). For
  /// decoders layered on the reader that find a well-formed value invalid for their target
  /// (e.g. read_timestamp on nanoseconds >= 10^9).
  void set_error(mpk::error e) noexcept {
    if (e.code == errc::ok) return;
    const auto size = static_cast<std::size_t>(end_ - begin_);
    fail_at(begin_ + (e.offset < size ? e.offset : size), e.code);
  }

  // --- reading -------------------------------------------------------------------------

  /// The family of the next value, without consuming it.
  ///
  ///     switch (r.peek()) { case mpk::type::str: ...; case mpk::type::uint: ...; }
  ///
  /// Errors (returning type::invalid): errc::truncated at the end of the input,
  /// errc::invalid_marker on the byte 0xc1.
  [[nodiscard]] MPK_ALWAYS_INLINE type peek() noexcept {
    if constexpr (is_checked) {
      if (p_ == end_) [[unlikely]] {
        fail_at(p_, errc::truncated);
        return type::invalid;
      }
    }
    const type t = detail::family_table[detail::u8(p_)];
    if (t == type::invalid) [[unlikely]]
      fail_at(p_, errc::invalid_marker);
    return t;
  }

  /// Reads the next value as a T and consumes it. T is one of:
  /// - an integer type (int8_t..int64_t, uint8_t..uint64_t, long, ...; not char): accepts
  ///   every integer format, whatever its width or signedness, when the value fits T;
  /// - `bool`; `std::nullptr_t` (a nil);
  /// - `double`: accepts float32, float64 and integers that a double holds exactly;
  /// - `float`: accepts float32, float64 (rounded to nearest; NaN and infinities pass) and
  ///   integers that a float holds exactly;
  /// - `std::string_view` (a str), `std::span<const std::byte>` (a bin): views into the input;
  ///   a view is checked for UTF-8 only with utf8_check::all;
  /// - `std::string` (a str, copied; checked for UTF-8 unless utf8_check::none);
  /// - `std::u16string` (a str, transcoded from UTF-8; always checked, so it never holds a
  ///   lone surrogate);
  /// - `mpk::ext_view` (fixext1..16, ext8/16/32).
  ///
  ///     auto id = r.read<std::uint32_t>();   auto name = r.read<std::string_view>();
  ///
  /// Errors (returning T{} and consuming nothing): errc::truncated (the input ends inside the
  /// value), errc::invalid_marker (0xc1), errc::type_mismatch (another family, e.g. a float
  /// into an integer), errc::out_of_range (an integer that does not fit T, a finite double
  /// beyond float's range, an integer a float or double cannot hold exactly),
  /// errc::limit_exceeded (a str, bin or ext longer than its limit), errc::invalid_utf8 (a str
  /// that is not UTF-8, where checked; the offset is the str's), errc::out_of_memory (copying
  /// into a std::string or std::u16string failed).
  template <class T>
  [[nodiscard]] MPK_ALWAYS_INLINE T read() noexcept {
    if constexpr (std::is_same_v<T, std::string>) {
      return read_string();
    } else if constexpr (std::is_same_v<T, std::u16string>) {
      return read_u16string();
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      return read_str();
    } else {
      static_assert(!std::is_same_v<T, char> && !std::is_same_v<T, wchar_t> &&
                        !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> &&
                        !std::is_same_v<T, char32_t>,
                    "mpk::reader::read<T>: character types are not integers here; read "
                    "std::int8_t / std::uint8_t, or read<std::string_view>() for text");
      static_assert(!std::is_void_v<detail::decoder_for<T>>,
                    "mpk::reader::read<T>: T must be an integer, bool, float, double, "
                    "std::string_view, std::string, std::u16string, "
                    "std::span<const std::byte>, std::nullptr_t or mpk::ext_view");
      return read_with<detail::decoder_for<T>>();
    }
  }

  /// Reads a nil. Errors: errc::truncated, errc::invalid_marker, errc::type_mismatch.
  MPK_ALWAYS_INLINE void read_nil() noexcept { (void)read_with<detail::nil_decoder>(); }

  /// Consumes the next value and returns true if it is a nil; otherwise (also at the end of
  /// the input or after an error) returns false, consumes nothing and records no error.
  ///
  ///     std::optional<int> v; if (!r.try_read_nil()) v = r.read<int>();
  [[nodiscard]] MPK_ALWAYS_INLINE bool try_read_nil() noexcept {
    if (p_ != end_ && detail::u8(p_) == marker::nil) {
      ++p_;
      return true;
    }
    return false;
  }

  /// Reads a str (fixstr, str8/16/32) as a view into the input; checked for UTF-8 only
  /// with utf8_check::all.
  /// Errors (returning ""): errc::truncated, errc::invalid_marker, errc::type_mismatch,
  /// errc::limit_exceeded (longer than limits::max_str_len), errc::invalid_utf8 (with
  /// utf8_check::all; the offset is the str's).
  [[nodiscard]] MPK_ALWAYS_INLINE std::string_view read_str() noexcept {
    const std::byte* const at = p_;
    const std::string_view s = read_with<detail::str_decoder>();
    if (utf8_ == utf8_check::all && !is_valid_utf8(s)) [[unlikely]]
      return invalid_utf8_at(at);
    return s;
  }

  /// Reads a str into a new std::string, checked for UTF-8 unless utf8_check::none.
  /// Errors (returning ""): those of read_str(), errc::invalid_utf8, errc::out_of_memory.
  [[nodiscard]] std::string read_string() noexcept {
    const std::byte* const at = p_;
    const std::string_view s = read_with<detail::str_decoder>();
    if (utf8_ != utf8_check::none && !is_valid_utf8(s)) [[unlikely]]
      return std::string(invalid_utf8_at(at));
#if __cpp_exceptions
    try {
      return std::string(s);
    } catch (const std::bad_alloc&) {
      fail_at(at, errc::out_of_memory);
      return {};
    }
#else
    return std::string(s);
#endif
  }

  /// Reads a str into a new std::u16string, transcoded from UTF-8 (always checked: the
  /// result never holds a lone surrogate).
  /// Errors (returning u""): those of read_str(), errc::invalid_utf8, errc::out_of_memory.
  [[nodiscard]] std::u16string read_u16string() noexcept {
    const std::byte* const at = p_;
    const std::string_view s = read_with<detail::str_decoder>();
    std::u16string out;
#if __cpp_exceptions
    try {
#endif
      out.resize(s.size());  // one code unit per byte at most
#if __cpp_exceptions
    } catch (const std::bad_alloc&) {
      fail_at(at, errc::out_of_memory);
      return {};
    }
#endif
    const detail::transcoded t = detail::utf8_to_utf16_raw(s.data(), s.size(), out.data());
    if (t.error_at != detail::transcoded::no_error) [[unlikely]] {
      invalid_utf8_at(at);
      return {};
    }
    out.resize(t.count);  // shrinking: no allocation
    return out;
  }

  /// Reads a bin (bin8/16/32) as a view into the input.
  /// Errors (returning an empty span): errc::truncated, errc::invalid_marker,
  /// errc::type_mismatch, errc::limit_exceeded (longer than limits::max_bin_len).
  [[nodiscard]] MPK_ALWAYS_INLINE std::span<const std::byte> read_bin() noexcept {
    return read_with<detail::bin_decoder>();
  }

  /// Reads an extension value (fixext1..16, ext8/16/32); its data is a view into the input.
  /// Errors (returning {0, {}}): errc::truncated, errc::invalid_marker, errc::type_mismatch,
  /// errc::limit_exceeded (data longer than limits::max_ext_len).
  [[nodiscard]] MPK_ALWAYS_INLINE ext_view read_ext() noexcept {
    return read_with<detail::ext_decoder>();
  }

  /// Reads an array header and returns its element count; read (or skip) that many values
  /// next.
  ///
  ///     for (auto n = r.read_array_header(); n > 0; --n) sum += r.read<double>();
  ///
  /// Errors (returning 0): errc::truncated (also when fewer bytes remain than elements: each
  /// needs one at least), errc::invalid_marker, errc::type_mismatch, errc::limit_exceeded
  /// (more than limits::max_array_len). Depth is not tracked here: the caller nests.
  [[nodiscard]] MPK_ALWAYS_INLINE std::uint32_t read_array_header() noexcept {
    return read_with<detail::header_decoder<false>>();
  }

  /// Reads a map header and returns its entry count; read that many key/value pairs next.
  /// Errors (returning 0): errc::truncated (also when fewer than 2 bytes per entry remain),
  /// errc::invalid_marker, errc::type_mismatch, errc::limit_exceeded (more than
  /// limits::max_map_len).
  [[nodiscard]] MPK_ALWAYS_INLINE std::uint32_t read_map_header() noexcept {
    return read_with<detail::header_decoder<true>>();
  }

  // --- whole values --------------------------------------------------------------------

  /// Consumes the next complete value, however nested, without recursion.
  ///
  ///     if (key != "id") r.skip();
  ///
  /// Errors: errc::truncated, errc::invalid_marker (0xc1 anywhere inside),
  /// errc::limit_exceeded (a length or count above its limit), errc::depth_exceeded (nesting
  /// beyond limits::max_depth), errc::out_of_memory (only when nesting beyond 64 levels and
  /// an allocation fails). The error offset is that of the innermost offending value.
  MPK_ALWAYS_INLINE void skip() noexcept { p_ += value_size(); }

  /// The size in bytes of the next complete value, without consuming it. Agrees exactly
  /// with skip() and raw_value().
  ///
  ///     std::size_t n = r.field_size();   // bytes of the next value, header included
  ///
  /// Errors (returning 0): those of skip().
  [[nodiscard]] MPK_ALWAYS_INLINE std::size_t field_size() noexcept { return value_size(); }

  /// Consumes the next complete value and returns its bytes (a view into the input), e.g.
  /// to store or forward it undecoded.
  ///
  ///     std::span<const std::byte> payload = r.raw_value();
  ///
  /// Errors (returning an empty span): those of skip().
  [[nodiscard]] MPK_ALWAYS_INLINE std::span<const std::byte> raw_value() noexcept {
    const std::byte* const s = p_;
    const std::size_t n = value_size();
    p_ += n;
    return {s, n};
  }

 private:
  // The hot paths are inline and hand nothing but values to out-of-line code (never `this`
  // nor the address of a member), so a reader in a local variable lives in registers.

  /// Runs decoder D on the next value.
  template <class D>
  MPK_ALWAYS_INLINE typename D::value_type read_with() noexcept {
    const std::byte* const p = p_;
    if constexpr (is_checked) {
      const auto avail = static_cast<std::size_t>(end_ - p);
      if (avail >= 9) [[likely]]
        return finish(D::template run<true>(p, p, avail, lim_));
      return finish(detail::decode_short<D>(p, end_, limits_copy()));
    } else {
      return finish(D::template run<false>(p, p, 0, lim_));
    }
  }

  template <class T>
  MPK_ALWAYS_INLINE T finish(const detail::decoded<T>& d) noexcept {
    if (d.ec == errc::ok) [[likely]] {
      p_ += d.size;
      return d.value;
    }
    fail_at(p_, d.ec);
    return T{};
  }

  /// The size of the complete value at p_, or 0 after recording an error (every value takes
  /// one byte at least). Scalars take the inline path; containers, errors and the last few
  /// bytes of the input take walk_nested().
  MPK_ALWAYS_INLINE std::size_t value_size() noexcept {
    const std::byte* const p = p_;
    if constexpr (is_checked) {
      const auto avail = static_cast<std::size_t>(end_ - p);
      if (avail >= 9) [[likely]] {
        const detail::extent x = detail::value_extent<true>(p, avail, lim_);
        if (!x.container && x.ec == errc::ok) [[likely]]
          return x.size;
      }
    } else {
      const detail::extent x = detail::value_extent<false>(p, 0, lim_);
      if (!x.container && x.ec == errc::ok) [[likely]]
        return x.size;
    }
    const detail::walk_result w = detail::walk_nested<is_checked>(p, end_, limits_copy());
    if (w.ec != errc::ok) [[unlikely]] {
      fail_at(w.at, w.ec);
      return 0;
    }
    return static_cast<std::size_t>(w.at - p);
  }

  /// Records errc::invalid_utf8 for the str at `at` (already consumed: the reader stops there).
  MPK_COLD std::string_view invalid_utf8_at(const std::byte* at) noexcept {
    fail_at(at, errc::invalid_utf8);
    return {};
  }

  /// The limits, copied field by field: the out-of-line paths get a copy, never the member
  /// itself (a compiler may pass a by-value aggregate by address, and the reader would then
  /// no longer live in registers).
  MPK_ALWAYS_INLINE limits limits_copy() const noexcept {
    return limits{lim_.max_depth,   lim_.max_str_len,   lim_.max_bin_len,
                  lim_.max_ext_len, lim_.max_array_len, lim_.max_map_len};
  }

  /// Records the first error (a later one is ignored) and stops the reader: the end moves to
  /// the error's position, so every later read falls into the short path and fails there,
  /// without touching the error. The unchecked reader moves to a run of 0xc1 bytes instead,
  /// on which every read fails at once.
  MPK_ALWAYS_INLINE void fail_at(const std::byte* where, errc code) noexcept {
    if (err_.code != errc::ok) return;
    err_ = {code, static_cast<std::size_t>(where - begin_)};
    if constexpr (is_checked) {
      p_ = end_ = where;
    } else {
      p_ = end_ = detail::poison;
    }
  }

  const std::byte* begin_ = nullptr;
  const std::byte* p_ = nullptr;
  const std::byte* end_ = nullptr;
  limits lim_{};
  mpk::error err_{};
  utf8_check utf8_ = utf8_check::owned;
};

/// The reader for untrusted input: every check on (the default policy).
using reader = basic_reader<checked>;
/// The reader for trusted input only: no bounds, limit, depth or range checks. Malformed or
/// truncated input is undefined behaviour: never use it on bytes an attacker can influence.
using unchecked_reader = basic_reader<unchecked>;

}  // namespace mpk::inline v0
