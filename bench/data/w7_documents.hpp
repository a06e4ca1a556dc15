// bench/data/w7_documents.hpp - workload W7 documents (docs/workloads.md, normative).
//
// The msgpackr / notepack / msgpack-lite documents, each written canonically by a function of
// this header (mpk_gen writes the reference encodings with write_case(); mpk_bench times
// them). docs/workloads.md only names medium, large and example: they are reconstructed as
// docs/benchmark-suite.md ("Reconstructed data") describes, the same way in every language.
//
//   tiny     {foo: 1, bar: "abc"}
//   small    {foo: 1, bar: [1, 2, 3, 4, "abc", "def"], foobar: {foo: true,
//            bar: -2147483649, foobar: {foo: bin(01..05), bar: 1.5, foobar: [true, false,
//            "abcdefghijkmonpqrstuvwxyz"]}}}
//   medium   notepack's benchmarks/data.js (32 map entries); large: 1024 entries and binaries
//   example  msgpack-lite's test/example.json (24 keys)
//   stream   1,000,000 messages ["tag", [[1440949922, {"message": "hi there"}]]]
//   records  map_list: 32 objects {"key": "a"*i, "value": "a"*i, "index": i}
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpk_bench::documents {

/// The 62-character alphabet A-Z a-z 0-9 repeated and cut to n bytes (docs/workloads.md W2).
inline std::string alphabet(std::size_t n) {
  static constexpr std::string_view abc =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  s.reserve(n);
  for (std::size_t k = 0; k < n; ++k)
    s.push_back(abc[k % abc.size()]);
  return s;
}

/// Binary of n bytes, byte k = (k * 31 + 7) & 0xff (docs/workloads.md W2).
inline std::string pattern_bin(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t k = 0; k < n; ++k)
    s[k] = static_cast<char>((k * 31 + 7) & 0xff);
  return s;
}

template <class Writer>
void write_tiny(Writer& w) {
  w.begin_map(2);
  w.write("foo");
  w.write(1);
  w.write("bar");
  w.write("abc");
}

template <class Writer>
void write_small(Writer& w) {
  static constexpr std::byte five[] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
                                       std::byte{5}};
  w.begin_map(3);
  w.write("foo");
  w.write(1);
  w.write("bar");
  w.begin_array(6);
  for (int v = 1; v <= 4; ++v)
    w.write(v);
  w.write("abc");
  w.write("def");
  w.write("foobar");
  w.begin_map(3);
  w.write("foo");
  w.write(true);
  w.write("bar");
  w.write(std::int64_t{-2147483649});
  w.write("foobar");
  w.begin_map(3);
  w.write("foo");
  w.write(std::span<const std::byte>(five));
  w.write("bar");
  w.write(1.5);
  w.write("foobar");
  w.begin_array(3);
  w.write(true);
  w.write(false);
  w.write("abcdefghijkmonpqrstuvwxyz");
}

/// medium (32 map entries) or large (1024 map entries, and three binaries).
template <class Writer>
void write_medium_or_large(Writer& w, bool large) {
  const std::size_t entries = large ? 1024 : 32;
  w.begin_map(large ? 9 : 8);
  w.write("unsigned");
  w.begin_array(53);
  for (int k = 0; k <= 52; ++k)
    w.write(std::uint64_t{1} << k);
  w.write("signed");
  w.begin_array(53);
  for (int k = 0; k <= 52; ++k)
    w.write(-static_cast<std::int64_t>(std::uint64_t{1} << k));
  if (large) {
    w.write("bin");
    w.begin_array(3);
    for (std::size_t n : {std::size_t{256}, std::size_t{65536}, std::size_t{1} << 20})
      w.write(std::span<const std::byte>(mpk::as_bytes(pattern_bin(n))));
  }
  w.write("str");
  w.begin_array(3);
  w.write("abc");
  w.write(std::string_view(std::string(32, 'g')));
  w.write(std::string_view(std::string(256, 'h')));
  w.write("array");
  w.begin_array(4);
  w.begin_array(0);
  w.begin_array(3);
  w.write(1);
  w.write(2);
  w.write(3);
  w.begin_array(3);
  w.write("a");
  w.write("b");
  w.write("c");
  w.begin_array(3);
  for (int v = 1; v <= 3; ++v) {
    w.begin_array(1);
    w.write(v);
  }
  w.write("map");
  // Keys "a"*i -> "a"*i, then "b"*i -> bin of i bytes 'b'; i = 0 writes "" twice, and the
  // later binary replaces the string in place: "" -> empty binary, first.
  w.begin_map(2 * entries - 1);
  w.write("");
  w.write(std::span<const std::byte>());
  for (std::size_t i = 1; i < entries; ++i) {
    const std::string a(i, 'a'), bb(i, 'b');
    w.write(std::string_view(a));
    w.write(std::string_view(a));
    w.write(std::string_view(bb));
    w.write(mpk::as_bytes(bb));
  }
  w.write("nil");
  w.write_nil();
  w.write("bool");
  w.begin_map(3);
  w.write("true");
  w.write(true);
  w.write("false");
  w.write(false);
  w.write("both");
  w.begin_array(2);
  w.write(true);
  w.write(false);
  w.write("undefined");
  w.begin_array(5);
  w.write_nil();
  w.write(true);
  w.write(false);
  w.write_nil();
  w.write_nil();
}

