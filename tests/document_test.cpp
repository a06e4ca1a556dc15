// Tests of mpk/value/document.hpp: document::parse, element, memory bounds, arena reuse.
#include <mpk/value/document.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "support/hex.hpp"
#include "support/random_value.hpp"

// --- a counting allocator -------------------------------------------------------------------
//
// Every operator new of this test binary goes through here, so a test can see how many bytes
// a parse allocated. Counting only; the memory comes from malloc.

namespace {
std::atomic<std::size_t> g_allocations{0};
std::atomic<std::size_t> g_allocated_bytes{0};

void* counted_alloc(std::size_t n) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_allocated_bytes.fetch_add(n, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}

/// Allocations made while it lives.
struct allocation_scope {
  std::size_t count0 = g_allocations.load();
  std::size_t bytes0 = g_allocated_bytes.load();
  std::size_t count() const { return g_allocations.load() - count0; }
  std::size_t bytes() const { return g_allocated_bytes.load() - bytes0; }
};
}  // namespace

void* operator new(std::size_t n) {
  if (void* p = counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counted_alloc(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return counted_alloc(n);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace mpk::inline v0 {
// GoogleTest printer for errors ("offset 3: ...").
inline void PrintTo(const error& e, std::ostream* os) {
  *os << e.to_string();
}
}  // namespace mpk::inline v0

namespace {

using mpk::document;
using mpk::element;
using mpk::errc;
using mpk::type;
using mpk_test::hex;
using mpk_test::test_entry;
using mpk_test::test_value;

document parse_ok(const std::vector<std::byte>& bytes, const mpk::document_options& options = {}) {
  auto r = document::parse(bytes, options);
  EXPECT_TRUE(r.has_value()) << r.error().to_string() << " for " << mpk_test::to_hex(bytes);
  if (!r) return document();
  return std::move(*r);
}

/// Parses hex text with `copy`, so that the document outlives the temporary bytes.
document parse_hex(const char* text, mpk::limits lim = {}) {
  return parse_ok(hex(text), {.read = {.limits = lim}, .copy = true});
}

mpk::error parse_error(const std::vector<std::byte>& bytes,
                       const mpk::document_options& options = {}) {
  auto r = document::parse(bytes, options);
  EXPECT_FALSE(r.has_value()) << "parsed " << mpk_test::to_hex(bytes);
  return r.error();
}

std::string str_of(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

/// The document's view of a value as a test tree (the test data is of modest depth).
test_value to_test_value(const element& v) {
  switch (v.type()) {
    case type::nil:
      return test_value::nil();
    case type::boolean:
      return test_value::of_bool(v.as<bool>().value());
    case type::uint:
      return test_value::of_uint(v.as<std::uint64_t>().value());
    case type::sint:
      return test_value::of_sint(v.as<std::int64_t>().value());
    case type::float32:
      return test_value::of_float32(v.as<float>().value());
    case type::float64:
      return test_value::of_float64(v.as<double>().value());
    case type::str:
      return test_value::of_str(v.as<std::string>().value());
    case type::bin:
      return test_value::of_bin(str_of(v.as<std::span<const std::byte>>().value()));
    case type::ext: {
      const mpk::ext_view e = v.as<mpk::ext_view>().value();
      return test_value::of_ext(e.type, str_of(e.data));
    }
    case type::array: {
      test_value t = test_value::of_array({});
      for (element x : v)
        t.items.push_back(to_test_value(x));
      EXPECT_EQ(t.items.size(), v.size());
      return t;
    }
    case type::map: {
      test_value t = test_value::of_map({});
      for (auto [key, val] : v.entries())
        t.entries.push_back({to_test_value(key), to_test_value(val)});
      EXPECT_EQ(t.entries.size(), v.size());
      return t;
    }
    default:
      ADD_FAILURE() << "unexpected type " << mpk::type_name(v.type());
      return {};
  }
}

/// raw() of every value equals what a reader walking the same bytes gives for it.
void expect_raw_agrees(const element& v) {
  if (!v.is_array() && !v.is_map()) return;
  const auto bytes = v.raw();
  mpk::reader r(bytes, {.limits = mpk::limits::trusted()});
  if (v.is_array()) {
    ASSERT_EQ(r.read_array_header(), v.size());
    for (element x : v) {
      const auto expected = r.raw_value();
      ASSERT_EQ(str_of(x.raw()), str_of(expected));
      EXPECT_EQ(x.offset(), static_cast<std::size_t>(expected.data() - bytes.data()) + v.offset());
      expect_raw_agrees(x);
    }
  } else {
    ASSERT_EQ(r.read_map_header(), v.size());
    for (auto [key, val] : v.entries()) {
      ASSERT_EQ(str_of(key.raw()), str_of(r.raw_value()));
      ASSERT_EQ(str_of(val.raw()), str_of(r.raw_value()));
      expect_raw_agrees(key);
      expect_raw_agrees(val);
    }
  }
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.at_end());
}

static_assert(sizeof(mpk::detail::node) == 16);
static_assert(sizeof(mpk::element) <= 32);

// --- scalars --------------------------------------------------------------------------------

TEST(Document, ScalarsOfEveryFormat) {
  struct scalar_case {
    const char* bytes;
    type family;
    double number;  // as<double>() where it applies
  };
  const scalar_case cases[] = {
      {"00", type::uint, 0},
      {"7f", type::uint, 127},
      {"cc 80", type::uint, 128},
      {"cd 01 00", type::uint, 256},
      {"ce 00 01 00 00", type::uint, 65536},
      {"cf 00 00 00 01 00 00 00 00", type::uint, 4294967296.0},
      {"ff", type::sint, -1},
      {"e0", type::sint, -32},
      {"d0 df", type::sint, -33},
      {"d1 ff 7f", type::sint, -129},
      {"d2 ff ff 7f ff", type::sint, -32769},
      {"d3 ff ff ff ff 7f ff ff ff", type::sint, -2147483649.0},
      {"d0 05", type::sint, 5},  // non-minimal, non-negative sint
      {"ca 3f c0 00 00", type::float32, 1.5},
      {"cb 40 09 00 00 00 00 00 00", type::float64, 3.125},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.bytes);
    const auto bytes = hex(c.bytes);
    const document doc = parse_ok(bytes);
    const element v = doc.root();
    EXPECT_EQ(v.type(), c.family);
    EXPECT_EQ(v.as<double>().value(), c.number);
    EXPECT_EQ(str_of(v.raw()), str_of(mpk::as_bytes(bytes)));
    EXPECT_EQ(v.offset(), 0u);
    EXPECT_EQ(doc.consumed(), bytes.size());
    EXPECT_EQ(doc.node_count(), 1u);
  }
  EXPECT_TRUE(parse_hex("c0").root().is_nil());
  EXPECT_EQ(parse_hex("c3").root().as<bool>().value(), true);
  EXPECT_EQ(parse_hex("c2").root().as<bool>().value(), false);
  EXPECT_EQ(parse_hex("a3 61 62 63").root().as<std::string_view>().value(), "abc");
  EXPECT_EQ(parse_hex("d9 01 7a").root().as<std::string>().value(), "z");
  EXPECT_EQ(parse_hex("da 00 01 7a").root().as<std::string>().value(), "z");
  EXPECT_EQ(parse_hex("db 00 00 00 01 7a").root().as<std::string>().value(), "z");
  EXPECT_EQ(str_of(parse_hex("c4 02 01 02").root().as<std::span<const std::byte>>().value()),
            "\x01\x02");
  EXPECT_EQ(str_of(parse_hex("c5 00 00").root().as<std::span<const std::byte>>().value()), "");
  const document ext_doc = parse_hex("d6 ff 00 00 00 01");
  const auto e = ext_doc.root().as<mpk::ext_view>().value();
  EXPECT_EQ(e.type, -1);
  EXPECT_EQ(str_of(e.data), std::string("\0\0\0\x01", 4));
  const document ext8_doc = parse_hex("c7 03 05 61 62 63");
  const auto e8 = ext8_doc.root().as<mpk::ext_view>().value();
  EXPECT_EQ(e8.type, 5);
  EXPECT_EQ(str_of(e8.data), "abc");
}

TEST(Document, AsUsesTheReadersCoercions) {
  // Whatever the reader says about a value, as<T>() says the same, error code included:
  // both where as<T>() takes the value from its node (element::decoded_in_node, a copy of
  // the decoders' rules kept for speed) and where it runs the decoder. Every width of every
  // family, each edge of each integer type.
  const char* inputs[] = {"00",
                          "7f",
                          "e0",
                          "cc 80",
                          "cd ff ff",
                          "cd 01 00",
                          "ce ff ff ff ff",
                          "d0 05",
                          "d0 80",
                          "d1 80 00",
                          "d1 7f ff",
                          "d2 80 00 00 00",
                          "d2 7f ff ff ff",
                          "d3 7f ff ff ff ff ff ff ff",
                          "ca 3f c0 00 00",
                          "ca 7f 7f ff ff",
                          "ca ff 80 00 00",
                          "ca 7f c0 00 01",
                          "cb 7f f0 00 00 00 00 00 00",
                          "cb 36 a0 00 00 00 00 00 00",
                          "c2",
                          "a0",
                          "d9 03 61 62 63",
                          "c4 02 01 02",
                          "c4 00",
                          "d4 01 02",
                          "91 01",
                          "cc ff",
                          "ff",
                          "d3 80 00 00 00 00 00 00 00",
                          "cf ff ff ff ff ff ff ff ff",
                          "cb 47 f0 00 00 00 00 00 00",
                          "cb 3f f8 00 00 00 00 00 00",
                          "cf 00 20 00 00 00 00 00 01",
                          "ce 01 00 00 01",
                          "a1 61",
                          "c3",
                          "c0"};
  for (const char* text : inputs) {
    SCOPED_TRACE(text);
    const auto bytes = hex(text);
    const document doc = parse_ok(bytes);
    const element v = doc.root();
    const auto check = [&]<class T>(T*) {
      mpk::reader r(bytes);
      const T expected = r.read<T>();
      const auto got = v.as<T>();
      EXPECT_EQ(got.error().code, r.error().code) << typeid(T).name();
      if (got) {
        if constexpr (std::is_floating_point_v<T>) {  // NaN too: the same bits
          EXPECT_EQ(std::memcmp(&*got, &expected, sizeof(T)), 0) << typeid(T).name();
        } else {
          EXPECT_EQ(*got, expected) << typeid(T).name();
        }
      } else {
        EXPECT_EQ(got.error().offset, 0u);
      }
    };
    check(static_cast<std::uint8_t*>(nullptr));
    check(static_cast<std::int8_t*>(nullptr));
    check(static_cast<std::int64_t*>(nullptr));
    check(static_cast<std::uint64_t*>(nullptr));
    check(static_cast<float*>(nullptr));
    check(static_cast<double*>(nullptr));
    check(static_cast<bool*>(nullptr));
    check(static_cast<std::int16_t*>(nullptr));
    check(static_cast<std::uint16_t*>(nullptr));
    check(static_cast<std::int32_t*>(nullptr));
    check(static_cast<std::uint32_t*>(nullptr));
    check(static_cast<std::string_view*>(nullptr));
    // Views: the same bytes of the input.
    mpk::reader r(bytes);
    const std::span<const std::byte> expected = r.read<std::span<const std::byte>>();
    const auto got = v.as<std::span<const std::byte>>();
    EXPECT_EQ(got.error().code, r.error().code);
    if (got) {
      EXPECT_EQ(got->data(), expected.data());
      EXPECT_EQ(got->size(), expected.size());
    }
  }
  const document doc = parse_hex("92 cd 01 00 a1 61");
  auto narrow = doc.root()[0].as<std::uint8_t>();
  EXPECT_EQ(narrow.error(), (mpk::error{errc::out_of_range, 1}));
  auto wrong = doc.root()[1].as<int>();
  EXPECT_EQ(wrong.error(), (mpk::error{errc::type_mismatch, 4}));
}

// --- containers -------------------------------------------------------------------------------

TEST(Document, NavigatesArraysAndMaps) {
  // {"a": 1, "b": [1, 2, 3], "c": {"d": nil}, 7: "seven"}
  const auto bytes = hex("84 a1 61 01 a1 62 93 01 02 03 a1 63 81 a1 64 c0 07 a5 73 65 76 65 6e");
  const document doc = parse_ok(bytes);
  const element root = doc.root();
  ASSERT_TRUE(root.is_map());
  EXPECT_EQ(root.size(), 4u);
  EXPECT_EQ(root["a"].as<int>().value(), 1);
  EXPECT_EQ(root["b"].size(), 3u);
  EXPECT_EQ(root["b"][2].as<int>().value(), 3);
  EXPECT_TRUE(root["c"]["d"].exists());
  EXPECT_TRUE(root["c"]["d"].is_nil());
  EXPECT_EQ(str_of(root["b"].raw()), str_of(std::span(bytes).subspan(6, 4)));
  EXPECT_EQ(root["b"].offset(), 6u);
  EXPECT_EQ(doc.node_count(), 1u + 8u + 3u + 2u);

  // A key of another type, through find(element).
  const document key = parse_hex("07");
  EXPECT_EQ(root.find(key.root()).as<std::string_view>().value(), "seven");
  const document key2 = parse_hex("d0 07");  // the same number as int8
  EXPECT_EQ(root.find(key2.root()).as<std::string_view>().value(), "seven");

  int sum = 0;
  for (element x : root["b"])
    sum += x.as<int>().value();
  EXPECT_EQ(sum, 6);
  std::string keys;
  for (auto [k, v] : root.entries()) {
    (void)v;
    if (k.is_str()) keys += k.as<std::string>().value();
  }
  EXPECT_EQ(keys, "abc");
  // Iterating the wrong kind of container gives nothing.
  EXPECT_TRUE(root.elements().empty());
  EXPECT_TRUE(root["b"].entries().empty());
}

TEST(Document, MissingValuesPropagate) {
  const auto bytes = hex("c0 82 a1 61 92 01 02 a1 62 c3");  // nil, then {"a": [1, 2], "b": true}
  auto r = document::parse(bytes, {.read = {.allow_trailing = true}});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->consumed(), 1u);
  const std::vector<std::byte> map_bytes(bytes.begin() + 1, bytes.end());
  const document doc = parse_ok(map_bytes);
  const element root = doc.root();
  EXPECT_FALSE(root["zz"].exists());
  EXPECT_EQ(root["zz"].type(), type::invalid);
  EXPECT_EQ(root["zz"].size(), 0u);
  EXPECT_EQ(root["zz"].as<int>().error(), (mpk::error{errc::missing_key, 0}));
  EXPECT_EQ(root["a"][5].as<int>().error(), (mpk::error{errc::missing_key, 3}));
  EXPECT_EQ(root["a"]["x"].as<int>().error(), (mpk::error{errc::missing_key, 3}));
  EXPECT_EQ(root["b"][0].as<int>().error(), (mpk::error{errc::missing_key, 8}));
  EXPECT_FALSE(root["zz"]["deeper"][3].exists());
  EXPECT_TRUE(root["zz"].raw().empty());
  EXPECT_FALSE(document().root().exists());
}

TEST(Document, DuplicateKeysLastWins) {
  const document doc = parse_hex("83 a1 6b 01 a1 6a 02 a1 6b 03");
  EXPECT_EQ(doc.root()["k"].as<int>().value(), 3);
  EXPECT_EQ(doc.root()["j"].as<int>().value(), 2);
  EXPECT_EQ(doc.root()[""].exists(), false);
}

mpk::error strict_keys_error(const char* text) {
  return parse_error(hex(text), {.read = {.strict = true}});
}

TEST(Document, StrictKeysRejectTheSecondOfTwoEqualKeys) {
  EXPECT_EQ(strict_keys_error("83 a1 6b 01 a1 6a 02 a1 6b 03"),
            (mpk::error{errc::duplicate_key, 7}));
  EXPECT_EQ(strict_keys_error("82 a0 01 a0 02"), (mpk::error{errc::duplicate_key, 3}));
  // Container keys compare by all their bytes.
  EXPECT_EQ(strict_keys_error("82 91 01 c0 91 01 c0"), (mpk::error{errc::duplicate_key, 4}));
  // Several duplicates: the first in input order, here in the inner map (visited after the
  // outer one, whose duplicate comes later in the input).
  EXPECT_EQ(strict_keys_error("82 a1 61 82 01 c0 01 c0 a1 61 c0"),
            (mpk::error{errc::duplicate_key, 6}));
  // Keys are compared by bytes: the same number in two encodings, or a str and a bin of
  // the same text, are different keys; so are [1] and [1, 1].
  for (const char* ok : {"82 01 c0 cc 01 c0", "82 a1 61 c0 c4 01 61 c0", "82 91 01 c0 92 01 01 c0",
                         "81 a1 61 c0", "80", "92 81 01 c0 81 01 c0"}) {
    SCOPED_TRACE(ok);
    EXPECT_TRUE(document::parse(hex(ok), {.read = {.strict = true}}).has_value());
  }
  // Off by default: the document keeps both entries.
  EXPECT_EQ(parse_hex("82 a0 01 a0 02").root().size(), 2u);
  // A str that is not UTF-8 and a duplicate key: whichever comes first in the input.
  const auto both = [](const char* text) {
    return parse_error(hex(text), {.read = {.utf8 = mpk::utf8_check::all, .strict = true}});
  };
  EXPECT_EQ(both("83 a1 61 01 a1 61 02 a1 ff 03"), (mpk::error{errc::duplicate_key, 4}));
  EXPECT_EQ(both("83 a1 ff 01 a1 61 02 a1 61 03"), (mpk::error{errc::invalid_utf8, 1}));
}

TEST(Document, StrictKeysAgreeWithPairwiseComparisonOnLargeMaps) {
  // Maps of 1..60 entries (beyond 16 the check sorts) with keys drawn from a small set, so
  // that duplicates are frequent; the expected error comes from comparing every pair of
  // keys of the non-strict document.
  std::mt19937_64 rng(7);
  const char* keys[] = {"a0", "a1 61", "a1 62", "a2 61 62", "01", "cc 01", "91 01", "c0", "c3"};
  int rejected = 0;
  for (int round = 0; round < 300; ++round) {
    const std::size_t n = 1 + static_cast<std::size_t>(rng() % 60);
    const std::size_t pool = 1 + static_cast<std::size_t>(rng() % 9);
    std::string text = "de 00 " + mpk_test::to_hex(std::vector<std::byte>{std::byte(n)});
    std::vector<std::string> used;
    for (std::size_t i = 0; i < n; ++i) {
      // Distinct keys ("cd 01 xx") mixed with keys from the pool.
      std::string key = rng() % 2 ? keys[rng() % pool]
                                  : "cd 01 " + mpk_test::to_hex(std::vector<std::byte>{
                                                   std::byte(static_cast<unsigned char>(i))});
      text += " " + key + " c0";
    }
    const auto bytes = hex(text.c_str());
    const document plain = parse_ok(bytes);
    std::size_t expected = 0;
    const auto entries = plain.root().entries();
    std::vector<element> seen;
    for (const mpk::map_entry entry : entries) {
      const element k = entry.key;  // (Clang 14 cannot capture a structured binding)
      const bool dup = std::any_of(seen.begin(), seen.end(), [&](const element& s) {
        return str_of(s.raw()) == str_of(k.raw());
      });
      if (dup) {
        expected = k.offset();
        break;
      }
      seen.push_back(k);
    }
    SCOPED_TRACE(text);
    auto strict = document::parse(bytes, {.read = {.strict = true}});
    if (expected == 0) {
      EXPECT_TRUE(strict.has_value());
    } else {
      ++rejected;
      ASSERT_FALSE(strict.has_value());
      EXPECT_EQ(strict.error(), (mpk::error{errc::duplicate_key, expected}));
    }
  }
  EXPECT_GT(rejected, 50);  // both outcomes were exercised
  EXPECT_LT(rejected, 300);
}

TEST(Document, DeepEqualityComparesValuesNotEncodings) {
  const auto eq = [](const char* a, const char* b) {
    const document da = parse_hex(a);
    const document db = parse_hex(b);
    return da.root() == db.root();
  };
  EXPECT_TRUE(eq("05", "cc 05"));
  EXPECT_TRUE(eq("05", "d3 00 00 00 00 00 00 00 05"));
  EXPECT_TRUE(eq("ff", "d1 ff ff"));
  EXPECT_FALSE(eq("cf ff ff ff ff ff ff ff ff", "ff"));  // 2^64-1 is not -1
  EXPECT_TRUE(eq("a1 61", "d9 01 61"));
  EXPECT_FALSE(eq("a1 61", "c4 01 61"));  // str and bin differ
  EXPECT_TRUE(eq("92 01 a0", "dc 00 02 01 d9 00"));
  EXPECT_FALSE(eq("92 01 02", "92 02 01"));
  EXPECT_FALSE(eq("82 a1 61 01 a1 62 02", "82 a1 62 02 a1 61 01"));  // maps compare in order
  EXPECT_TRUE(eq("81 a1 61 91 91 01", "de 00 01 a1 61 91 dc 00 01 01"));
  EXPECT_FALSE(eq("91 91 01", "91 91 02"));
  EXPECT_TRUE(eq("cb 7f f8 00 00 00 00 00 01", "cb 7f f8 00 00 00 00 00 01"));   // NaN bits
  EXPECT_FALSE(eq("cb 00 00 00 00 00 00 00 00", "cb 80 00 00 00 00 00 00 00"));  // 0.0, -0.0
  EXPECT_FALSE(eq("ca 3f c0 00 00", "cb 3f f8 00 00 00 00 00 00"));  // float32 vs float64
  EXPECT_FALSE(eq("d4 01 00", "d4 02 00"));                          // ext type
  EXPECT_FALSE(eq("90", "80"));
}

// --- random values and boundaries ---------------------------------------------------------

TEST(Document, RandomValuesEqualWhatTheReaderSees) {
  std::mt19937_64 rng(20261130);
  for (int i = 0; i < 400; ++i) {
    const test_value tv = mpk_test::random_value(rng, 1 + i % 6);
    const auto bytes = mpk_test::encode(tv);
    mpk::reader r(bytes);
    const test_value seen = mpk_test::read(r);
    ASSERT_TRUE(r.ok());
    const document doc = parse_ok(bytes);
    ASSERT_EQ(to_test_value(doc.root()), seen) << "seed index " << i;
    EXPECT_EQ(doc.node_count(), mpk_test::node_count(tv));
    EXPECT_EQ(str_of(doc.root().raw()), str_of(mpk::as_bytes(bytes)));
    expect_raw_agrees(doc.root());
    // The same value parsed from a copy is equal to it.
    const document copy = parse_ok(bytes, {.copy = true});
    EXPECT_TRUE(copy.root() == doc.root());
  }
}

TEST(Document, BoundaryValues) {
  for (const test_value& tv : mpk_test::boundary_values()) {
    const auto bytes = mpk_test::encode(tv);
    const document doc = parse_ok(bytes);
    ASSERT_EQ(to_test_value(doc.root()), tv);
    expect_raw_agrees(doc.root());
  }
}

TEST(Document, EveryProperPrefixIsTruncated) {
  std::mt19937_64 rng(99);
  document doc;
  for (int i = 0; i < 150; ++i) {
    const test_value tv = mpk_test::random_value(rng, 1 + i % 5);
    const auto bytes = mpk_test::encode(tv);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      const auto r = doc.parse_into(std::span(bytes.data(), n));
      ASSERT_FALSE(r.has_value()) << n << " of " << mpk_test::to_hex(bytes);
      ASSERT_EQ(r.error().code, errc::truncated) << n << " of " << mpk_test::to_hex(bytes);
      ASSERT_LE(r.error().offset, n);
      ASSERT_FALSE(doc.root().exists());
    }
    ASSERT_TRUE(doc.parse_into(bytes).has_value());
  }
  // Large boundary values: a spread of prefixes (every one would take too long).
  for (const test_value& tv : mpk_test::boundary_values()) {
    const auto bytes = mpk_test::encode(tv);
    for (std::size_t n = 0; n < bytes.size(); n += 1 + bytes.size() / 97) {
      const auto r = doc.parse_into(std::span(bytes.data(), n));
      ASSERT_EQ(r.error().code, errc::truncated) << n;
    }
    const auto r = doc.parse_into(std::span(bytes.data(), bytes.size() - 1));
    ASSERT_EQ(r.error().code, errc::truncated);
  }
}

// --- errors -------------------------------------------------------------------------------------

TEST(Document, ErrorsCarryTheOffsetOfTheOffendingValue) {
  EXPECT_EQ(parse_error(hex("93 01 c1 02")), (mpk::error{errc::invalid_marker, 2}));
  EXPECT_EQ(parse_error(hex("")), (mpk::error{errc::truncated, 0}));
  EXPECT_EQ(parse_error(hex("92 01 cd 01")), (mpk::error{errc::truncated, 2}));
  EXPECT_EQ(parse_error(hex("91 a3 61 62")), (mpk::error{errc::truncated, 1}));
  EXPECT_EQ(parse_error(hex("01 02")), (mpk::error{errc::trailing_bytes, 1}));
  EXPECT_EQ(parse_error(hex("91 01 c0")), (mpk::error{errc::trailing_bytes, 2}));
  // Limits, as the reader applies them.
  EXPECT_EQ(parse_error(hex("91 a3 61 62 63"), {.read = {.limits = {.max_str_len = 2}}}),
            (mpk::error{errc::limit_exceeded, 1}));
  EXPECT_EQ(parse_error(hex("91 c4 01 00"), {.read = {.limits = {.max_bin_len = 0}}}),
            (mpk::error{errc::limit_exceeded, 1}));
  EXPECT_EQ(parse_error(hex("92 00 d4 01 00"), {.read = {.limits = {.max_ext_len = 0}}}),
            (mpk::error{errc::limit_exceeded, 2}));
  EXPECT_EQ(parse_error(hex("92 00 93 01 02 03"), {.read = {.limits = {.max_array_len = 2}}}),
            (mpk::error{errc::limit_exceeded, 2}));
  EXPECT_EQ(parse_error(hex("91 82 01 01 02 02"), {.read = {.limits = {.max_map_len = 1}}}),
            (mpk::error{errc::limit_exceeded, 1}));
  EXPECT_EQ(parse_error(hex("91 91 91 01"), {.read = {.limits = {.max_depth = 2}}}),
            (mpk::error{errc::depth_exceeded, 2}));
  EXPECT_TRUE(
      document::parse(mpk::as_bytes(hex("91 91 91 01")), {.read = {.limits = {.max_depth = 3}}})
          .has_value());
  EXPECT_EQ(parse_error(hex("91 90"), {.read = {.limits = {.max_depth = 1}}}),
            (mpk::error{errc::depth_exceeded, 1}));
}

TEST(Document, ErrorsAgreeWithTheReadersSkip) {
  // On inputs that fail, the reader's skip() and the document agree on the error code.
  std::mt19937_64 rng(5);
  for (int i = 0; i < 300; ++i) {
    auto bytes = mpk_test::encode(mpk_test::random_value(rng, 3));
    // Damage one byte: maybe a marker, maybe a length.
    bytes[static_cast<std::size_t>(rng() % bytes.size())] = static_cast<std::byte>(rng() % 256);
    mpk::reader r(bytes);
    r.skip();
    const bool reader_ok = r.ok() && r.at_end();
    auto doc = document::parse(bytes);
    ASSERT_EQ(doc.has_value(), reader_ok) << mpk_test::to_hex(bytes);
    if (!r.ok()) {
      EXPECT_EQ(doc.error().code, r.error().code) << mpk_test::to_hex(bytes);
    } else if (!reader_ok) {
      EXPECT_EQ(doc.error(), (mpk::error{errc::trailing_bytes, r.position()}));
    }
  }
}

TEST(Document, SequenceOfMessages) {
  const auto bytes = hex("01 92 02 03 a1 78 80");
  std::span<const std::byte> rest = mpk::as_bytes(bytes);
  document doc;
  std::vector<std::string> seen;
  while (!rest.empty()) {
    ASSERT_TRUE(doc.parse_into(rest, {.read = {.allow_trailing = true}}).has_value());
    seen.push_back(mpk_test::to_hex(doc.root().raw()));
    rest = rest.subspan(doc.consumed());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"01", "92 02 03", "a1 78", "80"}));
}

