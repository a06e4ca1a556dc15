// Tests of mpk/codec/reflect.hpp and of the error paths: plain aggregates with no
// description (exact bytes of every member family, the same bytes as MPK_MAP, round trips,
// nested and empty structs), struct_options (array mode, renames, skips), MPK_CLASS_MAP
// (private members), enums by name, std::monostate and untagged variants, and the JSON
// Pointer of a failing member at every depth.
#include <mpk/codec.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <deque>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "support/hex.hpp"

using mpk_test::hex;
using mpk_test::to_hex;

namespace shop {

enum class size_class : std::uint8_t { small, large };  // integers: the default

struct item {
  std::string name;
  double price = 0;
  int count = 0;
  friend bool operator==(const item&, const item&) = default;
};

/// A member of every family the codecs have.
struct everything {
  bool flag = false;
  std::int64_t number = 0;
  std::uint8_t small = 0;
  double real = 0;
  float single = 0;
  std::string text;
  std::string_view view;
  std::vector<std::byte> blob;
  std::vector<int> list;
  std::set<std::string> tags;
  std::map<std::string, int> counts;
  std::array<int, 2> pair_of{};
  std::tuple<int, std::string> tuple_of;
  std::optional<int> maybe;
  std::variant<int, std::string> either;
  size_class size = size_class::small;
  item nested;
  std::vector<item> items;
  mpk::timestamp when{};
  std::nullptr_t nothing = nullptr;
  friend bool operator==(const everything&, const everything&) = default;
};

/// The same members, described.
struct everything_described : everything {};
MPK_MAP(everything_described, flag, number, small, real, single, text, view, blob, list, tags,
        counts, pair_of, tuple_of, maybe, either, size, nested, items, when, nothing);

struct empty {};

struct order {
  std::string id;
  std::vector<item> items;
  std::map<std::string, item> by_code;
  std::optional<item> gift;
  std::variant<int, item> tagged;
  mpk::untagged<std::string, item> untagged;
  std::vector<std::vector<int>> grid;
  friend bool operator==(const order&, const order&) = default;
};

struct user {
  int user_id = 0;
  std::string display_name;
  int cache = 0;  // not on the wire
  friend bool operator==(const user&, const user&) = default;
};
constexpr auto mpk_options(mpk::type_tag<user>) {
  return mpk::struct_options{}.rename("display_name", "displayName").skip("cache");
}

struct point3 {
  int x = 0;
  int y = 0;
  int z = 0;
  friend bool operator==(const point3&, const point3&) = default;
};
constexpr auto mpk_options(mpk::type_tag<point3>) {
  return mpk::struct_options{.mode = mpk::struct_mode::array};
}

/// Options and a description: the description wins.
struct both {
  int a = 0;
  int b = 0;
};
constexpr auto mpk_options(mpk::type_tag<both>) {
  return mpk::struct_options{}.skip("a");
}
MPK_MAP(both, a, b);

class account {
 public:
  account() = default;
  account(std::string owner, std::int64_t cents) : owner_(std::move(owner)), cents_(cents) {}
  const std::string& owner() const { return owner_; }
  std::int64_t cents() const { return cents_; }
  MPK_CLASS_MAP(account, MPK_FIELD(owner_, "owner"), MPK_FIELD(cents_, "cents"));

 private:
  std::string owner_;
  std::int64_t cents_ = 0;
};

class vec2 {
 public:
  vec2() = default;
  vec2(int x, int y) : x_(x), y_(y) {}
  friend bool operator==(const vec2&, const vec2&) = default;

 private:
  MPK_CLASS_ARRAY(vec2, x_, y_);
  int x_ = 0;
  int y_ = 0;
};

enum class color { red, green, dark_blue = 7, infrared = 300 };
constexpr auto mpk_options(mpk::type_tag<color>) {
  return mpk::enum_names{};
}

enum class status : std::int16_t { failed = -2, ok = 1000 };
constexpr auto mpk_options(mpk::type_tag<status>) {
  return mpk::enum_names{.min = -2, .max = 1000};
}

/// A recursive type.
struct node {
  std::map<std::string, node> children;
  int leaf = 0;
};

struct painted {
  color c = color::red;
  std::vector<color> palette;
  friend bool operator==(const painted&, const painted&) = default;
};

}  // namespace shop

