// Shortest decimal text of a float64 / float32 (include/mpk/detail/float_format.hpp).
//
// The digits come from Schubfach (R. Giulietti, "The Schubfach way to render doubles", 2020),
// written here from the paper: for v = c * 2^q, pick k so that the rounding interval of v
// holds one or a few multiples of 10^k, compute v * 10^-k and both ends of the interval with
// one 128-bit power of ten each (rounded to odd, so that comparisons stay exact), then take
// the one multiple of 10^(k+1) in the interval when there is one, else the multiple of 10^k
// closest to v (ties to even). That is the shortest decimal that reads back as v, the
// closest one among the shortest: the digits std::to_chars prints (its Ryu gives the same).
//
// The layout follows libstdc++'s std::to_chars without a format: fixed or scientific,
// whichever is shorter, fixed on a tie; scientific has a sign and at least two exponent
// digits ("1e+300", "1e-07"); an integral value >= 2^53 (2^24 for float) in fixed form is
// printed exactly ("as if by printf"), so when its exact digits do not fit 64 bits the rare
// case goes to std::to_chars itself.
//
// The table of powers of ten is computed at compile time with exact big-integer arithmetic
// (make_pow10_table below); nothing is generated outside the compiler.
#include "mpk/detail/float_format.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace mpk::inline v0::detail {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// floor(e * log10(2)), floor(e * log10(3/4 * 2)) - see the paper -, floor(e * log2(10)):
// fixed-point approximations, exact for |e| <= 2000 at least (the range used is ~1100).
constexpr int floor_log10_pow2(int e) noexcept {
  return static_cast<int>((std::int64_t{e} * 661971961083) >> 41);
}
constexpr int floor_log10_three_quarters_pow2(int e) noexcept {
  return static_cast<int>((std::int64_t{e} * 661971961083 - 274743187321) >> 41);
}
constexpr int floor_log2_pow10(int e) noexcept {
  return static_cast<int>((std::int64_t{e} * 913124641741) >> 38);
}

// g(e) = floor(10^e * 2^(125 - floor_log2_pow10(e))) + 1, in [2^125, 2^126], for every e
// the double range needs (+ 1 even where the product is an integer: round_to_odd's dropped
// low bits absorb it); stored as hi * 2^63 + lo with hi, lo < 2^63.
constexpr int pow10_min = -292;
constexpr int pow10_max = 324;
struct pow10_entry {
  u64 hi;
  u64 lo;
};

// An unsigned integer of 1280 bits for the table's exact arithmetic (compile time only).
struct big_uint {
  static constexpr int limbs = 40;
  u32 w[limbs] = {};

  constexpr void mul10() {
    u64 carry = 0;
    for (u32& x : w) {
      const u64 t = u64{x} * 10 + carry;
      x = static_cast<u32>(t);
      carry = t >> 32;
    }
  }
  constexpr void div10() {
    u64 rem = 0;
    for (int i = limbs - 1; i >= 0; --i) {
      const u64 cur = rem << 32 | w[i];
      w[i] = static_cast<u32>(cur / 10);
      rem = cur % 10;
    }
  }
  // floor(*this / 2^shift) mod 2^127 + 1 (a negative shift multiplies) as a table entry: bits
  // 63..126 in hi, 0..62 in lo. Built bit by bit, so that no 128-bit type is needed.
  constexpr pow10_entry bits_from_plus_one(int shift) const {
    pow10_entry r{0, 1};
    for (int b = 0; b < 127; ++b) {
      const int pos = shift + b;
      if (pos < 0 || pos >= limbs * 32 || (w[pos / 32] >> (pos % 32) & 1) == 0) continue;
      if (b < 63) {
        r.lo += u64{1} << b;
      } else {
        r.hi |= u64{1} << (b - 63);
      }
    }
    if (r.lo >> 63 != 0) {  // the + 1 carried out of lo
      r.lo &= (u64{1} << 63) - 1;
      r.hi += 1;
    }
    return r;
  }
};

constexpr auto make_pow10_table() {
  std::array<pow10_entry, pow10_max - pow10_min + 1> table{};
  big_uint p;  // 10^e, e >= 0
  p.w[0] = 1;
  for (int e = 0; e <= pow10_max; ++e) {
    table[e - pow10_min] = p.bits_from_plus_one(floor_log2_pow10(e) - 125);
    p.mul10();
  }
  // 10^-m: floor(2^L / 10^m) by m divisions by 10 (floor of a floor is the floor), then
  // floor(2^(125 - F) / 10^m) = floor(floor(2^L / 10^m) / 2^(L - 125 + F)).
  constexpr int L = 1200;
  big_uint r;
  r.w[L / 32] = u32{1} << (L % 32);
  for (int m = 1; m <= -pow10_min; ++m) {
    r.div10();
    table[-m - pow10_min] = r.bits_from_plus_one(L - 125 + floor_log2_pow10(-m));
  }
  return table;
}

