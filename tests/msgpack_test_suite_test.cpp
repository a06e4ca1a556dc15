// The public MessagePack test suite (tests/data/msgpack_test_suite.tsv: 85 cases, 233
// encodings) through mpk's JSON layer: every encoding converts, in plain mode, to JSON that
// any JSON reader reads as the case's value (numbers compared exactly), and in lossless mode
// to JSON that reads back to the same MessagePack value (float32 stays float32, bit for bit).
#include <gtest/gtest.h>

#include <mpk/buffer.hpp>
#include <mpk/json.hpp>
#include <mpk/reader.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct suite_case {
  std::string kind;
  std::string value;  // JSON text, see the data file's header
  std::vector<std::string> encodings;
  int line = 0;
};

std::vector<suite_case> load() {
  std::ifstream in(MPK_TEST_SUITE_FILE);
  std::vector<suite_case> cases;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    const auto t1 = line.find('\t');
    const auto t2 = line.find('\t', t1 + 1);
    suite_case c{line.substr(0, t1), line.substr(t1 + 1, t2 - t1 - 1), {}, n};
    std::istringstream encodings(line.substr(t2 + 1));
    for (std::string e; encodings >> e;)
      c.encodings.push_back(e);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<std::byte> unhex(std::string_view hex) {
  std::vector<std::byte> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<std::byte>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

std::string base64_of_hex(std::string_view hex) {
  std::string out;
  const std::vector<std::byte> b = unhex(hex);
  mpk::append_base64(out, b);
  return out;
}

/// Days since 1970-01-01 of a civil date's inverse: the year, month and day of day `z`.
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;  // days from 0000-03-01 to 1970-01-01
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);                    // [0, 146096]
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const unsigned mp = (5 * doy + 2) / 153;                                     // [0, 11]
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

/// The plain mapping of a timestamp: RFC 3339 UTC, fractions in groups of three digits.
std::string rfc3339(std::int64_t sec, std::uint32_t nsec) {
  const std::int64_t days = (sec >= 0 ? sec : sec - 86399) / 86400;
  const std::int64_t rest = sec - days * 86400;
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld", static_cast<long long>(y),
                m, d, static_cast<long long>(rest / 3600), static_cast<long long>(rest / 60 % 60),
                static_cast<long long>(rest % 60));
  std::string s = buf;
  if (nsec != 0) {
    std::snprintf(buf, sizeof buf, "%09u", nsec);
    std::string frac = buf;
    while (frac.size() > 3 && frac.compare(frac.size() - 3, 3, "000") == 0)
      frac.resize(frac.size() - 3);
    s += '.' + frac;
  }
  return s + 'Z';
}

/// The JSON text that plain mode must be equal to (as a value) for the case.
std::string expected_plain(const suite_case& c) {
  const std::string& v = c.value;
  if (c.kind == "bignum") return v.substr(1, v.size() - 2);  // the decimal as a number
  if (c.kind == "binary") return '"' + base64_of_hex(v.substr(1, v.size() - 2)) + '"';
  if (c.kind == "ext") {  // [type,"hex"]
    const auto comma = v.find(',');
    return "{\"type\":" + v.substr(1, comma - 1) + ",\"data\":\"" +
           base64_of_hex(v.substr(comma + 2, v.size() - comma - 4)) + "\"}";
  }
  if (c.kind == "timestamp") {  // [seconds,nanoseconds]
    const auto comma = v.find(',');
    return '"' +
           rfc3339(std::stoll(v.substr(1, comma - 1)),
                   static_cast<std::uint32_t>(std::stoul(v.substr(comma + 1)))) +
           '"';
  }
  return v;  // nil, bool, number, string, array, map: the JSON value itself
}

/// A number as an exact long double (x86's 64-bit mantissa holds every int64, uint64 and
/// double exactly); false when the next value is not a number.
bool number_of(mpk::reader& r, long double& out) {
  switch (r.peek()) {
    case mpk::type::uint:
      out = static_cast<long double>(r.read<std::uint64_t>());
      return true;
    case mpk::type::sint:
      out = static_cast<long double>(r.read<std::int64_t>());
      return true;
    case mpk::type::float32:
      out = r.read<float>();
      return true;
    case mpk::type::float64:
      out = r.read<double>();
      return true;
    default:
      return false;
  }
}

bool is_number(mpk::type t) {
  return t == mpk::type::uint || t == mpk::type::sint || t == mpk::type::float32 ||
         t == mpk::type::float64;
}

