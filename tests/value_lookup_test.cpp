// Tests that the two ways to read a dynamic message, a document's mpk::element and an owned
// mpk::value (through mpk::value_view), are the same to a reader: one table of lookups
// (keys, indices, misses, chains) and coercions (as<T>() for every integer width, float,
// double, bool, nil, str, bin, ext) is run against both, and each row must give the stated
// result on both.
#include <mpk/value.hpp>

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "support/hex.hpp"

namespace {

using mpk::errc;
using mpk::value;

// --- the message both are built from ------------------------------------------------------

/// Every number family at the edges of the integer widths and of float's range, each scalar
/// family, nested containers, and a duplicate key. Integers are written in their smallest
/// form, so a document reports the same family (uint for >= 0, sint below) as a value.
value message() {
  value::map_type m = {
      {"u8", 200},
      {"u16", 60000},
      {"u32", 4000000000u},
      {"u64", std::numeric_limits<std::uint64_t>::max()},
      {"zero", 0},
      {"neg1", -1},
      {"i8min", -128},
      {"i16min", -32768},
      {"i32min", std::numeric_limits<std::int32_t>::min()},
      {"i64min", std::numeric_limits<std::int64_t>::min()},
      {"i64max", std::numeric_limits<std::int64_t>::max()},
      {"p24", 16777217},          // 2^24 + 1: not exact in float
      {"p53", 9007199254740993},  // 2^53 + 1: not exact in double
      {"f32", 1.5f},
      {"f64", 2.5},
      {"big", 1e300},  // beyond float's range
      {"inf", std::numeric_limits<double>::infinity()},
      {"t", true},
      {"nil", nullptr},
      {"s", "abc"},
      {"bad", std::string("\xff", 1)},  // not UTF-8
      {"bin", value::binary(mpk_test::hex("01 02"))},
      {"ext", value::ext(5, mpk_test::hex("0a"))},
      {"arr", {10, "x", {20, 21}}},
      {"map", {{"k", {{"deep", 7}}}, {"j", "jj"}}},
      {"dup", 1},
      {"dup", 2},  // the last of duplicate keys wins
  };
  return value(std::move(m));
}

// --- reading, the same code for both ------------------------------------------------------

/// Follows `path` from `root`: segments separated by '/', "[n]" an index, anything else a
/// str key; the empty path is the root.
template <class Node>
Node follow(Node root, std::string_view path) {
  Node x = root;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view seg = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    if (seg.size() > 2 && seg.front() == '[' && seg.back() == ']') {
      std::size_t i = 0;
      std::from_chars(seg.data() + 1, seg.data() + seg.size() - 1, i);
      x = x[i];
    } else {
      x = x[seg];
    }
  }
  return x;
}

std::string errc_name(errc c) {
  switch (c) {
    case errc::type_mismatch:
      return "type_mismatch";
    case errc::out_of_range:
      return "out_of_range";
    case errc::missing_key:
      return "missing_key";
    case errc::invalid_utf8:
      return "invalid_utf8";
    default:
      return "errc " + std::to_string(static_cast<int>(c));
  }
}

template <class T>
std::string text(const T& x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? "true" : "false";
  } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
    return "nil";
  } else if constexpr (std::is_floating_point_v<T>) {
    // Whole numbers in full ("-9223372036854775808", not "-9.223372036854776e+18"), so that
    // the table states them exactly; others in the shortest form that reads back.
    if (std::isfinite(x) && x == std::trunc(x) && x >= -0x1p63 && x < 0x1p64)
      return x < 0 ? std::to_string(static_cast<long long>(x))
                   : std::to_string(static_cast<unsigned long long>(x));
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(x);
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
    return '"' + std::string(x) + '"';
  } else if constexpr (std::is_same_v<T, std::span<const std::byte>>) {
    return "bin " + mpk_test::to_hex(x);
  } else {  // mpk::ext_view
    return "ext " + std::to_string(x.type) + " " + mpk_test::to_hex(x.data);
  }
}

template <class T, class Node>
std::string coerce(const Node& x) {
  const mpk::result<T> r = x.template as<T>();
  if (!r) return errc_name(r.error().code);
  return text(*r);
}

