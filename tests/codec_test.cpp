// Tests of mpk/codec.hpp: exact bytes of every built-in mapping, MPK_MAP / MPK_ARRAY /
// MPK_FIELD / MPK_ENUM, round trips of nested structs holding every built-in type,
// versioning (added, removed, renamed fields, shorter and longer arrays), strict mode,
// duplicate keys, depth limits on recursive types, hand-written codecs, and no allocation
// when decoding a struct of scalars.
#include <mpk/codec.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <limits>
#include <list>
#include <map>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "support/hex.hpp"

// --- counting allocator: every operator new of this program is counted --------------------

namespace {
std::atomic<std::size_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

using mpk_test::hex;
using mpk_test::to_hex;

// --- described types, at namespace scope as the macros require ---------------------------

namespace shapes {
struct point {
  int x = 0;
  int y = 0;
  friend bool operator==(const point&, const point&) = default;
};
MPK_MAP(point, x, y);

struct pair_xy {
  int x = 0;
  int y = 0;
};
MPK_ARRAY(pair_xy, x, y);

struct renamed {
  int user_id = 0;
  std::string display_name;
};
MPK_MAP(renamed, MPK_FIELD(user_id, "id"), MPK_FIELD(display_name, "displayName"));

struct empty_map {};
MPK_MAP(empty_map);

enum class color : std::uint8_t { red, green, dark_blue };
MPK_ENUM(color, red, green, MPK_FIELD(dark_blue, "dark-blue"));

enum class level : std::int16_t { low = -300, high = 300 };  // no names: an integer
}  // namespace shapes

namespace versions {
// Version 1 and version 2 of the same message: v2 added `email`, removed `age`.
struct user_v1 {
  std::int64_t id = 0;
  std::string name;
  int age = 0;
};
MPK_MAP(user_v1, id, name, age);

struct user_v2 {
  std::int64_t id = 0;
  std::string name;
  std::string email = "none";
};
MPK_MAP(user_v2, id, name, email);

// v3 renamed `name` on the wire to "full_name".
struct user_v3 {
  std::int64_t id = 0;
  std::string name = "unset";
};
MPK_MAP(user_v3, id, MPK_FIELD(name, "full_name"));

struct row_v1 {
  int a = 0;
  int b = 0;
};
MPK_ARRAY(row_v1, a, b);

struct row_v2 {
  int a = 0;
  int b = 0;
  int c = 7;
};
MPK_ARRAY(row_v2, a, b, c);
}  // namespace versions

// Every built-in mapping in one nested struct.
struct inner {
  std::string tag;
  std::optional<int> maybe;
  friend bool operator==(const inner&, const inner&) = default;
};
MPK_ARRAY(inner, tag, maybe);

struct everything {
  bool b = false;
  std::int8_t i8 = 0;
  std::uint8_t u8 = 0;
  std::int16_t i16 = 0;
  std::uint16_t u16 = 0;
  std::int32_t i32 = 0;
  std::uint32_t u32 = 0;
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  float f32 = 0;
  double f64 = 0;
  std::string str;
  std::vector<int> vec;
  std::array<double, 3> arr{};
  std::deque<std::string> deq;
  std::list<std::int64_t> lst;
  std::set<std::string> set;
  std::unordered_set<int> uset;
  std::map<std::string, int> map;
  std::unordered_map<int, std::string> umap;
  std::pair<int, std::string> pair;
  std::tuple<bool, double, std::string> tuple;
  std::optional<std::string> opt_set;
  std::optional<std::string> opt_empty;
  std::variant<int, std::string, inner> var;
  std::vector<std::byte> bin;
  std::array<std::byte, 4> fixed_bin{};
  shapes::color color = shapes::color::red;
  shapes::level level = shapes::level::low;
  inner nested;
  std::vector<inner> nested_list;
  std::map<std::string, std::vector<std::optional<int>>> deep;
  std::vector<bool> bits;
  std::u16string utf16;
  mpk::timestamp ts;
  std::chrono::system_clock::time_point when;
  mpk::value any;
  friend bool operator==(const everything&, const everything&) = default;
};
MPK_MAP(everything, b, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, str, vec, arr, deq, lst, set,
        uset, map, umap, pair, tuple, opt_set, opt_empty, var, bin, fixed_bin, color, level, nested,
        nested_list, deep, bits, utf16, ts, when, any);

// A recursive type: its depth comes from the input, so the depth counter bounds it.
struct node {
  int value = 0;
  std::vector<node> children;
};
MPK_ARRAY(node, value, children);

// W3's flat map: keys k00..k15; value j is an integer, a float64, a string or a boolean.
struct flat16 {
  std::int64_t k00 = 0;
  double k01 = 0;
  std::string k02;
  bool k03 = false;
  std::int64_t k04 = 0;
  double k05 = 0;
  std::string k06;
  bool k07 = false;
  std::int64_t k08 = 0;
  double k09 = 0;
  std::string k10;
  bool k11 = false;
  std::int64_t k12 = 0;
  double k13 = 0;
  std::string k14;
  bool k15 = false;
};
MPK_MAP(flat16, k00, k01, k02, k03, k04, k05, k06, k07, k08, k09, k10, k11, k12, k13, k14, k15);

struct scalars {
  std::int64_t a = 0;
  double b = 0;
  bool c = false;
  std::uint16_t d = 0;
  std::string_view e;  // zero-copy: no allocation either
};
MPK_MAP(scalars, a, b, c, d, e);

struct long_key {
  int v = 0;
};
// A 40-byte key: str8 in the current spec, str16 for an old-spec writer.
MPK_MAP(long_key, MPK_FIELD(v, "a_key_that_is_forty_bytes_long_xxxxxxxxx"));

// A hand-written codec: a 2D vector packed as one int64 pair in a bin of 16 bytes... kept
// simple here: written as the string "x,y", read back by parsing it.
struct handmade {
  int x = 0;
  int y = 0;
};
template <>
struct mpk::codec<handmade> {
  template <class S>
  static void write(mpk::writer<S>& w, const handmade& v) {
    const std::string s = std::to_string(v.x) + "," + std::to_string(v.y);
    w.write_str(s);
  }
  static void read(mpk::reader& r, handmade& out, mpk::read_context& ctx) {
    const std::size_t at = r.position();
    const std::string_view s = r.read_string_view();
    if (!r.ok()) return;
    const auto comma = s.find(',');
    if (comma == std::string_view::npos) return ctx.fail(r, mpk::errc::type_mismatch, at);
    out.x = std::stoi(std::string(s.substr(0, comma)));
    out.y = std::stoi(std::string(s.substr(comma + 1)));
  }
};

// A hand-written codec with the two-argument read.
struct celsius {
  double degrees = 0;
};
template <>
struct mpk::codec<celsius> {
  template <class S>
  static void write(mpk::writer<S>& w, const celsius& v) {
    w.write(v.degrees);
  }
  static void read(mpk::reader& r, celsius& out) { out.degrees = r.read<double>(); }
};

struct with_custom {
  handmade h;
  celsius t;
};
MPK_MAP(with_custom, h, t);

namespace {

template <class T>
std::string packed_hex(const T& v, mpk::writer_options options = {}) {
  auto b = mpk::pack(v, options);
  EXPECT_TRUE(b.has_value()) << b.error().to_string();
  return b ? to_hex(b->bytes()) : std::string("<error>");
}

template <class T>
T from_hex(std::string_view text, const mpk::read_options& options = {}) {
  const auto bytes = hex(text);
  auto r = mpk::unpack<T>(bytes, options);
  EXPECT_TRUE(r.has_value()) << r.error().to_string() << " for " << text;
  return r ? *r : T{};
}

template <class T>
mpk::error error_of(std::string_view text, const mpk::read_options& options = {}) {
  const auto bytes = hex(text);
  return mpk::unpack<T>(bytes, options).error();
}

std::vector<std::byte> bytes_of(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v)
    out.push_back(static_cast<std::byte>(b));
  return out;
}

// --- exact bytes of each mapping -------------------------------------------------------------

TEST(CodecBytes, Scalars) {
  EXPECT_EQ(packed_hex(true), "c3");
  EXPECT_EQ(packed_hex(false), "c2");
  EXPECT_EQ(packed_hex(std::uint8_t{0x7f}), "7f");
  EXPECT_EQ(packed_hex(std::uint8_t{0x80}), "cc 80");
  EXPECT_EQ(packed_hex(std::int16_t{-33}), "d0 df");
  EXPECT_EQ(packed_hex(std::int64_t{-32}), "e0");
  EXPECT_EQ(packed_hex(std::uint64_t{0x100000000}), "cf 00 00 00 01 00 00 00 00");
  EXPECT_EQ(packed_hex(1.5f), "ca 3f c0 00 00");
  EXPECT_EQ(packed_hex(1.5), "cb 3f f8 00 00 00 00 00 00");
  EXPECT_EQ(packed_hex(nullptr), "c0");
  EXPECT_EQ(packed_hex(std::string("ab")), "a2 61 62");
  EXPECT_EQ(packed_hex(std::string_view("ab")), "a2 61 62");
  EXPECT_EQ(packed_hex(std::string(32, 'x')).substr(0, 5), "d9 20");
}

TEST(CodecBytes, Binaries) {
  EXPECT_EQ(packed_hex(bytes_of({1, 2})), "c4 02 01 02");
  EXPECT_EQ(packed_hex(std::array<std::byte, 3>{std::byte{9}, std::byte{8}, std::byte{7}}),
            "c4 03 09 08 07");
  const auto data = bytes_of({5});
  EXPECT_EQ(packed_hex(std::span<const std::byte>(data)), "c4 01 05");
  // bytes as uint8_t are numbers, not a binary
  EXPECT_EQ(packed_hex(std::vector<std::uint8_t>{1, 200}), "92 01 cc c8");
}

TEST(CodecBytes, Containers) {
  EXPECT_EQ(packed_hex(std::vector<int>{1, 2, 3}), "93 01 02 03");
  EXPECT_EQ(packed_hex(std::vector<int>{}), "90");
  EXPECT_EQ(packed_hex(std::vector<int>(16, 0)).substr(0, 8), "dc 00 10");
  EXPECT_EQ(packed_hex(std::deque<std::string>{"a"}), "91 a1 61");
  EXPECT_EQ(packed_hex(std::list<int>{-1, 1}), "92 ff 01");
  EXPECT_EQ(packed_hex(std::set<int>{3, 1, 2}), "93 01 02 03");
  EXPECT_EQ(packed_hex(std::unordered_set<int>{4}), "91 04");
  EXPECT_EQ(packed_hex(std::map<std::string, int>{{"b", 2}, {"a", 1}}), "82 a1 61 01 a1 62 02");
  EXPECT_EQ(packed_hex(std::unordered_map<int, bool>{{1, true}}), "81 01 c3");
  EXPECT_EQ(packed_hex(std::array<int, 2>{7, 8}), "92 07 08");
  EXPECT_EQ(packed_hex(std::pair<int, std::string>{1, "x"}), "92 01 a1 78");
  EXPECT_EQ(packed_hex(std::tuple<bool, int, double>{true, 2, 0.5}),
            "93 c3 02 cb 3f e0 00 00 00 00 00 00");
  EXPECT_EQ(packed_hex(std::vector<bool>{true, false}), "92 c3 c2");
}

TEST(CodecBytes, OptionalVariantEnum) {
  EXPECT_EQ(packed_hex(std::optional<int>{}), "c0");
  EXPECT_EQ(packed_hex(std::optional<int>{5}), "05");
  using var = std::variant<int, std::string>;
  EXPECT_EQ(packed_hex(var{std::in_place_index<0>, 3}), "92 00 03");
  EXPECT_EQ(packed_hex(var{std::string("x")}), "92 01 a1 78");
  EXPECT_EQ(packed_hex(shapes::level::low), "d1 fe d4");
  EXPECT_EQ(packed_hex(shapes::color::green), "a5 67 72 65 65 6e");
  EXPECT_EQ(packed_hex(shapes::color::dark_blue), "a9 64 61 72 6b 2d 62 6c 75 65");
  EXPECT_EQ(packed_hex(static_cast<shapes::color>(9)), "09");  // no name: its integer
}

TEST(CodecBytes, StructModes) {
  EXPECT_EQ(packed_hex(shapes::point{1, 2}), "82 a1 78 01 a1 79 02");
  EXPECT_EQ(packed_hex(shapes::pair_xy{1, 2}), "92 01 02");
  EXPECT_EQ(packed_hex(shapes::renamed{7, "Al"}),
            "82 a2 69 64 07 ab 64 69 73 70 6c 61 79 4e 61 6d 65 a2 41 6c");
  EXPECT_EQ(packed_hex(shapes::empty_map{}), "80");
  EXPECT_EQ(packed_hex(with_custom{{1, 2}, {0.5}}),
            "82 a1 68 a3 31 2c 32 a1 74 cb 3f e0 00 00 00 00 00 00");
}

TEST(CodecBytes, SixteenFieldsUseMap16) {
  flat16 f;
  f.k00 = 1;
  const std::string h = packed_hex(f);
  EXPECT_EQ(h.substr(0, 26), "de 00 10 a3 6b 30 30 01 a3");
}

/// flat16 written field by field with the writer, as the codec's slow path does.
std::string flat16_by_hand(const flat16& f, mpk::writer_options options = {}) {
  mpk::buffer b;
  mpk::writer w(b, options);
  w.begin_map(16);
  const auto field = [&](const char* key, const auto& v) {
    w.write(key);
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
      w.write(std::string_view(v));
    else
      w.write(v);
  };
  field("k00", f.k00), field("k01", f.k01), field("k02", f.k02), field("k03", f.k03);
  field("k04", f.k04), field("k05", f.k05), field("k06", f.k06), field("k07", f.k07);
  field("k08", f.k08), field("k09", f.k09), field("k10", f.k10), field("k11", f.k11);
  field("k12", f.k12), field("k13", f.k13), field("k14", f.k14), field("k15", f.k15);
  return to_hex(b.bytes());
}

TEST(CodecBytes, StructsOfScalarsAndStringsGiveTheWritersBytes) {
  // A struct of scalars and strings is written with one reservation when the writer's
  // options allow it (codec/describe.hpp): its bytes must be the writer's, at every integer
  // and string boundary, and in every fallback (options, sinks without room, long strings).
  std::mt19937_64 rng(5);
  const std::int64_t ints[] = {
      0,         127,          128,          255,    256,       65535,
      65536,     4294967295LL, 4294967296LL, -1,     -32,       -33,
      -128,      -129,         -32768,       -32769, INT32_MIN, std::int64_t{INT32_MIN} - 1,
      INT64_MIN, INT64_MAX};
  const std::size_t lengths[] = {0, 1, 31, 32, 255, 256, 3000, 5000, 65536};
  for (int round = 0; round < 200; ++round) {
    flat16 f;
    const auto i = [&] { return ints[rng() % std::size(ints)]; };
    const auto str = [&] {
      return std::string(lengths[rng() % 5 + (rng() % 8 == 0 ? 4 : 0)], 'x');
    };
    f = {i(),   0.5 * double(i()),
         str(), rng() % 2 == 0,
         i(),   1e300,
         str(), true,
         i(),   -0.0,
         str(), false,
         i(),   1.5,
         str(), false};
    SCOPED_TRACE(round);
    EXPECT_EQ(packed_hex(f), flat16_by_hand(f));
    for (const mpk::writer_options o :
         {mpk::writer_options{.old_spec = true},
          mpk::writer_options{.float32 = mpk::float32_policy::lossless},
          mpk::writer_options{.float32 = mpk::float32_policy::always}})
      EXPECT_EQ(packed_hex(f, o), flat16_by_hand(f, o));
  }
  // A span_sink with room for the exact bytes but not for the bound: the same bytes; with one
  // byte less: buffer_full, as the writer would report it.
  flat16 f;
  f.k02 = "abc";
  const std::string expected = flat16_by_hand(f);
  const std::size_t size = hex(expected).size();
  std::vector<std::byte> room(size);
  mpk::span_sink exact(room);
  mpk::writer w(exact);
  ASSERT_TRUE(mpk::pack(w, f).has_value());
  EXPECT_EQ(to_hex(exact.bytes()), expected);
  mpk::span_sink short_by_one(std::span<std::byte>(room.data(), size - 1));
  mpk::writer w2(short_by_one);
  EXPECT_EQ(mpk::pack(w2, f).error().code, mpk::errc::buffer_full);
  // After an error the writer writes nothing more.
  const auto before = short_by_one.bytes().size();
  EXPECT_FALSE(mpk::pack(w2, f).has_value());
  EXPECT_EQ(short_by_one.bytes().size(), before);
}

// The writer's bytes for `v`, value by value (what array_writer wrote before its chunks).
template <class C>
std::string array_by_hand(const C& v, mpk::writer_options o = {}) {
  mpk::buffer b;
  mpk::writer w(b, o);
  w.begin_array(v.size());
  for (const auto& e : v)
    w.write(e);
  EXPECT_TRUE(w.ok());
  return to_hex(b.bytes());
}

template <class T>
std::vector<T> boundary_values(std::size_t n) {
  const std::int64_t edges[] = {
      0,         1,      127,    128,          255,
      256,       65535,  65536,  4294967295LL, 4294967296LL,
      INT64_MAX, -1,     -32,    -33,          -128,
      -129,      -32768, -32769, INT32_MIN,    std::int64_t{INT32_MIN} - 1,
      INT64_MIN};
  std::vector<T> v;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t e = edges[i % std::size(edges)];
    // Every edge that T holds, and its neighbours, in T's own arithmetic.
    if constexpr (std::is_floating_point_v<T>)
      v.push_back(static_cast<T>(e) * T(0.5));
    else if (std::in_range<T>(e))
      v.push_back(static_cast<T>(e));
    else
      v.push_back(static_cast<T>(i % 2 == 0 ? std::numeric_limits<T>::max()
                                            : std::numeric_limits<T>::min()));
  }
  return v;
}

