// Tests of mpk/reader.hpp: every marker family, every integer width and boundary, float
// coercions, str/bin/ext at every length boundary, containers, truncation of every prefix,
// hostile inputs, sticky errors, limits, and agreement of skip / field_size / raw_value.
#include "mpk/reader.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

// --- allocation tracking: the largest single allocation while `g_track` is set -----------

namespace {
std::atomic<bool> g_track{false};
std::atomic<std::size_t> g_largest{0};
}  // namespace

// malloc and free through pointers the optimiser cannot see through: once it pairs our
// operator new with free() it warns (-Wmismatched-new-delete) about the standard library.
namespace {
void* (*volatile g_malloc)(std::size_t) = std::malloc;
void (*volatile g_free)(void*) = std::free;
}  // namespace

void* operator new(std::size_t n) {
  if (g_track.load(std::memory_order_relaxed)) {
    std::size_t seen = g_largest.load(std::memory_order_relaxed);
    while (n > seen && !g_largest.compare_exchange_weak(seen, n)) {
    }
  }
  if (void* p = g_malloc(n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  g_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  g_free(p);
}

namespace mpk::inline v0 {
// Readable gtest messages: "truncated at 3".
void PrintTo(const error& e, std::ostream* os) {
  *os << (e.code == errc::ok ? "ok" : message(e.code)) << " (" << static_cast<int>(e.code)
      << ") at " << e.offset;
}
}  // namespace mpk::inline v0

namespace {

using bytes = std::vector<std::byte>;
using mpk::errc;

/// "cd 01 00" -> {0xcd, 0x01, 0x00}. Spaces are optional between bytes.
bytes hex(std::string_view s) {
  bytes out;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  int hi = -1;
  for (char c : s) {
    const int v = nibble(c);
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<std::byte>(hi * 16 + v));
      hi = -1;
    }
  }
  EXPECT_EQ(hi, -1) << "odd number of hex digits in " << s;
  return out;
}

bytes operator+(bytes a, const bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bytes repeat(std::string_view h, std::size_t n) {
  const bytes one = hex(h);
  bytes out;
  out.reserve(one.size() * n);
  for (std::size_t i = 0; i < n; ++i)
    out.insert(out.end(), one.begin(), one.end());
  return out;
}

/// `n` bytes 0, 1, 2, ... (mod 251).
bytes pattern(std::size_t n) {
  bytes out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::byte>(i % 251);
  return out;
}

bytes be(std::uint64_t v, int width) {
  bytes out;
  for (int i = width - 1; i >= 0; --i)
    out.push_back(static_cast<std::byte>(v >> (8 * i)));
  return out;
}

bytes marker(int m) {
  return bytes{static_cast<std::byte>(m)};
}

/// The same input, exact and followed by 16 spare nil bytes: the first runs the reader's
/// short path (the value ends in the last 8 bytes), the second its fast path.
std::vector<bytes> both_paths(const bytes& b) {
  return {b, b + repeat("c0", 16)};
}

std::string_view as_text(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

mpk::error err(errc c, std::size_t offset) {
  return mpk::error{c, offset};
}

// --- integers ----------------------------------------------------------------------------

/// An integer value of either sign: `neg` says whether `bits` is a negative int64.
struct int_value {
  bool neg;
  std::uint64_t bits;
  static int_value of_u(std::uint64_t u) { return {false, u}; }
  static int_value of_s(std::int64_t s) { return {s < 0, static_cast<std::uint64_t>(s)}; }
  std::int64_t s() const { return static_cast<std::int64_t>(bits); }
};

template <class T>
bool fits(int_value v) {
  return v.neg ? std::in_range<T>(v.s()) : std::in_range<T>(v.bits);
}

/// Every MessagePack encoding that can hold `v`, minimal or not.
std::vector<bytes> encodings(int_value v) {
  std::vector<bytes> out;
  if (!v.neg && v.bits <= 0x7f) out.push_back(marker(static_cast<int>(v.bits)));
  if (v.neg && v.s() >= -32) out.push_back(marker(static_cast<int>(v.bits & 0xff)));
  if (!v.neg) {
    if (v.bits <= 0xff) out.push_back(marker(0xcc) + be(v.bits, 1));
    if (v.bits <= 0xffff) out.push_back(marker(0xcd) + be(v.bits, 2));
    if (v.bits <= 0xffffffffu) out.push_back(marker(0xce) + be(v.bits, 4));
    out.push_back(marker(0xcf) + be(v.bits, 8));
  }
  const bool in64 = v.neg || v.bits <= static_cast<std::uint64_t>(INT64_MAX);
  if (in64) {
    const std::int64_t s = v.s();
    if (s >= INT8_MIN && s <= INT8_MAX) out.push_back(marker(0xd0) + be(v.bits, 1));
    if (s >= INT16_MIN && s <= INT16_MAX) out.push_back(marker(0xd1) + be(v.bits, 2));
    if (s >= INT32_MIN && s <= INT32_MAX) out.push_back(marker(0xd2) + be(v.bits, 4));
    out.push_back(marker(0xd3) + be(v.bits, 8));
  }
  return out;
}

using int_types =
    std::tuple<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
               std::int64_t, std::uint64_t, signed char, unsigned char, short, unsigned short, int,
               unsigned, long, unsigned long, long long, unsigned long long>;

template <class F>
void for_each_int_type(F&& f) {
  std::apply([&](auto... t) { (f(t), ...); }, int_types{});
}

const std::vector<int_value>& boundary_values() {
  static const std::vector<int_value> values = [] {
    std::vector<int_value> v;
    for (std::uint64_t u :
         {0ull, 1ull, 126ull, 127ull, 128ull, 254ull, 255ull, 256ull, 32767ull, 32768ull, 65535ull,
          65536ull, 0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x100000000ull,
          0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull})
      v.push_back(int_value::of_u(u));
    for (std::int64_t s :
         {std::int64_t{-1}, std::int64_t{-32}, std::int64_t{-33}, std::int64_t{-128},
          std::int64_t{-129}, std::int64_t{-32768}, std::int64_t{-32769}, std::int64_t{INT32_MIN},
          std::int64_t{INT32_MIN} - 1, INT64_MIN + 1, INT64_MIN})
      v.push_back(int_value::of_s(s));
    return v;
  }();
  return values;
}

TEST(ReaderInt, EveryEncodingOfEveryBoundaryIntoEveryType) {
  int checked_cases = 0;
  for (const int_value v : boundary_values()) {
    for (const bytes& enc : encodings(v)) {
      for (const bytes& in : both_paths(enc)) {
        for_each_int_type([&](auto t) {
          using T = decltype(t);
          mpk::reader r(in);
          const T got = r.read<T>();
          if (fits<T>(v)) {
            ASSERT_TRUE(r.ok()) << "value " << v.bits << " neg " << v.neg << " size " << enc.size()
                                << " into " << sizeof(T) << " bytes";
            if (v.neg)
              EXPECT_EQ(static_cast<std::int64_t>(got), v.s());
            else
              EXPECT_EQ(static_cast<std::uint64_t>(got), v.bits);
            EXPECT_EQ(r.position(), enc.size());
          } else {
            EXPECT_EQ(got, T{});
            EXPECT_EQ(r.error(), err(errc::out_of_range, 0))
                << "value " << v.bits << " neg " << v.neg << " into " << sizeof(T) << " bytes";
            EXPECT_EQ(r.position(), 0u);
          }
          ++checked_cases;
        });
      }
    }
  }
  EXPECT_GT(checked_cases, 3000);
}

TEST(ReaderInt, NonMinimalEncodingsOfOneAndMinusOne) {
  const char* ones[] = {"01",
                        "cc 01",
                        "cd 00 01",
                        "ce 00 00 00 01",
                        "cf 00 00 00 00 00 00 00 01",
                        "d0 01",
                        "d1 00 01",
                        "d2 00 00 00 01",
                        "d3 00 00 00 00 00 00 00 01"};
  for (const char* h : ones) {
    const bytes in = hex(h);
    mpk::reader r(in);
    EXPECT_EQ(r.read<std::int8_t>(), 1) << h;
    EXPECT_TRUE(r.ok()) << h;
    EXPECT_TRUE(r.at_end()) << h;
    mpk::reader r2(in);
    EXPECT_EQ(r2.read<std::uint64_t>(), 1u) << h;
  }
  const char* minus_ones[] = {"ff", "d0 ff", "d1 ff ff", "d2 ff ff ff ff",
                              "d3 ff ff ff ff ff ff ff ff"};
  for (const char* h : minus_ones) {
    const bytes in = hex(h);
    mpk::reader r(in);
    EXPECT_EQ(r.read<std::int8_t>(), -1) << h;
    EXPECT_TRUE(r.at_end()) << h;
    mpk::reader r2(in);
    EXPECT_EQ(r2.read<std::uint64_t>(), 0u) << h;
    EXPECT_EQ(r2.error(), err(errc::out_of_range, 0)) << h;
  }
}

TEST(ReaderInt, FixintRanges) {
  for (int b = 0; b <= 0x7f; ++b) {
    const bytes in = marker(b);
    mpk::reader r(in);
    EXPECT_EQ(r.read<int>(), b);
  }
  for (int b = 0xe0; b <= 0xff; ++b) {
    const bytes in = marker(b);
    mpk::reader r(in);
    EXPECT_EQ(r.read<int>(), b - 256);
  }
}

TEST(ReaderInt, OtherFamiliesAreTypeMismatch) {
  for (const char* h : {"ca 3f 80 00 00", "cb 3f f0 00 00 00 00 00 00", "c0", "c2", "c3", "a1 31",
                        "c4 01 01", "90", "80", "d4 01 01"}) {
    for (const bytes& in : both_paths(hex(h))) {
      mpk::reader r(in);
      EXPECT_EQ(r.read<std::int64_t>(), 0) << h;
      EXPECT_EQ(r.error(), err(errc::type_mismatch, 0)) << h;
      mpk::reader u(in);
      EXPECT_EQ(u.read<std::uint8_t>(), 0u) << h;
      EXPECT_EQ(u.error(), err(errc::type_mismatch, 0)) << h;
    }
  }
}

// --- floats ------------------------------------------------------------------------------

bytes f32(float f) {
  return marker(0xca) + be(std::bit_cast<std::uint32_t>(f), 4);
}
bytes f64(double d) {
  return marker(0xcb) + be(std::bit_cast<std::uint64_t>(d), 8);
}

TEST(ReaderFloat, Float32AndFloat64) {
  for (const bytes& in : both_paths(f32(1.5f))) {
    mpk::reader r(in);
    EXPECT_EQ(r.read<float>(), 1.5f);
    mpk::reader r2(in);
    EXPECT_EQ(r2.read<double>(), 1.5);
    EXPECT_EQ(r2.position(), 5u);
  }
  for (const bytes& in : both_paths(f64(0.1))) {
    mpk::reader r(in);
    EXPECT_EQ(r.read<double>(), 0.1);
    EXPECT_EQ(r.position(), 9u);
    mpk::reader r2(in);
    EXPECT_EQ(r2.read<float>(), 0.1f);  // rounded to nearest
    EXPECT_TRUE(r2.ok());
  }
  const bytes spec = hex("cb 40 09 21 fb 54 44 2d 18");
  mpk::reader r(spec);
  EXPECT_EQ(r.read<double>(), 3.141592653589793);
}

TEST(ReaderFloat, DoubleIntoFloatRange) {
  constexpr double fmax = std::numeric_limits<float>::max();
  constexpr double inf = std::numeric_limits<double>::infinity();
  struct row {
    double in;
    bool ok;
  };
  for (const row c : {row{fmax, true}, row{-fmax, true}, row{1e300, false}, row{-1e300, false},
                      row{std::nextafter(fmax, inf), false}, row{inf, true}, row{-inf, true},
                      row{1e-300, true}, row{0.0, true}, row{-0.0, true}}) {
    for (const bytes& in : both_paths(f64(c.in))) {
      mpk::reader r(in);
      const float f = r.read<float>();
      if (c.ok) {
        EXPECT_TRUE(r.ok()) << c.in;
        EXPECT_EQ(f, static_cast<float>(c.in)) << c.in;
      } else {
        EXPECT_EQ(r.error(), err(errc::out_of_range, 0)) << c.in;
        EXPECT_EQ(f, 0.0f);
      }
    }
  }
  const bytes nan = f64(std::numeric_limits<double>::quiet_NaN());
  mpk::reader r(nan);
  EXPECT_TRUE(std::isnan(r.read<float>()));
  EXPECT_TRUE(r.ok());
}

TEST(ReaderFloat, IntegersIntoDouble) {
  struct row {
    const char* h;
    double value;
    bool ok;
  };
  const row rows[] = {
      {"7f", 127, true},
      {"e0", -32, true},
      {"cc ff", 255, true},
      {"d1 80 00", -32768, true},
      {"ce ff ff ff ff", 4294967295.0, true},
      {"d2 80 00 00 00", -2147483648.0, true},
      {"cf 00 20 00 00 00 00 00 00", 9007199254740992.0, true},      // 2^53
      {"cf 00 20 00 00 00 00 00 01", 0, false},                      // 2^53 + 1
      {"cf 00 20 00 00 00 00 00 02", 9007199254740994.0, true},      // 2^53 + 2
      {"cf 80 00 00 00 00 00 00 00", 9223372036854775808.0, true},   // 2^63
      {"cf ff ff ff ff ff ff ff ff", 0, false},                      // 2^64 - 1
      {"cf ff ff ff ff ff ff f8 00", 18446744073709549568.0, true},  // 53 significant bits
      {"d3 80 00 00 00 00 00 00 00", -9223372036854775808.0, true},  // INT64_MIN
      {"d3 ff df ff ff ff ff ff ff", 0, false},                      // -(2^53 + 1)
      {"d3 ff e0 00 00 00 00 00 00", -9007199254740992.0, true},     // -2^53
  };
  for (const row& c : rows) {
    for (const bytes& in : both_paths(hex(c.h))) {
      mpk::reader r(in);
      const double d = r.read<double>();
      if (c.ok) {
        EXPECT_TRUE(r.ok()) << c.h;
        EXPECT_EQ(d, c.value) << c.h;
      } else {
        EXPECT_EQ(r.error(), err(errc::out_of_range, 0)) << c.h;
      }
    }
  }
}

TEST(ReaderFloat, IntegersIntoFloat) {
  struct row {
    const char* h;
    float value;
    bool ok;
  };
  const row rows[] = {
      {"cd ff ff", 65535.0f, true},
      {"d1 80 00", -32768.0f, true},
      {"ce 01 00 00 00", 16777216.0f, true},    // 2^24
      {"ce 01 00 00 01", 0, false},             // 2^24 + 1
      {"ce ff ff ff 00", 4294967040.0f, true},  // 24 significant bits
      {"ce ff ff ff ff", 0, false},
      {"d2 fe ff ff ff", 0, false},  // -(2^24 + 1)
      {"d2 80 00 00 00", -2147483648.0f, true},
      {"cf 80 00 00 00 00 00 00 00", 9223372036854775808.0f, true},
      {"d3 80 00 00 00 00 00 00 00", -9223372036854775808.0f, true},
      {"d3 7f ff ff ff ff ff ff ff", 0, false},
  };
  for (const row& c : rows) {
    for (const bytes& in : both_paths(hex(c.h))) {
      mpk::reader r(in);
      const float f = r.read<float>();
      if (c.ok) {
        EXPECT_TRUE(r.ok()) << c.h;
        EXPECT_EQ(f, c.value) << c.h;
      } else {
        EXPECT_EQ(r.error(), err(errc::out_of_range, 0)) << c.h;
      }
    }
  }
}

TEST(ReaderFloat, OtherFamiliesAreTypeMismatch) {
  for (const char* h : {"c0", "c3", "a1 31", "c4 00", "90", "d6 01 00 00 00 00"}) {
    const bytes in = hex(h);
    mpk::reader r(in);
    EXPECT_EQ(r.read<double>(), 0.0) << h;
    EXPECT_EQ(r.error(), err(errc::type_mismatch, 0)) << h;
  }
}

// --- nil, bool ---------------------------------------------------------------------------

TEST(ReaderScalar, NilAndBool) {
  const bytes in = hex("c0 c2 c3 c0 01");
  mpk::reader r(in);
  EXPECT_EQ(r.peek(), mpk::type::nil);
  EXPECT_EQ(r.read<std::nullptr_t>(), nullptr);
  EXPECT_EQ(r.peek(), mpk::type::boolean);
  EXPECT_FALSE(r.read<bool>());
  EXPECT_TRUE(r.read<bool>());
  EXPECT_FALSE(r.read<bool>());  // c0 is not a bool
  EXPECT_EQ(r.error(), err(errc::type_mismatch, 3));
}

TEST(ReaderScalar, ReadNilAndTryReadNil) {
  const bytes in = hex("c0 c0 01");
  mpk::reader r(in);
  r.read_nil();
  EXPECT_TRUE(r.try_read_nil());
  EXPECT_FALSE(r.try_read_nil());  // 01: not consumed, no error
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.position(), 2u);
  EXPECT_EQ(r.read<int>(), 1);
  EXPECT_FALSE(r.try_read_nil());  // at the end: no error either
  EXPECT_TRUE(r.ok());
  r.read_nil();
  EXPECT_EQ(r.error(), err(errc::truncated, 3));

  const bytes one = hex("01");
  mpk::reader r2(one);
  r2.read_nil();
  EXPECT_EQ(r2.error(), err(errc::type_mismatch, 0));
}

// --- str, bin, ext -----------------------------------------------------------------------

bytes str_header(int m, std::size_t n) {
  switch (m) {
    case 0xa0:
      return marker(0xa0 | static_cast<int>(n));
    case 0xd9:
      return marker(0xd9) + be(n, 1);
    case 0xda:
      return marker(0xda) + be(n, 2);
    default:
      return marker(0xdb) + be(n, 4);
  }
}

TEST(ReaderStr, EveryLengthBoundaryInEveryForm) {
  struct row {
    int m;
    std::size_t n;
  };
  const row rows[] = {{0xa0, 0},     {0xa0, 1},   {0xa0, 31}, {0xd9, 0},     {0xd9, 31},
                      {0xd9, 32},    {0xd9, 255}, {0xda, 31}, {0xda, 255},   {0xda, 256},
                      {0xda, 65535}, {0xdb, 0},   {0xdb, 31}, {0xdb, 65535}, {0xdb, 65536}};
  for (const row& c : rows) {
    const bytes payload = pattern(c.n);
    const bytes head = str_header(c.m, c.n);
    for (const bytes& in : both_paths(head + payload)) {
      mpk::reader r(in);
      EXPECT_EQ(r.peek(), mpk::type::str);
      const std::string_view s = r.read_string_view();
      ASSERT_TRUE(r.ok()) << c.m << " " << c.n;
      EXPECT_EQ(s.size(), c.n);
      EXPECT_EQ(s, as_text(payload));
      EXPECT_EQ(static_cast<const void*>(s.data()),
                static_cast<const void*>(in.data() + head.size()));
      EXPECT_EQ(r.position(), head.size() + c.n);

      mpk::reader r2(in);
      EXPECT_EQ(r2.read<std::string_view>(), s);
      mpk::reader r3(in);
      EXPECT_EQ(r3.field_size(), head.size() + c.n);
    }
  }
}

TEST(ReaderStr, NotBin) {
  const bytes s = hex("a1 61");
  mpk::reader r(s);
  EXPECT_TRUE(r.read_bin().empty());
  EXPECT_EQ(r.error(), err(errc::type_mismatch, 0));
  const bytes b = hex("c4 01 61");
  mpk::reader r2(b);
  EXPECT_TRUE(r2.read_string_view().empty());
  EXPECT_EQ(r2.error(), err(errc::type_mismatch, 0));
}

TEST(ReaderBin, EveryLengthBoundaryInEveryForm) {
  struct row {
    int m;
    int width;
    std::size_t n;
  };
  const row rows[] = {{0xc4, 1, 0},   {0xc4, 1, 1},     {0xc4, 1, 255}, {0xc5, 2, 0},
                      {0xc5, 2, 256}, {0xc5, 2, 65535}, {0xc6, 4, 1},   {0xc6, 4, 65536}};
  for (const row& c : rows) {
    const bytes payload = pattern(c.n);
    const bytes head = marker(c.m) + be(c.n, c.width);
    for (const bytes& in : both_paths(head + payload)) {
      mpk::reader r(in);
      EXPECT_EQ(r.peek(), mpk::type::bin);
      const auto b = r.read<std::span<const std::byte>>();
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(b.size(), c.n);
      EXPECT_EQ(b.data(), in.data() + head.size());
      EXPECT_TRUE(std::equal(b.begin(), b.end(), payload.begin()));
      mpk::reader r2(in);
      EXPECT_EQ(r2.read_bin().size(), c.n);
      EXPECT_EQ(r2.position(), head.size() + c.n);
    }
  }
}

TEST(ReaderExt, FixextAndExt) {
  struct row {
    bytes head;
    std::size_t n;
  };
  const row rows[] = {{hex("d4 05"), 1},
                      {hex("d5 05"), 2},
                      {hex("d6 05"), 4},
                      {hex("d7 05"), 8},
                      {hex("d8 05"), 16},
                      {hex("c7 00 05"), 0},
                      {hex("c7 03 05"), 3},
                      {hex("c7 ff 05"), 255},
                      {hex("c8 01 00 05"), 256},
                      {hex("c8 ff ff 05"), 65535},
                      {hex("c9 00 01 00 00 05"), 65536},
                      {hex("c9 00 00 00 01 05"), 1}};
  for (const row& c : rows) {
    const bytes payload = pattern(c.n);
    for (const bytes& in : both_paths(c.head + payload)) {
      mpk::reader r(in);
      EXPECT_EQ(r.peek(), mpk::type::ext);
      const mpk::ext_view e = r.read_ext();
      ASSERT_TRUE(r.ok()) << c.n;
      EXPECT_EQ(e.type, 5);
      EXPECT_EQ(e.data.size(), c.n);
      EXPECT_EQ(e.data.data(), in.data() + c.head.size());
      EXPECT_TRUE(std::equal(e.data.begin(), e.data.end(), payload.begin()));
      EXPECT_EQ(r.position(), c.head.size() + c.n);
      mpk::reader r2(in);
      EXPECT_EQ(r2.read<mpk::ext_view>().data.size(), c.n);
      mpk::reader r3(in);
      EXPECT_EQ(r3.field_size(), c.head.size() + c.n);
    }
  }
  // A negative type: the timestamp, -1.
  const bytes ts = hex("d6 ff 00 00 00 01");
  mpk::reader r(ts);
  EXPECT_EQ(r.read_ext().type, -1);
}

// --- containers --------------------------------------------------------------------------

TEST(ReaderContainer, ArrayHeaders) {
  struct row {
    bytes head;
    std::uint32_t n;
  };
  const row rows[] = {{hex("90"), 0},
                      {hex("9f"), 15},
                      {hex("dc 00 10"), 16},
                      {hex("dc ff ff"), 65535},
                      {hex("dd 00 01 00 00"), 65536},
                      {hex("dc 00 01"), 1},
                      {hex("dd 00 00 00 01"), 1},
                      {hex("dd 00 00 00 00"), 0}};
  for (const row& c : rows) {
    const bytes in = c.head + bytes(c.n, std::byte{0});  // n zero fixints
    mpk::reader r(in);
    EXPECT_EQ(r.peek(), mpk::type::array);
    EXPECT_EQ(r.read_array_header(), c.n);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.position(), c.head.size());
    for (std::uint32_t i = 0; i < c.n; ++i)
      ASSERT_EQ(r.read<int>(), 0);
    EXPECT_TRUE(r.at_end());
    EXPECT_TRUE(r.ok());

    mpk::reader s(in);
    EXPECT_EQ(s.field_size(), in.size());
    s.skip();
    EXPECT_TRUE(s.ok());
    EXPECT_TRUE(s.at_end());
  }
}

TEST(ReaderContainer, MapHeaders) {
  struct row {
    bytes head;
    std::uint32_t n;
  };
  const row rows[] = {{hex("80"), 0},
                      {hex("8f"), 15},
                      {hex("de 00 10"), 16},
                      {hex("de ff ff"), 65535},
                      {hex("df 00 01 00 00"), 65536},
                      {hex("de 00 01"), 1},
                      {hex("df 00 00 00 01"), 1}};
  for (const row& c : rows) {
    const bytes in = c.head + bytes(2 * std::size_t{c.n}, std::byte{0});
    mpk::reader r(in);
    EXPECT_EQ(r.peek(), mpk::type::map);
    EXPECT_EQ(r.read_map_header(), c.n);
    ASSERT_TRUE(r.ok());
    for (std::uint32_t i = 0; i < c.n; ++i) {
      ASSERT_EQ(r.read<int>(), 0);
      ASSERT_EQ(r.read<int>(), 0);
    }
    EXPECT_TRUE(r.at_end());

    mpk::reader s(in);
    EXPECT_EQ(s.field_size(), in.size());
    const auto raw = s.raw_value();
    EXPECT_EQ(raw.data(), in.data());
    EXPECT_EQ(raw.size(), in.size());
  }
}

TEST(ReaderContainer, HeaderOfOtherFamiliesIsTypeMismatch) {
  const bytes m = hex("81 01 01");
  mpk::reader r(m);
  EXPECT_EQ(r.read_array_header(), 0u);
  EXPECT_EQ(r.error(), err(errc::type_mismatch, 0));
  const bytes a = hex("91 01");
  mpk::reader r2(a);
  EXPECT_EQ(r2.read_map_header(), 0u);
  EXPECT_EQ(r2.error(), err(errc::type_mismatch, 0));
}

// --- peek --------------------------------------------------------------------------------

TEST(ReaderPeek, EveryFirstByte) {
  for (int b = 0; b < 256; ++b) {
    const bytes in = marker(b) + bytes(20, std::byte{0});
    mpk::reader r(in);
    const mpk::type t = r.peek();
    EXPECT_EQ(t, mpk::marker_table[static_cast<std::size_t>(b)].family) << b;
    if (b == 0xc1) {
      EXPECT_EQ(r.error(), err(errc::invalid_marker, 0));
    } else {
      EXPECT_TRUE(r.ok()) << b;
      EXPECT_EQ(r.position(), 0u);  // peek consumes nothing
    }
  }
  mpk::reader empty;
  EXPECT_EQ(empty.peek(), mpk::type::invalid);
  EXPECT_EQ(empty.error(), err(errc::truncated, 0));
}

// --- generic reading (a test-side decoder built on peek + typed reads) -------------------

template <class R>
void dump(R& r, std::string& out, int depth = 0) {
  if (depth > 64) {
    out += "!deep";
    return;
  }
  switch (r.peek()) {
    case mpk::type::nil:
      r.read_nil();
      out += "nil";
      break;
    case mpk::type::boolean:
      out += r.template read<bool>() ? "true" : "false";
      break;
    case mpk::type::uint:
      out += std::to_string(r.template read<std::uint64_t>());
      break;
    case mpk::type::sint:
      out += std::to_string(r.template read<std::int64_t>());
      break;
    case mpk::type::float32:
      out += std::to_string(r.template read<float>()) + "f";
      break;
    case mpk::type::float64:
      out += std::to_string(r.template read<double>());
      break;
    case mpk::type::str:
      out += '"' + std::string(r.read_string_view()) + '"';
      break;
    case mpk::type::bin:
      out += "bin" + std::to_string(r.read_bin().size());
      break;
    case mpk::type::ext: {
      const mpk::ext_view e = r.read_ext();
      out += "ext" + std::to_string(e.type) + ":" + std::to_string(e.data.size());
      break;
    }
    case mpk::type::array: {
      const std::uint32_t n = r.read_array_header();
      out += '[';
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        dump(r, out, depth + 1);
        out += ',';
      }
      out += ']';
      break;
    }
    case mpk::type::map: {
      const std::uint32_t n = r.read_map_header();
      out += '{';
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        dump(r, out, depth + 1);
        out += ':';
        dump(r, out, depth + 1);
        out += ',';
      }
      out += '}';
      break;
    }
    case mpk::type::invalid:
      out += "!";
      break;
  }
}

