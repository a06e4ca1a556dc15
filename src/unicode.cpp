// UTF-8 validation and UTF-16 <-> UTF-8 transcoding (see mpk/unicode.hpp).
//
// Every loop starts with an ASCII fast path that looks at 8 bytes (UTF-8) or 8 code units
// (UTF-16, two 64-bit words) at a time: most text in MessagePack is ASCII, and a word test
// is one AND per 8 characters. Anything else goes through a branchy scalar decoder that
// follows the table of well-formed byte sequences of the Unicode standard (table 3-7).
// Mixed text has SIMD kernels chosen at run time (SSSE3 and AVX-512 for UTF-16 -> UTF-8,
// AVX-512 after simdjson's validator for UTF-8 -> UTF-16); the scalar code is their
// reference in the tests and reports every error's offset.
#include "mpk/unicode.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <new>

#if MPK_USE_SIMDJSON
#include <simdjson.h>
#endif

// SSE2 is part of baseline x86-64: 16 code units or bytes per step, with no runtime dispatch.
// Elsewhere the portable 8-at-a-time word path does the same job.
#if defined(__SSE2__)
#include <emmintrin.h>
#define MPK_UNICODE_SSE2 1
#else
#define MPK_UNICODE_SSE2 0
#endif

// UTF-16 -> UTF-8 of non-ASCII text needs a byte shuffle (SSSE3's pshufb) to pack the 1, 2 or
// 3 bytes of each code unit together. SSSE3 is not baseline x86-64, so that kernel is compiled
// for it alone (a target attribute) and chosen at run time when the CPU has it.
#if MPK_UNICODE_SSE2 && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#include <tmmintrin.h>
#define MPK_UNICODE_SSSE3 1
#else
#define MPK_UNICODE_SSSE3 0
#endif

// With AVX-512 VBMI2 (also chosen at run time) a byte compress replaces the shuffle table
// and 16 code units go per vector. GCC >= 10 and Clang >= 8 know the intrinsics.
#if MPK_UNICODE_SSSE3 && defined(__x86_64__) && \
    ((defined(__clang__) && __clang_major__ >= 8) || (!defined(__clang__) && __GNUC__ >= 10))
#include <immintrin.h>
#define MPK_UNICODE_AVX512 1
#else
#define MPK_UNICODE_AVX512 0
#endif

// The ASCII scan ahead of UTF-8 validation reads 32 bytes per load with AVX2 (chosen at run
// time, like SSSE3: not baseline x86-64), 16 with SSE2.
#define MPK_UNICODE_AVX2 MPK_UNICODE_SSSE3
#if MPK_UNICODE_AVX2
#include <immintrin.h>
#endif

