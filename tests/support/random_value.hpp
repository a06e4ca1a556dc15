// Test helpers: a small MessagePack value tree (`test_value`), a seeded generator of random
// trees with every encoding boundary weighted in, and functions to write a tree with
// mpk::writer and read one back with mpk::reader. Shared by the round-trip and interop tests.
//
// The tree keeps the wire families apart: `uint` holds what the uint family carries
// (positive fixint, uint8..uint64) and `sint` what the sint family carries (negative fixint,
// int8..int64), so a round trip compares families as well as numbers. Floats compare by
// their bits (NaN equals the same NaN, -0.0 differs from 0.0).
//
// The functions here recurse over the tree; they are meant for test data of modest depth.
#pragma once

#include <mpk/reader.hpp>
#include <mpk/writer.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpk_test {

// --- the tree --------------------------------------------------------------------------

struct test_entry;

struct test_value {
  enum class kind : std::uint8_t {
    nil,
    boolean,
    uint,
    sint,
    float32,
    float64,
    str,
    bin,
    ext,
    array,
    map
  };

  kind k = kind::nil;
  bool b = false;                   // boolean
  std::uint64_t u = 0;              // uint
  std::int64_t i = 0;               // sint
  float f32 = 0.0f;                 // float32
  double f64 = 0.0;                 // float64
  std::int8_t ext_type = 0;         // ext
  std::string data;                 // str (UTF-8 bytes), bin, ext payload
  std::vector<test_value> items;    // array
  std::vector<test_entry> entries;  // map: (key, value) pairs, in order

  // Defined after test_entry (clang 14 with libstdc++ 12 needs the entry type complete in
  // every function that builds or destroys `entries`, even inside the class).
  static test_value nil();
  static test_value of_bool(bool v);
  static test_value of_uint(std::uint64_t v);
  static test_value of_sint(std::int64_t v);
  /// An integer in the family the writer's implicit typing gives it (uint when >= 0).
  static test_value of_int(std::int64_t v);
  static test_value of_float32(float v);
  static test_value of_float64(double v);
  static test_value of_str(std::string v);
  static test_value of_bin(std::string v);
  static test_value of_ext(std::int8_t type, std::string payload);
  static test_value of_array(std::vector<test_value> v);
  static test_value of_map(std::vector<test_entry> v);

  bool is_container() const { return k == kind::array || k == kind::map; }

  friend bool operator==(const test_value& a, const test_value& c);
};

/// A map entry: a (key, value) pair.
struct test_entry {
  test_value key;
  test_value value;
  friend bool operator==(const test_entry&, const test_entry&) = default;
};

inline test_value test_value::nil() {
  return {};
}
inline test_value test_value::of_bool(bool v) {
  test_value t;
  t.k = kind::boolean;
  t.b = v;
  return t;
}
inline test_value test_value::of_uint(std::uint64_t v) {
  test_value t;
  t.k = kind::uint;
  t.u = v;
  return t;
}
inline test_value test_value::of_sint(std::int64_t v) {
  test_value t;
  t.k = kind::sint;
  t.i = v;
  return t;
}
inline test_value test_value::of_int(std::int64_t v) {
  return v >= 0 ? of_uint(static_cast<std::uint64_t>(v)) : of_sint(v);
}
inline test_value test_value::of_float32(float v) {
  test_value t;
  t.k = kind::float32;
  t.f32 = v;
  return t;
}
inline test_value test_value::of_float64(double v) {
  test_value t;
  t.k = kind::float64;
  t.f64 = v;
  return t;
}
inline test_value test_value::of_str(std::string v) {
  test_value t;
  t.k = kind::str;
  t.data = std::move(v);
  return t;
}
inline test_value test_value::of_bin(std::string v) {
  test_value t;
  t.k = kind::bin;
  t.data = std::move(v);
  return t;
}
inline test_value test_value::of_ext(std::int8_t type, std::string payload) {
  test_value t;
  t.k = kind::ext;
  t.ext_type = type;
  t.data = std::move(payload);
  return t;
}
inline test_value test_value::of_array(std::vector<test_value> v) {
  test_value t;
  t.k = kind::array;
  t.items = std::move(v);
  return t;
}
inline test_value test_value::of_map(std::vector<test_entry> v) {
  test_value t;
  t.k = kind::map;
  t.entries = std::move(v);
  return t;
}