/// Valid messages covering every family, in several nestings.
std::vector<bytes> valid_messages() {
  std::vector<bytes> m;
  for (const char* h : {
           "cd 01 00",
           "cf ff ff ff ff ff ff ff ff",
           "d3 80 00 00 00 00 00 00 00",
           "ca 3f c0 00 00",
           "cb 3f f8 00 00 00 00 00 00",
           "a3 61 62 63",
           "d9 03 61 62 63",
           "da 00 02 68 69",
           "db 00 00 00 02 68 69",
           "c4 02 01 02",
           "c5 00 01 ff",
           "c6 00 00 00 01 ff",
           "d4 01 05",
           "d5 01 05 06",
           "d7 ff 00 00 00 00 00 00 00 01",
           "d8 01 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f",
           "c7 02 05 01 02",
           "c8 00 01 7f aa",
           "c9 00 00 00 01 7f aa",
           "92 01 a1 78",
           "82 a1 61 01 a1 62 92 c0 c3",
           "dc 00 02 cd 01 00 ca 3f c0 00 00",
           "de 00 01 a1 6b 91 91 90",
           "df 00 00 00 01 c0 80",
           "dd 00 00 00 02 d8 05 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f c2",
           "92 93 93 01 02 03 93 04 05 06 93 07 08 09 81 a3 6b 65 79 93 c0 c2 c3",
           "81 cb 40 09 21 fb 54 44 2d 18 94 d0 80 d1 80 00 d2 80 00 00 00 e0",
       })
    m.push_back(hex(h));
  return m;
}

