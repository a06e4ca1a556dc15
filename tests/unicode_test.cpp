// Tests of mpk/unicode.hpp, and of the UTF-16 / UTF-8 parts of the writer and the reader.
#include "mpk/unicode.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "mpk/reader.hpp"
#include "mpk/writer.hpp"
#include "support/hex.hpp"

#if MPK_TEST_SIMDJSON
#include <simdjson.h>
#endif

namespace {

using mpk_test::hex;
using mpk_test::to_hex;

// --- independent references --------------------------------------------------------------
//
// These encode and check by code point ranges (what a sequence of each length may hold),
// not by the byte table the library follows, so that a mistake in one is not repeated in the
// other.

std::string utf8_of(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xc0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xe0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    s += static_cast<char>(0xf0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  }
  return s;
}

std::u16string utf16_of(char32_t c) {
  if (c < 0x10000) return std::u16string(1, static_cast<char16_t>(c));
  const char32_t v = c - 0x10000;
  return {static_cast<char16_t>(0xd800 + (v >> 10)), static_cast<char16_t>(0xdc00 + (v & 0x3ff))};
}

/// Valid UTF-8 by the definition: each sequence's length is given by its lead byte, it has
/// that many continuation bytes, and its value is a scalar value (not a surrogate, at most
/// U+10FFFF) that needs exactly that length.
bool reference_valid(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t len;
    char32_t c;
    if (b < 0x80) {
      ++i;
      continue;
    } else if ((b & 0xe0) == 0xc0) {
      len = 2;
      c = b & 0x1f;
    } else if ((b & 0xf0) == 0xe0) {
      len = 3;
      c = b & 0x0f;
    } else if ((b & 0xf8) == 0xf0) {
      len = 4;
      c = b & 0x07;
    } else {
      return false;
    }
    if (s.size() - i < len) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto t = static_cast<unsigned char>(s[i + k]);
      if ((t & 0xc0) != 0x80) return false;
      c = (c << 6) | (t & 0x3f);
    }
    const char32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

/// Every validator the build has: the public one, the scalar one, and simdjson's directly.
void expect_validity(std::string_view s, bool valid) {
  SCOPED_TRACE(to_hex(mpk_test::bytes_of(s)));
  EXPECT_EQ(reference_valid(s), valid);
  EXPECT_EQ(mpk::is_valid_utf8(s), valid);
  EXPECT_EQ(mpk::detail::is_valid_utf8_scalar(s.data(), s.size()), valid);
#if MPK_TEST_SIMDJSON
  EXPECT_EQ(simdjson::validate_utf8(s.data(), s.size()), valid);
#endif
  const mpk::result<std::size_t> units = mpk::utf16_length(s);
  EXPECT_EQ(units.has_value(), valid);
  const mpk::result<std::u16string> u16 = mpk::to_utf16(s);
  EXPECT_EQ(u16.has_value(), valid);
}

std::string bytes(std::string_view h) {
  const std::vector<std::byte> b = hex(h);
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

// --- validation ----------------------------------------------------------------------------

TEST(Utf8, ValidatorOfThisBuild) {
  const std::string_view name = mpk::utf8_validator();
#if MPK_TEST_SIMDJSON
  EXPECT_EQ(name, "simdjson");
#else
  EXPECT_EQ(name, "scalar");
#endif
}

TEST(Utf8, ValidSequences) {
  expect_validity("", true);
  expect_validity("hello", true);
  expect_validity(std::string_view("a\0b", 3), true);  // embedded NUL
  for (char32_t c : {0x7fu, 0x80u, 0x7ffu, 0x800u, 0xd7ffu, 0xe000u, 0xfffdu, 0xffffu, 0x10000u,
                     0x1f600u, 0x10ffffu})
    expect_validity(utf8_of(c), true);
  expect_validity(bytes("c2 80"), true);
  expect_validity(bytes("ed 9f bf"), true);     // U+D7FF, just below the surrogates
  expect_validity(bytes("ee 80 80"), true);     // U+E000, just above them
  expect_validity(bytes("f4 8f bf bf"), true);  // U+10FFFF
}

TEST(Utf8, InvalidSequences) {
  // Overlong forms.
  expect_validity(bytes("c0 80"), false);
  expect_validity(bytes("c1 bf"), false);
  expect_validity(bytes("e0 80 80"), false);
  expect_validity(bytes("e0 9f bf"), false);
  expect_validity(bytes("f0 80 80 80"), false);
  expect_validity(bytes("f0 8f bf bf"), false);
  // Surrogates.
  expect_validity(bytes("ed a0 80"), false);
  expect_validity(bytes("ed bf bf"), false);
  expect_validity(bytes("ed a0 80 ed b0 80"), false);  // a "pair" in CESU-8
  // Beyond U+10FFFF, and bytes that never appear.
  expect_validity(bytes("f4 90 80 80"), false);
  expect_validity(bytes("f5 80 80 80"), false);
  expect_validity(bytes("f8 88 80 80 80"), false);
  expect_validity(bytes("ff"), false);
  expect_validity(bytes("fe"), false);
  // Continuation bytes where a sequence starts, and missing ones.
  expect_validity(bytes("80"), false);
  expect_validity(bytes("61 bf 61"), false);
  expect_validity(bytes("e2 28 a1"), false);
  expect_validity(bytes("c3 28"), false);
  expect_validity(bytes("f0 9f 98 41"), false);
  // Truncated at the end.
  expect_validity(bytes("c2"), false);
  expect_validity(bytes("e2 82"), false);
  expect_validity(bytes("f0 9f 98"), false);
  expect_validity(bytes("61 62 63 f0 9f"), false);
}

// Every length 0..64 (around the 8- and 16-byte steps of the scalar path and the 64-byte
// blocks of simdjson), with an invalid sequence at every position; the error offset is
// where the sequence starts.
TEST(Utf8, ErrorAtEveryPositionOfEveryLength) {
  const std::string bad[] = {bytes("ff"),       bytes("80"),          bytes("c0 80"),
                             bytes("ed a0 80"), bytes("f4 90 80 80"), bytes("e2 82")};
  for (std::size_t len = 0; len <= 64; ++len) {
    std::string base(len, 'a');
    for (std::size_t i = 0; i < len; ++i)
      base[i] = static_cast<char>('a' + i % 26);
    expect_validity(base, true);
    for (const std::string& b : bad) {
      for (std::size_t pos = 0; pos + b.size() <= len; ++pos) {
        std::string s = base;
        s.replace(pos, b.size(), b);
        SCOPED_TRACE("len " + std::to_string(len) + " pos " + std::to_string(pos));
        expect_validity(s, false);
        EXPECT_EQ(mpk::utf16_length(s).error(), (mpk::error{mpk::errc::invalid_utf8, pos}));
        EXPECT_EQ(mpk::to_utf16(s).error(), (mpk::error{mpk::errc::invalid_utf8, pos}));
      }
      // A truncated sequence at the very end.
      if (len >= 1) {
        std::string s = base;
        s.back() = static_cast<char>(0xe2);
        expect_validity(s, false);
        EXPECT_EQ(mpk::utf16_length(s).error(), (mpk::error{mpk::errc::invalid_utf8, len - 1}));
      }
    }
    // A valid multi-byte sequence at every position stays valid.
    for (char32_t c : {0xe9u, 0x20acu, 0x1f600u}) {
      const std::string m = utf8_of(c);
      for (std::size_t pos = 0; pos + m.size() <= len; ++pos) {
        std::string s = base;
        s.replace(pos, m.size(), m);
        expect_validity(s, true);
      }
    }
  }
}

// Random text, mostly valid, then mutated: the scalar validator, simdjson's and the
// reference agree on every input.
TEST(Utf8, ValidatorsAgreeOnRandomInputs) {
  std::mt19937_64 rng(20261130);
  const char32_t samples[] = {'a',    'Z',    0,      0x7f,   0x80,   0xe9,    0x7ff,   0x800,
                              0x20ac, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x1f600, 0x10ffff};
  int valid = 0;
  int invalid = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    const std::size_t n = static_cast<std::size_t>(rng() % 100);
    for (std::size_t i = 0; i < n; ++i) {
      if (rng() % 3 == 0)
        s += utf8_of(samples[rng() % std::size(samples)]);
      else
        s += static_cast<char>('a' + rng() % 26);
    }
    const int mutations = static_cast<int>(rng() % 3);
    for (int m = 0; m < mutations && !s.empty(); ++m) {
      const std::size_t at = static_cast<std::size_t>(rng() % s.size());
      switch (rng() % 3) {
        case 0:
          s[at] = static_cast<char>(rng() & 0xff);
          break;
        case 1:
          s.erase(at, 1);
          break;
        default:
          s.insert(at, 1, static_cast<char>(0x80 | (rng() & 0x7f)));
          break;
      }
    }
    const bool ref = reference_valid(s);
    (ref ? valid : invalid) += 1;
    ASSERT_EQ(mpk::detail::is_valid_utf8_scalar(s.data(), s.size()), ref)
        << to_hex(mpk_test::bytes_of(s));
    ASSERT_EQ(mpk::is_valid_utf8(s), ref) << to_hex(mpk_test::bytes_of(s));
#if MPK_TEST_SIMDJSON
    ASSERT_EQ(simdjson::validate_utf8(s.data(), s.size()), ref);
#endif
  }
  // Both outcomes were exercised in quantity.
  EXPECT_GT(valid, 2000);
  EXPECT_GT(invalid, 2000);
}

// --- transcoding ---------------------------------------------------------------------------

TEST(Utf16, TranscodesBmpAndAstral) {
  const char32_t cs[] = {'A',    0,      0x7f,   0x80,   0xe9,    0x7ff,   0x800,
                         0x20ac, 0xd7ff, 0xe000, 0xffff, 0x10000, 0x1f600, 0x10ffff};
  for (char32_t c : cs) {
    const std::u16string u = utf16_of(c);
    const std::string e = utf8_of(c);
    SCOPED_TRACE(static_cast<unsigned>(c));
    EXPECT_EQ(mpk::utf8_length(u).value(), e.size());
    EXPECT_EQ(mpk::to_utf8(u).value(), e);
    EXPECT_EQ(mpk::utf16_length(e).value(), u.size());
    EXPECT_EQ(mpk::to_utf16(e).value(), u);
  }
}

TEST(Utf16, LoneSurrogatesAreErrors) {
  struct bad_case {
    std::u16string text;
    std::size_t at;
  };
  const bad_case cases[] = {
      {u"\xd800", 0},              // high at the end
      {u"ab\xd83d", 2},            // high at the end, after ASCII
      {u"\xd83dx", 0},             // high, then not a low
      {u"\xd83d\xd83d\xde00", 0},  // two highs: the first is alone
      {u"\xdc00", 0},              // low alone
      {u"abc\xde00zz", 3},         // low alone inside
      {u"\xde00\xd83d", 0},        // reversed pair
      {u"\xd83d\xde00\xdfff", 2},  // a pair, then a low alone
      {u"abcdefgh\xdbff", 8},      // after a whole ASCII block
  };
  for (const bad_case& c : cases) {
    SCOPED_TRACE(c.at);
    const mpk::error e{mpk::errc::invalid_utf16, c.at};
    EXPECT_EQ(mpk::utf8_length(c.text).error(), e);
    EXPECT_EQ(mpk::to_utf8(c.text).error(), e);
    std::array<char, 64> out{};
    EXPECT_EQ(mpk::utf16_to_utf8(c.text, out).error(), e);
  }
}

// Random code points, in strings of every length 0..40 so that non-ASCII units fall at
// every position of the 8-unit blocks: both directions give what the references give.
TEST(Utf16, RoundTripsAtEveryBlockPosition) {
  std::mt19937 rng(7);
  const char32_t cs[] = {0xe9, 0x20ac, 0x1f600, 0x10ffff, 0x7ff, 0x800};
  for (std::size_t len = 0; len <= 40; ++len) {
    for (std::size_t pos = 0; pos <= len; ++pos) {
      std::u16string u;
      std::string e;
      for (std::size_t i = 0; i < len; ++i) {
        const char32_t c = i == pos ? cs[rng() % std::size(cs)] : char32_t('a' + rng() % 26);
        u += utf16_of(c);
        e += utf8_of(c);
      }
      ASSERT_EQ(mpk::to_utf8(u).value(), e);
      ASSERT_EQ(mpk::to_utf16(e).value(), u);
      ASSERT_EQ(mpk::utf8_length(u).value(), e.size());
      ASSERT_EQ(mpk::utf16_length(e).value(), u.size());
    }
  }
}

/// The kernels of utf16_to_utf8_wide this CPU runs (scalar always).
std::vector<mpk::detail::simd_kernel> available_kernels() {
  std::vector<mpk::detail::simd_kernel> ks;
  for (auto k : {mpk::detail::simd_kernel::scalar, mpk::detail::simd_kernel::ssse3,
                 mpk::detail::simd_kernel::avx512})
    if (mpk::detail::simd_kernel_available(k)) ks.push_back(k);
  return ks;
}

/// Makes the writer use kernel `k` for one scope.
struct kernel_scope {
  mpk::detail::simd_kernel previous;
  explicit kernel_scope(mpk::detail::simd_kernel k) : previous(mpk::detail::use_utf16_kernel(k)) {}
  ~kernel_scope() { (void)mpk::detail::use_utf16_kernel(previous); }
  kernel_scope(const kernel_scope&) = delete;
  kernel_scope& operator=(const kernel_scope&) = delete;
};

TEST(Utf16, KernelChoice) {
  using mpk::detail::simd_kernel;
  EXPECT_TRUE(mpk::detail::simd_kernel_available(simd_kernel::scalar));
  const simd_kernel best = available_kernels().back();
  EXPECT_EQ(mpk::detail::utf16_kernel(), best);
  {
    const kernel_scope scalar(simd_kernel::scalar);
    EXPECT_EQ(scalar.previous, best);
    EXPECT_EQ(mpk::detail::utf16_kernel(), simd_kernel::scalar);
  }
  EXPECT_EQ(mpk::detail::utf16_kernel(), best);
}

/// `u` through kernel `k` against utf16_to_utf8_raw (the scalar path): same error index, or
/// the same bytes; nothing written past 3 bytes per unit.
void expect_kernel_agrees(mpk::detail::simd_kernel k, const std::u16string& u) {
  std::string want(3 * u.size(), '\0');
  const mpk::detail::transcoded ref =
      mpk::detail::utf16_to_utf8_raw(u.data(), u.size(), want.data());
  std::vector<char> out(3 * u.size() + 64, '#');
  const mpk::detail::transcoded t =
      mpk::detail::utf16_to_utf8_with(k, u.data(), u.size(), out.data());
  for (std::size_t i = 3 * u.size(); i < out.size(); ++i)
    ASSERT_EQ(out[i], '#') << "written past 3 bytes per unit";
  ASSERT_EQ(t.error_at, ref.error_at);
  if (ref.error_at != mpk::detail::transcoded::no_error) return;
  ASSERT_EQ(std::string_view(out.data(), t.count), std::string_view(want.data(), ref.count));
}

/// One random code unit sequence of class `c`: 0 ASCII, 1 two bytes, 2 three bytes, 3 a
/// pair, 4 a lone high surrogate (followed by no low one), 5 a lone low one.
void append_unit(std::u16string& u, unsigned c, std::mt19937& rng) {
  switch (c) {
    case 0:
      u += static_cast<char16_t>(rng() % 0x80);
      break;
    case 1:
      u += static_cast<char16_t>(0x80 + rng() % 0x780);
      break;
    case 2: {
      auto v = static_cast<char16_t>(0x800 + rng() % 0xf800);
      if (v >= 0xd800 && v < 0xe000) v = static_cast<char16_t>(v + 0x800);
      u += v;
      break;
    }
    case 3:
      u += utf16_of(0x10000 + rng() % 0x100000);
      break;
    case 4:
      u += static_cast<char16_t>(0xd800 + rng() % 0x400);
      break;
    default:
      u += static_cast<char16_t>(0xdc00 + rng() % 0x400);
      break;
  }
}

// Each kernel against the scalar path on seeded random UTF-16: valid text of every mix in
// lengths 0..100 and a few large ones; a lone surrogate (high or low) and a valid pair at
// every position of strings up to 100 units, so at every place in a block and across block
// ends; error indexes compared.
TEST(Utf16, EveryKernelAgreesWithTheScalarPath) {
  for (const auto k : available_kernels()) {
    SCOPED_TRACE(static_cast<int>(k));
    std::mt19937 rng(23);
    for (std::size_t len : {0, 1, 7, 8, 15, 16, 31, 32, 37, 38, 39, 63, 64, 100, 1000, 4097, 20000})
      for (unsigned mix = 1; mix < 16; ++mix) {
        std::u16string u;
        while (u.size() < len) {
          auto c = static_cast<unsigned>(rng() % 4);
          while (((mix >> c) & 1) == 0)
            c = (c + 1) % 4;
          append_unit(u, c, rng);
        }
        ASSERT_NO_FATAL_FAILURE(expect_kernel_agrees(k, u)) << len << " " << mix;
      }
    for (std::size_t len = 0; len <= 100; ++len)
      for (std::size_t pos = 0; pos <= len; ++pos)
        for (unsigned odd : {3u, 4u, 5u}) {
          std::u16string u;
          const unsigned mix = static_cast<unsigned>(rng() % 7) + 1;  // of ASCII, 2-, 3-byte
          while (u.size() < len) {
            if (u.size() == pos) {
              append_unit(u, odd, rng);
              continue;
            }
            auto c = static_cast<unsigned>(rng() % 3);
            while (((mix >> c) & 1) == 0)
              c = (c + 1) % 3;
            append_unit(u, c, rng);
          }
          ASSERT_NO_FATAL_FAILURE(expect_kernel_agrees(k, u)) << len << " " << pos << " " << odd;
        }
  }
}

// The wide transcoder (the kernel chosen at run time, and each other one this CPU runs)
// against the reference encoder: random text of every class (ASCII, 2-byte, 3-byte, astral
// pairs, the boundaries between them) in lengths 0..100, so that every mix falls at every
// position of its blocks; one string in four has a lone surrogate somewhere. Same bytes,
// same error index, nothing written past 3 bytes per code unit, and the writer's bytes.
TEST(Utf16, WideTranscoderAgreesWithTheReference) {
  for (const auto kernel : available_kernels()) {
    const kernel_scope use(kernel);
    SCOPED_TRACE(static_cast<int>(kernel));
    std::mt19937 rng(11);
    const char32_t classes[][4] = {{'a', 'z', 0, 0x7f},
                                   {0x80, 0xe9, 0x3a9, 0x7ff},
                                   {0x800, 0x2713, 0xd7ff, 0xe000},
                                   {0xfffd, 0xffff, 0x10000, 0x1f600}};
    int with_error = 0;
    for (int round = 0; round < 4000; ++round) {
      const std::size_t items = rng() % 101;
      const std::size_t lone_at = rng() % 4 == 0 ? rng() % (items + 1) : items + 1;
      const auto mix = rng() % 16;  // which classes this string draws from
      std::u16string u;
      std::string e;
      std::size_t error_at = mpk::detail::transcoded::no_error;
      for (std::size_t i = 0; i <= items; ++i) {
        if (i == lone_at) {
          error_at = u.size();
          u += static_cast<char16_t>(rng() % 2 ? 0xd800 + rng() % 0x400 : 0xdc00 + rng() % 0x400);
        }
        if (i == items) break;
        std::size_t k = rng() % 4;
        while (((mix >> k) & 1) == 0 && mix != 0)
          k = (k + 1) % 4;
        const char32_t c = classes[k][rng() % 4];
        u += utf16_of(c);
        e += utf8_of(c);
      }
      SCOPED_TRACE(round);
      std::vector<char> out(3 * u.size() + 16, '#');
      const mpk::detail::transcoded t =
          mpk::detail::utf16_to_utf8_wide(u.data(), u.size(), out.data());
      for (std::size_t k = 3 * u.size(); k < out.size(); ++k)
        ASSERT_EQ(out[k], '#') << "written past 3 bytes per unit";
      if (error_at != mpk::detail::transcoded::no_error) {
        ++with_error;
        ASSERT_EQ(t.error_at, error_at);
        EXPECT_EQ(mpk::utf16_to_utf8(u, std::span<char>(out.data(), 3 * u.size())).error(),
                  (mpk::error{mpk::errc::invalid_utf16, error_at}));
        continue;
      }
      ASSERT_EQ(t.error_at, mpk::detail::transcoded::no_error);
      ASSERT_EQ(std::string(out.data(), t.count), e);
      // The public function and the writer take the same path.
      EXPECT_EQ(mpk::utf16_to_utf8(u, std::span<char>(out.data(), 3 * u.size())).value(), e.size());
      mpk::buffer buf;
      mpk::writer w(buf);
      w.write(std::u16string_view(u));
      ASSERT_TRUE(w.ok());
      mpk::reader r(buf.bytes());
      EXPECT_EQ(r.read<std::string>(), e);
      EXPECT_TRUE(r.ok());
    }
    EXPECT_GT(with_error, 500);
  }
}

// UTF-8 -> UTF-16 on text of ASCII runs of every length between non-ASCII characters (so
// the ASCII prefix of a 16-byte block ends at every place, and 2- and 3-byte sequences start
// at every place of a 64-byte window), with a byte that is never UTF-8 (ff) at a character
// boundary in one string of three: the units, or the error at that byte. With each kernel
// choice (the AVX-512 one also decodes validated text of 128 bytes or more).
TEST(Utf16, FromUtf8WithAsciiRunsOfEveryLength) {
  for (const auto kernel : available_kernels()) {
    const kernel_scope use(kernel);
    SCOPED_TRACE(static_cast<int>(kernel));
    std::mt19937 rng(31);
    const char32_t others[] = {0xe9, 0x7ff, 0x800, 0x2713, 0xffff, 0x10000, 0x1f600};
    for (int round = 0; round < 3000; ++round) {
      const std::size_t chars = rng() % 300;
      const std::size_t bad_at = rng() % 3 == 0 ? rng() % (chars + 1) : chars + 1;
      const std::size_t run = rng() % 12;
      const std::size_t kinds = round % 2 == 0 ? 5 : std::size(others);  // even: no 4-byte
      std::string e;
      std::u16string u;
      std::size_t error_at = mpk::detail::transcoded::no_error;
      for (std::size_t i = 0; i <= chars; ++i) {
        if (i == bad_at) {
          error_at = e.size();
          e += '\xff';
        }
        if (i == chars) break;
        const char32_t c =
            rng() % (run + 1) == 0 ? others[rng() % kinds] : char32_t(0x20 + rng() % 0x5f);
        e += utf8_of(c);
        u += utf16_of(c);
      }
      SCOPED_TRACE(round);
      const mpk::result<std::u16string> r = mpk::to_utf16(e);
      if (error_at != mpk::detail::transcoded::no_error) {
        ASSERT_FALSE(r.has_value());
        ASSERT_EQ(r.error(), (mpk::error{mpk::errc::invalid_utf8, error_at}));
      } else {
        ASSERT_EQ(r.value(), u);
        // Into memory of exactly the right size: nothing written past it.
        std::vector<char16_t> exact(u.size() + 64, u'#');
        ASSERT_EQ(mpk::utf8_to_utf16(e, std::span<char16_t>(exact.data(), u.size())).value(),
                  u.size());
        ASSERT_EQ(std::u16string_view(exact.data(), u.size()), u);
        for (std::size_t k = u.size(); k < exact.size(); ++k)
          ASSERT_EQ(exact[k], u'#') << "written past the output";
      }
    }
  }
}

TEST(Utf16, IntoCallerMemory) {
  const std::u16string u = u"caf\u00e9 \U0001F600";  // 4 + 1 + 2 units, 3 + 2 + 1 + 4 bytes
  ASSERT_EQ(u.size(), 7u);
  // Room for 3 per unit: one pass.
  std::array<char, 24> wide{};
  EXPECT_EQ(mpk::utf16_to_utf8(u, wide).value(), 10u);
  EXPECT_EQ(std::string_view(wide.data(), 10), "caf\xc3\xa9 \xf0\x9f\x98\x80");
  // Exactly enough: measured first, nothing written past the end.
  std::array<char, 12> exact{};
  exact.fill('#');
  EXPECT_EQ(mpk::utf16_to_utf8(u, std::span<char>(exact.data(), 10)).value(), 10u);
  EXPECT_EQ(std::string_view(exact.data(), 12), "caf\xc3\xa9 \xf0\x9f\x98\x80##");
  // One byte short.
  EXPECT_EQ(mpk::utf16_to_utf8(u, std::span<char>(exact.data(), 9)).error(),
            (mpk::error{mpk::errc::buffer_full, 0}));

  const std::string e = "caf\xc3\xa9 \xf0\x9f\x98\x80";
  std::array<char16_t, 10> units{};
  EXPECT_EQ(mpk::utf8_to_utf16(e, units).value(), 7u);
  EXPECT_EQ(std::u16string_view(units.data(), 7), u"caf\u00e9 \U0001F600");
  std::array<char16_t, 8> tight{};
  tight.fill(u'#');
  EXPECT_EQ(mpk::utf8_to_utf16(e, std::span<char16_t>(tight.data(), 7)).value(), 7u);
  EXPECT_EQ(tight[7], u'#');
  EXPECT_EQ(mpk::utf8_to_utf16(e, std::span<char16_t>(tight.data(), 6)).error(),
            (mpk::error{mpk::errc::buffer_full, 0}));
  EXPECT_EQ(mpk::utf8_to_utf16(bytes("61 ed a0 80"), std::span<char16_t>(tight.data(), 2)).error(),
            (mpk::error{mpk::errc::invalid_utf8, 1}));
}

// --- writer: write(std::u16string_view) ------------------------------------------------------

/// What write(std::string_view) gives for the UTF-8 form: the bytes write(u16) must match.
std::string expected_str(const std::string& utf8, mpk::writer_options opt = {}) {
  mpk::buffer buf;
  mpk::writer w(buf, opt);
  w.write(std::string_view(utf8));
  return to_hex(buf.bytes());
}

std::string written(std::u16string_view u, mpk::writer_options opt = {}) {
  mpk::buffer buf;
  mpk::writer w(buf, opt);
  w.write(u);
  EXPECT_TRUE(w.ok()) << w.error().message();
  return to_hex(buf.bytes());
}

TEST(WriterUtf16, ExactBytes) {
  EXPECT_EQ(written(u""), "a0");
  EXPECT_EQ(written(u"caf\u00e9"), "a5 63 61 66 c3 a9");
  EXPECT_EQ(written(u"\U0001F600"), "a4 f0 9f 98 80");
  EXPECT_EQ(written(u"\u20ac"), "a3 e2 82 ac");
}

// Header boundaries at 31/32, 255/256 and 65535/65536 bytes of UTF-8, reached with ASCII
// (the header the writer guesses first is right) and with 2- and 3-byte characters (the
// UTF-8 form needs a longer header than the code-unit count suggests).
TEST(WriterUtf16, SmallestHeaderAtEveryBoundary) {
  for (const mpk::writer_options opt :
       {mpk::writer_options{}, mpk::writer_options{.old_spec = true}}) {
    for (std::size_t bytes_len :
         {0u, 1u, 30u, 31u, 32u, 33u, 254u, 255u, 256u, 257u, 65535u, 65536u, 65537u, 200000u}) {
      for (char32_t c : {char32_t('x'), char32_t(0xe9), char32_t(0x20ac), char32_t(0x1f600)}) {
        const std::size_t w = utf8_of(c).size();
        std::u16string u;
        std::string e;
        for (std::size_t i = 0; i < bytes_len / w; ++i) {
          u += utf16_of(c);
          e += utf8_of(c);
        }
        for (std::size_t i = e.size(); i < bytes_len; ++i) {  // fill with ASCII
          u += u'y';
          e += 'y';
        }
        SCOPED_TRACE(std::to_string(bytes_len) + " bytes of U+" + std::to_string(c) +
                     (opt.old_spec ? " old spec" : ""));
        ASSERT_EQ(written(u, opt), expected_str(e, opt));
      }
    }
  }
}

TEST(WriterUtf16, LoneSurrogateWritesNothing) {
  for (std::size_t len : {1u, 10u, 5000u}) {  // one pass and two passes
    std::u16string u(len, u'a');
    u.back() = u'\xdc00';
    mpk::buffer buf;
    mpk::writer w(buf);
    w.write(1);
    w.write(u);
    EXPECT_EQ(w.error(), (mpk::error{mpk::errc::invalid_utf16, 1}));
    EXPECT_EQ(to_hex(buf.bytes()), "01");
    w.write(2);  // sticky
    EXPECT_EQ(buf.size(), 1u);
  }
}

// Long text goes through the measured path in pieces; a surrogate pair straddles the piece
// boundary.
TEST(WriterUtf16, LongTextInPieces) {
  for (std::size_t pair_at : {4094u, 4095u, 4096u, 8191u}) {
    std::u16string u;
    std::string e;
    for (std::size_t i = 0; i < 9000; ++i) {
      if (i == pair_at) {
        u += u"\U0001F600";
        e += "\xf0\x9f\x98\x80";
        ++i;
      } else {
        const auto c = static_cast<char32_t>(i % 7 == 0 ? 0xe9 : 'a' + i % 26);
        u += utf16_of(c);
        e += utf8_of(c);
      }
    }
    EXPECT_EQ(written(u), expected_str(e));
  }
}

TEST(WriterUtf16, SpanSinkWithExactRoom) {
  const std::u16string u = u"\u20ac\u20ac\u20ac";  // 3 units, 9 bytes: worst case + header fits
  const std::string e = "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac";
  const std::u16string ascii = u"abcdef";  // 6 bytes, but the worst case is 18 + 1
  {
    std::array<std::byte, 7> mem{};
    mpk::span_sink out(mem);
    mpk::writer w(out);
    w.write(ascii);
    ASSERT_TRUE(w.ok()) << w.error().message();
    EXPECT_EQ(to_hex(out.bytes()), expected_str("abcdef"));
  }
  {
    std::array<std::byte, 6> mem{};
    mpk::span_sink out(mem);
    mpk::writer w(out);
    w.write(ascii);
    EXPECT_EQ(w.error().code, mpk::errc::buffer_full);
  }
  {
    std::array<std::byte, 10> mem{};
    mpk::span_sink out(mem);
    mpk::writer w(out);
    w.write(u);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(to_hex(out.bytes()), expected_str(e));
  }
}

// A buffer with room for the text but not for the worst case (3 bytes per unit) is written
// exactly, without growing: sizing a buffer for its output must not double it. With less
// room than the text needs, it grows as usual.
TEST(WriterUtf16, BufferSizedForTheOutputDoesNotGrow) {
  for (const std::u16string& u : {std::u16string(40, u'a'), std::u16string(300, u'\u00e9'),
                                  std::u16string(3000, u'\u20ac'), std::u16string(5000, u'b')}) {
    mpk::buffer reference;
    mpk::writer(reference).write(u);
    ASSERT_GT(reference.size(), 0u);
    mpk::buffer exact(reference.size() + 1);
    const std::size_t capacity = exact.capacity();
    ASSERT_EQ(exact.room(), capacity);
    mpk::writer w(exact);
    w.write(1);  // the text ends exactly at the end of the capacity
    w.write(u);
    ASSERT_TRUE(w.ok()) << w.error().message();
    EXPECT_EQ(exact.capacity(), capacity) << u.size() << " units";
    EXPECT_EQ(exact.room(), 0u);
    EXPECT_EQ(to_hex(exact.bytes()), "01 " + to_hex(reference.bytes()));

    mpk::buffer small(reference.size() / 2);
    mpk::writer w2(small);
    w2.write(u);
    ASSERT_TRUE(w2.ok());
    EXPECT_EQ(to_hex(small.bytes()), to_hex(reference.bytes()));
  }
}

TEST(WriterUtf16, StreamSinkGetsTheSameBytes) {
  std::u16string u;
  std::string e;
  for (int i = 0; i < 3000; ++i) {
    u += u"\u00e9\U0001F600z";
    e += "\xc3\xa9\xf0\x9f\x98\x80z";
  }
  std::string got;
  auto collect = [](void* ctx, std::span<const std::byte> b) {
    static_cast<std::string*>(ctx)->append(reinterpret_cast<const char*>(b.data()), b.size());
    return true;
  };
  {
    mpk::stream_sink out(+collect, &got, 256);
    mpk::writer w(out);
    w.write(std::u16string_view(u.data(), 9));  // ends before a pair
    w.write(u);
    ASSERT_TRUE(w.ok());
    ASSERT_EQ(out.flush(), mpk::errc::ok);
  }
  EXPECT_EQ(to_hex(mpk_test::bytes_of(got)),
            expected_str("\xc3\xa9\xf0\x9f\x98\x80z\xc3\xa9\xf0\x9f\x98\x80z\xc3\xa9") + " " +
                expected_str(e));
}

// --- reader: read<std::string>(), read<std::u16string>(), the UTF-8 policy --------------------

std::vector<std::byte> message_with(std::string_view payload) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_array(2);
  w.write(7);
  w.write(payload);
  return {buf.bytes().begin(), buf.bytes().end()};
}

