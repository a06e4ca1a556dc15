// Tests of mpk/json.hpp: the plain and lossless mappings, both directions, limits, errors.
#include <mpk/ext/timestamp.hpp>
#include <mpk/json.hpp>
#include <mpk/writer.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/hex.hpp"
#include "support/random_value.hpp"

namespace {

using mpk::errc;
using mpk_test::hex;
using mpk_test::to_hex;

/// to_json of every value of the bytes given as hex; "ERR <code> @<offset>" on an error.
std::string json_of(std::string_view hex_text, mpk::to_json_options o = {}) {
  const auto bytes = hex(hex_text);
  auto r = mpk::to_json(bytes, o);
  if (!r)
    return "ERR " + std::to_string(int(r.error().code)) + " @" + std::to_string(r.error().offset);
  return *r;
}

/// from_json to hex; "ERR <code> @<offset>" on an error.
std::string packed_of(std::string_view json, mpk::from_json_options o = {}) {
  mpk::buffer out;
  auto n = mpk::from_json(json, out, o);
  if (!n)
    return "ERR " + std::to_string(int(n.error().code)) + " @" + std::to_string(n.error().offset);
  return to_hex(out.bytes());
}

std::string err(errc c, std::size_t at) {
  return "ERR " + std::to_string(int(c)) + " @" + std::to_string(at);
}

// --- base64 ------------------------------------------------------------------------------

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    std::string out = "x";
    mpk::append_base64(out, std::as_bytes(std::span(plain, std::strlen(plain))));
    EXPECT_EQ(out, std::string("x") + encoded);
    std::string back;
    EXPECT_TRUE(mpk::decode_base64(encoded, back));
    EXPECT_EQ(back, plain);
  }
}

TEST(Base64, EveryByteValueRoundTrips) {
  std::string all;
  for (int i = 0; i < 256; ++i)
    all += static_cast<char>(i);
  for (std::size_t n = 0; n <= all.size(); n += 37) {
    std::string enc;
    mpk::append_base64(enc, std::as_bytes(std::span(all.data(), n)));
    std::string dec;
    ASSERT_TRUE(mpk::decode_base64(enc, dec));
    EXPECT_EQ(dec, all.substr(0, n));
  }
}

TEST(Base64, RefusesWhatIsNotCanonical) {
  std::string out;
  for (const char* bad : {"Zg", "Zg=", "Zh==", "Zm9=", "Zm9v!A==", "====", "Z===", "Zm 9v"})
    EXPECT_FALSE(mpk::decode_base64(bad, out)) << bad;
}

// --- to_json, plain mode ---------------------------------------------------------------

TEST(ToJson, Scalars) {
  EXPECT_EQ(json_of("c0 c2 c3"), "null\nfalse\ntrue\n");
  EXPECT_EQ(json_of("cf ff ff ff ff ff ff ff ff"), "18446744073709551615\n");
  EXPECT_EQ(json_of("d3 80 00 00 00 00 00 00 00"), "-9223372036854775808\n");
  EXPECT_EQ(json_of("d0 05"), "5\n");  // a non-minimal sint holding a positive value
  EXPECT_EQ(json_of("cb 3f f0 00 00 00 00 00 00"), "1.0\n");
  EXPECT_EQ(json_of("cb 7e 37 e4 3c 88 00 75 9c"), "1e+300\n");
  // float32: the text of the double it is exactly, which a JSON reader reads back to it.
  EXPECT_EQ(json_of("ca 3d cc cc cd"), "0.10000000149011612\n");
  EXPECT_EQ(json_of("ca 57 80 00 00"), "281474976710656.0\n");  // 2^48, not 2.8147498e+14
  EXPECT_EQ(json_of("ca 3f c0 00 00"), "1.5\n");
  EXPECT_EQ(json_of("c4 03 01 02 03"), "\"AQID\"\n");
  EXPECT_EQ(json_of("d5 07 01 02"), "{\"type\":7,\"data\":\"AQI=\"}\n");
}