TEST(ReaderTruncation, EveryProperPrefixIsTruncated) {
  for (const bytes& msg : valid_messages()) {
    // The whole message reads cleanly, and every operation agrees on its size.
    {
      mpk::reader r(msg);
      std::string text;
      dump(r, text);
      EXPECT_TRUE(r.ok()) << text;
      EXPECT_TRUE(r.at_end()) << text;
      mpk::reader s(msg);
      EXPECT_EQ(s.field_size(), msg.size());
      s.skip();
      EXPECT_TRUE(s.ok());
      EXPECT_TRUE(s.at_end());
    }
    for (std::size_t len = 0; len < msg.size(); ++len) {
      const bytes prefix(msg.begin(), msg.begin() + static_cast<std::ptrdiff_t>(len));
      {
        mpk::reader r(prefix);
        std::string text;
        dump(r, text);
        EXPECT_EQ(r.error().code, errc::truncated) << "read, prefix " << len << " of " << text;
        EXPECT_LE(r.error().offset, len);
      }
      {
        mpk::reader r(prefix);
        r.skip();
        EXPECT_EQ(r.error().code, errc::truncated) << "skip, prefix " << len;
        EXPECT_LE(r.error().offset, len);
      }
      {
        mpk::reader r(prefix);
        EXPECT_EQ(r.field_size(), 0u);
        EXPECT_EQ(r.error().code, errc::truncated) << "field_size, prefix " << len;
      }
      {
        mpk::reader r(prefix);
        EXPECT_TRUE(r.raw_value().empty());
        EXPECT_EQ(r.error().code, errc::truncated) << "raw_value, prefix " << len;
      }
    }
  }
}