TEST(Document, CopyOptionOutlivesTheInput) {
  auto bytes = hex("82 a1 61 a3 78 79 7a a1 62 c4 01 ff");
  auto doc = document::parse(bytes, {.copy = true});
  ASSERT_TRUE(doc.has_value());
  std::fill(bytes.begin(), bytes.end(), std::byte{0});
  EXPECT_EQ(doc->root()["a"].as<std::string_view>().value(), "xyz");
  EXPECT_EQ(str_of(doc->root()["b"].as<std::span<const std::byte>>().value()), "\xff");
  EXPECT_NE(doc->input().data(), bytes.data());
}

TEST(Document, Utf8Policies) {
  // ["ok", <c3 28: not UTF-8>, {<ff: not UTF-8>: 1}]
  const auto bytes = hex("93 a2 6f 6b a2 c3 28 81 a1 ff 01");
  {  // owned (the default): the parse passes; copies are checked, views are not
    const document doc = parse_ok(bytes);
    EXPECT_EQ(doc.root()[0].as<std::string>().value(), "ok");
    EXPECT_EQ(doc.root()[1].as<std::string>().error(), (mpk::error{errc::invalid_utf8, 4}));
    EXPECT_EQ(doc.root()[1].as<std::string_view>().value(), "\xc3\x28");
    for (auto [k, v] : doc.root()[2].entries()) {
      EXPECT_EQ(k.as<std::string>().error(), (mpk::error{errc::invalid_utf8, 8}));
      EXPECT_EQ(v.as<int>().value(), 1);
    }
  }
  {  // all: the first bad str in input order fails the parse
    EXPECT_EQ(parse_error(bytes, {.read = {.utf8 = mpk::utf8_check::all}}),
              (mpk::error{errc::invalid_utf8, 4}));
    EXPECT_EQ(parse_error(hex("81 a1 ff 01"), {.read = {.utf8 = mpk::utf8_check::all}}),
              (mpk::error{errc::invalid_utf8, 1}));
    EXPECT_TRUE(document::parse(mpk::as_bytes(hex("92 a2 6f 6b a3 e2 9c 93")),
                                {.read = {.utf8 = mpk::utf8_check::all}})
                    .has_value());
  }
  {  // none: nothing is checked
    const document doc = parse_ok(bytes, {.read = {.utf8 = mpk::utf8_check::none}});
    EXPECT_EQ(doc.root()[1].as<std::string>().value(), "\xc3\x28");
  }
}