TEST(ReaderUtf8, ReadStringValidatesByDefault) {
  const std::vector<std::byte> good = message_with("caf\xc3\xa9");
  mpk::reader r(good);
  ASSERT_EQ(r.read_array_header(), 2u);
  EXPECT_EQ(r.read<int>(), 7);
  EXPECT_EQ(r.read<std::string>(), "caf\xc3\xa9");
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.at_end());

  for (const std::string& bad :
       {bytes("ed a0 80"), bytes("c0 80"), bytes("f4 90 80 80"), bytes("61 62 e2 82")}) {
    const std::vector<std::byte> msg = message_with(bad);
    mpk::reader rb(msg);
    (void)rb.read_array_header();
    (void)rb.read<int>();
    EXPECT_EQ(rb.read<std::string>(), "");
    EXPECT_EQ(rb.error(), (mpk::error{mpk::errc::invalid_utf8, 2}));  // the str's offset
    EXPECT_EQ(rb.position(), 2u);
    EXPECT_EQ(rb.read<int>(), 0);  // sticky
    EXPECT_EQ(rb.error(), (mpk::error{mpk::errc::invalid_utf8, 2}));
  }
}

TEST(ReaderUtf8, PolicyForViews) {
  const std::vector<std::byte> msg = message_with(bytes("ed a0 80"));
  {
    mpk::reader r(msg);  // owned: views are not checked
    (void)r.read_array_header();
    (void)r.read<int>();
    EXPECT_EQ(r.read<std::string_view>(), bytes("ed a0 80"));
    EXPECT_TRUE(r.ok());
  }
  {
    mpk::reader r(msg, {.utf8 = mpk::utf8_check::all});
    EXPECT_EQ(r.options().utf8, mpk::utf8_check::all);
    (void)r.read_array_header();
    (void)r.read<int>();
    EXPECT_EQ(r.read<std::string_view>(), "");
    EXPECT_EQ(r.error(), (mpk::error{mpk::errc::invalid_utf8, 2}));
  }
  {
    mpk::reader r(msg, {.utf8 = mpk::utf8_check::all});
    (void)r.read_array_header();
    (void)r.read<int>();
    EXPECT_EQ(r.read_string_view(), "");
    EXPECT_EQ(r.error().code, mpk::errc::invalid_utf8);
  }
  {
    mpk::reader r(msg, {.utf8 = mpk::utf8_check::none});  // raw bytes into std::string
    (void)r.read_array_header();
    (void)r.read<int>();
    EXPECT_EQ(r.read<std::string>(), bytes("ed a0 80"));
    EXPECT_TRUE(r.ok());
  }
  {
    mpk::unchecked_reader r(msg, {.utf8 = mpk::utf8_check::owned});
    (void)r.read_array_header();
    (void)r.read<int>();
    EXPECT_EQ(r.read<std::string>(), "");
    EXPECT_EQ(r.error(), (mpk::error{mpk::errc::invalid_utf8, 2}));
  }
  {
    const std::vector<std::byte> ok = message_with("caf\xc3\xa9");
    mpk::reader r(ok, {.utf8 = mpk::utf8_check::all});
    (void)r.read_array_header();
    (void)r.read<int>();
    EXPECT_EQ(r.read_string_view(), "caf\xc3\xa9");
    EXPECT_TRUE(r.ok());
  }
}