/// Compares the values of `a` and `b` in lockstep; an empty string when they are the same.
/// `strict`: a float32 must be a float32 with the same bits, a float64 a float64 with the
/// same bits (integers are compared by value in both modes); otherwise numbers are compared
/// by their exact value, whatever their types.
std::string compare(std::span<const std::byte> x, std::span<const std::byte> y, bool strict) {
  mpk::reader a(x), b(y);
  while (!a.at_end()) {
    if (b.at_end()) return "fewer values";
    const mpk::type ta = a.peek(), tb = b.peek();
    const bool numbers = is_number(ta) && is_number(tb);
    if (numbers && (!strict || (ta != mpk::type::float32 && ta != mpk::type::float64))) {
      long double va = 0, vb = 0;
      number_of(a, va);
      number_of(b, vb);
      if (strict && (tb == mpk::type::float32 || tb == mpk::type::float64))
        return "an integer became a float";
      if (va != vb) return "another number";
      continue;
    }
    if (ta != tb) return "another type";
    switch (ta) {
      case mpk::type::nil:
        a.read_nil();
        b.read_nil();
        break;
      case mpk::type::boolean:
        if (a.read<bool>() != b.read<bool>()) return "another boolean";
        break;
      case mpk::type::float32:
        if (std::bit_cast<std::uint32_t>(a.read<float>()) !=
            std::bit_cast<std::uint32_t>(b.read<float>()))
          return "another float32";
        break;
      case mpk::type::float64:
        if (std::bit_cast<std::uint64_t>(a.read<double>()) !=
            std::bit_cast<std::uint64_t>(b.read<double>()))
          return "another float64";
        break;
      case mpk::type::str:
        if (a.read_string_view() != b.read_string_view()) return "another string";
        break;
      case mpk::type::bin: {
        const auto p = a.read_bin(), q = b.read_bin();
        if (!std::equal(p.begin(), p.end(), q.begin(), q.end())) return "another binary";
        break;
      }
      case mpk::type::ext: {
        const mpk::ext_view p = a.read_ext(), q = b.read_ext();
        if (p.type != q.type ||
            !std::equal(p.data.begin(), p.data.end(), q.data.begin(), q.data.end()))
          return "another extension";
        break;
      }
      case mpk::type::array:
        if (a.read_array_header() != b.read_array_header()) return "another array size";
        break;
      case mpk::type::map:
        if (a.read_map_header() != b.read_map_header()) return "another map size";
        break;
      default:
        return "an invalid value";
    }
    if (!a.ok() || !b.ok()) return "a read failed";
  }
  if (!b.at_end()) return "more values";
  return {};
}

std::vector<std::byte> from_json(const std::string& text, bool lossless) {
  mpk::buffer out;
  std::string why;
  const auto n = mpk::from_json(text, out, {.lossless = lossless}, &why);
  EXPECT_TRUE(n) << text << ": " << why;
  return {out.data(), out.data() + out.size()};
}

TEST(MsgpackTestSuite, HasEveryCaseAndEncoding) {
  const std::vector<suite_case> cases = load();
  std::size_t encodings = 0;
  for (const auto& c : cases)
    encodings += c.encodings.size();
  EXPECT_EQ(cases.size(), 85u);
  EXPECT_EQ(encodings, 233u);
}

TEST(MsgpackTestSuite, PlainJsonReadsBackAsTheValue) {
  for (const suite_case& c : load()) {
    const std::vector<std::byte> want = from_json(expected_plain(c), false);
    for (const std::string& hex : c.encodings) {
      SCOPED_TRACE("line " + std::to_string(c.line) + ": " + hex);
      const std::vector<std::byte> bytes = unhex(hex);
      const auto json = mpk::to_json(bytes);
      ASSERT_TRUE(json) << json.error().to_string();
      const std::vector<std::byte> got = from_json(*json, false);
      EXPECT_EQ(compare(want, got, false), "") << "plain: " << *json << " for " << c.value;
    }
  }
}

TEST(MsgpackTestSuite, LosslessJsonReadsBackToTheSameValue) {
  for (const suite_case& c : load()) {
    for (const std::string& hex : c.encodings) {
      SCOPED_TRACE("line " + std::to_string(c.line) + ": " + hex);
      const std::vector<std::byte> bytes = unhex(hex);
      const auto json = mpk::to_json(bytes, {.lossless = true});
      ASSERT_TRUE(json) << json.error().to_string();
      const std::vector<std::byte> got = from_json(*json, true);
      EXPECT_EQ(compare(bytes, got, true), "") << "lossless: " << *json;
    }
  }
}

// The case the plain mapping of float32 is for: 2^48 as a float32 reads back exactly.
TEST(MsgpackTestSuite, Float32IsWrittenAsTheDoubleItIs) {
  const auto json = mpk::to_json(unhex("ca57800000"));
  ASSERT_TRUE(json);
  EXPECT_EQ(*json, "281474976710656.0\n");
}

}  // namespace