TEST(ToJson, EveryControlCharacterIsEscaped) {
  std::string packed = "\xbf";  // fixstr(31)
  for (int c = 1; c < 32; ++c)
    packed += static_cast<char>(c);
  auto r = mpk::to_json(packed);
  ASSERT_TRUE(r);
  std::string want = "\"";
  char buf[8];
  for (int c = 1; c < 32; ++c) {
    std::snprintf(buf, sizeof buf, "\\u%04x", c);
    want += buf;
  }
  EXPECT_EQ(*r, want + "\"\n");
  EXPECT_EQ(json_of("a2 22 5c"), "\"\\\"\\\\\"\n");
}

TEST(ToJson, FloatsReadBackExactlyAndNeverAsIntegers) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const double d = std::bit_cast<double>(rng());
    if (!std::isfinite(d)) continue;
    mpk::buffer b;
    mpk::writer w(b);
    w.write_float64(d);
    auto r = mpk::to_json(b.bytes());
    ASSERT_TRUE(r);
    const std::string text = r->substr(0, r->size() - 1);
    ASSERT_NE(text.find_first_of(".e"), std::string::npos) << text;
    double back = 0;
    std::from_chars(text.data(), text.data() + text.size(), back);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(back), std::bit_cast<std::uint64_t>(d)) << text;
  }
}

TEST(ToJson, Float32TextReadAsDoubleRoundsBackToTheSameFloat) {
  // from_json reads {"$float32": x} as a double and rounds it to float. A stride through all
  // 2^32 patterns (an exhaustive run of the same check passed when this was written).
  for (std::uint64_t u = 0; u < (1ull << 32); u += 65521) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(u));
    if (!std::isfinite(f)) continue;
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, f);
    double d = 0;
    std::from_chars(buf, res.ptr, d);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(d)), static_cast<std::uint32_t>(u));
  }
}

TEST(ToJson, KeysThatAreNotStringsBecomeTheirJsonText) {
  EXPECT_EQ(json_of("85 01 a1 61 c0 a1 62 c3 a1 63 92 01 a1 78 a1 65 c4 02 01 02 a1 66"),
            "{\"1\":\"a\",\"null\":\"b\",\"true\":\"c\",\"[1,\\\"x\\\"]\":\"e\",\"AQI=\":\"f\"}\n");
  // A map key holding a map with a non-string key: escaped twice, correctly.
  EXPECT_EQ(json_of("81 81 01 02 03"), "{\"{\\\"1\\\":2}\":3}\n");
}

TEST(ToJson, KeysNestedInKeysAreBoundedInPlainMode) {
  // Each key nested in a non-string key is escaped once more (its quotes double), so plain
  // mode stops after four levels: 81 x k, c0, 1a x k would otherwise take about 2^k bytes.
  auto nested = [](int k) {
    std::string h;
    for (int i = 0; i < k; ++i)
      h += "81 ";
    h += "c0";
    for (int i = 0; i < k; ++i)
      h += " 1a";
    return h;
  };
  const std::string four = json_of(nested(4));
  ASSERT_EQ(four.rfind("ERR", 0), std::string::npos) << four;
  EXPECT_LT(four.size(), 200u);
  EXPECT_EQ(json_of(nested(5)), err(errc::limit_exceeded, 5));  // the fifth nested key
  EXPECT_EQ(json_of(nested(40)), err(errc::limit_exceeded, 5));
  // Lossless mode writes such maps as {"$map": [[key, value]]}: no escaping, no limit.
  auto lossless = json_of(nested(40), {.lossless = true});
  ASSERT_EQ(lossless.rfind("ERR", 0), std::string::npos) << lossless;
  EXPECT_LT(lossless.size(), 2000u);
}

