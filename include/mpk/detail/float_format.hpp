// Internal: decimal text of numbers for the JSON layer. Floats: the shortest decimal text of a
// float64 / float32, the same characters as std::to_chars(first, last, v) (no format
// argument), but faster (src/float_format.cpp, Schubfach). Integers: format_decimal, inline
// here, the same characters as std::to_chars. Not a public API: the JSON layer
// (src/json.cpp) uses it.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mpk/config.hpp"

namespace mpk::inline v0::detail {

/// Room that format_shortest / format_json_float need at `first`: the text is at most 26
/// characters ("-2.2250738585072014e-308" is 24, plus ".0"), but they copy in fixed-size
/// blocks and may write scratch bytes up to first + float_text_room, after the text's end.
inline constexpr std::size_t float_text_room = 48;

/// Writes the shortest decimal text that reads back as the finite `v`, exactly as
/// std::to_chars(first, first + float_text_room, v) does (fixed or scientific, whichever is
/// shorter, fixed on a tie; ties between digits as to_chars breaks them), at `first`; returns
/// the end. The caller owns `first`, which must have float_text_room bytes (those after
/// the returned end hold scratch); `v` must be
/// finite (NaN and infinities are not handled). Example: 0.1 -> "0.1", 1e300 -> "1e+300".
MPK_API char* format_shortest(char* first, double v) noexcept;
MPK_API char* format_shortest(char* first, float v) noexcept;

/// format_shortest, then ".0" when the text has neither '.' nor an exponent, so that a JSON
/// reader sees a float, not an integer: 1.0 -> "1.0", 2.5 -> "2.5", 1e22 -> "1e+22".
MPK_API char* format_json_float(char* first, double v) noexcept;
MPK_API char* format_json_float(char* first, float v) noexcept;

// --- decimal digits, shared by the float and the integer writers ---------------------------

/// "00" "01" ... "99".
inline constexpr auto digit_pairs = [] {
  std::array<char, 200> a{};
  for (int i = 0; i < 100; ++i) {
    a[static_cast<std::size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    a[static_cast<std::size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return a;
}();

/// 10^0 .. 10^19.
inline constexpr auto powers_of_10 = [] {
  std::array<std::uint64_t, 20> a{};
  a[0] = 1;
  for (std::size_t i = 1; i < a.size(); ++i)
    a[i] = a[i - 1] * 10;
  return a;
}();

inline constexpr std::uint64_t ascii_zeros = 0x3030303030303030;

/// Stores the word `w` at p, its lowest byte first (whatever the machine's byte order).
inline void store8(char* p, std::uint64_t w) noexcept {
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  std::memcpy(p, &w, 8);
}

/// The eight decimal digits of x < 10^8 (leading zeros included) as the bytes of a word, the
/// first digit in the lowest byte, each byte 0..9: split in halves of four digits (one per
/// 32-bit lane), then each lane in two (/100 as * 10486 >> 20), then each 16-bit lane in two
/// (/10 as * 103 >> 10); every product stays inside its lane. Computing the digits in a
/// register and storing whole words avoids reloading bytes just stored (a stall).
inline std::uint64_t digit_bytes(std::uint32_t x) noexcept {
  std::uint64_t v = x / 10000 | std::uint64_t{x % 10000} << 32;
  std::uint64_t q = ((v * 10486) >> 20) & 0x0000007f0000007f;
  v = q | (v - q * 100) << 16;
  q = ((v * 103) >> 10) & 0x000f000f000f000f;
  return q | (v - q * 10) << 8;
}

/// The number of decimal digits of d (1 for 0).
inline int count_digits(std::uint64_t d) noexcept {
  const int t = (static_cast<int>(std::bit_width(d)) * 1233) >> 12;
  return t + (d >= powers_of_10[static_cast<std::size_t>(t)] ? 1 : 0);
}

/// Writes the 16 digits of first8 * 10^8 + last8 (both < 10^8; leading zeros included) at
/// dst, exactly 16 characters; returns the first one. With SSE2 (every x86-64) both halves
/// are split at once, lane by lane as digit_bytes does in a word: 64-bit lanes by 10^4
/// (* 0xd1b71759 >> 45, exact below 10^8), then 16-bit lanes by 100 (* 5243 >> 19, exact
/// below 10^4) and by 10 (* 6554 >> 16, exact below 100).
MPK_ALWAYS_INLINE char store16_digits(char* dst, std::uint32_t first8,
                                      std::uint32_t last8) noexcept {
#if defined(__SSE2__)
  const __m128i x = _mm_set_epi64x(last8, first8);  // first8 in the low lane: stored first
  const __m128i q = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi64x(0xd1b71759)), 45);
  const __m128i r = _mm_sub_epi64(x, _mm_mul_epu32(q, _mm_set1_epi64x(10000)));
  const __m128i v = _mm_or_si128(q, _mm_slli_epi64(r, 32));  // 32-bit lanes < 10^4
  const __m128i q2 = _mm_srli_epi16(_mm_mulhi_epu16(v, _mm_set1_epi16(5243)), 3);
  const __m128i r2 = _mm_sub_epi16(v, _mm_mullo_epi16(q2, _mm_set1_epi16(100)));
  const __m128i v2 = _mm_or_si128(q2, _mm_slli_epi32(r2, 16));  // 16-bit lanes < 100
  const __m128i q3 = _mm_mulhi_epu16(v2, _mm_set1_epi16(6554));
  const __m128i r3 = _mm_sub_epi16(v2, _mm_mullo_epi16(q3, _mm_set1_epi16(10)));
  const __m128i digits = _mm_add_epi8(_mm_or_si128(q3, _mm_slli_epi16(r3, 8)), _mm_set1_epi8('0'));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), digits);
  return static_cast<char>(_mm_cvtsi128_si32(digits));
#else
  const std::uint64_t w = digit_bytes(first8) + ascii_zeros;
  store8(dst, w);
  store8(dst + 8, digit_bytes(last8) + ascii_zeros);
  return static_cast<char>(w);
#endif
}