namespace mpk::inline v0 {
namespace detail {
namespace {

using uchar = unsigned char;

constexpr std::uint64_t high_bits_8 = 0x8080808080808080u;   // bit 7 of each byte
constexpr std::uint64_t non_ascii_16 = 0xff80ff80ff80ff80u;  // bits 7..15 of each unit

/// Native byte order. Its users only mask a bit of every byte (or a unit's bits, a char16_t
/// staying whole in its 16-bit lane either way) or hand the word to pack_ascii4, so no code
/// depends on where a byte lands.
inline std::uint64_t load64(const void* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline bool is_continuation(uchar b) noexcept {
  return (b & 0xc0u) == 0x80u;
}

/// A decoded non-ASCII UTF-8 sequence: its code point and length, or size 0 when invalid.
struct code_point {
  std::uint32_t value;
  std::size_t size;
};

/// Decodes the sequence at `p` (whose first byte is >= 0x80) with `avail` bytes readable.
inline code_point decode_multibyte(const uchar* p, std::size_t avail) noexcept {
  const std::uint32_t b0 = p[0];
  if (b0 < 0xc2) return {0, 0};  // a continuation byte, or C0/C1 (overlong 2-byte forms)
  if (b0 < 0xe0) {
    if (avail < 2 || !is_continuation(p[1])) return {0, 0};
    return {((b0 & 0x1fu) << 6) | (p[1] & 0x3fu), 2};
  }
  if (b0 < 0xf0) {
    if (avail < 3 || !is_continuation(p[1]) || !is_continuation(p[2])) return {0, 0};
    if (b0 == 0xe0 && p[1] < 0xa0) return {0, 0};   // overlong (below U+0800)
    if (b0 == 0xed && p[1] >= 0xa0) return {0, 0};  // a surrogate, U+D800..U+DFFF
    return {((b0 & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu), 3};
  }
  if (b0 < 0xf5) {
    if (avail < 4 || !is_continuation(p[1]) || !is_continuation(p[2]) || !is_continuation(p[3]))
      return {0, 0};
    if (b0 == 0xf0 && p[1] < 0x90) return {0, 0};   // overlong (below U+10000)
    if (b0 == 0xf4 && p[1] >= 0x90) return {0, 0};  // above U+10FFFF
    return {((b0 & 0x07u) << 18) | ((p[1] & 0x3fu) << 12) | ((p[2] & 0x3fu) << 6) | (p[3] & 0x3fu),
            4};
  }
  return {0, 0};  // F5..FF never appear in UTF-8
}

/// Writes code point `c` as UTF-16 (one unit, or a surrogate pair) at `o` and advances it.
inline void put_utf16(std::uint32_t c, char16_t*& o) noexcept {
  if (c < 0x10000u) {
    *o++ = static_cast<char16_t>(c);
  } else {
    const std::uint32_t v = c - 0x10000u;
    o[0] = static_cast<char16_t>(0xd800u | (v >> 10));
    o[1] = static_cast<char16_t>(0xdc00u | (v & 0x3ffu));
    o += 2;
  }
}

/// Packs 4 UTF-16 code units below 0x80 (one 64-bit word, native order) into 4 bytes, to be
/// stored in native order. The same shifts serve both byte orders: each unit's byte moves
/// next to its neighbour toward the low end of the word, and the host order puts units and
/// bytes in the same sequence (little-endian: unit 0 lowest; big-endian: unit 0 highest).
inline std::uint32_t pack_ascii4(std::uint64_t w) noexcept {
  w = (w | (w >> 8)) & 0x0000ffff0000ffffu;
  return static_cast<std::uint32_t>(w | (w >> 16));
}

#if MPK_UNICODE_SSE2
/// True when the 16 code units at `in` are all below 0x80; `a`, `b` receive them.
inline bool ascii16(const char16_t* in, __m128i& a, __m128i& b) noexcept {
  a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
  b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 8));
  const __m128i high =
      _mm_and_si128(_mm_or_si128(a, b), _mm_set1_epi16(static_cast<short>(0xff80)));
  return _mm_movemask_epi8(_mm_cmpeq_epi16(high, _mm_setzero_si128())) == 0xffff;
}
#endif

inline bool is_high_surrogate(std::uint32_t u) noexcept {
  return (u & 0xfc00u) == 0xd800u;
}
inline bool is_low_surrogate(std::uint32_t u) noexcept {
  return (u & 0xfc00u) == 0xdc00u;
}

/// Writes the UTF-8 form of the code unit at in[i] (with in[i + 1] for a surrogate pair) at
/// `o` and advances it; returns the code units consumed (1 or 2), 0 for a lone surrogate.
inline std::size_t encode_one(const char16_t* in, std::size_t n, std::size_t i,
                              uchar*& o) noexcept {
  const std::uint32_t u = in[i];
  if (u < 0x80) {
    *o++ = static_cast<uchar>(u);
  } else if (u < 0x800) {
    o[0] = static_cast<uchar>(0xc0u | (u >> 6));
    o[1] = static_cast<uchar>(0x80u | (u & 0x3fu));
    o += 2;
  } else if (!is_high_surrogate(u) && !is_low_surrogate(u)) {
    o[0] = static_cast<uchar>(0xe0u | (u >> 12));
    o[1] = static_cast<uchar>(0x80u | ((u >> 6) & 0x3fu));
    o[2] = static_cast<uchar>(0x80u | (u & 0x3fu));
    o += 3;
  } else if (is_high_surrogate(u) && i + 1 < n && is_low_surrogate(in[i + 1])) {
    const std::uint32_t c = 0x10000u + ((u - 0xd800u) << 10) + (in[i + 1] - 0xdc00u);
    o[0] = static_cast<uchar>(0xf0u | (c >> 18));
    o[1] = static_cast<uchar>(0x80u | ((c >> 12) & 0x3fu));
    o[2] = static_cast<uchar>(0x80u | ((c >> 6) & 0x3fu));
    o[3] = static_cast<uchar>(0x80u | (c & 0x3fu));
    o += 4;
    return 2;
  } else {
    return 0;
  }
  return 1;
}

/// encode_one from in[i] until i >= stop (a pair may take it one past stop). False, with
/// `i` at it, on a lone surrogate.
inline bool encode_units(const char16_t* in, std::size_t n, std::size_t& i, std::size_t stop,
                         uchar*& o) noexcept {
  while (i < stop) {
    const std::size_t k = encode_one(in, n, i, o);
    if (k == 0) return false;
    i += k;
  }
  return true;
}

#if MPK_UNICODE_SSSE3
/// For 4 code units in 32-bit lanes, each described by two bits (unit >= 0x80, unit >= 0x800)
/// as `(a bits) | (b bits) << 4`: the byte shuffle that packs the 1, 2 or 3 UTF-8 bytes each
/// lane holds, and how many bytes that makes.
struct pack_table_t {
  alignas(16) std::uint8_t shuffle[256][16];
  std::uint8_t length[256];
};

constexpr pack_table_t make_pack_table() {
  pack_table_t t{};
  for (int idx = 0; idx < 256; ++idx) {
    int o = 0;
    for (int lane = 0; lane < 4; ++lane) {
      const int len = 1 + ((idx >> lane) & 1) + ((idx >> (4 + lane)) & 1);
      for (int k = 0; k < len; ++k)
        t.shuffle[idx][o++] = static_cast<std::uint8_t>(4 * lane + k);
    }
    t.length[idx] = static_cast<std::uint8_t>(o);
    while (o < 16)
      t.shuffle[idx][o++] = 0x80;  // pshufb writes 0
  }
  return t;
}

constexpr pack_table_t pack_table = make_pack_table();

/// (m & a) | (~m & b).
[[gnu::target("ssse3")]] inline __m128i select(__m128i m, __m128i a, __m128i b) noexcept {
  return _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b));
}

/// Packs the UTF-8 bytes of 4 code units (32-bit lanes holding 1, 2 or 3 bytes each, `idx`
/// says which) at `o` with one shuffle. Stores 16 bytes, at most 12 of them meaningful;
/// returns `o` advanced past those.
[[gnu::target("ssse3")]] inline uchar* pack4(__m128i lanes, unsigned idx, uchar* o) noexcept {
  const __m128i shuffle = _mm_load_si128(reinterpret_cast<const __m128i*>(pack_table.shuffle[idx]));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_shuffle_epi8(lanes, shuffle));
  return o + pack_table.length[idx];
}