TEST(ReaderUtf8, ReadU16String) {
  const std::string text = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 and some more ASCII";
  const std::vector<std::byte> msg = message_with(text);
  mpk::reader r(msg);
  (void)r.read_array_header();
  (void)r.read<int>();
  EXPECT_EQ(r.read<std::u16string>(), u"a\u00e9\u20ac\U0001F600 and some more ASCII");
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.at_end());

  // An encoded surrogate would become a lone surrogate: refused even with utf8_check::none.
  for (const std::string& bad : {bytes("ed a0 80"), bytes("ed b0 80"), bytes("f4 90 80 80")}) {
    const std::vector<std::byte> m = message_with(bad);
    mpk::reader rb(m, {.utf8 = mpk::utf8_check::none});
    (void)rb.read_array_header();
    (void)rb.read<int>();
    EXPECT_EQ(rb.read<std::u16string>(), u"");
    EXPECT_EQ(rb.error(), (mpk::error{mpk::errc::invalid_utf8, 2}));
  }
}

TEST(ReaderUtf8, OtherErrorsOfOwnedStrings) {
  const std::vector<std::byte> num = hex("2a");
  mpk::reader r(num);
  EXPECT_EQ(r.read<std::string>(), "");
  EXPECT_EQ(r.error(), (mpk::error{mpk::errc::type_mismatch, 0}));
  const std::vector<std::byte> cut = hex("a5 61 62");
  mpk::reader r2(cut);
  EXPECT_EQ(r2.read<std::u16string>(), u"");
  EXPECT_EQ(r2.error(), (mpk::error{mpk::errc::truncated, 0}));
  const std::vector<std::byte> long_str = hex("a5 61 62 63 64 65");
  mpk::reader r3(long_str, {.limits = {.max_str_len = 4}});
  EXPECT_EQ(r3.read<std::string>(), "");
  EXPECT_EQ(r3.error().code, mpk::errc::limit_exceeded);
}