TEST(ReaderTruncation, ScalarsCutShort) {
  for (const char* h : {"cc", "cd 01", "ce 01 02 03", "cf 01 02 03 04 05 06 07", "d0", "d1 01",
                        "d2 01 02 03", "d3 01 02 03 04 05 06 07"}) {
    const bytes in = hex(h);
    mpk::reader r(in);
    EXPECT_EQ(r.read<std::int64_t>(), 0) << h;
    EXPECT_EQ(r.error(), err(errc::truncated, 0)) << h;
    mpk::reader d(in);
    EXPECT_EQ(d.read<double>(), 0.0) << h;
    EXPECT_EQ(d.error(), err(errc::truncated, 0)) << h;
  }
  for (const char* h : {"ca 01 02 03", "cb 01 02 03 04 05 06 07"}) {
    const bytes in = hex(h);
    mpk::reader r(in);
    EXPECT_EQ(r.read<double>(), 0.0) << h;
    EXPECT_EQ(r.error(), err(errc::truncated, 0)) << h;
  }
  // A str whose header fits but whose payload does not, with and without the fast path.
  const bytes s = hex("a5 61 62") + bytes{};
  mpk::reader r(s);
  EXPECT_EQ(r.read_string_view(), "");
  EXPECT_EQ(r.error(), err(errc::truncated, 0));
  const bytes s2 = hex("da 00 40") + pattern(20);
  mpk::reader r2(s2);
  EXPECT_EQ(r2.read_string_view(), "");
  EXPECT_EQ(r2.error(), err(errc::truncated, 0));
}