/// What `probe` says of `x`: "exists", "type", "size", "items" (what a range-for over it
/// yields, counted), "keys" (the str keys of its entries, in order), or "as:T" for a coercion.
template <class Node>
std::string probe(const Node& x, std::string_view what) {
  if (what == "exists") return x.exists() ? "1" : "0";
  if (what == "type") return std::string(mpk::type_name(x.type()));
  if (what == "size") return std::to_string(x.size());
  if (what == "is") {
    std::string s;
    s += x.is_nil() ? 'n' : '-';
    s += x.is_integer() ? 'i' : '-';
    s += x.is_str() ? 's' : '-';
    s += x.is_array() ? 'a' : '-';
    s += x.is_map() ? 'm' : '-';
    s += static_cast<bool>(x) ? 'e' : '-';
    return s;
  }
  if (what == "items") {
    std::size_t n = 0;
    for (auto item : x)
      n += item.exists() ? 1 : 0;
    return std::to_string(n);
  }
  if (what == "keys") {
    std::string s;
    for (auto [k, v] : x.entries()) {
      if (!s.empty()) s += ',';
      s += std::string(k.template as<std::string_view>().value_or("?"));
      if (!v.exists()) s += "(absent)";
    }
    return s;
  }
  if (what == "i8") return coerce<std::int8_t>(x);
  if (what == "u8") return coerce<std::uint8_t>(x);
  if (what == "i16") return coerce<std::int16_t>(x);
  if (what == "u16") return coerce<std::uint16_t>(x);
  if (what == "i32") return coerce<std::int32_t>(x);
  if (what == "u32") return coerce<std::uint32_t>(x);
  if (what == "i64") return coerce<std::int64_t>(x);
  if (what == "u64") return coerce<std::uint64_t>(x);
  if (what == "f32") return coerce<float>(x);
  if (what == "f64") return coerce<double>(x);
  if (what == "bool") return coerce<bool>(x);
  if (what == "nil") return coerce<std::nullptr_t>(x);
  if (what == "sv") return coerce<std::string_view>(x);
  if (what == "str") return coerce<std::string>(x);
  if (what == "bin") return coerce<std::span<const std::byte>>(x);
  if (what == "ext") return coerce<mpk::ext_view>(x);
  return "unknown probe";
}

// --- the table ------------------------------------------------------------------------------

/// A path, then what each probe gives there ("probe=result", separated by spaces).
struct row {
  std::string_view path;
  std::string_view expect;
};

// Shorthands for the coercions a family refuses.
#define MPK_NOT_NUMBER                                                                       \
  "i8=type_mismatch u8=type_mismatch i16=type_mismatch u16=type_mismatch i32=type_mismatch " \
  "u32=type_mismatch i64=type_mismatch u64=type_mismatch f32=type_mismatch f64=type_mismatch"
#define MPK_NOT_SCALAR                                                                         \
  "bool=type_mismatch nil=type_mismatch sv=type_mismatch str=type_mismatch bin=type_mismatch " \
  "ext=type_mismatch"
#define MPK_MISSING                                                                      \
  "exists=0 type=invalid size=0 is=------ items=0 keys= i8=missing_key u64=missing_key " \
  "f64=missing_key bool=missing_key nil=missing_key sv=missing_key str=missing_key "     \
  "bin=missing_key ext=missing_key"