constexpr auto pow10_table = make_pow10_table();
static_assert(pow10_table[0 - pow10_min].hi == u64{1} << 62 && pow10_table[0 - pow10_min].lo == 1,
              "g(0) = 2^125 + 1");

// The 128-bit product a * b. unsigned __int128 where the compiler has it (64-bit GCC and
// Clang targets); else four 32 x 32 -> 64 products (32-bit targets such as i386).
struct product {
  u64 hi;
  u64 lo;
};
MPK_ALWAYS_INLINE product mul_64x64(u64 a, u64 b) noexcept {
#if defined(__SIZEOF_INT128__)
  __extension__ typedef unsigned __int128 u128;
  const u128 p = static_cast<u128>(a) * b;
  return {static_cast<u64>(p >> 64), static_cast<u64>(p)};
#else
  constexpr u64 low32 = 0xffffffff;
  const u64 p00 = (a & low32) * (b & low32), p01 = (a & low32) * (b >> 32);
  const u64 p10 = (a >> 32) * (b & low32), p11 = (a >> 32) * (b >> 32);
  const u64 mid = (p00 >> 32) + (p01 & low32) + (p10 & low32);  // < 3 * 2^32: no overflow
  return {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), mid << 32 | (p00 & low32)};
#endif
}

// Round to odd of g * cp / 2^127 as the paper computes it: the floor, with its low bit set
// when the rest is not zero, where the rest leaves out the low 64 bits of lo * cp and the
// last bit of hi * cp. Those dropped bits are what absorbs the + 1 of g (the paper proves
// the result equals the round to odd of the exact 10^e * cp * 2^-r for every double;
// float32 is checked exhaustively by the test's long mode). An exact product here would be
// wrong: it would see the + 1 and miss ties and interval ends that are exact.
MPK_ALWAYS_INLINE u64 round_to_odd(const pow10_entry& g, u64 cp) noexcept {
  const u64 x1 = mul_64x64(g.lo, cp).hi;
  const product y = mul_64x64(g.hi, cp);
  const u64 z = (y.lo >> 1) + x1;
  const u64 floor = y.hi + (z >> 63);
  return floor | static_cast<u64>((z & ((u64{1} << 63) - 1)) != 0);
}

struct decimal {
  u64 digits;  // value = digits * 10^exponent, digits not ending in 0
  int exponent;
};

// d * 10^k with the zeros at the end of d (d > 0) moved to k.
inline decimal without_trailing_zeros(u64 d, int k) noexcept {
  if (d % 10 != 0) return {d, k};  // the usual case for digits of a 16-17-digit double
  while (d % 100000000 == 0) {
    d /= 100000000;
    k += 8;
  }
  if (d % 10000 == 0) {
    d /= 10000;
    k += 4;
  }
  if (d % 100 == 0) {
    d /= 100;
    k += 2;
  }
  if (d % 10 == 0) {
    d /= 10;
    k += 1;
  }
  return {d, k};
}

// 5^0 .. 5^22.
constexpr auto powers_of_5 = [] {
  std::array<u64, 23> a{};
  a[0] = 1;
  for (std::size_t i = 1; i < a.size(); ++i)
    a[i] = a[i - 1] * 5;
  return a;
}();

// A shortcut for values with a short exact decimal expansion (integers below 2^53, 2^24 for
// float; and fractions with few binary digits for their size, like 12.25 = 49 * 2^-2 =
// 1225 * 10^-2): then that expansion is the shortest decimal in the rounding interval of
// v = c * 2^q (c > 0), and the closest to v. Writes it to `out` and returns true; false
// when the shortcut does not apply.
//
// Why: let v = D * 10^-j exactly, D not a multiple of 10. A decimal other than v within
// 10^-j of v cannot end at the digit of 10^-j (it would differ from v by a multiple of
// 10^-j), so it ends at 10^(1-j) or above, and every such number is at least 10^-j away
// from v (D's last digit is not 0): nothing else as short or shorter lies within 10^-j of
// v. The rounding interval reaches at most half an ulp, 2^(q-1), from v: when 2^q < 10^-j
// it holds v and nothing shorter. With v = m * 2^-j (m odd, j >= 1), D = m * 5^j, odd;
// 2^q < 10^-j is tz > j * (log2(10) - 1) where tz = j + q counts the zero bits at the end
// of c, checked as tz * 1000 > 2322 * j (2.322 > log2(10) - 1 = 2.3219...); then j < tz / 2.32
// <= 22 and D < 2^53 (c's 53 bits, with m * 5^j < m * 2^tz). An integer below 2^53 (q <= 0)
// has an ulp of at most 1 and is its own exact expansion (j = 0, after its zeros at the
// end are moved to the exponent, where the argument above runs with 10^k instead).
MPK_ALWAYS_INLINE bool exact_short(u64 c, int q, decimal& out) noexcept {
  const int tz = std::countr_zero(c);
  const int j = -(q + tz);  // v = (c >> tz) * 2^-j
  if (j <= 0) {
    if (q > 0) return false;  // an integer from 2^53 (2^24): not always exact in 64 bits' digits
    out = without_trailing_zeros(c >> -q, 0);
    return true;
  }
  if (tz * 1000 <= 2322 * j) return false;
  out = {(c >> tz) * powers_of_5[static_cast<std::size_t>(j)], -j};
  return true;
}