TEST(ToJson, Timestamps) {
  EXPECT_EQ(json_of("d6 ff 00 00 00 00"), "\"1970-01-01T00:00:00Z\"\n");
  EXPECT_EQ(json_of("c7 0c ff 00 00 00 00 ff ff ff ff ff ff ff ff"), "\"1969-12-31T23:59:59Z\"\n");
  // 500 ms: 500000000 << 34 | 0
  mpk::buffer b;
  mpk::writer w(b);
  mpk::write_timestamp(w, mpk::timestamp{951782400, 500000000});  // 2000-02-29
  mpk::write_timestamp(w, mpk::timestamp{0, 1000});
  auto r = mpk::to_json(b.bytes());
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "\"2000-02-29T00:00:00.500Z\"\n\"1970-01-01T00:00:00.000001Z\"\n");
  // Not a valid timestamp (nanoseconds >= 10^9, or a bad length): an ordinary extension.
  EXPECT_EQ(json_of("c7 00 ff"), "{\"type\":-1,\"data\":\"\"}\n");
  EXPECT_EQ(json_of("d7 ff ff ff ff ff 00 00 00 00"), "{\"type\":-1,\"data\":\"/////wAAAAA=\"}\n");
}

TEST(ToJson, Pretty) {
  EXPECT_EQ(json_of("82 a1 61 92 01 90 a1 62 80", {.pretty = true}),
            "{\n  \"a\": [\n    1,\n    []\n  ],\n  \"b\": {}\n}\n");
}

TEST(ToJson, PlainModeErrors) {
  EXPECT_EQ(json_of("92 01 cb 7f f8 00 00 00 00 00 00"), err(errc::out_of_range, 2));
  EXPECT_EQ(json_of("91 ca ff 80 00 00"), err(errc::out_of_range, 1));
  EXPECT_EQ(json_of("81 a1 61 a2 c3 28"), err(errc::invalid_utf8, 3));
  EXPECT_EQ(json_of("81 a2 c3 28 01"), err(errc::invalid_utf8, 1));  // a key
  EXPECT_EQ(json_of("92 01 c1"), err(errc::invalid_marker, 2));
  EXPECT_EQ(json_of("93 01"), err(errc::truncated, 0));
  EXPECT_EQ(json_of("dd ff ff ff ff"), err(errc::limit_exceeded, 0));
}

TEST(ToJson, DepthIsBoundedWithoutRecursion) {
  std::vector<std::byte> deep(100000, std::byte{0x91});
  auto r = mpk::to_json(deep);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), (mpk::error{errc::depth_exceeded, 512}));
  // Exactly at the limit is fine; the limit comes from the reader.
  std::vector<std::byte> ok(8, std::byte{0x91});
  ok.push_back(std::byte{0xc0});
  auto r8 = mpk::to_json(ok, {.read = {.limits = {.max_depth = 8}}});
  ASSERT_TRUE(r8);
  EXPECT_EQ(*r8, std::string(8, '[') + "null" + std::string(8, ']') + "\n");
  EXPECT_FALSE(mpk::to_json(ok, {.read = {.limits = {.max_depth = 7}}}));
}

// --- to_json, lossless mode ------------------------------------------------------------

TEST(ToJsonLines, StopAfterAndResumeGiveTheSameText) {
  mpk::buffer in;
  mpk::writer w(in);
  for (int i = 0; i < 3000; ++i) {
    if (i % 3 == 0) w.write(i);
    if (i % 3 == 1) w.write(std::string(static_cast<std::size_t>(i % 50), 'x') + "\"\n");
    if (i % 3 == 2) {
      w.begin_array(2);
      w.write(i * 0.5);
      w.write_nil();
    }
  }
  const auto all = mpk::to_json(in.bytes());
  ASSERT_TRUE(all);
  mpk::reader r(in.bytes());
  std::string joined, part;
  std::size_t values = 0, calls = 0;
  while (!r.at_end()) {
    const auto n = mpk::to_json_lines(r, part, {}, 1000);
    ASSERT_TRUE(n);
    ASSERT_GE(*n, 1u);
    // Stops after the value that reaches 1000 bytes: the one before did not.
    EXPECT_TRUE(part.size() >= 1000 || r.at_end());
    values += *n;
    ++calls;
    joined += part;
    part.clear();
  }
  EXPECT_EQ(values, 3000u);
  EXPECT_GT(calls, 10u);
  EXPECT_EQ(joined, *all);
  std::size_t lines = 0;
  for (const char c : joined)
    lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 3000u);
}