template <class Writer>
void write_example(Writer& w) {
  w.begin_map(24);
  const std::pair<const char*, std::int64_t> ints[] = {
      {"int0", 0},    {"int1", 1},      {"int1-", -1},    {"int8", 255},     {"int8-", -255},
      {"int16", 256}, {"int16-", -256}, {"int32", 65536}, {"int32-", -65536}};
  for (auto [k, v] : ints) {
    w.write(k);
    w.write(v);
  }
  w.write("nil");
  w.write_nil();
  w.write("true");
  w.write(true);
  w.write("false");
  w.write(false);
  w.write("float");
  w.write(0.5);
  w.write("float-");
  w.write(-0.5);
  w.write("string0");
  w.write("");
  w.write("string1");
  w.write("A");
  w.write("string4");
  w.write("foobarbaz");
  w.write("string8");
  w.write("Omnes viae Romam ducunt.");
  w.write("string16");
  w.write(std::string_view(alphabet(641)));
  w.write("array0");
  w.begin_array(0);
  w.write("array1");
  w.begin_array(1);
  w.write("foo");
  w.write("array8");
  w.begin_array(21);
  for (int k = 0; k <= 20; ++k)
    w.write(std::int64_t{1} << k);
  w.write("map0");
  w.begin_map(0);
  w.write("map1");
  w.begin_map(1);
  w.write("foo");
  w.write("bar");
}

/// The documents of the encode and decode cases (mpk_gen: documents/<name>.msgpack).
inline constexpr std::array<std::string_view, 5> case_names = {"tiny", "small", "medium", "large",
                                                               "example"};

/// Writes the document `name` (one of case_names) canonically; false for an unknown name.
template <class Writer>
bool write_case(Writer& w, std::string_view name) {
  if (name == "tiny")
    write_tiny(w);
  else if (name == "small")
    write_small(w);
  else if (name == "medium" || name == "large")
    write_medium_or_large(w, name == "large");
  else if (name == "example")
    write_example(w);
  else
    return false;
  return true;
}

// --- stream ------------------------------------------------------------------------------

/// Messages in the `stream` case (full run).
inline constexpr std::size_t stream_messages = 1'000'000;
/// Messages in the `stream` case with --quick.
inline constexpr std::size_t quick_stream_messages = 100'000;

inline constexpr std::string_view stream_tag = "tag";
inline constexpr std::int64_t stream_time = 1440949922;
inline constexpr std::string_view stream_text = "hi there";

/// One message of the stream: ["tag", [[1440949922, {"message": "hi there"}]]].
template <class Writer>
void write_stream_message(Writer& w) {
  w.begin_array(2);
  w.write(stream_tag);
  w.begin_array(1);
  w.begin_array(2);
  w.write(stream_time);
  w.begin_map(1);
  w.write("message");
  w.write(stream_text);
}

// --- records ----------------------------------------------------------------------------

/// One object of map_list: the medium document's `map` entries as same-shaped objects.
struct map_list_entry {
  std::string key;
  std::string value;
  std::int64_t index = 0;
};

inline constexpr std::size_t map_list_size = 32;

/// map_list: 32 objects {"key": "a"*i, "value": "a"*i, "index": i}. (The records case also
/// uses W5's beer_list in map mode.)
inline std::vector<map_list_entry> map_list() {
  std::vector<map_list_entry> v;
  for (std::size_t i = 0; i < map_list_size; ++i)
    v.push_back({std::string(i, 'a'), std::string(i, 'a'), static_cast<std::int64_t>(i)});
  return v;
}

/// Writes map_list as plain maps (mpk_gen: documents/map_list_maps.msgpack).
template <class Writer>
void write_map_list(Writer& w) {
  const auto list = map_list();
  w.begin_array(list.size());
  for (const map_list_entry& e : list) {
    w.begin_map(3);
    w.write("key");
    w.write(std::string_view(e.key));
    w.write("value");
    w.write(std::string_view(e.value));
    w.write("index");
    w.write(e.index);
  }
}

}  // namespace mpk_bench::documents