// The shortest decimal in the rounding interval of v = c * 2^q (c > 0), the closest to v
// among them. `irregular`: c is a power of two whose lower neighbour is closer (the interval
// is 1/4 below, 1/2 above).
MPK_ALWAYS_INLINE decimal shortest(u64 c, int q, bool irregular) noexcept {
  const u64 out = c & 1;  // an odd c excludes the interval's ends
  const u64 cb = c << 2;
  const u64 cbr = cb + 2;
  const u64 cbl = irregular ? cb - 1 : cb - 2;
  const int k = irregular ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
  const int h = q + floor_log2_pow10(-k) + 2;
  const pow10_entry& g = pow10_table[static_cast<std::size_t>(-k - pow10_min)];
  const u64 vb = round_to_odd(g, cb << h);  // 4 * v * 10^-k, to odd
  const u64 vbl = round_to_odd(g, cbl << h);
  const u64 vbr = round_to_odd(g, cbr << h);
  const u64 s = vb >> 2;
  // One digit fewer: at most one multiple of 10^(k+1) fits in the interval.
  const u64 sp10 = s / 10 * 10;
  const u64 tp10 = sp10 + 10;
  const bool sp10_in = vbl + out <= sp10 << 2;
  const bool tp10_in = (tp10 << 2) + out <= vbr;
  // Else s or t = s + 1, whichever is in; both in: the closer to v, ties to even. Neither
  // ends in 0: a multiple of 10 in the interval is the one above. Both are computed and one
  // is picked without a branch: which one it is depends on the data (for doubles of 16-17
  // digits, each about half the time), so a branch would often be mispredicted.
  const bool fewer = sp10_in != tp10_in;
  const u64 t = s + 1;
  const bool s_in = vbl + out <= s << 2;
  const bool t_in = (t << 2) + out <= vbr;
  const u64 middle = (s + t) << 1;
  const bool s_closer = vb < middle || (vb == middle && (s & 1) == 0);
  const bool pick_s = s_in & (!t_in | s_closer);
  const u64 closest = s + static_cast<u64>(!pick_s);
  const u64 multiple = (sp10_in ? sp10 : tp10) / 10;
  return without_trailing_zeros(fewer ? multiple : closest, k + static_cast<int>(fewer));
}

inline void put2(char* p, u32 x) noexcept {
  std::memcpy(p, &digit_pairs[2 * x], 2);
}