/// UTF-8 of 8 code units (none a surrogate) at `o`, in 16-bit lanes: the lead byte L, the
/// second byte M and the third byte T of each unit's 1-, 2- or 3-byte form, interleaved into
/// 32-bit lanes [L, M, T, 0] and packed 4 units at a time. `is1` / `upto2` are the lanes
/// below 0x80 / 0x800, `bits` their movemask (bits 0..7 is1, 8..15 upto2, after packs).
[[gnu::target("ssse3")]] inline uchar* put8(__m128i v, __m128i is1, __m128i upto2, unsigned bits,
                                            uchar* o) noexcept {
  const __m128i ff = _mm_set1_epi16(0x3f);
  const __m128i cont = _mm_set1_epi16(0x80);
  const __m128i low6 = _mm_or_si128(_mm_and_si128(v, ff), cont);
  const __m128i mid6 = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(v, 6), ff), cont);
  const __m128i lead =
      select(is1, v,
             select(upto2, _mm_or_si128(_mm_srli_epi16(v, 6), _mm_set1_epi16(0xc0)),
                    _mm_or_si128(_mm_srli_epi16(v, 12), _mm_set1_epi16(0xe0))));
  const __m128i second = select(upto2, low6, mid6);
  const __m128i lm = _mm_or_si128(lead, _mm_slli_epi16(second, 8));
  // Per 4 units: bit k of the index = unit k is not ASCII, bit 4 + k = it is not below 0x800.
  const unsigned big = ~bits;
  o = pack4(_mm_unpacklo_epi16(lm, low6), (big & 0xfu) | ((big >> 4) & 0xf0u), o);
  return pack4(_mm_unpackhi_epi16(lm, low6), ((big >> 4) & 0xfu) | ((big >> 8) & 0xf0u), o);
}

/// utf16_to_utf8_wide with SSSE3: 8 code units per step. ASCII blocks are narrowed, blocks
/// without surrogates go through put8, blocks with one go unit by unit. The 16-byte
/// stores need 16 bytes of room: with 3 bytes per unit reserved and at least 12 units left,
/// there are at least 36 before the first and 24 before the second.
[[gnu::target("ssse3")]] transcoded utf16_to_utf8_ssse3(const char16_t* in, std::size_t n,
                                                        char* out) noexcept {
  auto* o = reinterpret_cast<uchar*>(out);
  std::size_t i = 0;
  const __m128i zero = _mm_setzero_si128();
  while (n - i >= 12) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m128i is1 =
        _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16(static_cast<short>(0xff80))), zero);
    const __m128i above2 = _mm_and_si128(v, _mm_set1_epi16(static_cast<short>(0xf800)));
    const __m128i upto2 = _mm_cmpeq_epi16(above2, zero);
    const auto bits = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(is1, upto2)));
    if ((bits & 0xffu) == 0xffu) {  // 8 ASCII units
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o), _mm_packus_epi16(v, v));
      o += 8;
      i += 8;
      continue;
    }
    const __m128i surrogate = _mm_cmpeq_epi16(above2, _mm_set1_epi16(static_cast<short>(0xd800)));
    if (_mm_movemask_epi8(surrogate) == 0) [[likely]] {
      o = put8(v, is1, upto2, bits, o);
      i += 8;
      continue;
    }
    // A surrogate: unit by unit to the end of the block (a pair may straddle it).
    if (!encode_units(in, n, i, i + 8, o)) return {0, i};
  }
  if (!encode_units(in, n, i, n, o)) return {0, i};
  return {static_cast<std::size_t>(o - reinterpret_cast<uchar*>(out)), transcoded::no_error};
}

#endif

#if MPK_UNICODE_AVX512
// GCC 12 warns about the undefined vectors the AVX-512 intrinsics pass internally
// (-Wmaybe-uninitialized at -O2): not this code's values.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// The AVX-512 kernel: 16 code units per vector of 32-bit lanes. One multishift spreads each
// unit u over its lane as the bytes [u >> 12, u >> 6, u, u]; one ternary op masks those to
// 4, 6, 6 and 8 bits and sets the marker bits (e0 80 80 for 3 bytes, c0 80 in bytes 1..2 for
// 2 bytes); a byte mask keeps bytes 0..2 (3-byte form), 1..2 (2-byte form) or 3 (ASCII), and
// VBMI2's byte compress packs what is kept: no table. Needs AVX512F/BW/VL, VBMI, VBMI2 and
// BMI2 (Ice Lake, Zen 4 and later).
#define MPK_AVX512_TARGET \
  gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")