template <class T>
void check_number_array(std::size_t n) {
  SCOPED_TRACE(testing::Message() << n << " values of " << sizeof(T) << " bytes, signed "
                                  << std::is_signed_v<T>);
  const std::vector<T> v = boundary_values<T>(n);
  const std::string expected = array_by_hand(v);
  EXPECT_EQ(packed_hex(v), expected);
  EXPECT_EQ(packed_hex(std::deque<T>(v.begin(), v.end())), expected);
  if constexpr (std::is_floating_point_v<T>) {  // float32 policies take the value-by-value path
    const mpk::writer_options o{.float32 = mpk::float32_policy::always};
    EXPECT_EQ(packed_hex(v, o), array_by_hand(v, o));
  }
  // A span_sink of every size up to the whole: the bytes that fit are the array's first
  // bytes, a short sink is buffer_full, and nothing is written past its end.
  const std::vector<std::byte> full = hex(expected);
  const std::size_t step = full.size() > 600 ? 7 : 1;
  for (std::size_t size = 0; size <= full.size();
       size += (size + step > full.size() && size != full.size()) ? full.size() - size : step) {
    std::vector<std::byte> room(size + 16, std::byte{0xee});
    mpk::span_sink sink(std::span<std::byte>(room.data(), size));
    mpk::writer w(sink);
    const auto r = mpk::pack(w, v);
    if (size == full.size()) {
      EXPECT_TRUE(r.has_value());
    } else {
      ASSERT_FALSE(r.has_value()) << size;
      EXPECT_EQ(r.error().code, mpk::errc::buffer_full);
    }
    ASSERT_LE(sink.size(), size);
    EXPECT_TRUE(std::equal(room.begin(), room.begin() + sink.size(), full.begin())) << size;
    for (std::size_t i = size; i < room.size(); ++i)
      ASSERT_EQ(room[i], std::byte{0xee}) << "written past the end of " << size;
  }
  // Through a stream_sink with a staging area smaller than a chunk: the same bytes.
  std::string streamed;
  {
    auto collect = [](void* ctx, std::span<const std::byte> b) {
      static_cast<std::string*>(ctx)->append(reinterpret_cast<const char*>(b.data()), b.size());
      return true;
    };
    mpk::stream_sink out(collect, &streamed, 16);
    mpk::writer w(out);
    EXPECT_TRUE(mpk::pack(w, v).has_value());
    EXPECT_EQ(out.flush(), mpk::errc::ok);
  }
  EXPECT_EQ(streamed.size(), full.size());
  EXPECT_TRUE(
      std::equal(streamed.begin(), streamed.end(), reinterpret_cast<const char*>(full.data())));
}