TEST(ToJsonLines, KeepsTheValuesBeforeAnError) {
  const auto bytes = hex("01 a1 61 c1");
  mpk::reader r(bytes);
  std::string out = "before:";
  const auto n = mpk::to_json_lines(r, out);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error(), (mpk::error{errc::invalid_marker, 3}));
  EXPECT_EQ(out, "before:1\n\"a\"\n");
}

// Strings are checked for bytes to escape a word (8 bytes) at a time (short ASCII strings
// with the last word overlapping the one before): every length up to 40 with each byte that
// needs an escape (or is not ASCII) at each position, alone and after a non-ASCII
// character, against an escaper written here byte by byte.
TEST(ToJson, ShortStringsWithABadByteAnywhere) {
  const auto escaped = [](std::string_view s) {
    std::string out = "\"";
    char buf[8];
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (u < 0x20) {
        std::snprintf(buf, sizeof buf, "\\u%04x", u);
        out += buf;
      } else {
        out += c;
      }
    }
    return out + "\"\n";
  };
  const auto convert = [](std::string_view s) {
    mpk::buffer in;
    mpk::writer w(in);
    w.write(s);
    auto r = mpk::to_json(in.bytes());
    return r ? *r : "ERR " + std::to_string(int(r.error().code));
  };
  // 0xc3 0xa9 is "é" (valid UTF-8, written as it is); a lone 0xff is not UTF-8.
  const std::string bad[] = {"\"", "\\", std::string(1, '\0'), "\x1f", "\x7f", "\xc3\xa9", "\xff"};
  std::size_t checked = 0;
  for (std::size_t len = 0; len <= 40; ++len) {
    std::string base;
    for (std::size_t i = 0; i < len; ++i)
      base += static_cast<char>(' ' + (i * 7 + 3) % 95);  // printable ASCII, '"' and '\\' too
    std::string plain = base;
    for (char& c : plain)
      if (c == '"' || c == '\\') c = 'x';
    EXPECT_EQ(convert(plain), escaped(plain)) << "length " << len;
    EXPECT_EQ(convert(base), escaped(base)) << "length " << len;
    for (std::size_t at = 0; at < len; ++at) {
      for (const std::string& b : bad) {
        std::string s = plain;
        s.replace(at, 1, b);
        const std::string want =
            b == "\xff" ? "ERR " + std::to_string(int(errc::invalid_utf8)) : escaped(s);
        EXPECT_EQ(convert(s), want)
            << "length " << len << ", byte " << to_hex(std::as_bytes(std::span(b.data(), b.size())))
            << " at " << at;
        // The same after a non-ASCII character (the general path's word scan).
        const std::string after = "\xc3\xa9" + s;
        EXPECT_EQ(convert(after), b == "\xff" ? want : escaped(after))
            << "after U+00E9, length " << len << ", at " << at;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, std::size_t{820} * 7);
  // Around the length beyond which strings take the general path.
  for (const std::size_t len : {255, 256, 257, 300}) {
    const std::string s(len, 'a');
    EXPECT_EQ(convert(s), escaped(s)) << "length " << len;
    EXPECT_EQ(convert(s + "\x01"), escaped(s + "\x01")) << "length " << len + 1;
  }
}

TEST(ToJson, OutputLongerThanTheStagingArea) {
  // Strings and containers much longer than the converter's staging area, escapes across
  // its edges, pretty mode: the same text as written piece by piece here.
  mpk::buffer in;
  mpk::writer w(in);
  std::string s;
  for (int i = 0; i < 20000; ++i)
    s += static_cast<char>(i % 7 == 0 ? '"' : 'a' + i % 26);
  w.begin_map(2);
  w.write("s");
  w.write(s);
  w.write("a");
  w.begin_array(3000);
  for (int i = 0; i < 3000; ++i)
    w.write("v" + std::to_string(i));
  std::string escaped;
  for (const char c : s)
    escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
  std::string want = "{\n  \"s\": \"" + escaped + "\",\n  \"a\": [";
  for (int i = 0; i < 3000; ++i)
    want += std::string(i == 0 ? "" : ",") + "\n    \"v" + std::to_string(i) + "\"";
  want += "\n  ]\n}\n";
  const auto got = mpk::to_json(in.bytes(), {.pretty = true});
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, want);
}