// Writer to reader: random BMP and astral text survives both directions.
TEST(ReaderUtf8, WriterToReaderRoundTrip) {
  std::mt19937 rng(99);
  for (int round = 0; round < 300; ++round) {
    std::u16string u;
    const std::size_t n = rng() % 300;
    for (std::size_t i = 0; i < n; ++i) {
      char32_t c;
      switch (rng() % 4) {
        case 0:
          c = static_cast<char32_t>(0x80 + rng() % (0xd800 - 0x80));
          break;
        case 1:
          c = static_cast<char32_t>(0x10000 + rng() % 0x100000);
          break;
        default:
          c = static_cast<char32_t>(rng() % 0x80);
          break;
      }
      u += utf16_of(c);
    }
    mpk::buffer buf;
    mpk::writer w(buf);
    w.write(u);
    ASSERT_TRUE(w.ok());
    mpk::reader r(buf.bytes());
    ASSERT_EQ(r.read<std::u16string>(), u);
    ASSERT_TRUE(r.ok() && r.at_end());
    mpk::reader r2(buf.bytes());
    ASSERT_EQ(r2.read<std::string>(), mpk::to_utf8(u).value());
  }
}

}  // namespace

// is_valid_utf8 skips an ASCII run with a SIMD scan (256- and 64-byte blocks, then 32 or 16,
// then the last 32 or 16 overlapping) before the validator: a non-ASCII byte, valid or not,
// at every position of lengths around those blocks, at four alignments.
TEST(Utf8, AsciiRunThenValidatorAtEveryBlockPosition) {
  const std::string bad[] = {bytes("ff"), bytes("80"), bytes("c0 80"), bytes("ed a0 80"),
                             bytes("e2 82")};
  const std::string good[] = {utf8_of(0xe9), utf8_of(0x20ac), utf8_of(0x1f600)};
  std::string storage(700, '\0');
  for (std::size_t len :
       {33u, 47u, 63u, 64u, 65u, 95u, 255u, 256u, 257u, 287u, 288u, 300u, 511u, 512u, 513u, 600u}) {
    for (std::size_t align = 0; align < 4; ++align) {
      SCOPED_TRACE("len " + std::to_string(len) + " align " + std::to_string(align));
      char* const at = storage.data() + align;
      auto check = [&](const std::string& s, bool valid) {
        std::copy(s.begin(), s.end(), at);
        const std::string_view v(at, s.size());
        ASSERT_EQ(mpk::is_valid_utf8(v), valid) << to_hex(mpk_test::bytes_of(v));
        ASSERT_EQ(mpk::detail::is_valid_utf8_scalar(v.data(), v.size()), valid);
        std::size_t first = 0;  // the first non-ASCII byte
        while (first < v.size() && static_cast<unsigned char>(v[first]) < 0x80)
          ++first;
        for (bool wide : {false, true}) {
          const std::size_t run = mpk::detail::ascii_run(v.data(), v.size(), wide);
          if (first == v.size()) {
            ASSERT_TRUE(run == v.size() || run == 0) << run;
          } else {
            ASSERT_LE(run, first);
          }
        }
      };
      std::string base(len, 'a');
      for (std::size_t i = 0; i < len; ++i)
        base[i] = static_cast<char>('a' + i % 26);
      check(base, true);
      for (const std::string& b : bad) {
        for (std::size_t pos = 0; pos + b.size() <= len; ++pos) {
          std::string s = base;
          s.replace(pos, b.size(), b);
          check(s, false);
        }
      }
      for (const std::string& g : good) {
        for (std::size_t pos = 0; pos + g.size() <= len; ++pos) {
          std::string s = base;
          s.replace(pos, g.size(), g);
          check(s, true);
          // Cut short by one byte at the end: truncated.
          if (pos + g.size() == len) check(s.substr(0, len - 1), false);
        }
      }
    }
  }
}