// --- hostile inputs ----------------------------------------------------------------------

struct bad_case {
  const char* h;
  errc by_default;  // with the default limits
  errc trusted;     // with limits::trusted()
  std::size_t pad;  // bytes that can follow and leave the error as it is (the fast path)
};

TEST(ReaderHostile, CleanErrorsWithoutLargeAllocations) {
  const bad_case cases[] = {
      {"c1", errc::invalid_marker, errc::invalid_marker, 16},
      {"dd ff ff ff ff", errc::limit_exceeded, errc::truncated, 16},
      {"df ff ff ff ff", errc::limit_exceeded, errc::truncated, 16},
      {"db ff ff ff ff 5a", errc::limit_exceeded, errc::truncated, 16},
      {"c6 ff ff ff ff", errc::limit_exceeded, errc::truncated, 16},
      {"c9 ff ff ff ff 01", errc::limit_exceeded, errc::truncated, 16},
      {"df 80 00 00 00", errc::limit_exceeded, errc::truncated, 16},
      {"df 40 00 00 00", errc::limit_exceeded, errc::truncated, 16},
      {"dc ff ff", errc::truncated, errc::truncated, 16},
      {"9f 01 01 01", errc::truncated, errc::truncated, 0},
      {"de 00 02 01 01 01", errc::truncated, errc::truncated, 0},
      {"dc 00 20", errc::truncated, errc::truncated, 31},   // 31 of 32 elements: fast path
      {"de 00 10", errc::truncated, errc::truncated, 31},   // 31 of 32 bytes for 16 entries
      {"da 00 40", errc::truncated, errc::truncated, 63},   // 63 of 64 bytes of a str16
      {"c5 01 00", errc::truncated, errc::truncated, 255},  // 255 of 256 bytes of a bin16
  };
  g_largest = 0;
  for (const bad_case& c : cases) {
    for (const bytes& in : {hex(c.h), hex(c.h) + repeat("01", c.pad)}) {
      for (const bool trusted : {false, true}) {
        const mpk::limits lim = trusted ? mpk::limits::trusted() : mpk::limits{};
        const errc want = trusted ? c.trusted : c.by_default;
        {
          mpk::reader r(in, {.limits = lim});
          std::string text;
          dump(r, text);
          EXPECT_EQ(r.error(), err(want, 0)) << c.h << " trusted " << trusted;
        }
        {
          mpk::reader r(in, {.limits = lim});
          g_track = true;
          r.skip();
          g_track = false;
          EXPECT_EQ(r.error(), err(want, 0)) << c.h << " trusted " << trusted;
          EXPECT_EQ(r.position(), 0u);
        }
        {
          mpk::reader r(in, {.limits = lim});
          g_track = true;
          const std::size_t n = r.field_size();
          g_track = false;
          EXPECT_EQ(n, 0u);
          EXPECT_EQ(r.error(), err(want, 0)) << c.h;
        }
        {
          mpk::reader r(in, {.limits = lim});
          g_track = true;
          const auto raw = r.raw_value();
          g_track = false;
          EXPECT_TRUE(raw.empty());
          EXPECT_EQ(r.error(), err(want, 0)) << c.h;
        }
      }
    }
  }
  EXPECT_EQ(g_largest.load(), 0u) << "skip, field_size and raw_value allocate nothing here";
}