TEST(ToJsonLossless, TaggedValues) {
  const mpk::to_json_options L{.lossless = true};
  EXPECT_EQ(json_of("ca 3f c0 00 00", L), "{\"$float32\":1.5}\n");
  EXPECT_EQ(json_of("cb 7f f0 00 00 00 00 00 00", L), "{\"$float64\":\"inf\"}\n");
  EXPECT_EQ(json_of("cb ff f8 00 00 00 00 00 00", L), "{\"$float64\":\"-nan\"}\n");
  EXPECT_EQ(json_of("ca 7f c0 00 01", L), "{\"$float32\":\"nan:7fc00001\"}\n");
  EXPECT_EQ(json_of("c4 00", L), "{\"$bin\":\"\"}\n");
  EXPECT_EQ(json_of("d4 80 01", L), "{\"$ext\":[-128,\"AQ==\"]}\n");
  EXPECT_EQ(json_of("d6 ff 00 00 00 05", L), "{\"$timestamp\":[5,0]}\n");
  // Not the smallest form of its timestamp: kept as an extension, so the bytes survive.
  EXPECT_EQ(json_of("d7 ff 00 00 00 00 00 00 00 05", L), "{\"$ext\":[-1,\"AAAAAAAAAAU=\"]}\n");
  EXPECT_EQ(json_of("a1 ff", L), "{\"$str\":\"/w==\"}\n");
  EXPECT_EQ(json_of("81 a1 24 01", L), "{\"$map\":[[\"$\",1]]}\n");
  EXPECT_EQ(json_of("81 a1 ff 01", L), "{\"$map\":[[{\"$str\":\"/w==\"},1]]}\n");
  EXPECT_EQ(json_of("82 a1 61 01 a1 62 02", L), "{\"a\":1,\"b\":2}\n");
}

/// Lossless both ways gives the same bytes.
void expect_round_trip(const std::vector<std::byte>& bytes, const std::string& what) {
  auto text = mpk::to_json(bytes, {.lossless = true});
  ASSERT_TRUE(text) << what << ": " << text.error().to_string();
  mpk::buffer back;
  std::string why;
  auto n = mpk::from_json(*text, back, {.lossless = true}, &why);
  ASSERT_TRUE(n) << what << ": " << n.error().to_string() << " " << why << "\n" << *text;
  EXPECT_EQ(*n, 1u);
  ASSERT_EQ(to_hex(back.bytes()), to_hex(mpk::as_bytes(bytes))) << what << "\n" << *text;
}

TEST(ToJsonLossless, RandomValuesRoundTripToTheSameBytes) {
  std::mt19937_64 rng(20261130);
  mpk_test::value_generator gen(rng);
  for (int i = 0; i < 3000; ++i) {
    const mpk_test::test_value v = gen.value(i % 6);
    expect_round_trip(mpk_test::encode(v), "random value " + std::to_string(i));
    if (HasFatalFailure()) return;
  }
}