/// The UTF-8 of 16 code units (zero-extended into the 32-bit lanes of `u`, none a
/// surrogate), packed into the low bytes of the result. Bit k of `ge80` / `ge800`: unit k is
/// >= 0x80 / >= 0x800; `lanes`: the bytes of the lanes that hold input (4 per unit). `len`
/// receives the bytes produced (at most 48).
[[MPK_AVX512_TARGET]] inline __m512i encode16(__m512i u, std::uint64_t ge80, std::uint64_t ge800,
                                              std::uint64_t lanes, unsigned& len) noexcept {
  // Bit offsets of each output byte within its 64-bit word (two lanes): 12, 6, 0, 0 and 32 more.
  const __m512i spread = _mm512_multishift_epi64_epi8(_mm512_set1_epi64(0x2020262c0000060c), u);
  const __m512i two = _mm512_set1_epi32(0x0080c0e0);    // markers of the 2-byte form
  const __m512i three = _mm512_set1_epi32(0x008080e0);  // and of the 3-byte form
  const __m512i marks = _mm512_mask_mov_epi32(two, static_cast<__mmask16>(ge800), three);
  // (spread & [ff 3f 3f ff]) | marks.
  const __m512i bytes =
      _mm512_ternarylogic_epi32(spread, _mm512_set1_epi32(-0xc0c001), marks, 0xea);
  // Per lane (4 bits): 1000 for ASCII, 0110 for 2 bytes, 0111 for 3 bytes.
  const std::uint64_t two_bytes = _pdep_u64(ge80, 0x2222222222222222u);
  const std::uint64_t keep = (_pdep_u64(~ge80, 0x8888888888888888u) | two_bytes | (two_bytes << 1) |
                              _pdep_u64(ge800, 0x1111111111111111u)) &
                             lanes;
  len = static_cast<unsigned>(__builtin_popcountll(keep));
  return _mm512_maskz_compress_epi8(keep, bytes);
}

/// Bit k set when unit k of `w` is >= `bound`.
[[MPK_AVX512_TARGET]] inline std::uint32_t at_least(__m512i w, short bound) noexcept {
  return _mm512_cmpge_epu16_mask(w, _mm512_set1_epi16(bound));
}

/// Bit k set when unit k of `w` is a surrogate (D800..DFFF).
[[MPK_AVX512_TARGET]] inline std::uint32_t surrogates(__m512i w) noexcept {
  const __m512i top5 = _mm512_and_si512(w, _mm512_set1_epi16(static_cast<short>(0xf800)));
  return _mm512_cmpeq_epi16_mask(top5, _mm512_set1_epi16(static_cast<short>(0xd800)));
}

/// utf16_to_utf8_wide with AVX-512: 32 code units per step. ASCII blocks are narrowed (one
/// vpmovwb), blocks without surrogates go through encode16 twice, blocks with one go unit by
/// unit. The full 64-byte stores need room: with 3 bytes per unit reserved and at least 38
/// units left, there are at least 114 before the first and 66 before the second. The last
/// units go 16 at a time with masked loads and stores (exactly the bytes produced).
[[MPK_AVX512_TARGET]] transcoded utf16_to_utf8_avx512(const char16_t* in, std::size_t n,
                                                      char* out) noexcept {
  auto* o = reinterpret_cast<uchar*>(out);
  std::size_t i = 0;
  constexpr std::uint64_t all = ~std::uint64_t{0};
  while (n - i >= 38) {
    const __m512i w = _mm512_loadu_si512(in + i);
    const std::uint32_t ge80 = at_least(w, 0x80);
    if (ge80 == 0) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), _mm512_cvtepi16_epi8(w));
      o += 32;
      i += 32;
      continue;
    }
    if (surrogates(w) == 0) [[likely]] {
      const std::uint32_t ge800 = at_least(w, 0x800);
      unsigned len;
      const __m512i lo = encode16(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(w)), ge80 & 0xffffu,
                                  ge800 & 0xffffu, all, len);
      _mm512_storeu_si512(o, lo);
      o += len;
      const __m512i hi = encode16(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(w, 1)),
                                  ge80 >> 16, ge800 >> 16, all, len);
      _mm512_storeu_si512(o, hi);
      o += len;
      i += 32;
      continue;
    }
    // A surrogate: unit by unit to the end of the block (a pair may straddle it).
    if (!encode_units(in, n, i, i + 32, o)) return {0, i};
  }
  while (i < n) {
    const std::size_t take = std::min<std::size_t>(n - i, 16);
    const __m512i w = _mm512_zextsi256_si512(
        _mm256_maskz_loadu_epi16(static_cast<__mmask16>((1u << take) - 1u), in + i));
    if (surrogates(w) != 0) break;
    unsigned len;
    const __m512i v =
        encode16(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(w)), at_least(w, 0x80),
                 at_least(w, 0x800), take == 16 ? all : (std::uint64_t{1} << (4 * take)) - 1u, len);
    _mm512_mask_storeu_epi8(o, (std::uint64_t{1} << len) - 1u, v);
    o += len;
    i += take;
  }
  if (!encode_units(in, n, i, n, o)) return {0, i};
  return {static_cast<std::size_t>(o - reinterpret_cast<uchar*>(out)), transcoded::no_error};
}