TEST(CodecBytes, NumberArraysGiveTheWritersBytes) {
  // Arrays of numbers are written in chunks through a cursor (array_writer): the bytes must
  // be the writer's value by value at every width boundary, at chunk boundaries (63, 64, 65,
  // 128, 129 values) and into sinks that end in the middle of the array.
  for (const std::size_t n : {0, 1, 15, 16, 21, 63, 64, 65, 128, 129, 300}) {
    check_number_array<std::int8_t>(n);
    check_number_array<std::uint8_t>(n);
    check_number_array<std::int16_t>(n);
    check_number_array<std::uint16_t>(n);
    check_number_array<std::int32_t>(n);
    check_number_array<std::uint32_t>(n);
    check_number_array<std::int64_t>(n);
    check_number_array<std::uint64_t>(n);
    check_number_array<float>(n);
    check_number_array<double>(n);
  }
  // bool (a std::vector<bool> has no bool&: the value-by-value path) and a std::array.
  EXPECT_EQ(packed_hex(std::vector<bool>{true, false}), "92 c3 c2");
  EXPECT_EQ(packed_hex(std::array<bool, 3>{true, false, true}), "93 c3 c2 c3");
  EXPECT_EQ(packed_hex(std::array<int, 3>{-33, 128, 65536}), "93 d0 df cc 80 ce 00 01 00 00");
  // A writer that already failed writes nothing.
  std::array<std::byte, 1> one{};
  mpk::span_sink tiny(one);
  mpk::writer w(tiny);
  w.write("ab");
  ASSERT_FALSE(w.ok());
  EXPECT_FALSE(mpk::pack(w, std::vector<int>{1, 2, 3}).has_value());
  EXPECT_EQ(tiny.size(), 0u);
}