TEST(ReaderHostile, DirectHeaderReads) {
  struct row {
    const char* h;
    int which;  // 0 array, 1 map, 2 str, 3 bin, 4 ext
    errc want;
  };
  const row rows[] = {{"dd ff ff ff ff", 0, errc::limit_exceeded},
                      {"dc ff ff", 0, errc::truncated},
                      {"9f 01 01 01", 0, errc::truncated},
                      {"df ff ff ff ff", 1, errc::limit_exceeded},
                      {"df 80 00 00 00", 1, errc::limit_exceeded},
                      {"df 40 00 00 00", 1, errc::limit_exceeded},
                      {"82 01 01 01", 1, errc::truncated},  // 2 entries need 4 bytes, 3 remain
                      {"db ff ff ff ff 5a", 2, errc::limit_exceeded},
                      {"c6 ff ff ff ff", 3, errc::limit_exceeded},
                      {"c9 ff ff ff ff 01", 4, errc::limit_exceeded},
                      {"c1", 0, errc::invalid_marker},
                      {"c1", 2, errc::invalid_marker}};
  for (const row& c : rows) {
    const bytes in = hex(c.h);
    mpk::reader r(in);
    switch (c.which) {
      case 0:
        EXPECT_EQ(r.read_array_header(), 0u);
        break;
      case 1:
        EXPECT_EQ(r.read_map_header(), 0u);
        break;
      case 2:
        EXPECT_EQ(r.read_string_view(), "");
        break;
      case 3:
        EXPECT_TRUE(r.read_bin().empty());
        break;
      default:
        EXPECT_TRUE(r.read_ext().data.empty());
        break;
    }
    EXPECT_EQ(r.error(), err(c.want, 0)) << c.h;
  }
}

TEST(ReaderHostile, ErrorOffsetIsTheInnermostValue) {
  struct row {
    const char* h;
    mpk::error want;
  };
  const row rows[] = {
      {"92 01 c1", err(errc::invalid_marker, 2)},
      {"93 01 a5 61", err(errc::truncated, 2)},
      {"81 a1 61 dc ff ff", err(errc::truncated, 3)},
      {"92 90 91 92 01", err(errc::truncated, 3)},
      {"92 01 da 00 40 01 02 03 04 05 06 07 08 09 0a 0b 0c", err(errc::truncated, 2)},
      {"91 db ff ff ff ff 00", err(errc::limit_exceeded, 1)},
      {"82 01 01 02 c1", err(errc::invalid_marker, 4)},
  };
  for (const row& c : rows) {
    for (const bytes& in :
         c.want.code == errc::truncated ? std::vector<bytes>{hex(c.h)} : both_paths(hex(c.h))) {
      mpk::reader r(in);
      r.skip();
      EXPECT_EQ(r.error(), c.want) << c.h;
      EXPECT_EQ(r.position(), c.want.offset);
      mpk::reader f(in);
      EXPECT_EQ(f.field_size(), 0u);
      EXPECT_EQ(f.error(), c.want) << c.h;
    }
  }
  const bytes in = hex("01 02 c1");
  mpk::reader r(in);
  EXPECT_EQ(r.read<int>(), 1);
  EXPECT_EQ(r.read<int>(), 2);
  EXPECT_EQ(r.read<int>(), 0);
  EXPECT_EQ(r.error(), err(errc::invalid_marker, 2));
}

TEST(ReaderHostile, DeepNesting) {
  const bytes deep = repeat("91", 100000);
  g_largest = 0;
  g_track = true;
  {
    mpk::reader r(deep);
    r.skip();
    EXPECT_EQ(r.error(), err(errc::depth_exceeded, 512));
  }
  {
    mpk::reader r(deep);
    EXPECT_EQ(r.field_size(), 0u);
    EXPECT_EQ(r.error(), err(errc::depth_exceeded, 512));
  }
  {
    mpk::reader r(deep);
    EXPECT_TRUE(r.raw_value().empty());
    EXPECT_EQ(r.error(), err(errc::depth_exceeded, 512));
  }
  {
    mpk::reader r(deep, {.limits = {.max_depth = 10}});
    r.skip();
    EXPECT_EQ(r.error(), err(errc::depth_exceeded, 10));
  }
  g_track = false;
  EXPECT_LE(g_largest.load(), 512u * sizeof(std::size_t)) << "stack bounded by max_depth";

  // Trusted: no depth limit; the walk goes down 99,999 levels on the heap, not the stack,
  // and finds the last array empty-handed.
  g_largest = 0;
  g_track = true;
  {
    mpk::reader r(deep, {.limits = mpk::limits::trusted()});
    r.skip();
    EXPECT_EQ(r.error(), err(errc::truncated, 99999));
  }
  g_track = false;
  EXPECT_LE(g_largest.load(), 16 * deep.size()) << "memory bounded by the input size";

  // The pull reader itself does not nest: the caller does.
  mpk::reader r(deep);
  for (int i = 0; i < 99999; ++i)
    ASSERT_EQ(r.read_array_header(), 1u);
  EXPECT_EQ(r.read_array_header(), 0u);
  EXPECT_EQ(r.error(), err(errc::truncated, 99999));
}

TEST(ReaderHostile, DepthLimitIsExact) {
  for (const char* leaf : {"c0", "90", "80"}) {
    const bytes at_limit = repeat("91", 511) + hex(leaf);  // leaf at depth 512 (or a scalar)
    mpk::reader ok(at_limit);
    ok.skip();
    EXPECT_TRUE(ok.ok()) << leaf;
    EXPECT_TRUE(ok.at_end());
  }
  const bytes full = repeat("91", 512) + hex("c0");
  mpk::reader r(full);
  r.skip();
  EXPECT_TRUE(r.ok());
  const bytes over = repeat("91", 512) + hex("90");  // an empty array at depth 513
  mpk::reader r2(over);
  r2.skip();
  EXPECT_EQ(r2.error(), err(errc::depth_exceeded, 512));
  const bytes maps = repeat("81 c0", 513) + hex("c0");
  mpk::reader r3(maps);
  r3.skip();
  EXPECT_EQ(r3.error(), err(errc::depth_exceeded, 1024));

  const bytes empty_array = hex("90");
  mpk::reader z(empty_array, {.limits = {.max_depth = 0}});
  z.skip();
  EXPECT_EQ(z.error(), err(errc::depth_exceeded, 0));
  const bytes scalar = hex("01");
  mpk::reader z2(scalar, {.limits = {.max_depth = 0}});
  z2.skip();
  EXPECT_TRUE(z2.ok());
}

TEST(ReaderHostile, DeepButWithinTheInlineStackAndBeyond) {
  // 64 levels fit the walk's inline stack, 65 and more move it to the heap.
  for (std::size_t depth : {63u, 64u, 65u, 200u}) {
    const bytes in = repeat("93 01", depth) + hex("c0") + repeat("02", depth);
    mpk::reader r(in);
    EXPECT_EQ(r.field_size(), in.size()) << depth;
    r.skip();
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(r.at_end());
  }
}

// --- sticky errors -----------------------------------------------------------------------

