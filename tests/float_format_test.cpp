// detail::format_shortest / format_json_float and format_decimal
// (include/mpk/detail/float_format.hpp) against std::to_chars, character for character.
// MPK_FLOAT_FORMAT_LONG=1 runs a long mode by hand: 200 million random doubles and every float.
#include "mpk/detail/float_format.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>

namespace {

using mpk::detail::float_text_room;
using mpk::detail::format_json_float;
using mpk::detail::format_shortest;

bool long_mode() {
  const char* e = std::getenv("MPK_FLOAT_FORMAT_LONG");
  return e != nullptr && *e != '\0' && *e != '0';
}

template <class F>
std::string expected(F v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return {buf, r.ptr};
}

template <class F>
std::string actual(F v) {
  char buf[float_text_room];
  return {buf, format_shortest(buf, v)};
}

// Counts mismatches and reports the first few (a failing run names the value's bits).
struct checker {
  std::size_t checked = 0;
  std::size_t failed = 0;

  template <class F>
  void operator()(F v) {
    if (!std::isfinite(v)) return;
    ++checked;
    const std::string want = expected(v);
    const std::string got = actual(v);
    if (got == want) return;
    if (++failed <= 10) {
      using bits = std::conditional_t<sizeof(F) == 8, std::uint64_t, std::uint32_t>;
      ADD_FAILURE() << "bits 0x" << std::hex << std::bit_cast<bits>(v) << ": to_chars \"" << want
                    << "\", format_shortest \"" << got << '"';
    }
  }
  template <class F>
  void both_signs(F v) {
    (*this)(v);
    (*this)(-v);
  }
  ~checker() { EXPECT_EQ(failed, 0u) << "of " << checked << " values"; }
};

TEST(FloatFormat, KnownTexts) {
  EXPECT_EQ(actual(0.0), "0");
  EXPECT_EQ(actual(-0.0), "-0");
  EXPECT_EQ(actual(1.0), "1");
  EXPECT_EQ(actual(0.1), "0.1");
  EXPECT_EQ(actual(0.3), "0.3");
  EXPECT_EQ(actual(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(actual(1e300), "1e+300");
  EXPECT_EQ(actual(1e-7), "1e-07");
  EXPECT_EQ(actual(5e-324), "5e-324");
  EXPECT_EQ(actual(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(actual(-2.2250738585072014e-308), "-2.2250738585072014e-308");
  EXPECT_EQ(actual(1.0f / 3.0f), "0.33333334");
  EXPECT_EQ(actual(16777216.0f), "16777216");
  EXPECT_EQ(actual(1e-45f), "1e-45");
  EXPECT_EQ(actual(3.4028235e38f), "3.4028235e+38");
}

TEST(FloatFormat, JsonAddsPointToBareIntegers) {
  const auto json = [](auto v) {
    char buf[float_text_room];
    return std::string(buf, format_json_float(buf, v));
  };
  checker check;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    // Integral values (bare integers in to_chars' text) and others, both formats.
    const double d = i % 2 == 0 ? std::ldexp(static_cast<double>(rng() >> 11),
                                             static_cast<int>(rng() % 140) - 70)
                                : std::bit_cast<double>(rng());
    const float f = static_cast<float>(d);
    if (std::isfinite(d)) {
      std::string want = expected(d);
      if (want.find_first_of(".e") == std::string::npos) want += ".0";
      EXPECT_EQ(json(d), want);
    }
    if (std::isfinite(f)) {
      std::string want = expected(f);
      if (want.find_first_of(".e") == std::string::npos) want += ".0";
      EXPECT_EQ(json(f), want);
    }
  }
  EXPECT_EQ(json(0.0), "0.0");
  EXPECT_EQ(json(-0.0f), "-0.0");
  EXPECT_EQ(json(2.5), "2.5");
  EXPECT_EQ(json(1e22), "1e+22");
  EXPECT_EQ(json(123456789012345678.0), "123456789012345680.0");
}

// Every exponent of both formats, with the edge significands (0, 1, 2, all ones, one less)
// and a few random ones.
TEST(FloatFormat, EveryExponentAndEdgeSignificand) {
  checker check;
  std::mt19937_64 rng(1);
  for (std::uint32_t e = 0; e < 255; ++e) {
    for (std::uint32_t m : {0u, 1u, 2u, 3u, 0x7fffffu, 0x7ffffeu, 0x400000u, 0x3fffffu}) {
      check.both_signs(std::bit_cast<float>(e << 23 | m));
    }
    for (int i = 0; i < 64; ++i)
      check.both_signs(
          std::bit_cast<float>(e << 23 | static_cast<std::uint32_t>(rng() & 0x7fffff)));
  }
  const std::uint64_t mmax = (std::uint64_t{1} << 52) - 1;
  for (std::uint64_t e = 0; e < 2047; ++e) {
    for (std::uint64_t m : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, mmax, mmax - 1,
                            std::uint64_t{1} << 51, (std::uint64_t{1} << 51) - 1}) {
      check.both_signs(std::bit_cast<double>(e << 52 | m));
    }
    for (int i = 0; i < 16; ++i)
      check.both_signs(std::bit_cast<double>(e << 52 | (rng() & mmax)));
  }
  EXPECT_GT(check.checked, 100000u);
}

TEST(FloatFormat, SubnormalsAndLimits) {
  checker check;
  for (std::uint32_t m = 1; m < 5000; ++m)
    check.both_signs(std::bit_cast<float>(m));
  for (std::uint64_t m = 1; m < 5000; ++m)
    check.both_signs(std::bit_cast<double>(m));
  for (std::uint64_t m = 1; m < 5000; ++m)
    check.both_signs(std::bit_cast<double>((std::uint64_t{1} << 52) - m));
  check.both_signs(std::numeric_limits<double>::min());
  check.both_signs(std::numeric_limits<double>::max());
  check.both_signs(std::numeric_limits<double>::denorm_min());
  check.both_signs(std::numeric_limits<double>::epsilon());
  check.both_signs(std::numeric_limits<float>::min());
  check.both_signs(std::numeric_limits<float>::max());
  check.both_signs(std::numeric_limits<float>::denorm_min());
  check.both_signs(std::numeric_limits<float>::epsilon());
}

// Powers of ten (the nearest double / float to 10^n, and its neighbours) and of two.
TEST(FloatFormat, PowersOfTenAndTwo) {
  checker check;
  for (int n = -330; n <= 310; ++n) {
    const std::string text = "1e" + std::to_string(n);
    double d = 0;
    float f = 0;
    std::from_chars(text.data(), text.data() + text.size(), d);
    std::from_chars(text.data(), text.data() + text.size(), f);
    for (const double x :
         {d, std::nextafter(d, 0.0), std::nextafter(d, std::numeric_limits<double>::infinity())})
      check.both_signs(x);
    for (const float x :
         {f, std::nextafter(f, 0.0f), std::nextafter(f, std::numeric_limits<float>::infinity())})
      check.both_signs(x);
  }
  for (int e = -1074; e <= 1023; ++e)
    check.both_signs(std::ldexp(1.0, e));
  for (int e = -149; e <= 127; ++e)
    check.both_signs(std::ldexp(1.0f, e));
  EXPECT_GT(check.checked, 7000u);
}

// Integers: small ones, around 2^24 and 2^53, random ones below and far beyond 2^53.
TEST(FloatFormat, Integers) {
  checker check;
  for (int i = 0; i < 100000; ++i) {
    check.both_signs(static_cast<double>(i));
    check.both_signs(static_cast<float>(i));
  }
  for (int i = -5000; i <= 5000; ++i) {
    check(std::ldexp(1.0, 53) + 2.0 * i);
    check(std::ldexp(1.0f, 24) + 2.0f * static_cast<float>(i));
  }
  std::mt19937_64 rng(2);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t u = rng();
    check(static_cast<double>(u >> 11));                                      // below 2^53
    check(static_cast<double>(u >> (rng() % 11)));                            // 2^53 .. 2^64
    check(static_cast<double>(u) * static_cast<double>(1 + rng() % 100000));  // beyond 2^64
    check(static_cast<float>(u >> (rng() % 64)));
  }
  for (double p = 1; p < 1e30; p *= 10)
    check(p - 1.0), check(p + 1.0), check(p * 1.2345);
}

// Decimals with few digits (like 12.25 or 0.001), which a shortcut might treat specially.
TEST(FloatFormat, ShortDecimals) {
  checker check;
  for (int i = 0; i < 200000; ++i) {
    check(i + 0.25);
    check(i / 1000.0);
    check(1.0 / (i + 3));
    check(static_cast<float>(i) + 0.25f);
    check(static_cast<float>(i) / 1000.0f);
  }
}

// detail::format_decimal (the JSON layer's integers) against std::to_chars: every integer
// up to 10^5 of both signs, both sides of each power of ten, the limits, random ones of every
// width; and no byte written beyond decimal_text_room.
TEST(FormatDecimal, SameTextAsToChars) {
  std::size_t checked = 0;
  std::size_t failed = 0;
  const auto check = [&](auto v) {
    char buf[mpk::detail::decimal_text_room + 8];
    std::memset(buf, '#', sizeof buf);
    const char* const end = mpk::detail::format_decimal(buf, v);
    char want[32];
    const auto r = std::to_chars(want, want + sizeof want, v);
    ++checked;
    const bool guard_kept = std::string_view(buf + mpk::detail::decimal_text_room, 8) == "########";
    if (std::string_view(buf, static_cast<std::size_t>(end - buf)) !=
            std::string_view(want, static_cast<std::size_t>(r.ptr - want)) ||
        !guard_kept) {
      if (++failed <= 10) ADD_FAILURE() << "format_decimal(" << v << ")";
    }
  };
  for (std::int64_t i = -100000; i <= 100000; ++i) {
    check(i);
    if (i >= 0) check(static_cast<std::uint64_t>(i));
  }
  for (std::uint64_t p = 10; p != 10000000000000000000u; p *= 10) {
    for (const std::uint64_t u : {p - 1, p, p + 1}) {
      check(u);
      check(static_cast<std::int64_t>(u));
      check(-static_cast<std::int64_t>(u));
    }
  }
  for (const std::uint64_t u :
       {std::uint64_t{9999999999999999999u}, std::uint64_t{10000000000000000000u},
        std::numeric_limits<std::uint64_t>::max()})
    check(u);
  check(std::numeric_limits<std::int64_t>::min());
  check(std::numeric_limits<std::int64_t>::max());
  std::mt19937_64 rng(4);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t u = rng() >> (rng() % 64);
    check(u);
    check(static_cast<std::int64_t>(u));
  }
  EXPECT_EQ(failed, 0u) << "of " << checked;
  EXPECT_GT(checked, 700000u);
}

// Fractions with few binary digits, m * 2^-j (m odd), on both sides of the bound where
// format_shortest writes their exact expansion without the general search (2^q < 10^-j),
// for every count of zero bits at the end of the significand; and integers m * 2^j.
TEST(FloatFormat, ShortBinaryFractions) {
  checker check;
  std::mt19937_64 rng(5);
  for (int bits = 1; bits <= 53; ++bits) {  // significant bits of m, so 53 - bits zeros
    for (int j = -12; j <= 40; ++j) {
      for (int i = 0; i < 8; ++i) {
        const std::uint64_t m = (rng() >> (64 - bits)) | std::uint64_t{1} << (bits - 1) | 1;
        check.both_signs(std::ldexp(static_cast<double>(m), -j));
        if (bits <= 24) check.both_signs(std::ldexp(static_cast<float>(m), -j));
      }
    }
  }
  EXPECT_GT(check.checked, 40000u);
}

TEST(FloatFormat, RandomBitPatterns) {
#ifdef NDEBUG
  const std::uint64_t n = long_mode() ? 200'000'000 : 3'000'000;
#else
  const std::uint64_t n = long_mode() ? 200'000'000 : 1'000'000;
#endif
  checker check;
  std::mt19937_64 rng(3);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t u = rng();
    check(std::bit_cast<double>(u));
    check(std::bit_cast<float>(static_cast<std::uint32_t>(u >> 32)));
  }
  EXPECT_GT(check.checked, n);
  if (long_mode()) {  // every float
    std::uint32_t u = 0;
    do {
      check(std::bit_cast<float>(u));
    } while (++u != 0);
  }
}

}  // namespace