TEST(ToJsonLossless, BoundaryValuesRoundTripToTheSameBytes) {
  int i = 0;
  for (const auto& v : mpk_test::boundary_values()) {
    expect_round_trip(mpk_test::encode(v), "boundary value " + std::to_string(i++));
    if (HasFatalFailure()) return;
  }
}

TEST(ToJsonLossless, EveryTimestampFormRoundTrips) {
  for (const mpk::timestamp ts : {mpk::timestamp{0, 0},
                                  {0xffffffff, 0},
                                  {0x100000000, 0},
                                  {1, 999999999},
                                  {(1ll << 34) - 1, 1},
                                  {1ll << 34, 0},
                                  {-1, 0},
                                  {INT64_MIN, 999999999},
                                  {INT64_MAX, 0}}) {
    mpk::buffer b;
    mpk::writer w(b);
    mpk::write_timestamp(w, ts);
    const auto bytes = b.bytes();
    expect_round_trip({bytes.begin(), bytes.end()}, std::to_string(ts.seconds));
  }
}

// --- from_json -----------------------------------------------------------------------------

TEST(FromJson, SmallestFormsAndOrder) {
  EXPECT_EQ(packed_of(R"({"b": 1, "a": [true, null, -1, 1.5, "x"]})"),
            "82 a1 62 01 a1 61 95 c3 c0 ff cb 3f f8 00 00 00 00 00 00 a1 78");
  EXPECT_EQ(
      packed_of("[127, 128, 65536, -33, 18446744073709551615, -9223372036854775808]"),
      "96 7f cc 80 ce 00 01 00 00 d0 df cf ff ff ff ff ff ff ff ff d3 80 00 00 00 00 00 00 00");
  EXPECT_EQ(packed_of("[1.0, 1e2, -0.0]"),
            "93 cb 3f f0 00 00 00 00 00 00 cb 40 59 00 00 00 00 00 00 cb 80 00 00 00 00 00 00 00");
  EXPECT_EQ(packed_of(R"("a\u0000\n\u00e9")"), "a5 61 00 0a c3 a9");
}

TEST(FromJson, JsonLines) {
  mpk::buffer out;
  auto n = mpk::from_json("1\n[2]\n{\"a\":3}\n\n", out);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 3u);
  EXPECT_EQ(to_hex(out.bytes()), "01 91 02 81 a1 61 03");
  mpk::buffer none;
  EXPECT_EQ(*mpk::from_json(" \n\t", none), 0u);
  EXPECT_EQ(none.size(), 0u);
}

TEST(FromJson, LongStreamsOfScalars) {
  // Many top-level numbers and strings (W1-like JSON Lines) in order, with their forms.
  std::string text;
  mpk::buffer want;
  mpk::writer w(want);
  for (int i = 0; i < 20000; ++i) {
    text += std::to_string(i * 7 - 70000) + (i % 3 == 0 ? "\n\"s\"\n" : " ");
    w.write(i * 7 - 70000);
    if (i % 3 == 0) w.write("s");
  }
  mpk::buffer out;
  auto n = mpk::from_json(text, out);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 20000u + 6667u);
  EXPECT_EQ(to_hex(out.bytes()), to_hex(want.bytes()));
}

TEST(FromJson, ErrorsInAStreamPointAtTheirText) {
  // A syntax error, and a bad lossless payload, in the third text of a stream.
  EXPECT_EQ(packed_of("1\n2\n [3,,]\n4"), err(errc::invalid_argument, 5));
  EXPECT_EQ(packed_of("1\n2\n {\"$bin\": 7}\n4", {.lossless = true}),
            err(errc::invalid_argument, 5));
  EXPECT_EQ(packed_of("  {\"$bin\": 7}", {.lossless = true}), err(errc::invalid_argument, 2));
  mpk::buffer out;
  auto n = mpk::from_json("1\n2\n [3,,]\n4", out);
  EXPECT_FALSE(n);
  EXPECT_EQ(to_hex(out.bytes()), "01 02");  // the values before the error are written
}