template <class R>
void expect_stopped(R& r, mpk::error want) {
  EXPECT_EQ(r.template read<int>(), 0);
  EXPECT_EQ(r.read_string_view(), "");
  EXPECT_EQ(r.template read<double>(), 0.0);
  EXPECT_EQ(r.read_array_header(), 0u);
  EXPECT_EQ(r.peek(), mpk::type::invalid);
  r.skip();
  EXPECT_EQ(r.field_size(), 0u);
  EXPECT_TRUE(r.raw_value().empty());
  EXPECT_FALSE(r.try_read_nil());
  EXPECT_EQ(r.error(), want);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.position(), want.offset);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(r.at_end());
}

TEST(ReaderSticky, FirstErrorIsKept) {
  const bytes in = hex("01 a1 78 01 02 03 04 05 06 07 08 09 0a");
  mpk::reader r(in);
  EXPECT_EQ(r.read<int>(), 1);
  EXPECT_EQ(r.read<int>(), 0);  // a str
  EXPECT_EQ(r.error(), err(errc::type_mismatch, 1));
  expect_stopped(r, err(errc::type_mismatch, 1));

  r.reset(in);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.position(), 0u);
  EXPECT_EQ(r.read<int>(), 1);
  EXPECT_EQ(r.read_string_view(), "x");
  EXPECT_EQ(r.remaining(), 10u);
}

TEST(ReaderSticky, AfterTruncation) {
  const bytes in = hex("01 cd 00");
  mpk::reader r(in);
  EXPECT_EQ(r.read<int>(), 1);
  EXPECT_EQ(r.read<int>(), 0);
  expect_stopped(r, err(errc::truncated, 1));
}

TEST(ReaderSticky, AfterOutOfRangeAndInSkip) {
  const bytes in = hex("cd 01 00 92 01 c1 01 01 01 01 01 01 01 01 01");
  mpk::reader r(in);
  EXPECT_EQ(r.read<std::uint8_t>(), 0u);
  expect_stopped(r, err(errc::out_of_range, 0));

  mpk::reader s(in);
  EXPECT_EQ(s.read<int>(), 256);
  s.skip();
  expect_stopped(s, err(errc::invalid_marker, 5));
}

TEST(ReaderSticky, Unchecked) {
  const bytes in = hex("01 a1 78 01 02 03 04 05 06 07 08 09 0a");
  mpk::unchecked_reader r(in);
  EXPECT_EQ(r.read<int>(), 1);
  EXPECT_EQ(r.read<int>(), 0);
  expect_stopped(r, err(errc::type_mismatch, 1));
  r.reset(in);
  EXPECT_EQ(r.read<int>(), 1);
  EXPECT_EQ(r.read_string_view(), "x");
  EXPECT_TRUE(r.ok());
}

// --- state, constructors -----------------------------------------------------------------

TEST(ReaderState, ConstructorsPositionRemaining) {
  const std::string text = "\x93\x01\xa2hi\xc0";
  mpk::reader a(text);
  mpk::reader b(text.data(), text.size());
  const auto span = std::as_bytes(std::span<const char>(text));
  mpk::reader c(span);
  for (mpk::reader* r : {&a, &b, &c}) {
    EXPECT_EQ(r->remaining(), 6u);
    EXPECT_EQ(r->read_array_header(), 3u);
    EXPECT_EQ(r->position(), 1u);
    EXPECT_EQ(r->read<int>(), 1);
    EXPECT_EQ(r->read_string_view(), "hi");
    EXPECT_EQ(r->remaining(), 1u);
    EXPECT_FALSE(r->at_end());
    r->read_nil();
    EXPECT_TRUE(r->at_end());
    EXPECT_TRUE(r->ok());
    EXPECT_EQ(r->position(), 6u);
  }
  mpk::reader empty;
  EXPECT_TRUE(empty.at_end());
  EXPECT_EQ(empty.read<int>(), 0);
  EXPECT_EQ(empty.error(), err(errc::truncated, 0));
}

TEST(ReaderState, CopiesLookAhead) {
  const bytes in = hex("a1 78 05");
  mpk::reader r(in);
  mpk::reader ahead = r;
  EXPECT_EQ(ahead.read<int>(), 0);
  EXPECT_FALSE(ahead.ok());
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.read_string_view(), "x");
  EXPECT_EQ(r.read<int>(), 5);
}

// --- limits ------------------------------------------------------------------------------

TEST(ReaderLimits, EachLimitIsInclusive) {
  const mpk::limits lim{.max_depth = 2,
                        .max_str_len = 3,
                        .max_bin_len = 2,
                        .max_ext_len = 4,
                        .max_array_len = 2,
                        .max_map_len = 1};
  struct row {
    const char* h;
    errc want;  // errc::ok when within the limits
  };
  const row rows[] = {
      {"a3 61 62 63", errc::ok},
      {"a4 61 62 63 64", errc::limit_exceeded},
      {"d9 04 61 62 63 64", errc::limit_exceeded},
      {"c4 02 01 02", errc::ok},
      {"c4 03 01 02 03", errc::limit_exceeded},
      {"d6 01 00 00 00 00", errc::ok},
      {"d7 01 00 00 00 00 00 00 00 00", errc::limit_exceeded},
      {"c7 05 01 00 00 00 00 00", errc::limit_exceeded},
      {"92 01 02", errc::ok},
      {"93 01 02 03", errc::limit_exceeded},
      {"81 01 02", errc::ok},
      {"82 01 02 03 04", errc::limit_exceeded},
      {"91 91 01", errc::ok},
      {"91 91 91 01", errc::depth_exceeded},
  };
  for (const row& c : rows) {
    for (const bytes& in : both_paths(hex(c.h))) {
      mpk::reader r(in, {.limits = lim});
      r.skip();
      if (c.want == errc::ok) {
        EXPECT_TRUE(r.ok()) << c.h;
        EXPECT_EQ(r.position(), hex(c.h).size());
      } else {
        EXPECT_EQ(r.error().code, c.want) << c.h;
      }
      mpk::reader d(in, {.limits = lim});
      std::string text;
      dump(d, text);
      if (c.want == errc::ok || c.want == errc::depth_exceeded)
        EXPECT_TRUE(d.ok()) << c.h;
      else
        EXPECT_EQ(d.error(), err(c.want, 0)) << c.h;
    }
  }
}

TEST(ReaderLimits, DefaultsAndTrusted) {
  constexpr mpk::limits d{};
  static_assert(d.max_depth == 512);
  static_assert(d.max_str_len == 64u << 20);
  static_assert(d.max_bin_len == 64u << 20);
  static_assert(d.max_ext_len == 64u << 20);
  static_assert(d.max_array_len == 1u << 24);
  static_assert(d.max_map_len == 1u << 24);
  constexpr mpk::limits t = mpk::limits::trusted();
  constexpr std::uint32_t max = std::numeric_limits<std::uint32_t>::max();
  static_assert(t.max_depth == max && t.max_str_len == max && t.max_bin_len == max &&
                t.max_ext_len == max && t.max_array_len == max && t.max_map_len == max);

  // 2^24 + 1 elements: over the default, fine when trusted.
  const bytes big = hex("dd 01 00 00 01") + bytes((1u << 24) + 1, std::byte{0});
  mpk::reader r(big);
  EXPECT_EQ(r.read_array_header(), 0u);
  EXPECT_EQ(r.error(), err(errc::limit_exceeded, 0));
  mpk::reader t2(big, {.limits = mpk::limits::trusted()});
  EXPECT_EQ(t2.read_array_header(), (1u << 24) + 1);
  mpk::reader t3(big, {.limits = mpk::limits::trusted()});
  EXPECT_EQ(t3.field_size(), big.size());
  EXPECT_EQ(t3.options().limits.max_array_len, max);
}

