// Differential tests against msgpack-python (the Debian package python3-msgpack), through
// tests/interop/python_peer.py:
//   1. mpk writes seeded random values (and then the same values again as one array) to a
//      file; the peer unpacks each and packs it again with msgpack.packb(use_bin_type=True);
//      python's bytes must equal mpk's, and mpk must read them back to the original values.
//   2. The peer generates values of its own, packs them and describes them in JSON; mpk must
//      read python's bytes to the described values and write the described values to
//      python's exact bytes.
//
// The values mpk sends hold no float32 (Python widens it to a double and packs float64), no
// negative ext type (msgpack-python decodes -1 as a Timestamp and refuses the others) and
// only map keys that Python can hash and does not merge (see random_options::key_policy).
//
// The interpreter is MPK_TEST_PYTHON3 (default /usr/bin/python3, the one that sees Debian's
// python3-msgpack); a missing interpreter or module fails the tests, it never skips them.
#include <mpk/reader.hpp>
#include <mpk/writer.hpp>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "support/hex.hpp"
#include "support/random_value.hpp"

#ifndef MPK_TEST_PYTHON3
#define MPK_TEST_PYTHON3 "/usr/bin/python3"
#endif
#ifndef MPK_TEST_PYTHON_PEER
#error "MPK_TEST_PYTHON_PEER must name tests/interop/python_peer.py"
#endif

using mpk_test::describe;
using mpk_test::encode;
using mpk_test::test_value;
using mpk_test::to_hex;
using kind = test_value::kind;

namespace {

constexpr std::uint64_t corpus_seed = 0x6d706b2d70793031;  // "mpk-py01"
constexpr std::size_t random_count = 800;

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!in || ec) throw std::runtime_error("cannot open " + path.string());
  std::vector<std::byte> bytes(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return bytes;
}

void write_file(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// --- the descriptions of python_peer.py: JSON arrays of strings -------------------------

struct json_node {
  bool is_array = false;
  std::string text;              // a string
  std::vector<json_node> items;  // an array
};

// Parses the subset of JSON the peer writes: arrays and strings without escapes.
class json_parser {
 public:
  explicit json_parser(std::string_view text) : s_(text) {}

  json_node parse() {
    json_node n = value();
    space();
    if (p_ != s_.size()) fail("trailing characters");
    return n;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("python_peer.py JSON: ") + what + " at offset " +
                             std::to_string(p_));
  }
  void space() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\r' || s_[p_] == '\t'))
      ++p_;
  }
  json_node value() {
    space();
    if (p_ >= s_.size()) fail("unexpected end");
    json_node n;
    if (s_[p_] == '"') {
      const std::size_t close = s_.find('"', p_ + 1);
      if (close == std::string_view::npos) fail("unterminated string");
      n.text = std::string(s_.substr(p_ + 1, close - p_ - 1));
      if (n.text.find('\\') != std::string::npos) fail("escapes are not expected");
      p_ = close + 1;
      return n;
    }
    if (s_[p_] != '[') fail("expected '[' or '\"'");
    ++p_;
    n.is_array = true;
    space();
    if (p_ < s_.size() && s_[p_] == ']') {
      ++p_;
      return n;
    }
    for (;;) {
      n.items.push_back(value());
      space();
      if (p_ >= s_.size()) fail("unterminated array");
      if (s_[p_] == ']') {
        ++p_;
        return n;
      }
      if (s_[p_] != ',') fail("expected ',' or ']'");
      ++p_;
    }
  }

  std::string_view s_;
  std::size_t p_ = 0;
};

std::string unhex(const std::string& text) {
  const std::vector<std::byte> bytes = mpk_test::hex(text);
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

template <class T>
T number(const std::string& text) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw std::runtime_error("python_peer.py JSON: bad number " + text);
  return v;
}

std::uint64_t number_hex(const std::string& text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc() || end != text.data() + text.size() || text.size() != 16)
    throw std::runtime_error("python_peer.py JSON: bad float bits " + text);
  return v;
}

// A description (see python_peer.py) as a tree.
test_value from_description(const json_node& d) {
  if (!d.is_array || d.items.empty() || d.items[0].is_array)
    throw std::runtime_error("python_peer.py JSON: a description is [\"tag\", ...]");
  const std::string& tag = d.items[0].text;
  auto arg = [&](std::size_t j) -> const std::string& {
    if (j >= d.items.size() || d.items[j].is_array)
      throw std::runtime_error("python_peer.py JSON: bad " + tag);
    return d.items[j].text;
  };
  if (tag == "nil") return test_value::nil();
  if (tag == "bool") return test_value::of_bool(arg(1) == "1");
  if (tag == "uint") return test_value::of_uint(number<std::uint64_t>(arg(1)));
  if (tag == "int") return test_value::of_sint(number<std::int64_t>(arg(1)));
  if (tag == "f64") return test_value::of_float64(std::bit_cast<double>(number_hex(arg(1))));
  if (tag == "str") return test_value::of_str(unhex(arg(1)));
  if (tag == "bin") return test_value::of_bin(unhex(arg(1)));
  if (tag == "ext")
    return test_value::of_ext(static_cast<std::int8_t>(number<int>(arg(1))), unhex(arg(2)));
  if (tag == "array") {
    test_value v = test_value::of_array({});
    v.items.reserve(d.items.size() - 1);
    for (std::size_t j = 1; j < d.items.size(); ++j)
      v.items.push_back(from_description(d.items[j]));
    return v;
  }
  if (tag == "map") {
    test_value v = test_value::of_map({});
    v.entries.reserve(d.items.size() / 2);
    for (std::size_t j = 1; j + 1 < d.items.size(); j += 2)
      v.entries.push_back({from_description(d.items[j]), from_description(d.items[j + 1])});
    return v;
  }
  throw std::runtime_error("python_peer.py JSON: unknown tag " + tag);
}