TEST(CodecBytes, LongKeysAndOldSpec) {
  const std::string key = "a_key_that_is_forty_bytes_long_xxxxxxxxx";
  ASSERT_EQ(key.size(), 40u);
  mpk::buffer expected;
  mpk::writer w(expected);
  w.begin_map(1);
  w.write_str8(key);
  w.write(3);
  EXPECT_EQ(packed_hex(long_key{3}), to_hex(expected.bytes()));

  mpk::buffer old;
  mpk::writer wo(old);
  wo.begin_map(1);
  wo.write_str16(key);
  wo.write(3);
  EXPECT_EQ(packed_hex(long_key{3}, {.old_spec = true}), to_hex(old.bytes()));
  EXPECT_EQ(from_hex<long_key>(to_hex(old.bytes())).v, 3);
}

// --- round trips ---------------------------------------------------------------------------

everything sample_everything() {
  everything e;
  e.b = true;
  e.i8 = -128;
  e.u8 = 255;
  e.i16 = -32768;
  e.u16 = 65535;
  e.i32 = std::numeric_limits<std::int32_t>::min();
  e.u32 = 0xffffffffu;
  e.i64 = std::numeric_limits<std::int64_t>::min();
  e.u64 = std::numeric_limits<std::uint64_t>::max();
  e.f32 = 0.25f;
  e.f64 = -1.0 / 3.0;
  e.str = "h\xc3\xa9llo";
  e.vec = {1, -2, 300};
  e.arr = {0.5, 1.5, 2.5};
  e.deq = {"a", "", std::string(40, 'z')};
  e.lst = {5000000000, -5};
  e.set = {"x", "y"};
  e.uset = {1, 2, 3};
  e.map = {{"one", 1}, {"two", 2}};
  e.umap = {{10, "ten"}};
  e.pair = {9, "nine"};
  e.tuple = {true, 2.75, "t"};
  e.opt_set = "set";
  e.var = inner{"in", 4};
  e.bin = bytes_of({0, 255, 128});
  e.fixed_bin = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};
  e.color = shapes::color::dark_blue;
  e.level = shapes::level::high;
  e.nested = {"nest", std::nullopt};
  e.nested_list = {{"a", 1}, {"b", std::nullopt}};
  e.deep = {{"k", {1, std::nullopt, 3}}};
  e.bits = {true, true, false};
  e.utf16 = u"h\u00e9 \U0001F600";
  e.ts = {-1, 999999999};
  e.when = std::chrono::system_clock::time_point(std::chrono::seconds(1700000000)) +
           std::chrono::microseconds(5);
  e.any = {{"a", 1}, {"b", {1, 2, "three"}}};
  return e;
}

TEST(CodecRoundTrip, EveryBuiltInType) {
  const everything e = sample_everything();
  auto bytes = mpk::pack(e);
  ASSERT_TRUE(bytes.has_value());
  auto back = mpk::unpack<everything>(*bytes, {.strict = true});
  ASSERT_TRUE(back.has_value()) << back.error().to_string();
  EXPECT_TRUE(*back == e);
  // and the bytes are a plain map: the generic reader walks it whole
  mpk::reader r(bytes->bytes());
  EXPECT_EQ(r.read_map_header(), 37u);
  r.skip();  // a key
  r.skip();  // its value
  EXPECT_TRUE(r.ok());
}

TEST(CodecRoundTrip, VariantAlternativesAndEnumsFromIntegers) {
  using var = std::variant<int, std::string, inner>;
  for (const var& v : {var{1}, var{std::string("s")}, var{inner{"t", 2}}}) {
    auto b = mpk::pack(v);
    ASSERT_TRUE(b.has_value());
    auto back = mpk::unpack<var>(*b);
    ASSERT_TRUE(back.has_value());
    EXPECT_TRUE(*back == v);
  }
  EXPECT_EQ(from_hex<shapes::color>("01"), shapes::color::green);
  EXPECT_EQ(from_hex<shapes::color>("a3 72 65 64"), shapes::color::red);
  EXPECT_EQ(from_hex<shapes::level>("cd 01 2c"), shapes::level::high);
}

TEST(CodecRoundTrip, ZeroCopyViews) {
  const auto bytes = hex("92 a3 61 62 63 c4 02 01 02");
  auto r = mpk::unpack<std::pair<std::string_view, std::span<const std::byte>>>(bytes);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->first, "abc");
  EXPECT_EQ(r->first.data(), reinterpret_cast<const char*>(bytes.data() + 2));
  EXPECT_EQ(r->second.data(), bytes.data() + 7);
  EXPECT_EQ(r->second.size(), 2u);
}

TEST(CodecRoundTrip, HandWrittenCodecs) {
  auto b = mpk::pack(with_custom{{-4, 12}, {36.6}});
  ASSERT_TRUE(b.has_value());
  auto back = mpk::unpack<with_custom>(*b);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->h.x, -4);
  EXPECT_EQ(back->h.y, 12);
  EXPECT_EQ(back->t.degrees, 36.6);
  // the hand-written codec's own error, at its value's offset
  const auto e = error_of<with_custom>("81 a1 68 a2 31 32");
  EXPECT_EQ(e.code, mpk::errc::type_mismatch);
  EXPECT_EQ(e.offset, 3u);
}

TEST(CodecRoundTrip, PackIntoWriterAndUnpackFromReader) {
  mpk::buffer buf;
  mpk::writer w(buf);
  EXPECT_TRUE(mpk::pack(w, shapes::point{1, 2}).has_value());
  EXPECT_TRUE(mpk::pack(w, shapes::point{3, 4}).has_value());
  mpk::reader r(buf.bytes());
  shapes::point p{9, 9};
  ASSERT_TRUE(mpk::unpack(r, p).has_value());
  EXPECT_EQ(p, (shapes::point{1, 2}));
  ASSERT_TRUE(mpk::unpack(r, p).has_value());
  EXPECT_EQ(p, (shapes::point{3, 4}));
  EXPECT_TRUE(r.at_end());
  // a missing key keeps what the target held
  const auto only_y = hex("81 a1 79 05");
  mpk::reader r2(only_y);
  ASSERT_TRUE(mpk::unpack(r2, p).has_value());
  EXPECT_EQ(p, (shapes::point{3, 5}));
}