inline bool operator==(const test_value& a, const test_value& c) {
  using kind = test_value::kind;
  if (a.k != c.k) return false;
  switch (a.k) {
    case kind::nil:
      return true;
    case kind::boolean:
      return a.b == c.b;
    case kind::uint:
      return a.u == c.u;
    case kind::sint:
      return a.i == c.i;
    case kind::float32:
      return std::bit_cast<std::uint32_t>(a.f32) == std::bit_cast<std::uint32_t>(c.f32);
    case kind::float64:
      return std::bit_cast<std::uint64_t>(a.f64) == std::bit_cast<std::uint64_t>(c.f64);
    case kind::str:
    case kind::bin:
      return a.data == c.data;
    case kind::ext:
      return a.ext_type == c.ext_type && a.data == c.data;
    case kind::array:
      return a.items == c.items;
    case kind::map:
      return a.entries == c.entries;
  }
  return false;
}

inline const char* kind_name(test_value::kind k) {
  constexpr const char* names[] = {"nil", "bool", "uint", "sint",  "float32", "float64",
                                   "str", "bin",  "ext",  "array", "map"};
  return names[static_cast<std::size_t>(k)];
}

namespace detail {
inline void append_hex(std::string& out, std::string_view bytes, std::size_t max) {
  char cell[4];
  for (std::size_t n = 0; n < bytes.size() && n < max; ++n) {
    std::snprintf(cell, sizeof cell, "%02x",
                  static_cast<unsigned>(static_cast<unsigned char>(bytes[n])));
    out += cell;
  }
  if (bytes.size() > max) out += "...";
}

inline void describe_into(std::string& out, const test_value& v, std::size_t budget) {
  using K = test_value::kind;
  if (out.size() > budget) {
    out += "...";
    return;
  }
  char num[64];
  switch (v.k) {
    case K::nil:
      out += "nil";
      return;
    case K::boolean:
      out += v.b ? "true" : "false";
      return;
    case K::uint:
      std::snprintf(num, sizeof num, "%llu", static_cast<unsigned long long>(v.u));
      out += num;
      return;
    case K::sint:
      std::snprintf(num, sizeof num, "i%lld", static_cast<long long>(v.i));
      out += num;
      return;
    case K::float32:
      std::snprintf(num, sizeof num, "%af32(%08x)", static_cast<double>(v.f32),
                    std::bit_cast<std::uint32_t>(v.f32));
      out += num;
      return;
    case K::float64:
      std::snprintf(num, sizeof num, "%a(%016llx)", v.f64,
                    static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(v.f64)));
      out += num;
      return;
    case K::str:
      std::snprintf(num, sizeof num, "str%zu:", v.data.size());
      out += num;
      append_hex(out, v.data, 16);
      return;
    case K::bin:
      std::snprintf(num, sizeof num, "bin%zu:", v.data.size());
      out += num;
      append_hex(out, v.data, 16);
      return;
    case K::ext:
      std::snprintf(num, sizeof num, "ext(%d)%zu:", v.ext_type, v.data.size());
      out += num;
      append_hex(out, v.data, 16);
      return;
    case K::array:
      out += '[';
      for (std::size_t n = 0; n < v.items.size(); ++n) {
        if (n != 0) out += ", ";
        describe_into(out, v.items[n], budget);
      }
      out += ']';
      return;
    case K::map:
      out += '{';
      for (std::size_t n = 0; n < v.entries.size(); ++n) {
        if (n != 0) out += ", ";
        describe_into(out, v.entries[n].key, budget);
        out += ": ";
        describe_into(out, v.entries[n].value, budget);
      }
      out += '}';
      return;
  }
}
}  // namespace detail