TEST(FromJson, ErrorsCarryTheOffsetOfTheirText) {
  EXPECT_EQ(packed_of("[1]\n[1,]"), err(errc::invalid_argument, 4));
  EXPECT_EQ(packed_of("[1]\n[2,"), err(errc::invalid_argument, 4));
  EXPECT_EQ(packed_of("tru"), err(errc::invalid_argument, 0));
  EXPECT_EQ(packed_of("\"\xff\""), err(errc::invalid_utf8, 0));
  EXPECT_EQ(packed_of("1e999"), err(errc::out_of_range, 0));
  std::string why;
  mpk::buffer out;
  auto n = mpk::from_json("{\"a\": }", out, {}, &why);
  ASSERT_FALSE(n);
  EXPECT_FALSE(why.empty());
}

TEST(FromJson, DepthLimit) {
  const std::string deep = std::string(600, '[') + std::string(600, ']');
  EXPECT_EQ(packed_of(deep), err(errc::depth_exceeded, 0));
  EXPECT_EQ(packed_of("[[[1]]]", {.max_depth = 2}), err(errc::depth_exceeded, 0));
  EXPECT_EQ(packed_of("[[[1]]]", {.max_depth = 3}), "91 91 91 01");
}

TEST(FromJson, LosslessTagsAndTheirErrors) {
  const mpk::from_json_options L{.lossless = true};
  EXPECT_EQ(packed_of(R"({"$float32": 1.5})", L), "ca 3f c0 00 00");
  EXPECT_EQ(packed_of(R"({"$float64": "-inf"})", L), "cb ff f0 00 00 00 00 00 00");
  EXPECT_EQ(packed_of(R"({"$timestamp": [-1, 5]})", L),
            "c7 0c ff 00 00 00 05 ff ff ff ff ff ff ff ff");
  EXPECT_EQ(packed_of(R"({"$map": [[1, 2], [[], {}]]})", L), "82 01 02 90 80");
  EXPECT_EQ(packed_of(R"({"$other": 1})", L), "81 a6 24 6f 74 68 65 72 01");
  EXPECT_EQ(packed_of(R"({"$bin": "AQI=", "x": 1})", L),
            "82 a4 24 62 69 6e a4 41 51 49 3d a1 78 01");
  // Plain mode: '$' keys are ordinary keys.
  EXPECT_EQ(packed_of(R"({"$bin": "AQI="})"), "81 a4 24 62 69 6e a4 41 51 49 3d");
  for (const char* bad :
       {R"({"$bin": 1})", R"({"$bin": "AQ="})", R"({"$ext": [128, ""]})", R"({"$ext": [1]})",
        R"({"$timestamp": [0, 1000000000]})", R"({"$float32": 1e39})", R"({"$float64": "NaN"})",
        R"({"$map": [[1]]})", R"({"$map": 1})", R"({"$str": "!"})"})
    EXPECT_EQ(packed_of(bad, L), err(errc::invalid_argument, 0)) << bad;
}

}  // namespace