#if MPK_USE_SIMDJSON  // used after simdjson's validator
/// Decodes one character of UTF-8 known to be valid (`avail` bytes at `p`) to `o`, advances
/// `o` and returns the bytes read.
inline std::size_t decode_valid(const uchar* p, std::size_t avail, char16_t*& o) noexcept {
  if (*p < 0x80) {
    *o++ = static_cast<char16_t>(*p);
    return 1;
  }
  const code_point c = decode_multibyte(p, avail);
  put_utf16(c.value, o);
  return c.size;
}

/// UTF-8 that is known to be valid to UTF-16, with AVX-512: 64 input bytes per window. An
/// ASCII window is widened; otherwise the first (up to 32) characters that start in bytes
/// 0..61 (so end inside the window) are decoded at once: the positions of their lead bytes
/// are compressed into a vector of indexes, three byte permutes fetch each one's first, second
/// and third byte, and 16-bit lanes put together its 1-, 2- or 3-byte form. A window with a
/// 4-byte sequence goes character by character. It writes exactly the units it produces
/// (masked stores where a window yields fewer than 32), so exact-size outputs are safe.
[[MPK_AVX512_TARGET]] std::size_t utf8_to_utf16_valid_avx512(const uchar* in, std::size_t n,
                                                             char16_t* out) noexcept {
  std::size_t p = 0;
  char16_t* o = out;
  std::uint8_t iota_bytes[64];
  for (int k = 0; k < 64; ++k)
    iota_bytes[k] = static_cast<std::uint8_t>(k);
  const __m512i iota = _mm512_loadu_si512(iota_bytes);
  while (n - p >= 64) {
    const __m512i d = _mm512_loadu_si512(in + p);
    const std::uint64_t high = _mm512_movepi8_mask(d);
    if (high == 0) {
      _mm512_storeu_si512(o, _mm512_cvtepu8_epi16(_mm512_castsi512_si256(d)));
      _mm512_storeu_si512(o + 32, _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(d, 1)));
      o += 64;
      p += 64;
      continue;
    }
    if (_mm512_cmpge_epu8_mask(d, _mm512_set1_epi8(static_cast<char>(0xf0))) != 0) {
      for (const std::size_t stop = p + 64; p < stop;) {  // a 4-byte sequence: one by one
        p += decode_valid(in + p, n - p, o);
      }
      continue;
    }
    const __m512i top2 = _mm512_and_si512(d, _mm512_set1_epi8(static_cast<char>(0xc0)));
    const std::uint64_t lead = ~static_cast<std::uint64_t>(
        _mm512_cmpeq_epi8_mask(top2, _mm512_set1_epi8(static_cast<char>(0x80))));
    std::uint64_t take = lead & ((std::uint64_t{1} << 62) - 1u);
    if (__builtin_popcountll(take) > 32) take &= _pdep_u64(std::uint64_t{1} << 32, take) - 1u;
    const auto chars = static_cast<unsigned>(__builtin_popcountll(take));
    const int last = 63 - __builtin_clzll(take);
    const std::uint64_t rest = lead & ~((std::uint64_t{2} << last) - 1u);
    const std::size_t used = rest != 0 ? static_cast<std::size_t>(__builtin_ctzll(rest)) : 64u;
    const __m512i idx = _mm512_maskz_compress_epi8(take, iota);
    const __m512i one = _mm512_set1_epi8(1);
    const __m512i b0 = _mm512_permutexvar_epi8(idx, d);
    const __m512i b1 = _mm512_permutexvar_epi8(_mm512_add_epi8(idx, one), d);
    const __m512i b2 = _mm512_permutexvar_epi8(_mm512_add_epi8(idx, _mm512_add_epi8(one, one)), d);
    const __m512i u0 = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(b0));
    const __m512i u1 =
        _mm512_and_si512(_mm512_cvtepu8_epi16(_mm512_castsi512_si256(b1)), _mm512_set1_epi16(0x3f));
    const __m512i u2 =
        _mm512_and_si512(_mm512_cvtepu8_epi16(_mm512_castsi512_si256(b2)), _mm512_set1_epi16(0x3f));
    const __mmask32 two = _mm512_cmpge_epu16_mask(u0, _mm512_set1_epi16(0xc0));
    const __mmask32 three = _mm512_cmpge_epu16_mask(u0, _mm512_set1_epi16(0xe0));
    const __m512i v2 =
        _mm512_or_si512(_mm512_slli_epi16(_mm512_and_si512(u0, _mm512_set1_epi16(0x1f)), 6), u1);
    const __m512i v3 =
        _mm512_or_si512(_mm512_or_si512(_mm512_slli_epi16(u0, 12), _mm512_slli_epi16(u1, 6)), u2);
    _mm512_mask_storeu_epi16(o, _bzhi_u32(~0u, chars),
                             _mm512_mask_mov_epi16(_mm512_mask_mov_epi16(u0, two, v2), three, v3));
    o += chars;
    p += used;
  }
  // The last bytes (valid, so the decoder never fails).
  while (p < n) {
    p += decode_valid(in + p, n - p, o);
  }
  return static_cast<std::size_t>(o - out);
}
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