/// A short readable form of a tree for failure messages (cut after about 1000 characters).
inline std::string describe(const test_value& v) {
  std::string out;
  detail::describe_into(out, v, 1000);
  return out;
}

/// GoogleTest printer.
inline void PrintTo(const test_value& v, std::ostream* os) {
  *os << describe(v);
}

/// Number of nodes in the tree (every value, key and element counts one).
inline std::size_t node_count(const test_value& v) {
  std::size_t n = 1;
  for (const auto& item : v.items)
    n += node_count(item);
  for (const auto& [key, value] : v.entries)
    n += node_count(key) + node_count(value);
  return n;
}

// --- writing and reading -----------------------------------------------------------------

/// Writes `v` with `w`. Integers use implicit typing (smallest form); a `sint` that is
/// not negative (only read from non-minimal input, never generated) is written in the
/// smallest int8..int64 form that holds it, so that its family survives.
template <class S>
void write(mpk::writer<S>& w, const test_value& v) {
  using K = test_value::kind;
  switch (v.k) {
    case K::nil:
      w.write_nil();
      return;
    case K::boolean:
      w.write(v.b);
      return;
    case K::uint:
      w.write_unsigned(v.u);
      return;
    case K::sint:
      if (v.i < 0)
        w.write_signed(v.i);
      else if (v.i <= std::numeric_limits<std::int8_t>::max())
        w.write_int8(static_cast<std::int8_t>(v.i));
      else if (v.i <= std::numeric_limits<std::int16_t>::max())
        w.write_int16(static_cast<std::int16_t>(v.i));
      else if (v.i <= std::numeric_limits<std::int32_t>::max())
        w.write_int32(static_cast<std::int32_t>(v.i));
      else
        w.write_int64(v.i);
      return;
    case K::float32:
      w.write_float32(v.f32);
      return;
    case K::float64:
      w.write_float64(v.f64);
      return;
    case K::str:
      w.write_str(v.data);
      return;
    case K::bin:
      w.write_bin(std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data.data()),
                                             v.data.size()));
      return;
    case K::ext:
      w.write_ext(v.ext_type,
                  std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data.data()),
                                             v.data.size()));
      return;
    case K::array:
      w.begin_array(v.items.size());
      for (const auto& item : v.items)
        write(w, item);
      return;
    case K::map:
      w.begin_map(v.entries.size());
      for (const auto& [key, value] : v.entries) {
        write(w, key);
        write(w, value);
      }
      return;
  }
}

/// The bytes of `v` written by a default mpk::writer into an mpk::buffer.
inline std::vector<std::byte> encode(const test_value& v, mpk::writer_options options = {}) {
  mpk::buffer buf;
  mpk::writer w(buf, options);
  write(w, v);
  if (!w.ok()) return {};
  const auto bytes = buf.bytes();
  return {bytes.begin(), bytes.end()};
}