constexpr row table[] = {
    // Integers: every width, both signs, the edges; into floats only when exact.
    {"u8",
     "exists=1 type=uint size=0 is=-i---e i8=out_of_range u8=200 i16=200 u16=200 i32=200 "
     "u32=200 i64=200 u64=200 f32=200 f64=200 " MPK_NOT_SCALAR},
    {"u16",
     "type=uint i8=out_of_range u8=out_of_range i16=out_of_range u16=60000 i32=60000 "
     "u32=60000 i64=60000 u64=60000 f32=60000 f64=60000 bool=type_mismatch"},
    {"u32",
     "type=uint i16=out_of_range u16=out_of_range i32=out_of_range u32=4000000000 "
     "i64=4000000000 u64=4000000000 f32=4000000000 f64=4000000000"},
    {"u64",
     "type=uint i32=out_of_range u32=out_of_range i64=out_of_range u64=18446744073709551615 "
     "f32=out_of_range f64=out_of_range"},
    {"zero", "type=uint i8=0 u8=0 u64=0 f32=0 f64=0 bool=type_mismatch nil=type_mismatch"},
    {"neg1",
     "type=sint is=-i---e i8=-1 u8=out_of_range i16=-1 u16=out_of_range i32=-1 "
     "u32=out_of_range i64=-1 u64=out_of_range f32=-1 f64=-1 " MPK_NOT_SCALAR},
    {"i8min", "type=sint i8=-128 u8=out_of_range i16=-128 i64=-128 f32=-128"},
    {"i16min", "i8=out_of_range i16=-32768 u16=out_of_range i32=-32768 f64=-32768"},
    {"i32min", "i16=out_of_range i32=-2147483648 u32=out_of_range i64=-2147483648 f32=-2147483648"},
    {"i64min",
     "type=sint i32=out_of_range i64=-9223372036854775808 u64=out_of_range "
     "f32=-9223372036854775808 f64=-9223372036854775808"},
    {"i64max",
     "type=uint i64=9223372036854775807 u64=9223372036854775807 f32=out_of_range "
     "f64=out_of_range"},
    {"p24", "i32=16777217 f32=out_of_range f64=16777217"},
    {"p53", "i64=9007199254740993 f32=out_of_range f64=out_of_range"},
    // Floats: never into integers; float64 into float only within float's range.
    {"f32", "type=float32 size=0 is=-----e f32=1.5 f64=1.5 " MPK_NOT_SCALAR
            " i8=type_mismatch i64=type_mismatch u64=type_mismatch"},
    {"f64", "type=float64 f32=2.5 f64=2.5 i32=type_mismatch u8=type_mismatch bool=type_mismatch"},
    {"big", "f32=out_of_range f64=1e+300"},
    {"inf", "f32=inf f64=inf"},
    // The other scalars.
    {"t", "type=boolean is=-----e bool=true nil=type_mismatch sv=type_mismatch " MPK_NOT_NUMBER},
    {"nil", "type=nil is=n----e nil=nil bool=type_mismatch str=type_mismatch " MPK_NOT_NUMBER},
    {"s",
     "type=str size=0 is=--s--e items=0 keys= sv=\"abc\" str=\"abc\" bin=type_mismatch "
     "ext=type_mismatch bool=type_mismatch nil=type_mismatch " MPK_NOT_NUMBER},
    {"bad", "type=str sv=\"\xff\" str=invalid_utf8"},
    {"bin", "type=bin size=0 bin=bin 01 02 sv=type_mismatch str=type_mismatch ext=type_mismatch"},
    {"ext", "type=ext size=0 ext=ext 5 0a bin=type_mismatch sv=type_mismatch " MPK_NOT_NUMBER},
    // Containers: sizes, iteration, no coercion.
    {"arr",
     "exists=1 type=array size=3 is=---a-e items=3 keys= " MPK_NOT_NUMBER " " MPK_NOT_SCALAR},
    {"arr/[0]", "type=uint u8=10 f64=10"},
    {"arr/[1]", "sv=\"x\""},
    {"arr/[2]", "type=array size=2 items=2"},
    {"arr/[2]/[1]", "i64=21"},
    {"map", "type=map size=2 is=----me items=0 keys=k,j " MPK_NOT_NUMBER " " MPK_NOT_SCALAR},
    {"map/k/deep", "exists=1 type=uint i8=7 u64=7"},
    {"map/j", "str=\"jj\""},
    {"", "type=map size=27 is=----me"},
    // The last of duplicate keys wins.
    {"dup", "exists=1 i64=2"},
    // Misses: a missing key, an index past the end, a key on an array, an index on a map,
    // a lookup on a scalar; and chains through any of them stay missing.
    {"nope", MPK_MISSING},
    {"nope/deeper/[3]", MPK_MISSING},
    {"arr/[3]", MPK_MISSING},
    {"arr/[3]/x", MPK_MISSING},
    {"arr/k", MPK_MISSING},
    {"map/[0]", MPK_MISSING},
    {"map/k/deep/deeper", MPK_MISSING},
    {"s/[0]", MPK_MISSING},
    {"u8/x", MPK_MISSING},
    {"nil/x", MPK_MISSING},
    {"map/K", MPK_MISSING},  // keys are compared by bytes
};