#if MPK_UNICODE_SSE2
/// The length of the ASCII run that starts `p` (`n` >= 16 bytes), found a block at a time:
/// n when all of it is ASCII, else the start of the first block that holds a non-ASCII byte
/// (the bytes before it are all ASCII, so it is where a UTF-8 character starts). Blocks of
/// 64 bytes, then 16, then the last 16 (overlapping the ones before).
inline std::size_t ascii_run_sse2(const uchar* p, std::size_t n) noexcept {
  auto load = [p](std::size_t at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at));
  };
  std::size_t i = 0;
  for (; n - i >= 64; i += 64) {
    const __m128i v =
        _mm_or_si128(_mm_or_si128(load(i), load(i + 16)), _mm_or_si128(load(i + 32), load(i + 48)));
    if (_mm_movemask_epi8(v) != 0) return i;
  }
  for (; n - i >= 16; i += 16) {
    if (_mm_movemask_epi8(load(i)) != 0) return i;
  }
  return i == n || _mm_movemask_epi8(load(n - 16)) == 0 ? n : i;
}
#endif

#if MPK_UNICODE_AVX2
/// ascii_run_sse2 with AVX2 (`n` >= 32): blocks of 256 bytes (8 loads ORed, one test), then
/// 32, then the last 32.
[[gnu::target("avx2")]] inline __m256i load256(const uchar* p) noexcept {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

[[gnu::target("avx2")]] std::size_t ascii_run_avx2(const uchar* p, std::size_t n) noexcept {
  const uchar* b = p;
  for (const uchar* const stop = p + (n & ~std::size_t{255}); b != stop; b += 256) {
    const __m256i lo = _mm256_or_si256(_mm256_or_si256(load256(b), load256(b + 32)),
                                       _mm256_or_si256(load256(b + 64), load256(b + 96)));
    const __m256i hi = _mm256_or_si256(_mm256_or_si256(load256(b + 128), load256(b + 160)),
                                       _mm256_or_si256(load256(b + 192), load256(b + 224)));
    if (_mm256_movemask_epi8(_mm256_or_si256(lo, hi)) != 0) return static_cast<std::size_t>(b - p);
  }
  std::size_t i = static_cast<std::size_t>(b - p);
  for (; n - i >= 32; i += 32) {
    if (_mm256_movemask_epi8(load256(p + i)) != 0) return i;
  }
  return i == n || _mm256_movemask_epi8(load256(p + n - 32)) == 0 ? n : i;
}

bool detect_avx2() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

// Checked once, at start-up (a validation from a static initializer of another file that runs
// first takes the SSE2 scan: slower, same answer).
const bool has_avx2 = detect_avx2();
#endif

}  // namespace

std::size_t ascii_run(const char* data, std::size_t size, bool wide) noexcept {
  const auto* p = reinterpret_cast<const uchar*>(data);
#if MPK_UNICODE_AVX2
  if (wide && has_avx2) return ascii_run_avx2(p, size);
#endif
  (void)wide;
#if MPK_UNICODE_SSE2
  return ascii_run_sse2(p, size);
#else
  (void)p;
  (void)size;
  return 0;
#endif
}

namespace {

/// The best kernel this CPU runs.
simd_kernel detect_kernel() noexcept {
#if MPK_UNICODE_SSSE3
  __builtin_cpu_init();
#if MPK_UNICODE_AVX512
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
      __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2"))
    return simd_kernel::avx512;
#endif
  if (__builtin_cpu_supports("ssse3")) return simd_kernel::ssse3;
#endif
  return simd_kernel::scalar;
}

// Checked once, at start-up. A UTF-16 string written by a static initializer of another file
// that runs before these may take the scalar path (both are zero-initialized before): slower,
// same bytes.
const simd_kernel best_kernel = detect_kernel();

/// The kernel utf16_to_utf8_wide uses: best_kernel unless a test chose another.
std::atomic<simd_kernel> active_kernel{best_kernel};

}  // namespace

bool is_valid_utf8_scalar(const char* data, std::size_t size) noexcept {
  const auto* p = reinterpret_cast<const uchar*>(data);
  const uchar* const end = p + size;
  while (p != end) {
    while (end - p >= 16 && ((load64(p) | load64(p + 8)) & high_bits_8) == 0)
      p += 16;
    if (end - p >= 8 && (load64(p) & high_bits_8) == 0) p += 8;
    while (p != end && *p < 0x80)
      ++p;
    if (p == end) break;
    const code_point c = decode_multibyte(p, static_cast<std::size_t>(end - p));
    if (c.size == 0) return false;
    p += c.size;
  }
  return true;
}