/// Reads the next value, whatever it is: peek() for its family, then the matching read.
/// After an error the result is incomplete: check `r.error()`.
template <class Policy>
test_value read(mpk::basic_reader<Policy>& r) {
  switch (r.peek()) {
    case mpk::type::nil:
      r.read_nil();
      return test_value::nil();
    case mpk::type::boolean:
      return test_value::of_bool(r.template read<bool>());
    case mpk::type::uint:
      return test_value::of_uint(r.template read<std::uint64_t>());
    case mpk::type::sint:
      return test_value::of_sint(r.template read<std::int64_t>());
    case mpk::type::float32:
      return test_value::of_float32(r.template read<float>());
    case mpk::type::float64:
      return test_value::of_float64(r.template read<double>());
    case mpk::type::str:
      return test_value::of_str(std::string(r.read_string_view()));
    case mpk::type::bin: {
      const auto b = r.read_bin();
      return test_value::of_bin(std::string(reinterpret_cast<const char*>(b.data()), b.size()));
    }
    case mpk::type::ext: {
      const mpk::ext_view e = r.read_ext();
      return test_value::of_ext(
          e.type, std::string(reinterpret_cast<const char*>(e.data.data()), e.data.size()));
    }
    case mpk::type::array: {
      const std::uint32_t n = r.read_array_header();  // n is bounded by the bytes left
      test_value v = test_value::of_array({});
      v.items.reserve(n);
      for (std::uint32_t j = 0; j < n && r.ok(); ++j)
        v.items.push_back(read(r));
      return v;
    }
    case mpk::type::map: {
      const std::uint32_t n = r.read_map_header();
      test_value v = test_value::of_map({});
      v.entries.reserve(n);
      for (std::uint32_t j = 0; j < n && r.ok(); ++j) {
        test_value key = read(r);
        test_value value = read(r);
        v.entries.push_back({std::move(key), std::move(value)});
      }
      return v;
    }
    case mpk::type::invalid:
      break;
  }
  return test_value::nil();  // peek() recorded the error
}

// --- the generator -----------------------------------------------------------------------

/// What random trees may hold.
struct random_options {
  /// Generate float32 values (peers that widen float32 to float64 want them off).
  bool float32 = true;
  /// Generate ext values; `negative_ext_types` allows the types -128..-1 the specification
  /// reserves (-1 is the timestamp). msgpack-python wants them off: it decodes -1 as a
  /// Timestamp (4, 8 or 12 bytes only, re-packed in its smallest form) and refuses any other
  /// negative type ("code must be 0~127").
  bool ext = true;
  bool negative_ext_types = true;
  /// Map keys: `any` value at all (unique by test_value equality); `python`: keys that are
  /// hashable in msgpack-python (unpacked with use_list=False) and distinct by Python's
  /// equality too: nil, integers, str, bin, non-integral finite floats, ext, and arrays (tuples) of
  /// nil, integers and str. No booleans (True == 1), no integral floats (1.0 == 1), no maps (dicts
  /// are unhashable).
  enum class key_policy : std::uint8_t { any, python } keys = key_policy::any;
  /// A soft cap on the nodes of one top-level value, so 16-element containers stay
  /// affordable at every depth.
  std::size_t max_nodes = 200;
};

/// Integer boundaries of the wire format, as the generator weights them in.
inline constexpr std::uint64_t uint_edges[] = {0,
                                               1,
                                               0x7f,
                                               0x80,
                                               0xff,
                                               0x100,
                                               0xffff,
                                               0x10000,
                                               0xffffffff,
                                               0x100000000,
                                               0x7fffffffffffffff,
                                               0x8000000000000000,
                                               0xffffffffffffffff};
inline constexpr std::int64_t sint_edges[] = {-1,
                                              -32,
                                              -33,
                                              -128,
                                              -129,
                                              -32768,
                                              -32769,
                                              -2147483647 - 1,
                                              -2147483649LL,
                                              std::numeric_limits<std::int64_t>::min(),
                                              std::numeric_limits<std::int64_t>::min() + 1};
/// Lengths that cross a str, bin or ext header boundary (the 16- and 32-bit boundaries,
/// 65535/65536, are in the fixed boundary sets of the tests: too large for random trees).
inline constexpr std::size_t str_length_edges[] = {0, 1, 31, 32, 255, 256};
inline constexpr std::size_t ext_length_edges[] = {0, 1, 2, 3, 4, 5, 8, 15, 16, 17, 255, 256};
inline constexpr std::size_t container_size_edges[] = {0, 1, 15, 16, 17};