TEST(CodecRoundTrip, WriterErrorsArePackErrors) {
  std::array<std::byte, 4> small{};
  mpk::span_sink out(small);
  mpk::writer w(out);
  const auto e = mpk::pack(w, shapes::point{1, 2}).error();
  EXPECT_EQ(e.code, mpk::errc::buffer_full);
}

TEST(CodecStrings, Utf8PolicyAndUtf16) {
  // "\xc0\x80" is an overlong NUL: std::string members check it by default
  const auto e = error_of<std::string>("a2 c0 80");
  EXPECT_EQ(e.code, mpk::errc::invalid_utf8);
  EXPECT_EQ(e.offset, 0u);
  EXPECT_EQ((error_of<std::pair<int, std::string>>("92 01 a2 c0 80").offset), 2u);
  EXPECT_EQ(from_hex<std::string>("a2 c0 80", {.utf8 = mpk::utf8_check::none}), "\xc0\x80");
  const auto overlong = hex("a2 c0 80");
  EXPECT_EQ(*mpk::unpack<std::string_view>(overlong), "\xc0\x80");  // views are not checked
  EXPECT_EQ(error_of<std::string_view>("a2 c0 80", {.utf8 = mpk::utf8_check::all}).code,
            mpk::errc::invalid_utf8);
  // a long valid non-ASCII string passes (past the short ASCII fast path)
  const std::string long_text = "h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93 and more text";
  auto b = mpk::pack(long_text);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(*mpk::unpack<std::string>(*b), long_text);

  EXPECT_EQ(packed_hex(std::u16string(u"h\u00e9")), "a3 68 c3 a9");
  EXPECT_EQ(from_hex<std::u16string>("a3 68 c3 a9"), u"h\u00e9");
  EXPECT_EQ(error_of<std::u16string>("a2 c0 80", {.utf8 = mpk::utf8_check::none}).code,
            mpk::errc::invalid_utf8);
  const std::u16string lone(1, char16_t(0xd800));
  EXPECT_EQ(mpk::pack(lone).error().code, mpk::errc::invalid_utf16);
}

TEST(CodecTime, TimestampsAndTimePoints) {
  EXPECT_EQ(packed_hex(mpk::timestamp{1, 0}), "d6 ff 00 00 00 01");
  EXPECT_EQ(packed_hex(mpk::timestamp{-1, 0}).substr(0, 8), "c7 0c ff");
  const auto t = from_hex<mpk::timestamp>("d6 ff 00 00 00 01");
  EXPECT_EQ(t.seconds, 1);
  using namespace std::chrono;
  const sys_time<milliseconds> ms(milliseconds(1500));  // 1 s + 500000000 ns: 64-bit form
  EXPECT_EQ(packed_hex(ms), "d7 ff 77 35 94 00 00 00 00 01");
  EXPECT_EQ(from_hex<sys_time<milliseconds>>("d7 ff 77 35 94 00 00 00 00 01"), ms);
  EXPECT_EQ(error_of<mpk::timestamp>("01").code, mpk::errc::type_mismatch);
  // nanoseconds >= 10^9
  EXPECT_EQ(error_of<mpk::timestamp>("d7 ff ee 6b 28 00 00 00 00 01").code,
            mpk::errc::invalid_timestamp);
}

TEST(CodecValue, AnyMembersAndTheirDepth) {
  const auto bytes = hex("92 01 82 a1 61 91 02 a1 62 c0");  // [1, {"a": [2], "b": nil}]
  auto v = mpk::unpack<std::pair<int, mpk::value>>(bytes);
  ASSERT_TRUE(v.has_value()) << v.error().to_string();
  EXPECT_EQ(v->second, (mpk::value{{"a", {2}}, {"b", nullptr}}));
  auto again = mpk::pack(*v);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(to_hex(again->bytes()), to_hex(bytes));
  // the pair is depth 1, the map 2, the array in it 3: max_depth 2 refuses it
  mpk::read_options tight;
  tight.limits.max_depth = 2;
  const auto e = mpk::unpack<std::pair<int, mpk::value>>(bytes, tight).error();
  EXPECT_EQ(e.code, mpk::errc::depth_exceeded);
  tight.limits.max_depth = 3;
  EXPECT_TRUE((mpk::unpack<std::pair<int, mpk::value>>(bytes, tight).has_value()));
}

// --- versioning ----------------------------------------------------------------------------

TEST(CodecVersioning, AddedAndRemovedFields) {
  using namespace versions;
  auto v1 = mpk::pack(user_v1{7, "ann", 41});
  ASSERT_TRUE(v1.has_value());
  // v2 reads v1: `age` unknown (skipped), `email` missing (keeps its default)
  auto as_v2 = mpk::unpack<user_v2>(*v1);
  ASSERT_TRUE(as_v2.has_value());
  EXPECT_EQ(as_v2->id, 7);
  EXPECT_EQ(as_v2->name, "ann");
  EXPECT_EQ(as_v2->email, "none");
  // v1 reads v2
  auto v2 = mpk::pack(user_v2{8, "bob", "b@x"});
  ASSERT_TRUE(v2.has_value());
  auto as_v1 = mpk::unpack<user_v1>(*v2);
  ASSERT_TRUE(as_v1.has_value());
  EXPECT_EQ(as_v1->id, 8);
  EXPECT_EQ(as_v1->name, "bob");
  EXPECT_EQ(as_v1->age, 0);
  // strict mode: v1's `age` is unknown to v2, at the offset of the key
  const auto e = mpk::unpack<user_v2>(*v1, {.strict = true}).error();
  EXPECT_EQ(e.code, mpk::errc::unknown_key);
  EXPECT_EQ(e.offset, 14u);  // 83 | a2 "id" 07 | a4 "name" a3 "ann" | a3 "age"
}

TEST(CodecVersioning, MissingKeyInStrictMode) {
  // {"id": 1, "name": "x"}: no email
  const auto e =
      error_of<versions::user_v2>("82 a2 69 64 01 a4 6e 61 6d 65 a1 78", {.strict = true});
  EXPECT_EQ(e.code, mpk::errc::missing_key);
  EXPECT_EQ(e.offset, 0u);  // the map's offset
}

TEST(CodecVersioning, RenamedField) {
  using namespace versions;
  auto v1 = mpk::pack(user_v1{7, "ann", 41});
  ASSERT_TRUE(v1.has_value());
  auto v3 = mpk::unpack<user_v3>(*v1);  // "name" is not "full_name" any more
  ASSERT_TRUE(v3.has_value());
  EXPECT_EQ(v3->id, 7);
  EXPECT_EQ(v3->name, "unset");
  auto again = mpk::pack(user_v3{1, "Ann Lee"});
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(to_hex(again->bytes()),
            "82 a2 69 64 01 a9 66 75 6c 6c 5f 6e 61 6d 65 a7 41 6e 6e 20 4c 65 65");
}

TEST(CodecVersioning, KeysInAnyOrderAndNonStringKeys) {
  // {"y": 2, 5: [1], "x": 1}
  EXPECT_EQ(from_hex<shapes::point>("83 a1 79 02 05 91 01 a1 78 01"), (shapes::point{1, 2}));
  const auto e = error_of<shapes::point>("83 a1 79 02 05 91 01 a1 78 01", {.strict = true});
  EXPECT_EQ(e.code, mpk::errc::unknown_key);
  EXPECT_EQ(e.offset, 4u);
  // a non-string key in the first (in-order) position
  EXPECT_EQ(from_hex<shapes::point>("82 c0 c0 a1 78 04"), (shapes::point{4, 0}));
}

