// Tests of mpk/value/owned.hpp: mpk::value construction rules, edits, comparison, writing,
// reading, and conversion from a document.
#include <mpk/value.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "support/hex.hpp"
#include "support/random_value.hpp"
#include "support/small_stack.hpp"

namespace mpk::inline v0 {
// GoogleTest printers.
inline void PrintTo(const error& e, std::ostream* os) {
  *os << e.to_string();
}
}  // namespace mpk::inline v0

namespace {

using mpk::errc;
using mpk::type;
using mpk::value;
using mpk_test::hex;
using mpk_test::to_hex;

std::string bytes_of(const value& v) {
  mpk::buffer buf;
  mpk::writer w(buf);
  mpk::write(w, v);
  EXPECT_TRUE(w.ok());
  return to_hex(buf.bytes());
}

value read_hex(const char* text, mpk::limits lim = {}) {
  const auto bytes = hex(text);
  mpk::reader r{std::span<const std::byte>(bytes), {.limits = lim}};
  auto v = mpk::read_value(r);
  EXPECT_TRUE(v.has_value()) << v.error().to_string();
  EXPECT_TRUE(r.at_end());
  return v ? std::move(*v) : value();
}

// --- construction -------------------------------------------------------------------------

TEST(Value, ScalarConstructors) {
  EXPECT_EQ(value().type(), type::nil);
  EXPECT_EQ(value(nullptr).type(), type::nil);
  EXPECT_EQ(value(true).type(), type::boolean);
  EXPECT_EQ(value(5).type(), type::uint);
  EXPECT_EQ(value(std::int64_t{5}).type(), type::uint);  // a number >= 0 is a uint
  EXPECT_EQ(value(-5).type(), type::sint);
  EXPECT_EQ(value(std::numeric_limits<std::uint64_t>::max()).type(), type::uint);
  EXPECT_EQ(value(1.5f).type(), type::float32);
  EXPECT_EQ(value(1.5).type(), type::float64);
  EXPECT_EQ(value("abc").type(), type::str);
  EXPECT_EQ(value(std::string("abc")).type(), type::str);
  EXPECT_EQ(value(std::string_view("abc")).type(), type::str);
  EXPECT_EQ(value::binary(hex("01 02")).type(), type::bin);
  EXPECT_EQ(value::ext(-1, hex("00 00 00 01")).type(), type::ext);
  EXPECT_EQ(*value(-5).get_if<std::int64_t>(), -5);
  EXPECT_EQ(*value(std::uint8_t{200}).get_if<std::uint64_t>(), 200u);
  // Integers are found by number: 7 is stored as a uint, and int64 holds it too.
  ASSERT_NE(value(7).get_if<std::int64_t>(), nullptr);
  EXPECT_EQ(*value(7).get_if<std::int64_t>(), 7);
  EXPECT_EQ(value(-7).get_if<std::uint64_t>(), nullptr);
  EXPECT_EQ(value(std::uint64_t{1} << 63).get_if<std::int64_t>(), nullptr);
  EXPECT_EQ(*value(INT64_MAX).get_if<std::int64_t>(), INT64_MAX);
  // Number pointers are read-only even on a non-const value (the sign rule stays true).
  value seven(7);
  static_assert(std::is_same_v<decltype(seven.get_if<std::int64_t>()), const std::int64_t*>);
  static_assert(std::is_same_v<decltype(seven.get_if<std::string>()), std::string*>);
  // size() counts items of containers only, as element::size().
  EXPECT_EQ(value("abc").size(), 0u);
}

TEST(Value, InitializerListRule) {
  // A list of two-element lists that all start with a str: a map.
  const value m = {{"a", 1}, {"b", {1, 2, 3}}};
  ASSERT_TRUE(m.is_map());
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(bytes_of(m), "82 a1 61 01 a1 62 93 01 02 03");
  // Nested maps follow the same rule.
  const value nested = {{"outer", {{"inner", true}}}};
  EXPECT_EQ(bytes_of(nested), "81 a5 6f 75 74 65 72 81 a5 69 6e 6e 65 72 c3");
  // One pair alone is an array: the rule looks at the elements of a list.
  const value pair = {"a", 1};
  EXPECT_TRUE(pair.is_array());
  EXPECT_EQ(bytes_of(pair), "92 a1 61 01");
  // Not every element a str-keyed pair: an array.
  const value mixed = {{"a", 1}, {2, 3}};
  EXPECT_EQ(bytes_of(mixed), "92 92 a1 61 01 92 02 03");
  const value triple = {{"a", 1, 2}};
  EXPECT_EQ(bytes_of(triple), "91 93 a1 61 01 02");
  const value not_str_key = {{1, "a"}};
  EXPECT_EQ(bytes_of(not_str_key), "91 92 01 a1 61");
  EXPECT_EQ(bytes_of(value{1, 2, 3}), "93 01 02 03");
  // Braces build lists: value{5} is [5]; {} is nil.
  EXPECT_EQ(bytes_of(value{5}), "91 05");
  EXPECT_EQ(bytes_of(value(5)), "05");
  const value empty = {};
  EXPECT_TRUE(empty.is_nil());
  EXPECT_EQ(bytes_of(value{{}}), "91 c0");
  // The explicit forms.
  EXPECT_EQ(bytes_of(value::array({{"a", 1}, {"b", 2}})), "92 92 a1 61 01 92 a1 62 02");
  EXPECT_EQ(bytes_of(value::array()), "90");
  EXPECT_EQ(bytes_of(value::map()), "80");
  EXPECT_EQ(bytes_of(value::map({{1, "one"}, {nullptr, {1, 2}}})), "82 01 a3 6f 6e 65 c0 92 01 02");
  EXPECT_EQ(bytes_of(value::map({{"k", {{"a", 1}}}})), "81 a1 6b 81 a1 61 01");
}

// --- edits ----------------------------------------------------------------------------------

TEST(Value, PushBackAndErase) {
  value v;
  EXPECT_TRUE(v.push_back(1));
  EXPECT_TRUE(v.push_back("two"));
  EXPECT_TRUE(v.push_back({3, 4}));
  EXPECT_EQ(bytes_of(v), "93 01 a3 74 77 6f 92 03 04");
  ASSERT_NE(v.at(2), nullptr);
  EXPECT_TRUE(v.at(2)->push_back(5));
  EXPECT_EQ(v.at(3), nullptr);
  EXPECT_TRUE(v.erase(std::size_t{0}));
  EXPECT_FALSE(v.erase(std::size_t{5}));
  EXPECT_EQ(bytes_of(v), "92 a3 74 77 6f 93 03 04 05");
  value m = value::map();
  EXPECT_FALSE(m.push_back(1));
  EXPECT_EQ(bytes_of(m), "80");
  value s("text");
  EXPECT_FALSE(s.push_back(1));
  EXPECT_EQ(s.at(0), nullptr);
}

TEST(Value, AssignFindErase) {
  value v;
  EXPECT_TRUE(v.assign("a", 1));
  EXPECT_TRUE(v.assign("b", {1, 2}));
  EXPECT_TRUE(v.assign(7, "seven"));
  EXPECT_TRUE(v.assign("a", 10));  // replaces, keeps the position
  EXPECT_EQ(bytes_of(v), "83 a1 61 0a a1 62 92 01 02 07 a5 73 65 76 65 6e");
  ASSERT_NE(v.if_contains("b"), nullptr);
  EXPECT_EQ(*v.if_contains("b"), (value{1, 2}));
  EXPECT_EQ(*v.if_contains(value(7)), value("seven"));
  EXPECT_EQ(v.if_contains("zz"), nullptr);
  EXPECT_EQ(v.if_contains(value(8)), nullptr);
  // find() gives views (absent when not found), as a document's element does.
  EXPECT_EQ(v.find("b"), mpk::value_view(*v.if_contains("b")));
  EXPECT_EQ(v.find(value(7)).as<std::string_view>().value(), "seven");
  EXPECT_FALSE(v.find("zz").exists());
  EXPECT_FALSE(v.find(value(8)).exists());
  EXPECT_EQ(v.erase("b"), 1u);
  EXPECT_EQ(v.erase("b"), 0u);
  EXPECT_EQ(bytes_of(v), "82 a1 61 0a 07 a5 73 65 76 65 6e");
  // Duplicates (read from input): find and assign see the last, erase removes all.
  value d = read_hex("83 a1 6b 01 a1 6a 02 a1 6b 03");
  EXPECT_EQ(*d.if_contains("k"), value(3));
  EXPECT_EQ(d["k"].as<int>().value(), 3);
  EXPECT_TRUE(d.assign("k", 4));
  EXPECT_EQ(bytes_of(d), "83 a1 6b 01 a1 6a 02 a1 6b 04");
  EXPECT_EQ(d.erase("k"), 2u);
  EXPECT_EQ(bytes_of(d), "81 a1 6a 02");
  value arr = {1, 2};
  EXPECT_FALSE(arr.assign("a", 1));
  EXPECT_EQ(arr.if_contains("a"), nullptr);
  EXPECT_EQ(arr.erase("a"), 0u);
  // Direct access to the parts.
  auto* entries = v.get_if<value::map_type>();
  ASSERT_NE(entries, nullptr);
  entries->front().second = "edited";
  EXPECT_EQ(*v.if_contains("a"), value("edited"));
}

// --- comparison -----------------------------------------------------------------------------

TEST(Value, Equality) {
  EXPECT_EQ(value(5), value(std::uint8_t{5}));
  EXPECT_EQ(value(5), value(std::int64_t{5}));
  EXPECT_NE(value(5), value(5.0));
  EXPECT_NE(value(1.5f), value(1.5));
  EXPECT_EQ(value(std::nan("")), value(std::nan("")));
  EXPECT_NE(value(0.0), value(-0.0));
  EXPECT_NE(value("a"), value::binary(hex("61")));
  EXPECT_NE(value::ext(1, hex("00")), value::ext(2, hex("00")));
  EXPECT_EQ((value{{"a", 1}, {"b", 2}}), (value{{"a", 1}, {"b", 2}}));
  EXPECT_NE((value{{"a", 1}, {"b", 2}}), (value{{"b", 2}, {"a", 1}}));  // in order
  EXPECT_NE((value{1, {2, 3}}), (value{1, {2, 4}}));
  EXPECT_NE((value{1, 2}), (value{1, 2, 3}));
  EXPECT_NE(value::array(), value::map());
  EXPECT_NE(value(), value(false));
}

// --- writing and reading ----------------------------------------------------------------------

TEST(Value, RandomValuesRoundTrip) {
  std::mt19937_64 rng(424242);
  for (int i = 0; i < 300; ++i) {
    const mpk_test::test_value tv = mpk_test::random_value(rng, 1 + i % 6);
    const auto bytes = mpk_test::encode(tv);
    mpk::reader r{std::span<const std::byte>(bytes)};
    auto v = mpk::read_value(r);
    ASSERT_TRUE(v.has_value()) << v.error().to_string();
    ASSERT_TRUE(r.at_end());
    // The generator writes every value in its smallest form, as write() does.
    ASSERT_EQ(bytes_of(*v), to_hex(bytes)) << mpk_test::describe(tv);
    // From a document: the same value.
    auto doc = mpk::document::parse(std::span<const std::byte>(bytes));
    ASSERT_TRUE(doc.has_value());
    const value from_doc(doc->root());
    EXPECT_EQ(from_doc, *v);
    value copy = *v;
    EXPECT_EQ(copy, *v);
  }
}

TEST(Value, NonMinimalInputIsNormalized) {
  // Numbers, not encodings: uint8 5 and int64 5 are both the uint 5; writing picks fixint.
  EXPECT_EQ(bytes_of(read_hex("93 cc 05 d3 00 00 00 00 00 00 00 05 d0 fb")), "93 05 05 fb");
  EXPECT_EQ(read_hex("d0 05").type(), type::uint);
  EXPECT_EQ(bytes_of(read_hex("d9 01 61")), "a1 61");
  EXPECT_EQ(bytes_of(read_hex("dc 00 01 de 00 01 c0 c3")), "91 81 c0 c3");
}

TEST(Value, ReadValueErrorsAndLimits) {
  {
    const auto bytes = hex("01 92 01");
    mpk::reader r{std::span<const std::byte>(bytes)};
    EXPECT_EQ(mpk::read_value(r)->type(), type::uint);
    auto v = mpk::read_value(r);
    EXPECT_EQ(v.error(), (mpk::error{errc::truncated, 1}));
    EXPECT_EQ(r.error(), v.error());
  }
  {
    const auto bytes = hex("91 91 91 01");
    mpk::reader r{std::span<const std::byte>(bytes), {.limits = {.max_depth = 2}}};
    EXPECT_EQ(mpk::read_value(r).error().code, errc::depth_exceeded);
  }
  {
    const auto bytes = hex("92 a3 61 62 63 c1");
    mpk::reader r{std::span<const std::byte>(bytes)};
    EXPECT_EQ(mpk::read_value(r).error(), (mpk::error{errc::invalid_marker, 5}));
  }
  {
    const auto bytes = hex("a3 61 62 63");
    mpk::reader r{std::span<const std::byte>(bytes), {.limits = {.max_str_len = 2}}};
    EXPECT_EQ(mpk::read_value(r).error(), (mpk::error{errc::limit_exceeded, 0}));
  }
}

TEST(Value, ReadValueChecksUtf8LikeTheReader) {
  const auto bytes = hex("92 a1 61 81 a2 c3 28 01");  // ["a", {<not UTF-8>: 1}]
  {
    mpk::reader r{std::span<const std::byte>(bytes)};  // utf8_check::owned: values own strings
    EXPECT_EQ(mpk::read_value(r).error(), (mpk::error{errc::invalid_utf8, 4}));
    EXPECT_EQ(r.error(), (mpk::error{errc::invalid_utf8, 4}));
  }
  {
    mpk::reader r{std::span<const std::byte>(bytes), {.utf8 = mpk::utf8_check::none}};
    auto v = mpk::read_value(r);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(bytes_of(*v), to_hex(bytes));
  }
}

TEST(Value, DeepValuesAreDestroyedIteratively) {
  // 100000 levels, destroyed on a 256 KiB stack: nested destructor calls would overflow it.
  value v = 1;
  for (int i = 0; i < 100000; ++i) {
    value outer = (i % 2) ? value::array() : value::map();
    if (i % 2)
      outer.push_back(std::move(v));
    else
      outer.assign(i, std::move(v));
    v = std::move(outer);
  }
  EXPECT_TRUE(v.is_map() || v.is_array());
  mpk_test::on_small_stack([&] { v = value(); });  // the old tree is destroyed here
  EXPECT_TRUE(v.is_nil());
  // Keys that are containers are taken apart too.
  value keyed = value::map();
  value deep_key = value::array();
  for (int i = 0; i < 100000; ++i) {
    value outer = value::array();
    outer.push_back(std::move(deep_key));
    deep_key = std::move(outer);
  }
  keyed.assign(std::move(deep_key), {1, 2});
  EXPECT_EQ(keyed.size(), 1u);
  mpk_test::on_small_stack([&] { keyed = value(); });
  EXPECT_TRUE(keyed.is_nil());
}

/// 100000 levels, alternating an array, a map whose *key* holds the next level, and a map
/// whose value holds it; the innermost value is `leaf`.
value deep_value(value leaf) {
  value v = std::move(leaf);
  for (int i = 0; i < 100000; ++i) {
    value outer;
    switch (i % 3) {
      case 0:
        outer = value::array({"x"});
        outer.push_back(std::move(v));
        break;
      case 1:
        outer = value::map();
        outer.assign(std::move(v), i);  // (map({{v, i}}) would copy v: lists are const)
        break;
      default:
        outer = value::map({{i, "y"}});
        outer.assign(i + 1, std::move(v));
        break;
    }
    v = std::move(outer);
  }
  return v;
}

/// The innermost value of deep_value()'s result.
value& innermost(value& v) {
  value* x = &v;
  for (;;) {
    if (auto* a = x->get_if<value::array_type>()) {
      x = &a->back();
    } else if (auto* m = x->get_if<value::map_type>()) {
      x = m->front().first.is_array() || m->front().first.is_map() ? &m->front().first
                                                                   : &m->back().second;
    } else {
      return *x;
    }
  }
}

TEST(Value, DeepValuesAreCopiedComparedAndDestroyedOnASmallStack) {
  // Built on the main thread (building moves, it does not copy); then copies, comparisons
  // and destruction on a 256 KiB stack, where a recursion per level would overflow (ASan's
  // larger frames even sooner). Debug builds take about a second per 100000-level operation
  // here, so the test does few of them.
  value deep = deep_value(1);
  mpk_test::on_small_stack([&] {
    value copy = deep;  // copy constructor
    EXPECT_TRUE(copy == deep);
    EXPECT_EQ(innermost(copy), value(1));
    innermost(copy) = 2;  // the copy is a copy: the original keeps its 1
    EXPECT_FALSE(copy == deep);
    EXPECT_EQ(innermost(deep), value(1));
    copy = deep;  // copy assignment: the old tree is destroyed, the new one copied
    EXPECT_TRUE(copy == deep);
  });  // `copy` is destroyed on the small stack too
  mpk_test::on_small_stack([&] { deep = value(); });
  EXPECT_TRUE(deep.is_nil());
}

TEST(Value, CopyAssignmentFromItsOwnParts) {
  value v = {1, {2, {3, {4}}}};
  const value& self = v;
  v = self;
  EXPECT_EQ(bytes_of(v), "92 01 92 02 92 03 91 04");
  v = *v.at(1);  // a part of itself: copied before the old tree goes
  EXPECT_EQ(bytes_of(v), "92 02 92 03 91 04");
  value m = value::map({{value{1, {2}}, {3, {4}}}});
  m = m.get_if<value::map_type>()->front().first;
  EXPECT_EQ(bytes_of(m), "92 01 91 02");
}

TEST(Value, CopiesAreDeepAndIndependent) {
  const value original = {{"a", {1, {2, 3}, value::map({{value{4}, {5, "six"}}})}}, {"b", "x"}};
  value copy = original;
  EXPECT_EQ(copy, original);
  EXPECT_EQ(bytes_of(copy), bytes_of(original));
  (*copy.if_contains("a")->at(2)->get_if<value::map_type>())[0].first = value{7};
  EXPECT_NE(copy, original);
  EXPECT_EQ((*original["a"][2].get_if<value::map_type>())[0].first, value{4});
  value target = {1, 2};
  target = original;
  EXPECT_EQ(target, original);
  // Scalars and flat containers too.
  for (const value& v : {value(), value(-5), value("s"), value::array({1, 2}), value::map({{1, 2}}),
                         value::binary(hex("01 02"))}) {
    value c = v;
    EXPECT_EQ(c, v);
  }
}

TEST(Value, DeepValuesAreWrittenAndComparedIteratively) {
  // 5000 levels: write() and == use explicit stacks.
  value v = 42;
  for (int i = 0; i < 5000; ++i) {
    value outer = value::array();
    outer.push_back(std::move(v));
    v = std::move(outer);
  }
  mpk::buffer buf;
  mpk::writer w(buf);
  mpk::write(w, v);
  ASSERT_TRUE(w.ok());
  const auto bytes = buf.bytes();
  ASSERT_EQ(bytes.size(), 5001u);
  EXPECT_EQ(bytes[0], std::byte{0x91});
  EXPECT_EQ(bytes[5000], std::byte{42});
  // Read back with the depth limit lifted: equal.
  mpk::reader r(bytes, {.limits = {.max_depth = 6000}});
  auto back = mpk::read_value(r);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, v);
  // With the default limit: a depth error, no deep recursion.
  mpk::reader r2(bytes);
  EXPECT_EQ(mpk::read_value(r2).error().code, errc::depth_exceeded);
}

TEST(Value, FromDocumentCopiesStrings) {
  auto bytes = hex("82 a1 61 c4 02 01 02 a1 62 92 d6 05 01 02 03 04 a0");
  value v;
  {
    auto doc = mpk::document::parse(std::span<const std::byte>(bytes));
    ASSERT_TRUE(doc.has_value());
    v = value(doc->root());
    EXPECT_EQ(value(doc->root()["b"]), (value{value::ext(5, hex("01 02 03 04")), ""}));
    EXPECT_TRUE(value(doc->root()["missing"]).is_nil());
  }
  std::fill(bytes.begin(), bytes.end(), std::byte{0});
  EXPECT_EQ(bytes_of(v), "82 a1 61 c4 02 01 02 a1 62 92 d6 05 01 02 03 04 a0");
}

}  // namespace