/// Writes the last n (1..20) digits of d, leading zeros included, at dst: exactly n
/// characters, with scratch up to dst + 8 when n < 8 (never beyond dst + max(n, 8)).
/// Returns the first character.
MPK_ALWAYS_INLINE char put_digits(char* dst, std::uint64_t d, int n) noexcept {
  if (n <= 8) {
    const std::uint64_t w =
        (digit_bytes(static_cast<std::uint32_t>(d % 100000000)) >> (8 * (8 - n))) + ascii_zeros;
    store8(dst, w);
    return static_cast<char>(w);
  }
  const std::uint64_t high = d / 100000000;
  const auto low = static_cast<std::uint32_t>(d - high * 100000000);
  std::uint64_t w = 0;
  if (n <= 10) {  // one pair of digits (its leading '0' skipped when n == 9), then 8 digits
    const char* const pair = &digit_pairs[static_cast<std::size_t>(2 * (high % 100)) + (n == 9)];
    std::memcpy(dst, pair, 2);
    w = static_cast<unsigned char>(pair[0]);
  } else if (n <= 16) {
    w = (digit_bytes(static_cast<std::uint32_t>(high % 100000000)) >> (8 * (16 - n))) + ascii_zeros;
    store8(dst, w);
  } else {  // the first n - 16 digits (< 10^4), then 16 over the scratch after them
    const std::uint64_t top = high / 100000000;
    w = (digit_bytes(static_cast<std::uint32_t>(top % 10000)) >> (8 * (24 - n))) + ascii_zeros;
    store8(dst, w);
    store16_digits(dst + (n - 16), static_cast<std::uint32_t>(high - top * 100000000), low);
    return static_cast<char>(w);
  }
  store8(dst + (n - 8), digit_bytes(low) + ascii_zeros);
  return static_cast<char>(w);
}

/// Room that format_decimal needs at `first`: the text is at most 20 characters
/// ("-9223372036854775808", "18446744073709551615"); scratch may follow it, up to first + 9.
inline constexpr std::size_t decimal_text_room = 24;

/// Writes `v` in decimal at `first`, the same characters as std::to_chars(first, last, v);
/// returns the end. The caller owns `first`, which must have decimal_text_room bytes (those
/// after the returned end may hold scratch). Example: 40123 -> "40123", -7 -> "-7".
inline char* format_decimal(char* first, std::uint64_t v) noexcept {
  if (v < 100) {  // one or two digits: one pair from the table (the leading '0' skipped)
    const bool one = v < 10;
    std::memcpy(first, &digit_pairs[static_cast<std::size_t>(2 * v) + one], 2);
    return first + 2 - one;
  }
  if (v < 10000) {  // three or four digits: two pairs
    const std::uint64_t high = v / 100;
    const bool three = high < 10;
    std::memcpy(first, &digit_pairs[static_cast<std::size_t>(2 * high) + three], 2);
    std::memcpy(first + 2 - three, &digit_pairs[static_cast<std::size_t>(2 * (v - high * 100))], 2);
    return first + 4 - three;
  }
  if (v < 100000000) {  // five to eight digits: the leading zero digits are the low zero bytes
    const std::uint64_t w = digit_bytes(static_cast<std::uint32_t>(v));
    const int zero_bits = std::countr_zero(w) & 56;  // w != 0: v >= 10^4
    store8(first, (w >> zero_bits) + ascii_zeros);
    return first + 8 - zero_bits / 8;
  }
  const int n = count_digits(v);
  put_digits(first, v, n);
  return first + n;
}
inline char* format_decimal(char* first, std::int64_t v) noexcept {
  *first = '-';
  // The magnitude of INT64_MIN is 2^63, which the unsigned arithmetic holds.
  const auto mag = static_cast<std::uint64_t>(v);
  return v < 0 ? format_decimal(first + 1, 0 - mag) : format_decimal(first, mag);
}

}  // namespace mpk::inline v0::detail