TEST(CodecVersioning, DuplicateKeys) {
  // {"x": 1, "x": 2}: last wins, or errc::duplicate_key at the second key
  EXPECT_EQ(from_hex<shapes::point>("82 a1 78 01 a1 78 02").x, 2);
  const auto e = error_of<shapes::point>("82 a1 78 01 a1 78 02", {.strict = true});
  EXPECT_EQ(e.code, mpk::errc::duplicate_key);
  EXPECT_EQ(e.offset, 4u);
  // a container member read twice holds the last value only
  const auto v = from_hex<inner>("92 a1 61 05");
  EXPECT_EQ(v.tag, "a");
  // std::map and std::set duplicates
  using smap = std::map<std::string, int>;
  EXPECT_EQ(from_hex<smap>("82 a1 61 01 a1 61 02").at("a"), 2);
  EXPECT_EQ(error_of<smap>("82 a1 61 01 a1 61 02", {.strict = true}).code,
            mpk::errc::duplicate_key);
  EXPECT_EQ(from_hex<std::set<int>>("92 01 01").size(), 1u);
  EXPECT_EQ(error_of<std::set<int>>("92 01 01", {.strict = true}).offset, 2u);
}

TEST(CodecVersioning, ShorterAndLongerArrays) {
  using namespace versions;
  // v2 reads v1's [1, 2]: c keeps its default
  const row_v2 r2 = from_hex<row_v2>("92 01 02");
  EXPECT_EQ(r2.a, 1);
  EXPECT_EQ(r2.b, 2);
  EXPECT_EQ(r2.c, 7);
  // v1 reads v2's [1, 2, [3]]: the extra element is skipped, however nested
  const row_v1 r1 = from_hex<row_v1>("93 01 02 91 03");
  EXPECT_EQ(r1.a, 1);
  EXPECT_EQ(r1.b, 2);
  auto shorter = error_of<row_v2>("92 01 02", {.strict = true});
  EXPECT_EQ(shorter.code, mpk::errc::missing_key);
  auto longer = error_of<row_v1>("93 01 02 03", {.strict = true});
  EXPECT_EQ(longer.code, mpk::errc::unknown_key);
  EXPECT_EQ(longer.offset, 3u);
}

// --- errors --------------------------------------------------------------------------------

TEST(CodecErrors, ReaderErrorsWithOffsets) {
  auto e = error_of<shapes::point>("82 a1 78 a1 61");  // a string where x wants an int
  EXPECT_EQ(e.code, mpk::errc::type_mismatch);
  EXPECT_EQ(e.offset, 3u);
  e = error_of<shapes::point>("82 a1 78 01 a1");  // ends inside the second key
  EXPECT_EQ(e.code, mpk::errc::truncated);
  e = error_of<shapes::point>("92 01 02");  // an array where a map is expected
  EXPECT_EQ(e.code, mpk::errc::type_mismatch);
  EXPECT_EQ(e.offset, 0u);
  e = error_of<std::uint8_t>("cd 01 00");
  EXPECT_EQ(e.code, mpk::errc::out_of_range);
  e = error_of<std::vector<int>>("dc ff ff 01");  // a count the input cannot hold
  EXPECT_EQ(e.code, mpk::errc::truncated);
  e = error_of<std::vector<int>>("dd ff ff ff ff 01");  // above limits::max_array_len
  EXPECT_EQ(e.code, mpk::errc::limit_exceeded);
}

TEST(CodecErrors, TrailingBytes) {
  const auto bytes = hex("01 02");
  const auto e = mpk::unpack<int>(bytes).error();
  EXPECT_EQ(e.code, mpk::errc::trailing_bytes);
  EXPECT_EQ(e.offset, 1u);
  auto ok = mpk::unpack<int>(bytes, {.allow_trailing = true});
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(*ok, 1);
}

TEST(CodecErrors, SizesAndIndices) {
  EXPECT_EQ((error_of<std::array<int, 2>>("93 01 02 03").code), mpk::errc::out_of_range);
  EXPECT_EQ((error_of<std::pair<int, int>>("91 01").code), mpk::errc::out_of_range);
  EXPECT_EQ((error_of<std::tuple<int>>("92 01 02").code), mpk::errc::out_of_range);
  EXPECT_EQ((error_of<std::array<std::byte, 2>>("c4 01 00").code), mpk::errc::out_of_range);
  const auto v = error_of<std::variant<int, bool>>("92 02 c3");
  EXPECT_EQ(v.code, mpk::errc::out_of_range);
  EXPECT_EQ(v.offset, 1u);
  const auto c = error_of<shapes::color>("a4 62 6c 75 65");  // "blue": no such name
  EXPECT_EQ(c.code, mpk::errc::out_of_range);
  EXPECT_EQ((error_of<shapes::level>("cd ff ff").code), mpk::errc::out_of_range);
}

TEST(CodecErrors, DepthOfRecursiveTypes) {
  // node = [value, [children...]]: each level opens two arrays
  std::string text;
  constexpr int levels = 40;
  for (int i = 0; i < levels; ++i)
    text += "92 01 91 ";
  text += "92 01 90";
  mpk::read_options options;
  options.limits.max_depth = 2 * levels + 2;
  auto fine = mpk::unpack<node>(hex(text), options);
  ASSERT_TRUE(fine.has_value()) << fine.error().to_string();
  int depth = 0;
  for (const node* n = &*fine; !n->children.empty(); n = &n->children[0])
    ++depth;
  EXPECT_EQ(depth, levels);

  options.limits.max_depth = 2 * levels;
  const auto e = mpk::unpack<node>(hex(text), options).error();
  EXPECT_EQ(e.code, mpk::errc::depth_exceeded);
  EXPECT_EQ(e.offset, static_cast<std::size_t>(3 * levels));  // the innermost node
}

TEST(CodecErrors, DeepHostileInputStopsAtTheDefaultLimit) {
  // 100000 nested [1, [ ... : the default max_depth (512) stops it long before the stack
  std::vector<std::byte> bytes;
  for (int i = 0; i < 100000; ++i) {
    bytes.push_back(std::byte{0x92});
    bytes.push_back(std::byte{0x01});
    bytes.push_back(std::byte{0x91});
  }
  const auto e = mpk::unpack<node>(bytes).error();
  EXPECT_EQ(e.code, mpk::errc::depth_exceeded);
}

// --- speed properties ----------------------------------------------------------------------