// --- one run of the peer ------------------------------------------------------------------

struct python_run {
  std::vector<test_value> sent;                    // what mpk wrote, in order
  std::vector<std::vector<std::byte>> sent_bytes;  // mpk's bytes of each
  std::vector<std::byte> reencoded;                // python's re-encodings, back to back
  std::vector<std::byte> own;                      // python's own values, back to back
  std::vector<std::pair<std::vector<std::byte>, test_value>> own_described;
  std::string failure;  // why the run failed; empty when it did not
};

python_run run_peer() {
  python_run run;
  const std::filesystem::path python = MPK_TEST_PYTHON3;
  const std::filesystem::path peer = MPK_TEST_PYTHON_PEER;
  std::error_code ec;
  if (!std::filesystem::exists(python, ec)) {
    run.failure = python.string() +
                  " not found: install python3 and python3-msgpack (scripts/setup does), or "
                  "configure with -DMPK_TEST_PYTHON3=<a python3 that can import msgpack>";
    return run;
  }

  // The values: random trees Python can hold, the boundary set, then all the random trees
  // again as one array (a sequence of values and one nested value).
  std::mt19937_64 rng(corpus_seed);
  mpk_test::random_options options;
  options.float32 = false;
  options.negative_ext_types = false;
  options.keys = mpk_test::random_options::key_policy::python;
  mpk_test::value_generator gen(rng, options);
  run.sent.reserve(random_count + 64);
  for (std::size_t j = 0; j < random_count; ++j)
    run.sent.push_back(gen.value(static_cast<int>(j % 6)));
  run.sent.push_back(test_value::of_array(run.sent));
  for (auto& v : mpk_test::boundary_values())
    run.sent.push_back(std::move(v));

  std::vector<std::byte> input;
  for (const auto& v : run.sent) {
    run.sent_bytes.push_back(encode(v));
    input.insert(input.end(), run.sent_bytes.back().begin(), run.sent_bytes.back().end());
  }

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("mpk-python-interop-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path in = dir / "mpk.msgpack";
  const std::filesystem::path out = dir / "python.msgpack";
  try {
    write_file(in, input);
    const std::string command = "'" + python.string() + "' '" + peer.string() + "' '" +
                                in.string() + "' '" + out.string() + "'";
    const int status = std::system(command.c_str());
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      run.failure = "`" + command + "` failed (status " + std::to_string(status) +
                    "); its message is above. The peer needs " + python.string() +
                    " with the msgpack module (Debian: python3-msgpack).";
    } else {
      run.reencoded = read_file(out);
      run.own = read_file(out.string() + ".own");
      const std::vector<std::byte> json_bytes = read_file(out.string() + ".own.json");
      const json_node all =
          json_parser({reinterpret_cast<const char*>(json_bytes.data()), json_bytes.size()})
              .parse();
      for (const auto& entry : all.items) {
        if (!entry.is_array || entry.items.size() != 2 || entry.items[0].is_array)
          throw std::runtime_error("python_peer.py JSON: an entry is [hex, description]");
        run.own_described.emplace_back(mpk_test::hex(entry.items[0].text),
                                       from_description(entry.items[1]));
      }
    }
  } catch (const std::exception& e) {
    run.failure = e.what();
  }
  std::filesystem::remove_all(dir, ec);
  return run;
}

const python_run& peer() {
  static const python_run run = run_peer();
  return run;
}

#define REQUIRE_PEER() ASSERT_EQ(peer().failure, "") << "the msgpack-python peer did not run"

// --- mpk -> python -> mpk -------------------------------------------------------------------