transcoded utf8_length_raw(const char16_t* in, std::size_t n) noexcept {
  std::size_t i = 0;
  std::size_t bytes = 0;
  while (i < n) {
#if MPK_UNICODE_SSE2
    __m128i a, b;
    if (n - i >= 16 && ascii16(in + i, a, b)) {
      i += 16;
      bytes += 16;
      continue;
    }
#endif
    if (n - i >= 8 && ((load64(in + i) | load64(in + i + 4)) & non_ascii_16) == 0) {
      i += 8;
      bytes += 8;
      continue;
    }
    const std::uint32_t u = in[i];
    if (u < 0x80) {
      bytes += 1;
    } else if (u < 0x800) {
      bytes += 2;
    } else if (!is_high_surrogate(u) && !is_low_surrogate(u)) {
      bytes += 3;
    } else if (is_high_surrogate(u) && i + 1 < n && is_low_surrogate(in[i + 1])) {
      bytes += 4;
      ++i;
    } else {
      return {0, i};
    }
    ++i;
  }
  return {bytes, transcoded::no_error};
}

transcoded utf16_to_utf8_raw(const char16_t* in, std::size_t n, char* out) noexcept {
  auto* o = reinterpret_cast<uchar*>(out);
  std::size_t i = 0;
  while (i < n) {
#if MPK_UNICODE_SSE2
    // Runs of ASCII: 16 units in, 16 bytes out (packus narrows 16-bit lanes to bytes).
    __m128i va, vb;
    while (n - i >= 16 && ascii16(in + i, va, vb)) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_packus_epi16(va, vb));
      i += 16;
      o += 16;
    }
    if (i == n) break;
#endif
    if (n - i >= 8) {
      const std::uint64_t a = load64(in + i);
      const std::uint64_t b = load64(in + i + 4);
      if (((a | b) & non_ascii_16) == 0) {
        const std::uint32_t lo = pack_ascii4(a);
        const std::uint32_t hi = pack_ascii4(b);
        std::memcpy(o, &lo, 4);
        std::memcpy(o + 4, &hi, 4);
        o += 8;
        i += 8;
        continue;
      }
    }
    const std::size_t k = encode_one(in, n, i, o);
    if (k == 0) return {0, i};
    i += k;
  }
  return {static_cast<std::size_t>(o - reinterpret_cast<uchar*>(out)), transcoded::no_error};
}

transcoded utf16_to_utf8_with(simd_kernel k, const char16_t* in, std::size_t n,
                              char* out) noexcept {
  switch (k) {
#if MPK_UNICODE_AVX512
    case simd_kernel::avx512:
      return utf16_to_utf8_avx512(in, n, out);
#endif
#if MPK_UNICODE_SSSE3
    case simd_kernel::ssse3:
      return utf16_to_utf8_ssse3(in, n, out);
#endif
    default:
      return utf16_to_utf8_raw(in, n, out);
  }
}

transcoded utf16_to_utf8_wide(const char16_t* in, std::size_t n, char* out) noexcept {
  return utf16_to_utf8_with(active_kernel.load(std::memory_order_relaxed), in, n, out);
}

bool simd_kernel_available(simd_kernel k) noexcept {
  return k <= best_kernel;
}

simd_kernel use_utf16_kernel(simd_kernel k) noexcept {
  if (!simd_kernel_available(k)) k = best_kernel;
  return active_kernel.exchange(k, std::memory_order_relaxed);
}

simd_kernel utf16_kernel() noexcept {
  return active_kernel.load(std::memory_order_relaxed);
}

transcoded utf8_to_utf16_raw(const char* in, std::size_t n, char16_t* out) noexcept {
#if MPK_UNICODE_AVX512 && MPK_USE_SIMDJSON
  // Mixed text of some length: simdjson's validator, then the AVX-512 decoder (which trusts
  // its input). Invalid text goes to the loop below, which finds where.
  if (n >= 128 && best_kernel == simd_kernel::avx512 &&
      active_kernel.load(std::memory_order_relaxed) == simd_kernel::avx512 &&
      simdjson::validate_utf8(in, n))
    return {utf8_to_utf16_valid_avx512(reinterpret_cast<const uchar*>(in), n, out),
            transcoded::no_error};
#endif
  const auto* const begin = reinterpret_cast<const uchar*>(in);
  const auto* p = begin;
  const uchar* const end = p + n;
  char16_t* o = out;
  while (p != end) {
#if MPK_UNICODE_SSE2
    // Runs of ASCII: 16 bytes in, 16 code units out (bytes widened by interleaving zeros).
    // A block with a non-ASCII byte: its ASCII prefix is copied here (the output may have no
    // room for a whole block), then the decoder below takes the non-ASCII sequence.
    while (end - p >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      if (const auto high = static_cast<unsigned>(_mm_movemask_epi8(v)); high != 0) {
        const int ascii = std::countr_zero(high);
        for (int k = 0; k < ascii; ++k)
          o[k] = static_cast<char16_t>(p[k]);
        p += ascii;
        o += ascii;
        break;
      }
      const __m128i zero = _mm_setzero_si128();
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_unpacklo_epi8(v, zero));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 8), _mm_unpackhi_epi8(v, zero));
      p += 16;
      o += 16;
    }
    if (p == end) break;