TEST(CodecSpeed, NoAllocationForAStructOfScalars) {
  scalars s{-5, 2.5, true, 65535, "view"};
  auto b = mpk::pack(s);
  ASSERT_TRUE(b.has_value());
  // keys out of order too (the slow path), then in order
  mpk::buffer shuffled;
  mpk::writer w(shuffled);
  w.begin_map(5);
  w.write("e"), w.write("view"), w.write("d"), w.write(65535), w.write("c"), w.write(true);
  w.write("b"), w.write(2.5), w.write("a"), w.write(-5);
  for (const mpk::buffer* in : {&*b, &shuffled}) {
    scalars out;
    mpk::reader r(in->bytes());
    const std::size_t before = g_allocations.load();
    const auto e = mpk::unpack(r, out);
    const std::size_t after = g_allocations.load();
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(after - before, 0u);
    EXPECT_EQ(out.a, -5);
    EXPECT_EQ(out.b, 2.5);
    EXPECT_TRUE(out.c);
    EXPECT_EQ(out.d, 65535);
    EXPECT_EQ(out.e, "view");
  }
}

TEST(CodecSpeed, EncodingWritesThePreEncodedKeys) {
  // the constant bytes of a described struct are the header and keys, in order
  using L = mpk::detail::layout<shapes::point>;
  EXPECT_EQ(to_hex(L::segment<0>()), "82 a1 78");
  EXPECT_EQ(to_hex(L::segment<1>()), "a1 79");
  using A = mpk::detail::layout<shapes::pair_xy>;
  EXPECT_EQ(to_hex(A::segment<0>()), "92");
  EXPECT_EQ(A::segment<1>().size(), 0u);
}

}  // namespace

// --- strings and vectors of strings: the ASCII fast path, reading in place ------------------

using mpk::errc;

namespace reuse {
struct item {
  std::string name;
  int count = 1;
};
MPK_MAP(item, name, count);
}  // namespace reuse

namespace {

/// A str of `n` ASCII bytes, with byte 0x80 | low at `bad` (none when bad >= n).
std::vector<std::byte> str_with(std::size_t n, std::size_t bad, std::uint8_t low = 0) {
  mpk::buffer b;
  mpk::writer w(b);
  std::string s(n, 'a');
  for (std::size_t i = 0; i < n; ++i)
    s[i] = static_cast<char>('a' + i % 26);
  if (bad < n) s[bad] = static_cast<char>(0x80 | low);
  w.write_str(s);
  return {b.bytes().begin(), b.bytes().end()};
}

TEST(CodecStrings, EveryNonAsciiPositionOfShortAndLongStrings) {
  // Lengths around every word size of the fast path (0..32) and past it, a bad byte at each
  // position: a lone continuation byte is invalid UTF-8 wherever it is.
  for (std::size_t n = 0; n <= 40; ++n) {
    const auto good = str_with(n, n);
    auto s = mpk::unpack<std::string>(good);
    ASSERT_TRUE(s.has_value()) << n;
    EXPECT_EQ(s->size(), n);
    EXPECT_TRUE(mpk::detail::short_ascii(s->data(), s->size()) == (n <= 32)) << n;
    for (std::size_t bad = 0; bad < n; ++bad) {
      const auto in = str_with(n, bad);
      EXPECT_EQ(mpk::unpack<std::string>(in).error(), (mpk::error{errc::invalid_utf8, 0}))
          << n << " " << bad;
      const std::string_view text(reinterpret_cast<const char*>(in.data()) + (in.size() - n), n);
      EXPECT_FALSE(mpk::detail::short_ascii(text.data(), text.size())) << n << " " << bad;
      // raw: no check, the bytes as they are
      auto raw = mpk::unpack<std::string>(in, {.utf8 = mpk::utf8_check::none});
      ASSERT_TRUE(raw.has_value());
      EXPECT_EQ(*raw, text);
    }
  }
}

TEST(CodecStrings, ValidMultibyteTextPastTheFastPath) {
  for (const std::string text : {"é", "aé", "日本語", "0123456789abcdé", "€uro 0123456789abcdef"}) {
    mpk::buffer b;
    mpk::writer w(b);
    w.write_str(text);
    EXPECT_EQ(mpk::unpack<std::string>(b.bytes()).value_or(""), text);
    EXPECT_EQ(mpk::unpack<std::vector<std::string>>(mpk::pack(std::vector{text, text})->bytes())
                  .value_or(std::vector<std::string>{}),
              (std::vector{text, text}));
  }
}

TEST(CodecStrings, VectorOfStringsErrorOffsets) {
  // ["ok", <bad at 3 of 20>, "x"]: the error is at the bad str's header (offset 4).
  std::vector<std::byte> in = {std::byte{0x93}, std::byte{0xa2}, std::byte{'o'}, std::byte{'k'}};
  const auto bad = str_with(20, 3);
  in.insert(in.end(), bad.begin(), bad.end());
  in.push_back(std::byte{0xa1});
  in.push_back(std::byte{'x'});
  EXPECT_EQ(mpk::unpack<std::vector<std::string>>(in).error(), (mpk::error{errc::invalid_utf8, 4}));
  mpk::reader r(in);
  std::vector<std::string> out = {"old"};
  EXPECT_EQ(mpk::unpack(r, out).error(), (mpk::error{errc::invalid_utf8, 4}));
}

TEST(CodecStrings, ReadingIntoAnExistingVectorOverwritesInPlace) {
  const std::string long_a(100, 'a'), long_b(90, 'b');
  std::vector<std::string> out = {long_a, "x", "y", "z"};
  const char* const first = out[0].data();  // heap storage of 100 bytes
  const auto three = mpk::pack(std::vector<std::string>{long_b, "q", "r"});
  mpk::reader r(three->bytes());
  ASSERT_TRUE(mpk::unpack(r, out).has_value());
  EXPECT_EQ(out, (std::vector<std::string>{long_b, "q", "r"}));
  EXPECT_EQ(out[0].data(), first);  // the string's capacity was reused
  // more elements than the vector holds: the new ones are appended
  const auto five = mpk::pack(std::vector<std::string>{"1", "2", "3", "4", long_a});
  mpk::reader r5(five->bytes());
  ASSERT_TRUE(mpk::unpack(r5, out).has_value());
  EXPECT_EQ(out, (std::vector<std::string>{"1", "2", "3", "4", long_a}));
  // numbers too, and an empty array empties it
  std::vector<int> nums = {9, 9, 9, 9};
  const auto two = mpk::pack(std::vector<int>{1, 2});
  mpk::reader rn(two->bytes());
  ASSERT_TRUE(mpk::unpack(rn, nums).has_value());
  EXPECT_EQ(nums, (std::vector<int>{1, 2}));
  const auto none = hex("90");
  mpk::reader r0(none);
  ASSERT_TRUE(mpk::unpack(r0, out).has_value());
  EXPECT_TRUE(out.empty());
}

TEST(CodecStrings, ElementsOfStructsInAVectorStartFromTheirDefaults) {
  // A vector of structs is rebuilt: a member that an element does not mention has its
  // default, not the value of the element that was there before.
  std::vector<reuse::item> items = {{"kept", 7}};
  const auto in = hex("91 81 a4 6e 61 6d 65 a3 6e 65 77");  // [{"name": "new"}]
  mpk::reader r(in);
  ASSERT_TRUE(mpk::unpack(r, items).has_value());
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].name, "new");
  EXPECT_EQ(items[0].count, 1);
}

TEST(CodecUnpack, NewObjectErrorsAndTrailingBytes) {
  EXPECT_EQ(error_of<std::vector<std::string>>("92 a1 61"), (mpk::error{errc::truncated, 3}));
  EXPECT_EQ(error_of<std::string>("a1 61 c0"), (mpk::error{errc::trailing_bytes, 2}));
  auto r = mpk::unpack<std::string>(hex("a1 61 c0"), {.allow_trailing = true});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, "a");
}

}  // namespace

