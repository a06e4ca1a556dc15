// mpk/detail/header.hpp - the encoder's one definition of every header: which size class a
// length, count or integer takes, and the bytes of that class.
//
// A header is a marker byte, then `width` bytes of big-endian number (0, 1, 2, 4 or 8): a
// length (str, bin, ext), a count (array, map) or an integer's value. The fix formats carry
// the number in the marker and have width 0. Each family has one ladder below that picks the
// class and hands it to a continuation as a `head<W>`, whose width is a compile-time
// constant: every store compiles to one move, the same code as a ladder written out at each
// call site, and the writer's value calls (write_str, write_ext, ...), its header calls
// (write_str_header, write_ext_header, begin_array, ...), the codec's pre-encoded keys and the
// records encoder all take their bytes from here.
//
//     detail::str_head(n, old_spec, [&](auto h) MPK_HEAD_LAMBDA {
//       // reserve h.size bytes at p, then:
//       detail::put_head(p, h, n);
//     });
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "mpk/config.hpp"  // MPK_ALWAYS_INLINE, MPK_HEAD_LAMBDA (the continuations' mark)
#include "mpk/detail/endian.hpp"
#include "mpk/format.hpp"

namespace mpk::inline v0::detail {

/// One size class: marker byte `marker`, then W bytes of big-endian number.
template <std::size_t W>
struct head {
  static_assert(W == 0 || W == 1 || W == 2 || W == 4 || W == 8);
  static constexpr bool fits = true;
  static constexpr std::size_t width = W;     ///< bytes of number after the marker
  static constexpr std::size_t size = 1 + W;  ///< bytes of the header (an ext adds its type byte)
  /// The largest number the W bytes hold (for the forced widths: write_str8, write_bin16, ...).
  static constexpr std::uint64_t max = W == 0 ? 0 : ~std::uint64_t{0} >> (64 - 8 * W) % 64;
  std::uint8_t marker;
};

/// What a ladder hands over for a length or count of 2^32 or more: errc::too_large.
struct too_large_head {
  static constexpr bool fits = false;
  static constexpr std::size_t size = 0;
};

/// The unsigned integer of W bytes.
template <std::size_t W>
using uint_of_width = std::conditional_t<
    W == 1, std::uint8_t,
    std::conditional_t<W == 2, std::uint16_t,
                       std::conditional_t<W == 4, std::uint32_t, std::uint64_t>>>;

/// Stores header `h` with number `n` (its low W bytes, big-endian) at `p`; returns the end.
/// Writes exactly h.size bytes.
template <std::size_t W>
MPK_ALWAYS_INLINE constexpr std::byte* put_head(std::byte* p, head<W> h, std::uint64_t n) noexcept {
  p[0] = std::byte{h.marker};
  if constexpr (W != 0) {
    if (std::is_constant_evaluated()) {  // the codec's keys, encoded at compile time
      for (std::size_t i = 0; i < W; ++i)
        p[1 + i] = static_cast<std::byte>(n >> 8 * (W - 1 - i));
    } else {
      store_be<uint_of_width<W>>(p + 1, static_cast<uint_of_width<W>>(n));
    }
  }
  return p + h.size;
}

// --- the ladders: each calls `f` with the class of its number and returns what f returns ----

/// A non-negative integer: positive fixint, uint8, uint16, uint32, uint64.
template <class F>
MPK_ALWAYS_INLINE constexpr decltype(auto) uint_head(std::uint64_t v, F&& f) {
  if (v <= marker::positive_fixint_max) return f(head<0>{static_cast<std::uint8_t>(v)});
  if (v <= 0xff) return f(head<1>{marker::uint8});
  if (v <= 0xffff) return f(head<2>{marker::uint16});
  if (v <= 0xffffffff) return f(head<4>{marker::uint32});
  return f(head<8>{marker::uint64});
}

/// A signed integer: as uint_head when >= 0 (what msgpack-python and msgpack-c write), else
/// negative fixint, int8, int16, int32, int64. Store it as static_cast<std::uint64_t>(v).
template <class F>
MPK_ALWAYS_INLINE constexpr decltype(auto) sint_head(std::int64_t v, F&& f) {
  if (v >= 0) return uint_head(static_cast<std::uint64_t>(v), static_cast<F&&>(f));
  if (v >= -32) return f(head<0>{static_cast<std::uint8_t>(v)});
  if (v >= INT8_MIN) return f(head<1>{marker::int8});
  if (v >= INT16_MIN) return f(head<2>{marker::int16});
  if (v >= INT32_MIN) return f(head<4>{marker::int32});
  return f(head<8>{marker::int64});
}

/// A str of `n` bytes: fixstr, str8 (not in old-spec mode: MessagePack before 2013 had no
/// str8), str16, str32.
template <class F>
MPK_ALWAYS_INLINE constexpr decltype(auto) str_head(std::size_t n, bool old_spec, F&& f) {
  if (n < 32) return f(head<0>{static_cast<std::uint8_t>(marker::fixstr | n)});
  if (n <= 0xff && !old_spec) return f(head<1>{marker::str8});
  if (n <= 0xffff) return f(head<2>{marker::str16});
  if (n <= max_length) return f(head<4>{marker::str32});
  return f(too_large_head{});
}

/// A bin of `n` bytes: bin8, bin16, bin32; in old-spec mode (no bin family) a str.
template <class F>
MPK_ALWAYS_INLINE constexpr decltype(auto) bin_head(std::size_t n, bool old_spec, F&& f) {
  if (old_spec) return str_head(n, true, static_cast<F&&>(f));
  if (n <= 0xff) return f(head<1>{marker::bin8});
  if (n <= 0xffff) return f(head<2>{marker::bin16});
  if (n <= max_length) return f(head<4>{marker::bin32});
  return f(too_large_head{});
}

/// An ext of `n` bytes of data: fixext1/2/4/8/16 (width 0) when n is one of those, else
/// ext8, ext16, ext32. The type byte follows the head (see put_ext_head).
template <class F>
MPK_ALWAYS_INLINE constexpr decltype(auto) ext_head(std::size_t n, F&& f) {
  // fixext1..fixext16 are consecutive markers for sizes 2^0..2^4.
  static_assert(marker::fixext16 - marker::fixext1 == 4);
  if (n <= 16 && (n & (n - 1)) == 0 &&
      n != 0)  // (not has_single_bit: a libgcc call without popcnt)
    return f(head<0>{static_cast<std::uint8_t>(marker::fixext1 + std::countr_zero(n))});
  if (n <= 0xff) return f(head<1>{marker::ext8});
  if (n <= 0xffff) return f(head<2>{marker::ext16});
  if (n <= max_length) return f(head<4>{marker::ext32});
  return f(too_large_head{});
}

/// An array (IsMap false) or map (IsMap true) of `n` elements or entries: fixarray/fixmap,
/// array16/map16, array32/map32.
template <bool IsMap, class F>
MPK_ALWAYS_INLINE constexpr decltype(auto) container_head(std::size_t n, F&& f) {
  if (n < 16)
    return f(head<0>{static_cast<std::uint8_t>((IsMap ? marker::fixmap : marker::fixarray) | n)});
  if (n <= 0xffff) return f(head<2>{IsMap ? marker::map16 : marker::array16});
  if (n <= max_length) return f(head<4>{IsMap ? marker::map32 : marker::array32});
  return f(too_large_head{});
}

/// Stores an ext header (head, then the type byte) at `p`; returns the end.
template <std::size_t W>
MPK_ALWAYS_INLINE std::byte* put_ext_head(std::byte* p, head<W> h, std::int8_t type,
                                          std::size_t n) noexcept {
  p = put_head(p, h, n);
  p[0] = static_cast<std::byte>(type);
  return p + 1;
}

// --- for callers that reserved room themselves (the codec's compile-time keys, records) ---

/// Bytes of the str header for `n` bytes (1, 2, 3 or 5; 0 when n >= 2^32).
constexpr std::size_t str_header_size(std::size_t n, bool old_spec = false) noexcept {
  return str_head(n, old_spec, [](auto h) MPK_HEAD_LAMBDA { return h.size; });
}
/// Bytes of the array or map header for `n` elements (1, 3 or 5; 0 when n >= 2^32).
constexpr std::size_t container_header_size(std::size_t n) noexcept {
  return container_head<false>(n, [](auto h) MPK_HEAD_LAMBDA { return h.size; });
}

/// Stores the str header for `n` bytes at `p` (room: 5 bytes); returns the end. Writes
/// nothing when n >= 2^32 (callers bound their strings far below).
constexpr std::byte* put_str_header(std::byte* p, std::size_t n, bool old_spec = false) noexcept {
  return str_head(n, old_spec, [&](auto h) MPK_HEAD_LAMBDA {
    if constexpr (decltype(h)::fits)
      return put_head(p, h, n);
    else
      return p;
  });
}
/// Stores the array (IsMap false) or map header for `n` elements at `p` (room: 5 bytes);
/// returns the end. Writes nothing when n >= 2^32.
template <bool IsMap>
constexpr std::byte* put_container_header(std::byte* p, std::size_t n) noexcept {
  return container_head<IsMap>(n, [&](auto h) MPK_HEAD_LAMBDA {
    if constexpr (decltype(h)::fits)
      return put_head(p, h, n);
    else
      return p;
  });
}

}  // namespace mpk::inline v0::detail