// --- memory -------------------------------------------------------------------------------------

std::vector<std::byte> array16_of_nils() {
  auto bytes = hex("dc ff ff");
  bytes.resize(3 + 65535, std::byte{0xc0});
  return bytes;
}

// The stated bound on what a document holds: 16 bytes of nodes per input byte, plus the parse
// stack (8 bytes per level, room for 16 at first, doubling: at most 16 bytes per level
// reached), plus the input size with `copy`. What a parse allocates in all, growth included,
// stays within twice that (geometric growth).
std::size_t bound_for(std::size_t input, std::size_t depth = 16) {
  return 16 * input + 16 * std::max<std::size_t>(16, depth);
}

TEST(DocumentMemory, Array16OfNilsStaysWithinTheBound) {
  const auto bytes = array16_of_nils();
  allocation_scope scope;
  auto doc = document::parse(bytes);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->root().size(), 65535u);
  EXPECT_EQ(doc->node_count(), 65536u);
  EXPECT_LE(scope.bytes(), 2 * bound_for(bytes.size()));
  EXPECT_LE(doc->memory_usage(), bound_for(bytes.size()));
  EXPECT_TRUE(doc->root()[65534].is_nil());
}

TEST(DocumentMemory, StringHeavyInputKeepsAnArenaOfItsNodes) {
  // Four binaries of 256 KiB: 1 MiB of input, 5 nodes. The arena's first guess stays under
  // 128 KiB (it was half a node per input byte: 8 MiB here, mapped and unmapped per new
  // document); a dense input beyond the guess still parses, growing the arena.
  mpk::buffer buf;
  mpk::writer w(buf);
  const std::vector<std::byte> blob(256 << 10, std::byte{7});
  w.begin_array(4);
  for (int i = 0; i < 4; ++i)
    w.write(std::span<const std::byte>(blob));
  ASSERT_TRUE(w.ok());
  allocation_scope scope;
  auto doc = document::parse(buf.bytes());
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->node_count(), 5u);
  EXPECT_LE(scope.bytes(), std::size_t{128} << 10);
  EXPECT_LE(doc->memory_usage(), std::size_t{128} << 10);
  const auto nils = array16_of_nils();
  ASSERT_TRUE(doc->parse_into(nils).has_value());
  EXPECT_EQ(doc->node_count(), 65536u);
  EXPECT_TRUE(doc->root()[65534].is_nil());
}