#undef MPK_NOT_NUMBER
#undef MPK_NOT_SCALAR
#undef MPK_MISSING

// --- the two readers ------------------------------------------------------------------------

/// A document's root: the message written, then parsed.
struct document_reader {
  using node = mpk::element;
  mpk::buffer bytes;
  mpk::document doc;
  document_reader() {
    mpk::writer w(bytes);
    mpk::write(w, message());
    EXPECT_TRUE(w.ok());
    auto d = mpk::document::parse(bytes.bytes());
    EXPECT_TRUE(d.has_value());
    if (d) doc = std::move(*d);
  }
  node root() const { return doc.root(); }
};

/// An owned value's root (a view of it, as value::operator[] returns).
struct value_reader {
  using node = mpk::value_view;
  value v = message();
  node root() const { return mpk::value_view(v); }
};

template <class Reader>
class ValueLookup : public ::testing::Test {};

using readers = ::testing::Types<document_reader, value_reader>;
class reader_names {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, document_reader> ? "element" : "value";
  }
};
TYPED_TEST_SUITE(ValueLookup, readers, reader_names);

TYPED_TEST(ValueLookup, TheTable) {
  const TypeParam reader;
  std::size_t probes = 0;
  for (const row& r : table) {
    const auto x = follow(reader.root(), r.path);
    std::string_view rest = r.expect;
    while (!rest.empty()) {
      // "probe=result" up to the next " probe=" (results may hold spaces: "bin 01 02").
      const std::size_t eq = rest.find('=');
      ASSERT_NE(eq, std::string_view::npos) << r.path;
      const std::string_view what = rest.substr(0, eq);
      rest = rest.substr(eq + 1);
      std::size_t end = 0;
      for (;;) {
        end = rest.find(' ', end);
        if (end == std::string_view::npos) break;
        const std::size_t next_eq = rest.find('=', end);
        const std::size_t next_space = rest.find(' ', end + 1);
        if (next_eq != std::string_view::npos && next_eq < next_space) break;
        ++end;
      }
      const std::string_view want = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
      EXPECT_EQ(probe(x, what), want) << "path \"" << r.path << "\", probe " << what;
      ++probes;
    }
  }
  EXPECT_GT(probes, 400u);  // the table was read whole (44 rows, 400-odd probes)
}

// A view is made from a value that outlives it, explicitly; never from a temporary.
static_assert(std::is_constructible_v<mpk::value_view, const value&>);
static_assert(!std::is_convertible_v<const value&, mpk::value_view>);
static_assert(!std::is_constructible_v<mpk::value_view, value>);
static_assert(!std::is_constructible_v<mpk::value_view, const value&&>);
static_assert(sizeof(mpk::value_view) == sizeof(void*));
// `v["key"] = 1` does not compile (it would assign to a view, not to the value).
static_assert(!std::is_assignable_v<mpk::value_view, int>);
static_assert(!std::is_assignable_v<mpk::value_view, value>);

// Both give the same missing result from a value itself (not only from a view of it).
TEST(ValueLookupValue, LookupsOnTheValueItself) {
  const value v = message();
  EXPECT_EQ(v["map"]["k"]["deep"].as<int>().value(), 7);
  EXPECT_EQ(v.as<int>().error().code, errc::type_mismatch);
  EXPECT_EQ(v["nope"]["x"].as<int>().error().code, errc::missing_key);
  EXPECT_EQ(v[0].type(), mpk::type::invalid);  // an index on a map
  EXPECT_EQ(value(5).as<std::uint8_t>().value(), 5u);
  EXPECT_EQ(value(300).as<std::uint8_t>().error().code, errc::out_of_range);
  std::size_t n = 0;
  for (mpk::value_view item : v["arr"])
    n += item.exists() ? 1 : 0;
  EXPECT_EQ(n, 3u);
}

}  // namespace