// --- agreement of skip, field_size, raw_value; unchecked reads identically ---------------

/// Appends one random valid value, nested at most `depth` more levels.
void random_value(std::mt19937_64& g, bytes& out, int depth) {
  auto put = [&](const bytes& b) { out.insert(out.end(), b.begin(), b.end()); };
  auto len = [&](std::uint64_t max) { return static_cast<std::size_t>(g() % (max + 1)); };
  const int kinds = depth > 0 ? 26 : 22;
  switch (static_cast<int>(g() % static_cast<std::uint64_t>(kinds))) {
    case 0:
      put(marker(static_cast<int>(g() % 128)));
      break;
    case 1:
      put(marker(0xe0 + static_cast<int>(g() % 32)));
      break;
    case 2:
      put(marker(0xcc) + be(g(), 1));
      break;
    case 3:
      put(marker(0xcd) + be(g(), 2));
      break;
    case 4:
      put(marker(0xce) + be(g(), 4));
      break;
    case 5:
      put(marker(0xcf) + be(g(), 8));
      break;
    case 6:
      put(marker(0xd0) + be(g(), 1));
      break;
    case 7:
      put(marker(0xd1) + be(g(), 2));
      break;
    case 8:
      put(marker(0xd2) + be(g(), 4));
      break;
    case 9:
      put(marker(0xd3) + be(g(), 8));
      break;
    case 10:
      put(f32(static_cast<float>(g() % 1000) / 8.0f));
      break;
    case 11:
      put(f64(static_cast<double>(g() % 100000) / 16.0));
      break;
    case 12: {
      static const int nil_false_true[] = {0xc0, 0xc2, 0xc3};
      put(marker(nil_false_true[g() % 3]));
      break;
    }
    case 13: {
      const std::size_t n = len(31);
      put(marker(0xa0 + static_cast<int>(n)) + pattern(n));
      break;
    }
    case 14: {
      const std::size_t n = len(300);
      put((n < 256 ? marker(0xd9) + be(n, 1) : marker(0xda) + be(n, 2)) + pattern(n));
      break;
    }
    case 15: {
      const std::size_t n = len(20);
      put(marker(0xdb) + be(n, 4) + pattern(n));
      break;
    }
    case 16: {
      const std::size_t n = len(40);
      put(marker(0xc4) + be(n, 1) + pattern(n));
      break;
    }
    case 17: {
      const std::size_t n = len(300);
      put(marker(0xc5) + be(n, 2) + pattern(n));
      break;
    }
    case 18: {
      const std::size_t n = len(20);
      put(marker(0xc6) + be(n, 4) + pattern(n));
      break;
    }
    case 19: {
      static const int sizes[] = {1, 2, 4, 8, 16};
      const int i = static_cast<int>(g() % 5);
      put(marker(0xd4 + i) + be(g(), 1) + pattern(static_cast<std::size_t>(sizes[i])));
      break;
    }
    case 20: {
      const std::size_t n = len(20);
      put(marker(0xc7) + be(n, 1) + be(g(), 1) + pattern(n));
      break;
    }
    case 21: {
      const std::size_t n = len(20);
      put((g() % 2 ? marker(0xc8) + be(n, 2) : marker(0xc9) + be(n, 4)) + be(g(), 1) + pattern(n));
      break;
    }
    case 22:
    case 23: {
      const std::size_t n = len(6);
      const int form = static_cast<int>(g() % 3);
      put(form == 0   ? marker(0x90 + static_cast<int>(n))
          : form == 1 ? marker(0xdc) + be(n, 2)
                      : marker(0xdd) + be(n, 4));
      for (std::size_t i = 0; i < n; ++i)
        random_value(g, out, depth - 1);
      break;
    }
    default: {
      const std::size_t n = len(4);
      const int form = static_cast<int>(g() % 3);
      put(form == 0   ? marker(0x80 + static_cast<int>(n))
          : form == 1 ? marker(0xde) + be(n, 2)
                      : marker(0xdf) + be(n, 4));
      for (std::size_t i = 0; i < 2 * n; ++i)
        random_value(g, out, depth - 1);
      break;
    }
  }
}

TEST(ReaderAgreement, SkipFieldSizeRawValueAgree) {
  std::mt19937_64 g(20240521);
  bytes in;
  std::vector<std::size_t> starts;
  for (int i = 0; i < 3000; ++i) {
    starts.push_back(in.size());
    random_value(g, in, 5);
  }
  starts.push_back(in.size());

  mpk::reader sk(in), fs(in), rv(in);
  mpk::unchecked_reader usk(in), ufs(in);
  for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
    const std::size_t want = starts[i + 1] - starts[i];
    ASSERT_EQ(fs.field_size(), want) << "value " << i;
    fs.skip();
    sk.skip();
    ASSERT_EQ(sk.position(), starts[i + 1]) << "value " << i;
    const auto raw = rv.raw_value();
    ASSERT_EQ(raw.data(), in.data() + starts[i]);
    ASSERT_EQ(raw.size(), want);
    ASSERT_EQ(ufs.field_size(), want);
    ufs.skip();
    usk.skip();
    ASSERT_EQ(usk.position(), starts[i + 1]);
  }
  EXPECT_TRUE(sk.ok() && fs.ok() && rv.ok() && usk.ok() && ufs.ok());
  EXPECT_TRUE(sk.at_end() && rv.at_end() && usk.at_end());
}

TEST(ReaderAgreement, UncheckedReadsValidDataIdentically) {
  std::mt19937_64 g(7);
  bytes in;
  for (int i = 0; i < 2000; ++i)
    random_value(g, in, 4);
  for (const bytes& msg : valid_messages())
    in = in + msg;

  mpk::reader c(in);
  mpk::unchecked_reader u(in);
  std::string tc, tu;
  while (!c.at_end())
    dump(c, tc);
  while (!u.at_end())
    dump(u, tu);
  EXPECT_TRUE(c.ok());
  EXPECT_TRUE(u.ok());
  EXPECT_EQ(tc, tu);
  EXPECT_GT(tc.size(), 10000u);

  for (const int_value v : boundary_values()) {
    for (const bytes& enc : encodings(v)) {
      mpk::reader rc(enc);
      mpk::unchecked_reader ru(enc);
      if (v.neg)
        EXPECT_EQ(rc.read<std::int64_t>(), ru.read<std::int64_t>());
      else
        EXPECT_EQ(rc.read<std::uint64_t>(), ru.read<std::uint64_t>());
      EXPECT_EQ(rc.position(), ru.position());
    }
  }
}

TEST(ReaderAgreement, UncheckedTypeErrors) {
  const bytes in = hex("c1");
  mpk::unchecked_reader u(in);
  EXPECT_EQ(u.peek(), mpk::type::invalid);
  EXPECT_EQ(u.error(), err(errc::invalid_marker, 0));
  const bytes s = hex("a1 78");
  mpk::unchecked_reader u2(s);
  EXPECT_EQ(u2.read<double>(), 0.0);
  EXPECT_EQ(u2.error(), err(errc::type_mismatch, 0));
  const bytes nested = hex("92 01 c1");
  mpk::unchecked_reader u3(nested);
  u3.skip();
  EXPECT_EQ(u3.error(), err(errc::invalid_marker, 2));
}

}  // namespace