TEST(DocumentMemory, HugeDeclaredCountFailsWithoutAllocating) {
  const auto bytes = hex("dd ff ff ff ff");
  for (const mpk::limits lim : {mpk::limits{}, mpk::limits::trusted()}) {
    document doc;
    allocation_scope scope;
    auto r = doc.parse_into(bytes, {.read = {.limits = lim}});
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().offset, 0u);
    EXPECT_LE(scope.bytes(), 2 * bound_for(bytes.size()));
    EXPECT_LE(doc.memory_usage(), bound_for(bytes.size()));
    EXPECT_LE(doc.memory_usage(), 256u);
  }
  EXPECT_EQ(parse_error(bytes).code, errc::limit_exceeded);  // above max_array_len
  EXPECT_EQ(parse_error(bytes, {.read = {.limits = mpk::limits::trusted()}}).code, errc::truncated);
  EXPECT_EQ(
      parse_error(hex("df ff ff ff ff 01 01"), {.read = {.limits = mpk::limits::trusted()}}).code,
      errc::truncated);
}

TEST(DocumentMemory, NestedHugeCountsShareTheInputBytes) {
  // Each array16 declares 65535 elements and the input holds enough bytes for one of them:
  // reserving per level would take 200 x 65535 nodes (200 MiB); the document refuses at the
  // second level, having reserved nothing beyond the bound.
  std::vector<std::byte> bytes;
  for (int i = 0; i < 200; ++i) {
    for (auto b : hex("dc ff ff"))
      bytes.push_back(b);
  }
  bytes.resize(bytes.size() + 65535, std::byte{0xc0});
  document doc;
  allocation_scope scope;
  auto r = doc.parse_into(bytes, {.read = {.limits = mpk::limits::trusted()}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), (mpk::error{errc::truncated, 3}));
  EXPECT_LE(scope.bytes(), 2 * bound_for(bytes.size()));
  EXPECT_LE(doc.memory_usage(), bound_for(bytes.size()));
}