TEST(MsgpackPython, RepacksMpkBytesIdentically) {
  REQUIRE_PEER();
  const python_run& run = peer();
  std::size_t offset = 0;
  for (std::size_t j = 0; j < run.sent.size(); ++j) {
    const std::vector<std::byte>& ours = run.sent_bytes[j];
    ASSERT_LE(offset + ours.size(), run.reencoded.size())
        << "python wrote fewer bytes than mpk, at value " << j;
    const std::span<const std::byte> theirs(run.reencoded.data() + offset, ours.size());
    if (!std::equal(theirs.begin(), theirs.end(), ours.begin())) {
      // Show where it differs first.
      std::size_t at = 0;
      while (theirs[at] == ours[at])
        ++at;
      const std::size_t from = at < 16 ? 0 : at - 16;
      FAIL() << "value " << j << " differs at byte " << at << ": " << describe(run.sent[j])
             << "\n  mpk    ..."
             << to_hex(std::span(ours).subspan(from, std::min<std::size_t>(48, ours.size() - from)))
             << "\n  python ..."
             << to_hex(theirs.subspan(from, std::min<std::size_t>(48, theirs.size() - from)));
    }
    offset += ours.size();
  }
  EXPECT_EQ(offset, run.reencoded.size()) << "python wrote more values than mpk sent";
}

TEST(MsgpackPython, MpkReadsPythonRepackedValues) {
  REQUIRE_PEER();
  const python_run& run = peer();
  mpk::reader r(run.reencoded);
  for (std::size_t j = 0; j < run.sent.size(); ++j) {
    ASSERT_FALSE(r.at_end()) << "python's output ends before value " << j;
    const test_value back = mpk_test::read(r);
    ASSERT_TRUE(r.ok()) << "value " << j << ": " << r.error().to_string();
    ASSERT_EQ(back, run.sent[j]) << "value " << j;
  }
  EXPECT_TRUE(r.at_end());
}

// --- python's own values --------------------------------------------------------------------

TEST(MsgpackPython, MpkReadsPythonValuesAsDescribed) {
  REQUIRE_PEER();
  const python_run& run = peer();
  ASSERT_GT(run.own_described.size(), 500u);
  for (std::size_t j = 0; j < run.own_described.size(); ++j) {
    const auto& [bytes, value] = run.own_described[j];
    mpk::reader r(bytes);
    const test_value back = mpk_test::read(r);
    ASSERT_TRUE(r.ok()) << "python value " << j << ": " << r.error().to_string() << "\n  "
                        << to_hex(bytes).substr(0, 300);
    ASSERT_TRUE(r.at_end()) << "python value " << j;
    ASSERT_EQ(back, value) << "python value " << j;
  }
  // The same values, as the one stream python wrote.
  mpk::reader r(run.own);
  for (std::size_t j = 0; j < run.own_described.size(); ++j) {
    ASSERT_EQ(r.field_size(), run.own_described[j].first.size()) << "python value " << j;
    ASSERT_EQ(mpk_test::read(r), run.own_described[j].second) << "python value " << j;
  }
  EXPECT_TRUE(r.at_end());
  EXPECT_TRUE(r.ok()) << r.error().to_string();
}

TEST(MsgpackPython, MpkWritesPythonValuesIdentically) {
  REQUIRE_PEER();
  const python_run& run = peer();
  for (std::size_t j = 0; j < run.own_described.size(); ++j) {
    const auto& [bytes, value] = run.own_described[j];
    ASSERT_EQ(to_hex(encode(value)), to_hex(bytes))
        << "python value " << j << ": " << describe(value);
  }
}

// The comparisons above are only as good as what went through them.
TEST(MsgpackPython, BothSetsCoverEveryFamily) {
  REQUIRE_PEER();
  struct seen_t {
    std::set<kind> kinds;
    std::set<int> ext_types;
    std::set<std::size_t> str_lengths;
    bool tuple_key = false, float_key = false;
    void add(const test_value& v) {
      kinds.insert(v.k);
      if (v.k == kind::ext) ext_types.insert(v.ext_type);
      if (v.k == kind::str) str_lengths.insert(v.data.size());
      for (const auto& item : v.items)
        add(item);
      for (const auto& [key, value] : v.entries) {
        tuple_key = tuple_key || key.k == kind::array;
        float_key = float_key || key.k == kind::float64;
        add(key);
        add(value);
      }
    }
  };
  const std::set<kind> all_but_float32 = {kind::nil,     kind::boolean, kind::uint, kind::sint,
                                          kind::float64, kind::str,     kind::bin,  kind::ext,
                                          kind::array,   kind::map};
  seen_t sent;
  for (const auto& v : peer().sent)
    sent.add(v);
  EXPECT_EQ(sent.kinds, all_but_float32);
  EXPECT_TRUE(sent.tuple_key);
  EXPECT_TRUE(sent.float_key);
  for (std::size_t n : {0u, 31u, 32u, 255u, 256u, 65535u, 65536u})
    EXPECT_TRUE(sent.str_lengths.count(n)) << n;

  seen_t own;
  for (const auto& [bytes, v] : peer().own_described)
    own.add(v);
  EXPECT_EQ(own.kinds, all_but_float32);
  EXPECT_TRUE(own.ext_types.count(-1)) << "python's Timestamp (ext -1)";
  EXPECT_TRUE(own.tuple_key);
}

}  // namespace