TEST(FromJson, IntegersBeyond64BitsBecomeFloat64) {
  // The nearest float64, as for any other number that is not an int64 or uint64.
  EXPECT_EQ(packed_of("18446744073709551615"), "cf ff ff ff ff ff ff ff ff");
  EXPECT_EQ(packed_of("18446744073709551616"), "cb 43 f0 00 00 00 00 00 00");
  EXPECT_EQ(packed_of("-9223372036854775808"), "d3 80 00 00 00 00 00 00 00");
  EXPECT_EQ(packed_of("-9223372036854775809"), "cb c3 e0 00 00 00 00 00 00");
  EXPECT_EQ(packed_of("[100000000000000000000000, -100000000000000000000000]"),
            "92 cb 44 b5 2d 02 c7 e1 4a f6 cb c4 b5 2d 02 c7 e1 4a f6");
  // Only numbers change: the same digits in a string (or a key) stay as they are.
  EXPECT_EQ(
      packed_of(R"({"18446744073709551616": ["18446744073709551616", 18446744073709551616]})"),
      "81 b4 31 38 34 34 36 37 34 34 30 37 33 37 30 39 35 35 31 36 31 36 92 b4 31 38 34 34 "
      "36 37 34 34 30 37 33 37 30 39 35 35 31 36 31 36 cb 43 f0 00 00 00 00 00 00");
  // JSON Lines, and the lossless mode, read them the same way.
  EXPECT_EQ(packed_of("1\n18446744073709551616\n"), "01 cb 43 f0 00 00 00 00 00 00");
  EXPECT_EQ(packed_of("[18446744073709551616]", {.lossless = true}),
            "91 cb 43 f0 00 00 00 00 00 00");
  // Beyond float64's range it is an error, at the offset of its text in the input as given.
  EXPECT_EQ(packed_of("1" + std::string(400, '0')), err(errc::out_of_range, 0));
  EXPECT_EQ(packed_of("[18446744073709551616]\n[1e999]"), err(errc::out_of_range, 23));
  EXPECT_EQ(packed_of("[1e999, 18446744073709551616]"), err(errc::out_of_range, 0));
  EXPECT_EQ(packed_of("[18446744073709551616, 1e999]"), err(errc::out_of_range, 0));
}

TEST(FromJson, LongStreamsParseInBatchesAndStopAtTheWrongText) {
  // About 900 KB of JSON Lines: several of from_json's batches. The values before the wrong
  // text are written, in order; the error points at the wrong text.
  const std::size_t lines = 100000, wrong = 90000;
  std::string text;
  for (std::size_t i = 0; i < lines; ++i)
    text += i == wrong ? "[1,]\n" : std::to_string(10000000 + i) + "\n";
  mpk::buffer out;
  const auto n = mpk::from_json(text, out);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error(), (mpk::error{errc::invalid_argument, wrong * 9}));
  ASSERT_EQ(out.size(), wrong * 5);  // uint32: ce + 4 bytes
  mpk::reader r(out.bytes());
  for (std::size_t i = 0; i < wrong; ++i)
    ASSERT_EQ(r.read<std::uint64_t>(), 10000000 + i);
  // Without the wrong text, every value.
  text.replace(wrong * 9, 5, "12345678\n");
  mpk::buffer all;
  const auto count = mpk::from_json(text, all);
  ASSERT_TRUE(count);
  EXPECT_EQ(*count, lines);
  EXPECT_EQ(all.size(), lines * 5);
}

TEST(FromJson, TextsTheSplitCannotSeparateAreErrors) {
  EXPECT_EQ(packed_of("1,2"), err(errc::invalid_argument, 0));
  EXPECT_EQ(packed_of("[1]\n1,2\n[3]"), err(errc::invalid_argument, 4));
}

TEST(FromJson, LargeTextsAfterSmallOnesAndBack) {
  // The parser kept between calls grows for a large text and is released after it; the
  // next calls work either way.
  std::string big = "[";
  for (int i = 0; i < 300000; ++i)
    big += std::to_string(i) + ",";
  big.back() = ']';
  for (const std::string& text : {std::string("[1, 2]"), big, std::string("{\"a\": [3]}")}) {
    mpk::buffer out;
    const auto count = mpk::from_json(text, out);
    ASSERT_TRUE(count) << text.substr(0, 20);
    EXPECT_EQ(*count, 1u);
    mpk::reader r(out.bytes());
    r.skip();
    EXPECT_TRUE(r.ok() && r.at_end()) << text.substr(0, 20);
  }
}