TEST(DocumentMemory, DeepNestingIsADepthError) {
  const std::vector<std::byte> bytes(100000, std::byte{0x91});
  document doc;
  allocation_scope scope;
  auto r = doc.parse_into(bytes);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), (mpk::error{errc::depth_exceeded, 512}));
  EXPECT_LE(scope.bytes(), 2 * bound_for(bytes.size(), 512));
  EXPECT_LE(doc.memory_usage(), bound_for(bytes.size(), 512));
  // With the depth lifted, the same input is truncated (the last array has no element);
  // memory still within the bound.
  document doc2;
  allocation_scope scope2;
  auto r2 = doc2.parse_into(bytes, {.read = {.limits = mpk::limits::trusted()}});
  ASSERT_FALSE(r2.has_value());
  EXPECT_EQ(r2.error(), (mpk::error{errc::truncated, 99999}));
  EXPECT_LE(scope2.bytes(), 2 * bound_for(bytes.size(), 100000));
  EXPECT_LE(doc2.memory_usage(), bound_for(bytes.size(), 100000));
}

TEST(DocumentMemory, DeepNestingWithinTheLimitParses) {
  std::vector<std::byte> bytes(500, std::byte{0x91});
  bytes.push_back(std::byte{0x2a});
  auto doc = document::parse(bytes);
  ASSERT_TRUE(doc.has_value());
  element v = doc->root();
  for (int i = 0; i < 500; ++i)
    v = v[0];
  EXPECT_EQ(v.as<int>().value(), 42);
  EXPECT_EQ(doc->root().raw().size(), bytes.size());
  EXPECT_TRUE(doc->root() == doc->root());
}