/// Valid UTF-8 of exactly `n` bytes, with 1-, 2-, 3- and 4-byte sequences mixed in.
template <class Rng>
std::string random_utf8(Rng& rng, std::size_t n) {
  std::string s;
  s.reserve(n);
  const bool ascii_only = rng() % 4 == 0;
  while (s.size() < n) {
    const std::size_t room = n - s.size();
    std::uint32_t cp;
    const unsigned pick = ascii_only ? 0 : static_cast<unsigned>(rng() % 8);
    if (pick <= 3 || room < 2) {
      cp = rng() % 16 == 0 ? static_cast<std::uint32_t>(rng() % 0x20)          // controls, NUL
                           : static_cast<std::uint32_t>(0x20 + rng() % 0x5f);  // printable
    } else if (pick == 4 || room < 3) {
      cp = static_cast<std::uint32_t>(0x80 + rng() % (0x800 - 0x80));
    } else if (pick <= 6 || room < 4) {
      do {
        cp = static_cast<std::uint32_t>(0x800 + rng() % (0x10000 - 0x800));
      } while (cp >= 0xd800 && cp <= 0xdfff);  // no surrogates
    } else {
      cp = static_cast<std::uint32_t>(0x10000 + rng() % (0x110000 - 0x10000));
    }
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xc0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xe0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      s += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      s += static_cast<char>(0xf0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      s += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  return s;
}

/// Random trees. Deterministic for a given engine state (only mt19937_64 outputs are used,
/// no standard distributions, so the sequence is the same with every standard library).
class value_generator {
 public:
  using kind = test_value::kind;

  explicit value_generator(std::mt19937_64& rng, random_options options = {})
      : rng_(rng), options_(options) {}

  /// A tree with containers nested at most `max_depth` deep (0: a scalar).
  test_value value(int max_depth) {
    budget_ = options_.max_nodes;
    if (max_depth > 0 && below(5) != 0) {  // mostly a container at the top
      --budget_;
      return one_in(2) ? array(max_depth) : map(max_depth);
    }
    return node(max_depth);
  }

  /// Uniform in [0, n) (n > 0); the modulo bias does not matter here.
  std::uint64_t below(std::uint64_t n) { return rng_() % n; }
  bool one_in(std::uint64_t n) { return below(n) == 0; }
  /// below(n) as a size or an index (n fits size_t, so the result does).
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(below(n)); }

  std::uint64_t random_uint() {
    if (one_in(3)) return uint_edges[below(std::size(uint_edges))];
    return rng_() >> below(64);  // every magnitude equally likely
  }
  std::int64_t random_negative() {
    if (one_in(3)) return sint_edges[below(std::size(sint_edges))];
    const std::uint64_t magnitude = (rng_() >> below(64)) >> 1;  // 0 .. 2^63-1
    return -1 - static_cast<std::int64_t>(magnitude);            // -2^63 .. -1
  }
  double random_float64() {
    static constexpr double edges[] = {
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        0.1,
        127.0,
        128.0,
        -33.0,
        4294967296.0,
        9007199254740992.0,     // 2^53
        9223372036854775808.0,  // 2^63
        -9223372036854775808.0,
        1e300,
        -1e-300,
        std::numeric_limits<double>::min(),
        std::numeric_limits<double>::denorm_min(),
        std::numeric_limits<double>::max(),
        -std::numeric_limits<double>::max(),
        std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN(),
        -std::numeric_limits<double>::quiet_NaN(),
        std::bit_cast<double>(std::uint64_t{0x7ff8000000000123}),  // NaN with a payload
        3.141592653589793};
    switch (below(5)) {
      case 0:
        return edges[below(std::size(edges))];
      case 1:
        return std::bit_cast<double>(rng_());  // any bits: denormals, NaN payloads...
      case 2:
        return static_cast<double>(static_cast<std::int64_t>(below(2001)) - 1000);
      default:
        return static_cast<double>(static_cast<std::int64_t>(below(2000001)) - 1000000) / 1024.0;
    }
  }
  float random_float32() {
    static constexpr float edges[] = {0.0f,
                                      -0.0f,
                                      1.0f,
                                      -1.0f,
                                      0.5f,
                                      0.1f,
                                      16777216.0f,
                                      -3.25f,
                                      std::numeric_limits<float>::min(),
                                      std::numeric_limits<float>::denorm_min(),
                                      std::numeric_limits<float>::max(),
                                      -std::numeric_limits<float>::max(),
                                      std::numeric_limits<float>::infinity(),
                                      -std::numeric_limits<float>::infinity(),
                                      std::numeric_limits<float>::quiet_NaN()};
    switch (below(4)) {
      case 0:
        return edges[below(std::size(edges))];
      case 1:
        return std::bit_cast<float>(static_cast<std::uint32_t>(rng_()));
      case 2:
        return static_cast<float>(static_cast<int>(below(201)) - 100);
      default:
        return static_cast<float>(static_cast<int>(below(200001)) - 100000) / 64.0f;
    }
  }
  std::size_t random_length() {
    if (one_in(2)) return str_length_edges[below(std::size(str_length_edges))];
    return one_in(4) ? pick(300) : pick(24);
  }
  std::string random_bytes(std::size_t n) {
    std::string s(n, '\0');
    for (auto& c : s)
      c = static_cast<char>(rng_() & 0xff);
    return s;
  }
  std::int8_t random_ext_type() {
    std::int8_t t;
    do {
      static constexpr std::int8_t edges[] = {0, 1, 127, -128, -1, -2};
      t = one_in(2) ? edges[below(std::size(edges))]
                    : static_cast<std::int8_t>(static_cast<int>(below(256)) - 128);
    } while (t < 0 && !options_.negative_ext_types);
    return t;
  }

  /// A scalar of any kind the options allow.
  test_value scalar() {
    for (;;) {
      switch (below(10)) {
        case 0:
          return one_in(2) ? test_value::nil() : test_value::of_bool(one_in(2));
        case 1:
        case 2:
          return test_value::of_uint(random_uint());
        case 3:
        case 4:
          return test_value::of_sint(random_negative());
        case 5:
          if (!options_.float32) continue;
          return test_value::of_float32(random_float32());
        case 6:
          return test_value::of_float64(random_float64());
        case 7:
          return test_value::of_str(random_utf8(rng_, random_length()));
        case 8:
          return test_value::of_bin(random_bytes(random_length()));
        default: {
          if (!options_.ext) continue;
          const std::size_t n =
              one_in(2) ? ext_length_edges[pick(std::size(ext_length_edges))] : pick(40);
          return test_value::of_ext(random_ext_type(), random_bytes(n));
        }
      }
    }
  }

 private:
  test_value node(int depth) {
    if (budget_ > 0) --budget_;
    if (depth <= 0 || budget_ == 0 || below(5) >= 2) return scalar();
    return one_in(2) ? array(depth) : map(depth);
  }

  std::size_t container_size() {
    std::size_t n =
        one_in(3) ? container_size_edges[pick(std::size(container_size_edges))] : pick(6);
    return n <= budget_ ? n : budget_;
  }

  test_value array(int depth) {
    const std::size_t n = container_size();
    test_value v = test_value::of_array({});
    v.items.reserve(n);
    for (std::size_t j = 0; j < n; ++j)
      v.items.push_back(node(depth - 1));
    return v;
  }

  test_value map(int depth) {
    const std::size_t n = container_size();
    test_value v = test_value::of_map({});
    v.entries.reserve(n);
    for (std::size_t j = 0; j < n; ++j) {
      // Keys are unique: draw again on a collision, give the entry up after a few tries.
      for (int attempt = 0; attempt < 8; ++attempt) {
        test_value key = this->key(depth - 1);
        bool seen = false;
        for (const auto& entry : v.entries)
          seen = seen || entry.key == key;
        if (!seen) {
          v.entries.push_back({std::move(key), node(depth - 1)});
          break;
        }
      }
    }
    return v;
  }

  test_value key(int depth) {
    if (options_.keys == random_options::key_policy::any)
      return one_in(3) ? node(depth)
                       : (one_in(2) ? test_value::of_str(random_utf8(rng_, pick(12))) : scalar());
    if (budget_ > 0) --budget_;
    return python_key(depth > 0);
  }

  test_value python_key(bool allow_tuple) {
    for (;;) {
      switch (below(allow_tuple ? 9 : 8)) {
        case 0:
          return test_value::nil();
        case 1:
          return test_value::of_uint(random_uint());
        case 2:
          return test_value::of_sint(random_negative());
        case 3:
        case 4:
          return test_value::of_str(random_utf8(rng_, one_in(4) ? random_length() : pick(12)));
        case 5:
          return test_value::of_bin(random_bytes(pick(12)));
        case 6: {
          const double d = random_float64();
          if (!std::isfinite(d) || d == std::trunc(d)) continue;  // 1.0 == 1 in Python
          return test_value::of_float64(d);
        }
        case 7: {
          if (!options_.ext) continue;
          return test_value::of_ext(random_ext_type(), random_bytes(pick(10)));
        }
        default: {
          // A tuple of nil / integers / str: never equal to an ExtType (a tuple of int and bytes).
          test_value t = test_value::of_array({});
          const std::size_t n = pick(4);
          for (std::size_t j = 0; j < n; ++j) {
            switch (below(4)) {
              case 0:
                t.items.push_back(test_value::nil());
                break;
              case 1:
                t.items.push_back(test_value::of_uint(random_uint()));
                break;
              case 2:
                t.items.push_back(test_value::of_sint(random_negative()));
                break;
              default:
                t.items.push_back(test_value::of_str(random_utf8(rng_, pick(8))));
                break;
            }
          }
          return t;
        }
      }
    }
  }

  std::mt19937_64& rng_;
  random_options options_;
  std::size_t budget_ = 0;
};

/// Fixed values at the encoding boundaries too large for random trees: str and bin of
/// 0/31/32/255/256/65535/65536 bytes, ext of 0..17/255/256/65535/65536 bytes (types >= 0),
/// arrays and maps of 0/15/16/65535/65536 elements, and arrays nested 300 deep (beyond a
/// walk's 64 inline levels, inside the default max_depth of 512).
inline std::vector<test_value> boundary_values() {
  std::mt19937_64 rng(7);
  std::vector<test_value> out;
  for (std::size_t n : {0u, 31u, 32u, 255u, 256u, 65535u, 65536u}) {
    out.push_back(test_value::of_str(random_utf8(rng, n)));
    out.push_back(test_value::of_bin(std::string(n, '\xa5')));
  }
  for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 8u, 15u, 16u, 17u, 255u, 256u, 65535u, 65536u})
    out.push_back(test_value::of_ext(static_cast<std::int8_t>(n % 100), std::string(n, 'x')));
  for (std::size_t n : {0u, 15u, 16u, 65535u, 65536u}) {
    std::vector<test_value> items;
    std::vector<test_entry> entries;
    items.reserve(n);
    entries.reserve(n);
    for (std::size_t j = 0; j < n; ++j) {
      items.push_back(j % 2 ? test_value::of_uint(j)
                            : test_value::of_sint(-1 - static_cast<std::int64_t>(j % 300)));
      entries.push_back({test_value::of_uint(j), test_value::of_str(j % 3 ? "v" : "")});
    }
    out.push_back(test_value::of_array(std::move(items)));
    out.push_back(test_value::of_map(std::move(entries)));
  }
  test_value deep = test_value::of_str("bottom");
  for (int d = 0; d < 300; ++d) {
    test_value outer = test_value::of_array({});
    outer.items.push_back(test_value::of_uint(static_cast<std::uint64_t>(d)));
    outer.items.push_back(std::move(deep));
    deep = std::move(outer);
  }
  out.push_back(std::move(deep));
  return out;
}

/// A random tree with containers nested at most `max_depth` deep.
inline test_value random_value(std::mt19937_64& rng, int max_depth, random_options options = {}) {
  value_generator gen(rng, options);
  return gen.value(max_depth);
}

}  // namespace mpk_test