// Writes d * 10^k (the shortest digits of v = c * 2^q, d not ending in 0) in to_chars' layout, then
// ".0" when `json` and the text is a bare integer; returns the end, or nullptr for the rare
// integral value whose exact digits (which to_chars prints) need more than 64 bits.
template <bool json>
MPK_ALWAYS_INLINE char* put_decimal(char* p, u64 d, int k, u64 c, int q) noexcept {
  const int n = count_digits(d);
  const int x = k + n - 1;  // scientific exponent
  const int sci_len = n + (n > 1 ? 1 : 0) + (x <= -100 || x >= 100 ? 5 : 4);
  const int fixed_len = x >= 0 ? (x >= n - 1 ? x + 1 : n + 1) : n + 1 - x;
  if (fixed_len <= sci_len) {
    if (x >= n - 1) {
      // An integer (up to 5 zeros after the digits). At or above 2^53 (2^24) to_chars
      // prints its exact digits, not the shortest ones padded with zeros; below, the two
      // are the same.
      if (q > 0) {
        if (static_cast<int>(std::bit_width(c)) + q > 64) return nullptr;
        const u64 exact = c << q;
        const int digits = count_digits(exact);
        put_digits(p, exact, digits);
        p += digits;
      } else {
        put_digits(p, d, n);
        std::memcpy(p + n, "00000000", 8);
        p += x + 1;
      }
      if constexpr (json) {
        std::memcpy(p, ".0", 2);
        p += 2;
      }
      return p;
    }
    if (x >= 0) {  // a point among the digits: x + 1 digits before it
      if (n <= 8) {
        const u64 w = (digit_bytes(static_cast<u32>(d)) >> (8 * (8 - n))) + ascii_zeros;
        const int shift = 8 * (x + 1);  // <= 56
        const u64 head = (u64{1} << shift) - 1;
        store8(p, (w & head) | u64{'.'} << shift | (w & ~head) << 8);
        p[8] = static_cast<char>(w >> 56);  // the 8th digit, when n == 8
      } else {
        const u64 scale = powers_of_10[static_cast<std::size_t>(n - x - 1)];
        const u64 whole = d / scale;
        put_digits(p, whole, x + 1);
        p[x + 1] = '.';
        put_digits(p + x + 2, d - whole * scale, n - x - 1);
      }
      return p + n + 1;
    }
    std::memcpy(p, "0.000", 5);  // "0." and up to 3 zeros
    put_digits(p + 1 - x, d, n);
    return p + n + 1 - x;
  }
  if (n >= 16) {
    // 16 or 17 digits (most doubles) without a branch on which: as 17 digits at p + n - 16,
    // where a leading '0' (n == 16) lands on p[0], overwritten just below.
    const u64 high = d / 100000000;
    const u64 top = high / 100000000;  // 0 when n == 16
    const char first = store16_digits(p + n - 15, static_cast<u32>(high - top * 100000000),
                                      static_cast<u32>(d - high * 100000000));
    // The first digit (p[1], the '.', is written below), taken from the registers rather
    // than read back from the bytes just stored.
    p[0] = static_cast<char>(n > 16 ? '0' + top : first);
  } else {
    p[0] = put_digits(p + 1, d, n);
  }
  if (n > 1) {
    p[1] = '.';
    p += n + 1;
  } else {
    p += 1;
  }
  p[0] = 'e';
  p[1] = x < 0 ? '-' : '+';
  p += 2;
  u32 a = static_cast<u32>(x < 0 ? -x : x);
  if (a >= 100) {
    *p++ = static_cast<char>('0' + a / 100);
    a %= 100;
  }
  put2(p, a);
  return p + 2;
}

// IEEE layout of the two formats.
template <class F>
struct ieee;
template <>
struct ieee<double> {
  using bits = u64;
  static constexpr int mantissa_bits = 52;
  static constexpr int exponent_mask = 0x7ff;
  static constexpr int q_min = -1074;  // exponent of the subnormals
};
template <>
struct ieee<float> {
  using bits = u32;
  static constexpr int mantissa_bits = 23;
  static constexpr int exponent_mask = 0xff;
  static constexpr int q_min = -149;
};

template <bool json, class F>
char* format(char* first, F v) noexcept {
  using traits = ieee<F>;
  const auto bits = std::bit_cast<typename traits::bits>(v);
  char* p = first;
  if ((bits >> (sizeof bits * 8 - 1)) != 0) *p++ = '-';
  const u64 t = bits & ((u64{1} << traits::mantissa_bits) - 1);
  const int e = static_cast<int>(bits >> traits::mantissa_bits) & traits::exponent_mask;
  char* end = nullptr;
  if (e == 0 && t == 0) {
    *p++ = '0';
    end = p;
    if constexpr (json) {
      std::memcpy(end, ".0", 2);
      end += 2;
    }
    return end;
  }
  // v = c * 2^q: a normal value has the hidden bit, a subnormal one the smallest exponent.
  const u64 c = e != 0 ? t | u64{1} << traits::mantissa_bits : t;
  const int q = e != 0 ? e - 1 + traits::q_min : traits::q_min;
  decimal dec;
  if (!exact_short(c, q, dec)) dec = shortest(c, q, t == 0 && e > 1);
  end = put_decimal<json>(p, dec.digits, dec.exponent, c, q);
  if (end != nullptr) return end;
  // Rare: an integer of more than 64 bits printed in fixed form.
  end = std::to_chars(first, first + float_text_room, v).ptr;
  if constexpr (json) {
    if (std::memchr(first, 'e', static_cast<std::size_t>(end - first)) == nullptr &&
        std::memchr(first, '.', static_cast<std::size_t>(end - first)) == nullptr) {
      std::memcpy(end, ".0", 2);
      end += 2;
    }
  }
  return end;
}

}  // namespace

char* format_shortest(char* first, double v) noexcept {
  return format<false>(first, v);
}
char* format_shortest(char* first, float v) noexcept {
  return format<false>(first, v);
}
char* format_json_float(char* first, double v) noexcept {
  return format<true>(first, v);
}
char* format_json_float(char* first, float v) noexcept {
  return format<true>(first, v);
}

}  // namespace mpk::inline v0::detail