#endif
    if (end - p >= 8) {
      const std::uint64_t w = load64(p);
      if ((w & high_bits_8) == 0) {
        for (int k = 0; k < 8; ++k)
          o[k] = static_cast<char16_t>(p[k]);
        p += 8;
        o += 8;
        continue;
      }
    }
    if (*p < 0x80) {
      *o++ = static_cast<char16_t>(*p++);
      continue;
    }
    const code_point c = decode_multibyte(p, static_cast<std::size_t>(end - p));
    if (c.size == 0) return {0, static_cast<std::size_t>(p - begin)};
    put_utf16(c.value, o);
    p += c.size;
  }
  return {static_cast<std::size_t>(o - out), transcoded::no_error};
}

}  // namespace detail

bool is_valid_utf8(const char* data, std::size_t size) noexcept {
  // Short strings (keys, names) are faster in the scalar loop than through a SIMD scan and
  // simdjson's dispatch and 64-byte blocks.
  constexpr std::size_t scalar_max = 32;
  if (size <= scalar_max) return detail::is_valid_utf8_scalar(data, size);
  // ASCII runs first: a plain scan needs fewer instructions per byte than simdjson's
  // validator on ASCII blocks (W6 strN: 0.06 against 0.16 a byte with AVX2, in callgrind) and
  // skips its dispatch. The run ends where a character starts, so the rest is valid UTF-8
  // exactly when the whole is.
  const std::size_t ascii = detail::ascii_run(data, size, true);
  if (ascii == size) return true;
#if MPK_USE_SIMDJSON
  return simdjson::validate_utf8(data + ascii, size - ascii);
#else
  return detail::is_valid_utf8_scalar(data + ascii, size - ascii);
#endif
}

const char* utf8_validator() noexcept {
#if MPK_USE_SIMDJSON
  return "simdjson";
#else
  return "scalar";
#endif
}

result<std::size_t> utf8_length(std::u16string_view text) noexcept {
  const detail::transcoded t = detail::utf8_length_raw(text.data(), text.size());
  if (t.error_at != detail::transcoded::no_error)
    return mpk::error{errc::invalid_utf16, t.error_at};
  return t.count;
}

result<std::size_t> utf16_length(std::string_view text) noexcept {
  const auto* const begin = reinterpret_cast<const unsigned char*>(text.data());
  const auto* p = begin;
  const unsigned char* const end = p + text.size();
  std::size_t units = 0;
  while (p != end) {
    if (end - p >= 8 && (detail::load64(p) & detail::high_bits_8) == 0) {
      p += 8;
      units += 8;
      continue;
    }
    if (*p < 0x80) {
      ++p;
      ++units;
      continue;
    }
    const detail::code_point c = detail::decode_multibyte(p, static_cast<std::size_t>(end - p));
    if (c.size == 0) return mpk::error{errc::invalid_utf8, static_cast<std::size_t>(p - begin)};
    units += c.size == 4 ? 2 : 1;
    p += c.size;
  }
  return units;
}

result<std::size_t> utf16_to_utf8(std::u16string_view text, std::span<char> out) noexcept {
  // The raw transcoder writes exactly the output's length: with less than 3 bytes of room
  // per code unit, measure first (which also validates), then transcode in place.
  if (out.size() / 3 < text.size()) {
    const result<std::size_t> need = utf8_length(text);
    if (!need) return need;
    if (*need > out.size()) return mpk::error{errc::buffer_full, 0};
  }
  // With 3 bytes per code unit the wide transcoder may use all of `out` as scratch.
  const detail::transcoded t =
      out.size() / 3 < text.size()
          ? detail::utf16_to_utf8_raw(text.data(), text.size(), out.data())
          : detail::utf16_to_utf8_wide(text.data(), text.size(), out.data());
  if (t.error_at != detail::transcoded::no_error)
    return mpk::error{errc::invalid_utf16, t.error_at};
  return t.count;
}

result<std::size_t> utf8_to_utf16(std::string_view text, std::span<char16_t> out) noexcept {
  if (out.size() < text.size()) {
    const result<std::size_t> need = utf16_length(text);
    if (!need) return need;
    if (*need > out.size()) return mpk::error{errc::buffer_full, 0};
  }
  const detail::transcoded t = detail::utf8_to_utf16_raw(text.data(), text.size(), out.data());
  if (t.error_at != detail::transcoded::no_error) return mpk::error{errc::invalid_utf8, t.error_at};
  return t.count;
}

result<std::string> to_utf8(std::u16string_view text) noexcept {
  const detail::transcoded len = detail::utf8_length_raw(text.data(), text.size());
  if (len.error_at != detail::transcoded::no_error)
    return mpk::error{errc::invalid_utf16, len.error_at};
#if __cpp_exceptions
  try {
#endif
    std::string s(len.count, '\0');
    (void)detail::utf16_to_utf8_raw(text.data(), text.size(), s.data());
    return s;
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    return mpk::error{errc::out_of_memory, 0};
  }
#endif
}

result<std::u16string> to_utf16(std::string_view text) noexcept {
#if __cpp_exceptions
  try {
#endif
    std::u16string s(text.size(), u'\0');
    const detail::transcoded t = detail::utf8_to_utf16_raw(text.data(), text.size(), s.data());
    if (t.error_at != detail::transcoded::no_error)
      return mpk::error{errc::invalid_utf8, t.error_at};
    s.resize(t.count);
    return s;
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    return mpk::error{errc::out_of_memory, 0};
  }
#endif
}

}  // namespace mpk::inline v0