namespace reuse {
struct inner {
  std::string tag = "t";
  std::vector<int> values;
  friend bool operator==(const inner&, const inner&) = default;
};
MPK_MAP(inner, tag, values);
struct outer {
  std::string name;
  double weight = 2.5;
  std::optional<std::string> note;
  std::vector<std::string> words;
  inner in;
  std::map<std::string, int> counts;
  friend bool operator==(const outer&, const outer&) = default;
};
MPK_MAP(outer, name, weight, note, words, in, counts);
struct pos {
  std::string a;
  int b = 3;
  friend bool operator==(const pos&, const pos&) = default;
};
MPK_ARRAY(pos, a, b);
}  // namespace reuse

namespace {

/// Decodes `in` into a new T and into `into`; both must succeed and be equal.
template <class T>
void expect_same_as_new(const std::vector<std::byte>& in, T into) {
  const auto fresh = mpk::unpack<T>(in);
  ASSERT_TRUE(fresh.has_value()) << fresh.error().to_string();
  mpk::reader r(in);
  ASSERT_TRUE(mpk::unpack(r, into).has_value());
  EXPECT_TRUE(into == *fresh);
}

std::vector<std::byte> bytes_of(const auto& v) {
  const auto b = mpk::pack(v);
  return {b->bytes().begin(), b->bytes().end()};
}

TEST(CodecReuse, VectorOfStructsReadsIntoItsElementsAsNewOnes) {
  using reuse::outer;
  const std::string long_s(80, 'L');
  const std::vector<outer> old = {
      {long_s, 9, "n", {"a", long_s, "c"}, {"x", {1, 2, 3, 4}}, {{"k", 1}, {"z", 2}}},
      {"b", 1, std::nullopt, {}, {}, {}},
      {"c", 1, "m", {"q"}, {"y", {5}}, {{"k", 3}}}};
  const std::vector<outer> shorter = {{"s", 1, std::nullopt, {long_s}, {"", {}}, {{"k", 9}}}};
  const std::vector<outer> longer = {{"1", 1, "n1", {"w"}, {"i", {7}}, {}},
                                     {long_s, 2, std::nullopt, {"a", "b"}, {"j", {}}, {}},
                                     {"3", 3, "n3", {}, {"k", {1, 2}}, {{"k", 1}}},
                                     {"4", 4, "n4", {"x", "y", "z", long_s}, {}, {}}};
  for (const auto* in : {&shorter, &longer, &old}) {
    expect_same_as_new(bytes_of(*in), old);
    expect_same_as_new(bytes_of(*in), std::vector<outer>{});
  }
  // the kept elements are read into in place: a long string keeps its storage
  std::vector<outer> into = old;
  const char* const storage = into[0].name.data();
  const auto in = bytes_of(std::vector<outer>{{std::string(70, 'n'), 1, std::nullopt, {}, {}, {}}});
  mpk::reader r(in);
  ASSERT_TRUE(mpk::unpack(r, into).has_value());
  EXPECT_EQ(into[0].name.data(), storage);
  EXPECT_EQ(into[0].name, std::string(70, 'n'));
}

TEST(CodecReuse, MembersAnElementLeavesOutGetTheirNewValues) {
  using reuse::outer;
  std::vector<outer> into = {{"old", 9, "note", {"w"}, {"x", {1}}, {{"k", 1}}}};
  // [{"name": "new", "in": {"values": [2]}}]: weight, note, words, counts and in.tag as new
  const auto in = hex("91 82 a4 6e 61 6d 65 a3 6e 65 77 a2 69 6e 81 a6 76 61 6c 75 65 73 91 02");
  expect_same_as_new(in, into);
  mpk::reader r(in);
  ASSERT_TRUE(mpk::unpack(r, into).has_value());
  EXPECT_EQ(into[0], (outer{"new", 2.5, std::nullopt, {}, {"t", {2}}, {}}));
  // array mode: a shorter array gives the members after it their new values
  expect_same_as_new(hex("91 91 a1 61"), std::vector<reuse::pos>{{"zz", 8}});
  expect_same_as_new(hex("92 92 a1 61 05 91 a0"), std::vector<reuse::pos>{{"zz", 8}});
  // keys in another order, and a key seen twice (last wins)
  expect_same_as_new(hex("91 83 a6 77 65 69 67 68 74 01 a4 6e 61 6d 65 a1 61 a4 6e 61 6d 65 a1 62"),
                     std::vector<outer>{{"old", 9, "n", {"w"}, {}, {}}});
}

TEST(CodecReuse, TopLevelStructKeepsWhatTheInputLeavesOut) {
  // unpack(reader, out) of a struct itself keeps the members the input does not mention
  reuse::outer into{"old", 9, "note", {"w"}, {"x", {1}}, {}};
  const auto in = hex("81 a4 6e 61 6d 65 a3 6e 65 77");  // {"name": "new"}
  mpk::reader r(in);
  ASSERT_TRUE(mpk::unpack(r, into).has_value());
  EXPECT_EQ(into, (reuse::outer{"new", 9, "note", {"w"}, {"x", {1}}, {}}));
}

TEST(CodecReuse, OptionalStringKeepsItsStorage) {
  std::optional<std::string> s = std::string(60, 'a');
  const char* const storage = s->data();
  const auto in = bytes_of(std::string(50, 'b'));
  mpk::reader r(in);
  ASSERT_TRUE(mpk::unpack(r, s).has_value());
  EXPECT_EQ(*s, std::string(50, 'b'));
  EXPECT_EQ(s->data(), storage);
  const auto nil = hex("c0");
  mpk::reader rn(nil);
  ASSERT_TRUE(mpk::unpack(rn, s).has_value());
  EXPECT_FALSE(s.has_value());
}

TEST(CodecReuse, AnErrorMidwayLeavesAValidObjectThatDecodesAgain) {
  using reuse::outer;
  const std::vector<outer> good = {{"a", 1, "n", {"x", "y"}, {"t", {1, 2}}, {{"k", 1}}},
                                   {"b", 2, std::nullopt, {"z"}, {}, {}}};
  const auto in = bytes_of(good);
  // every truncation of the input, and a bad byte at every offset (0xc1: never used as a
  // marker, invalid in UTF-8)
  for (std::size_t cut = 0; cut < in.size(); ++cut) {
    std::vector<outer> into = {{"old", 9, "n", {"w", "v", "u"}, {"x", {1}}, {{"q", 1}}}};
    std::vector<std::byte> bad(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(cut));
    mpk::reader r(bad);
    EXPECT_FALSE(mpk::unpack(r, into).has_value());
    std::vector<std::byte> corrupt = in;
    corrupt[cut] = std::byte{0xc1};
    mpk::reader rc(corrupt);
    (void)mpk::unpack(rc, into);  // fails, unless the byte was inside a double's payload
    // basic guarantee: valid (copyable, comparable) and decodes the good input as new
    const std::vector<outer> copy = into;
    EXPECT_EQ(copy, into);
    expect_same_as_new(in, into);
  }
}

}  // namespace