TEST(DocumentMemory, ArenaReuseAllocatesNothingOnceWarm) {
  std::mt19937_64 rng(11);
  std::vector<std::vector<std::byte>> messages;
  for (int i = 0; i < 50; ++i)
    messages.push_back(mpk_test::encode(mpk_test::random_value(rng, 4)));
  messages.push_back(array16_of_nils());
  for (const bool copy : {false, true}) {
    document doc;
    for (const auto& m : messages)  // warm up on every size
      ASSERT_TRUE(doc.parse_into(m, {.copy = copy}).has_value());
    const std::size_t warm = doc.memory_usage();
    allocation_scope scope;
    for (int round = 0; round < 3; ++round) {
      for (const auto& m : messages)
        ASSERT_TRUE(doc.parse_into(m, {.copy = copy}).has_value());
    }
    EXPECT_EQ(scope.count(), 0u) << "copy " << copy;
    EXPECT_EQ(doc.memory_usage(), warm);
  }
}

TEST(DocumentMemory, ParseOfFlatMapAllocatesArenaAndStackOnly) {
  // A map of 16 entries: two allocations (arena, stack), no per-node or per-string one.
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_map(16);
  for (int j = 0; j < 16; ++j) {
    const std::string key = (j < 10 ? "k0" : "k1") + std::to_string(j % 10);
    w.write(key);
    w.write("v" + std::to_string(j));
  }
  const auto bytes = buf.bytes();
  allocation_scope scope;
  auto doc = document::parse(bytes);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(scope.count(), 2u);
  EXPECT_EQ(doc->root()["k15"].as<std::string_view>().value(), "v15");
}

}  // namespace