namespace {

template <class T>
std::string packed_hex(const T& v) {
  auto b = mpk::pack(v);
  EXPECT_TRUE(b) << b.error().to_string();
  return b ? to_hex(b->bytes()) : std::string();
}

template <class T>
T round_trip(const T& v) {
  // The packed bytes outlive the call: a decoded std::string_view member points into them.
  static std::deque<mpk::buffer> kept;
  auto b = mpk::pack(v);
  EXPECT_TRUE(b);
  if (!b) return T{};
  kept.push_back(std::move(*b));
  auto back = mpk::unpack<T>(kept.back().bytes());
  EXPECT_TRUE(back) << back.error().to_string();
  return back ? *back : T{};
}

shop::everything filled() {
  shop::everything e;
  e.flag = true;
  e.number = -70000;
  e.small = 200;
  e.real = 1.5;
  e.single = 0.5f;
  e.text = "héllo";
  e.view = "v";
  e.blob = {std::byte{1}, std::byte{2}};
  e.list = {1, -1};
  e.tags = {"b", "a"};
  e.counts = {{"k", 3}};
  e.pair_of = {4, 5};
  e.tuple_of = {6, "t"};
  e.maybe = 9;
  e.either = std::string("s");
  e.size = shop::size_class::large;
  e.nested = {"n", 2.5, 1};
  e.items = {{"i", 0.25, 2}};
  e.when = {1, 0};
  return e;
}

}  // namespace

TEST(Reflect, MemberCountAndNames) {
  using F = mpk::detail::reflected_fields<shop::everything>;
  static_assert(F::count == 20);
  static_assert(F::names[0] == "flag" && F::names[5] == "text" && F::names[19] == "nothing");
  static_assert(mpk::detail::reflected_fields<shop::empty>::count == 0);
  static_assert(mpk::detail::reflected_fields<shop::user>::count == 2);
  EXPECT_EQ(F::names[16], "nested");
}

TEST(Reflect, ExactBytesOfEveryFamily) {
  shop::item it{"ab", 0.5, 3};
  EXPECT_EQ(packed_hex(it),
            "83 a4 6e 61 6d 65 a2 61 62 a5 70 72 69 63 65 cb 3f e0 00 00 00 00 00 00 a5 63 6f 75 "
            "6e 74 03");
  const shop::everything e = filled();
  const std::string got = packed_hex(e);
  // header (de 00 14: 20 entries), then the first member and the last two
  EXPECT_EQ(got.substr(0, 23), "de 00 14 a4 66 6c 61 67");
  EXPECT_NE(got.find("a4 77 68 65 6e d6 ff 00 00 00 01"), std::string::npos);  // when: ts32
  EXPECT_EQ(got.substr(got.size() - 26), "a7 6e 6f 74 68 69 6e 67 c0");
  // identical to MPK_MAP of the same members, member for member
  shop::everything_described d;
  static_cast<shop::everything&>(d) = e;
  EXPECT_EQ(got, packed_hex(d));
}

TEST(Reflect, RoundTrips) {
  const shop::everything e = filled();
  EXPECT_EQ(round_trip(e), e);
  EXPECT_EQ(packed_hex(shop::empty{}), "80");
  auto back = mpk::unpack<shop::empty>(hex("81 a1 61 01"));  // unknown keys are skipped
  EXPECT_TRUE(back);
  shop::order o{"o1",
                {{"a", 1, 1}, {"b", 2, 2}},
                {{"x", {"c", 3, 3}}},
                shop::item{"g", 0, 1},
                shop::item{"t", 1, 1},
                std::string("u"),
                {{1}, {2, 3}}};
  EXPECT_EQ(round_trip(o), o);
  o.untagged = shop::item{"u", 4, 4};
  EXPECT_EQ(round_trip(o), o);
}

TEST(Reflect, OptionsRenameSkipArrayAndPrecedence) {
  EXPECT_EQ(packed_hex(shop::user{7, "Al", 99}),
            "82 a7 75 73 65 72 5f 69 64 07 ab 64 69 73 70 6c 61 79 4e 61 6d 65 a2 41 6c");
  auto u = mpk::unpack<shop::user>(
      hex("83 a7 75 73 65 72 5f 69 64 07 ab 64 69 73 70 6c 61 79 4e 61 6d 65 a2 41 6c a5 63 61 "
          "63 68 65 05"));
  ASSERT_TRUE(u);
  EXPECT_EQ(*u, (shop::user{7, "Al", 0}));  // "cache" is not a field: skipped, keeps its value
  EXPECT_EQ(packed_hex(shop::point3{1, 2, 3}), "93 01 02 03");
  EXPECT_EQ(round_trip(shop::point3{1, 2, 3}), (shop::point3{1, 2, 3}));
  EXPECT_EQ(packed_hex(shop::both{1, 2}), "82 a1 61 01 a1 62 02");  // MPK_MAP wins
}

TEST(Reflect, PrivateMembersDescribedInTheClass) {
  EXPECT_EQ(packed_hex(shop::account{"o", 5}), "82 a5 6f 77 6e 65 72 a1 6f a5 63 65 6e 74 73 05");
  auto a = mpk::unpack<shop::account>(hex("82 a5 63 65 6e 74 73 06 a5 6f 77 6e 65 72 a1 70"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->owner(), "p");
  EXPECT_EQ(a->cents(), 6);
  EXPECT_EQ(packed_hex(shop::vec2{1, 2}), "92 01 02");
  EXPECT_EQ(round_trip(shop::vec2{3, 4}), (shop::vec2{3, 4}));
}

TEST(Reflect, EnumsByName) {
  static_assert(mpk::detail::reflected_enumerators<shop::color>::entries.size() == 3);
  EXPECT_EQ(packed_hex(shop::color::green), "a5 67 72 65 65 6e");
  EXPECT_EQ(packed_hex(shop::color::dark_blue), "a9 64 61 72 6b 5f 62 6c 75 65");
  EXPECT_EQ(packed_hex(shop::color::infrared), "cd 01 2c");  // outside -128..127: integer
  EXPECT_EQ(packed_hex(static_cast<shop::color>(5)), "05");  // no enumerator: integer
  EXPECT_EQ(packed_hex(shop::status::failed), "a6 66 61 69 6c 65 64");
  EXPECT_EQ(packed_hex(shop::status::ok), "a2 6f 6b");
  EXPECT_EQ(packed_hex(shop::size_class::large), "01");  // not opted in
  const shop::painted p{shop::color::green, {shop::color::red, shop::color::dark_blue}};
  EXPECT_EQ(round_trip(p), p);
  auto bad = mpk::unpack<shop::color>(hex("a4 62 6c 75 65"));
  EXPECT_EQ(bad.error(), (mpk::error{mpk::errc::out_of_range, 0}));
  auto from_int = mpk::unpack<shop::color>(hex("07"));
  ASSERT_TRUE(from_int);
  EXPECT_EQ(*from_int, shop::color::dark_blue);
}

TEST(Reflect, VariantsTaggedUntaggedAndMonostate) {
  EXPECT_EQ(packed_hex(std::monostate{}), "c0");
  using tagged = std::variant<std::monostate, int, std::string>;
  EXPECT_EQ(packed_hex(tagged{}), "92 00 c0");
  EXPECT_EQ(round_trip(tagged{std::string("x")}), tagged{std::string("x")});
  using loose = mpk::untagged<std::monostate, std::int64_t, std::string, double, shop::item,
                              std::vector<int>>;
  EXPECT_EQ(packed_hex(loose{}), "c0");
  EXPECT_EQ(packed_hex(loose{std::int64_t{5}}), "05");
  EXPECT_EQ(packed_hex(loose{std::string("ab")}), "a2 61 62");
  EXPECT_EQ(packed_hex(loose{std::vector<int>{1}}), "91 01");
  for (const loose& v : {loose{}, loose{std::int64_t{-3}}, loose{std::string("s")}, loose{2.5},
                         loose{shop::item{"i", 1, 2}}, loose{std::vector<int>{1, 2}}})
    EXPECT_EQ(round_trip(v), v);
  // read by wire type: float32 to the double alternative; a bin is no alternative's
  auto f = mpk::unpack<loose>(hex("ca 3f c0 00 00"));
  ASSERT_TRUE(f);
  EXPECT_EQ(std::get<double>(*f), 1.5);
  auto b = mpk::unpack<loose>(hex("c4 01 00"));
  EXPECT_EQ(b.error(), (mpk::error{mpk::errc::type_mismatch, 0}));
  // an integer with no integer alternative goes to the float one (what JavaScript writes)
  auto n = mpk::unpack<mpk::untagged<std::string, double>>(hex("05"));
  ASSERT_TRUE(n);
  EXPECT_EQ(std::get<double>(*n), 5.0);
}

// --- error paths --------------------------------------------------------------------------

namespace {
template <class T>
mpk::error unpack_error(std::string_view hex_text) {
  auto r = mpk::unpack<T>(hex(hex_text));
  EXPECT_FALSE(r);
  return r.error();
}
}  // namespace

TEST(ErrorPath, MapMemberArrayElementMapValue) {
  // {"id": "o", "items": [{"name": "a", "price": "x"}]}: price is a str
  const mpk::error e = unpack_error<shop::order>(
      "82 a2 69 64 a1 6f a5 69 74 65 6d 73 91 82 a4 6e 61 6d 65 a1 61 a5 70 72 69 63 65 a1 78");
  EXPECT_EQ(e.code, mpk::errc::type_mismatch);
  EXPECT_EQ(e.offset, 27u);
  EXPECT_EQ(e.path(), "/items/0/price");
  EXPECT_EQ(e.to_string(), "offset 27 at /items/0/price: expected float64, got str");
  // the third element of a list: /items/2/count
  const mpk::error third =
      unpack_error<shop::order>("81 a5 69 74 65 6d 73 93 80 80 81 a5 63 6f 75 6e 74 c3");
  EXPECT_EQ(third.path(), "/items/2/count");
  EXPECT_EQ(third.to_string(), "offset 17 at /items/2/count: expected int, got bool");
  // a map value, keyed by the map's key (escaped as JSON Pointer says)
  const mpk::error value = unpack_error<shop::order>(
      "81 a7 62 79 5f 63 6f 64 65 81 a3 61 2f 7e 81 a5 63 6f 75 6e 74 a0");
  EXPECT_EQ(value.path(), "/by_code/a~1~0/count");
  // nested lists
  const mpk::error grid = unpack_error<shop::order>("81 a4 67 72 69 64 92 91 01 92 02 a0");
  EXPECT_EQ(grid.path(), "/grid/1/1");
}

TEST(ErrorPath, OptionalVariantArrayModeAndTopLevel) {
  // an optional is its value's path
  EXPECT_EQ(unpack_error<shop::order>("81 a4 67 69 66 74 81 a5 63 6f 75 6e 74 a0").path(),
            "/gift/count");
  // a tagged variant: [index, value], the value is element 1
  EXPECT_EQ(
      unpack_error<shop::order>("81 a6 74 61 67 67 65 64 92 01 81 a5 63 6f 75 6e 74 a0").path(),
      "/tagged/1/count");
  EXPECT_EQ(unpack_error<shop::order>("81 a6 74 61 67 67 65 64 92 05 00").path(), "/tagged/0");
  // an untagged variant: the value itself
  const mpk::error u =
      unpack_error<shop::order>("81 a8 75 6e 74 61 67 67 65 64 81 a5 63 6f 75 6e 74 a0");
  EXPECT_EQ(u.path(), "/untagged/count");
  EXPECT_EQ(unpack_error<shop::order>("81 a8 75 6e 74 61 67 67 65 64 05").path(), "/untagged");
  // array-mode structs and renamed keys
  EXPECT_EQ(unpack_error<std::vector<shop::point3>>("92 93 01 02 03 93 01 a0 03").path(), "/1/1");
  EXPECT_EQ(unpack_error<shop::user>("81 ab 64 69 73 70 6c 61 79 4e 61 6d 65 01").path(),
            "/displayName");
  // the top-level value: no path, the types still said
  const mpk::error top = unpack_error<shop::item>("a1 78");
  EXPECT_EQ(top.path(), "");
  EXPECT_EQ(top.to_string(), "offset 0: expected map, got str");
  // errors other than a type mismatch keep their message
  EXPECT_EQ(unpack_error<shop::order>(
                "81 a5 69 74 65 6d 73 91 81 a5 63 6f 75 6e 74 cf ff ff ff ff ff ff ff ff")
                .to_string(),
            "offset 15 at /items/0/count: value out of range for the target type");
  EXPECT_EQ(
      unpack_error<shop::order>("81 a5 69 74 65 6d 73 91 81 a5 63 6f 75 6e 74 d0").to_string(),
      "offset 15 at /items/0/count: input ends inside a value");
  // equality is code and offset; unpack(reader&) reports the path too
  EXPECT_EQ(top, (mpk::error{mpk::errc::type_mismatch, 0}));
  const auto bytes = hex("81 a5 69 74 65 6d 73 91 81 a5 63 6f 75 6e 74 a0");
  mpk::reader r(bytes);
  shop::order o;
  const mpk::error via_reader = mpk::unpack(r, o).error();
  EXPECT_EQ(via_reader.to_string(), "offset 15 at /items/0/count: expected int");
}

TEST(ErrorPath, DeepPathsAreCutAtTheOutside) {
  // 200 nested lists whose innermost element is a str: the path keeps its innermost part
  using deep = std::vector<std::vector<std::vector<std::vector<std::vector<int>>>>>;
  const mpk::error e = unpack_error<deep>("91 91 91 91 91 a0");
  EXPECT_EQ(e.path(), "/0/0/0/0/0");
  std::vector<std::byte> input;
  std::string k(40, 'k');
  for (int i = 0; i < 10; ++i) {
    const auto head = hex("81 a8 63 68 69 6c 64 72 65 6e 81 d9 28");
    input.insert(input.end(), head.begin(), head.end());
    for (char c : k)
      input.push_back(static_cast<std::byte>(c));
  }
  const auto tail = hex("81 a4 6c 65 61 66 a0");
  input.insert(input.end(), tail.begin(), tail.end());
  auto r = mpk::unpack<shop::node>(input);
  ASSERT_FALSE(r);
  const std::string_view path = r.error().path();
  EXPECT_EQ(path.substr(0, 4), "/...");
  EXPECT_EQ(path.substr(path.size() - 5), "/leaf");
  EXPECT_LE(path.size(), 260u);
}
