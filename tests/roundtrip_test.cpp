// Round trips of seeded random values through mpk::writer and mpk::reader: the values come
// back equal; skip(), field_size() and raw_value() agree with the writer's byte counts at
// every level of nesting; every proper prefix of every encoding is errc::truncated.
#include <mpk/reader.hpp>
#include <mpk/writer.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "support/hex.hpp"
#include "support/random_value.hpp"

using mpk_test::describe;
using mpk_test::encode;
using mpk_test::random_options;
using mpk_test::test_value;
using mpk_test::value_generator;
using kind = test_value::kind;

namespace {

constexpr std::uint64_t corpus_seed = 0x6d706b2d72743031;  // "mpk-rt01"
constexpr std::size_t corpus_size = 4000;
constexpr int max_depth = 5;

// The shared corpus: `n` values of depth 0..max_depth, in a fixed order.
std::vector<test_value> make_corpus(std::uint64_t seed, std::size_t n,
                                    random_options options = {}) {
  std::mt19937_64 rng(seed);
  value_generator gen(rng, options);
  std::vector<test_value> out;
  out.reserve(n);
  for (std::size_t j = 0; j < n; ++j)
    out.push_back(gen.value(static_cast<int>(j % (max_depth + 1))));
  return out;
}

const std::vector<test_value>& corpus() {
  static const std::vector<test_value> values = make_corpus(corpus_seed, corpus_size);
  return values;
}

// Walks the value at `r` as `v` says it is laid out, checking at every node that
// field_size(), raw_value() and skip() cover exactly the bytes the writer wrote for it.
// Leaves `r` after the value.
void check_extents(mpk::reader& r, const test_value& v) {
  const std::vector<std::byte> expected = encode(v);
  const std::size_t start = r.position();
  {
    mpk::reader look = r;
    EXPECT_EQ(look.field_size(), expected.size()) << describe(v);
    EXPECT_EQ(look.position(), start) << "field_size() must not consume";
  }
  {
    mpk::reader look = r;
    const auto raw = look.raw_value();
    ASSERT_EQ(raw.size(), expected.size()) << describe(v);
    EXPECT_TRUE(std::equal(raw.begin(), raw.end(), expected.begin())) << describe(v);
    EXPECT_EQ(look.position(), start + expected.size());
  }
  {
    mpk::reader look = r;
    look.skip();
    EXPECT_TRUE(look.ok()) << look.error().to_string();
    EXPECT_EQ(look.position(), start + expected.size());
  }
  switch (v.k) {
    case kind::array:
      ASSERT_EQ(r.read_array_header(), v.items.size());
      for (const auto& item : v.items)
        check_extents(r, item);
      break;
    case kind::map:
      ASSERT_EQ(r.read_map_header(), v.entries.size());
      for (const auto& [key, value] : v.entries) {
        check_extents(r, key);
        check_extents(r, value);
      }
      break;
    default:
      r.skip();
      break;
  }
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r.position(), start + expected.size());
}

// Every check a truncated input must pass: each whole-value operation is errc::truncated,
// at an offset inside the prefix, and nothing is returned.
void check_prefix(std::span<const std::byte> full, std::size_t k, const test_value& v) {
  // An allocation of exactly k bytes, so that AddressSanitizer sees any read past the end.
  std::unique_ptr<std::byte[]> copy(k != 0 ? new std::byte[k] : nullptr);
  if (k != 0) std::memcpy(copy.get(), full.data(), k);
  const std::span<const std::byte> prefix(copy.get(), k);
  // Built only when a check fails (a streamed message is evaluated on failure only).
  auto where = [&] {
    return "prefix of " + std::to_string(k) + " of " + std::to_string(full.size()) + " bytes of " +
           describe(v);
  };
  {
    mpk::reader r(prefix);
    (void)mpk_test::read(r);
    EXPECT_EQ(r.error().code, mpk::errc::truncated)
        << "read: " << r.error().to_string() << ", " << where();
    EXPECT_LE(r.error().offset, k) << where();
  }
  {
    mpk::reader r(prefix);
    r.skip();
    EXPECT_EQ(r.error().code, mpk::errc::truncated)
        << "skip: " << r.error().to_string() << ", " << where();
    EXPECT_LE(r.error().offset, k) << where();
  }
  {
    mpk::reader r(prefix);
    EXPECT_EQ(r.field_size(), 0u) << where();
    EXPECT_EQ(r.error().code, mpk::errc::truncated)
        << "field_size: " << r.error().to_string() << ", " << where();
  }
  {
    mpk::reader r(prefix);
    EXPECT_TRUE(r.raw_value().empty()) << where();
    EXPECT_EQ(r.error().code, mpk::errc::truncated)
        << "raw_value: " << r.error().to_string() << ", " << where();
    EXPECT_TRUE(r.at_end()) << where();
  }
  // The typed read of the value's own family fails the same way.
  mpk::reader r(prefix);
  switch (v.k) {
    case kind::nil:
      r.read_nil();
      break;
    case kind::boolean:
      (void)r.read<bool>();
      break;
    case kind::uint:
      (void)r.read<std::uint64_t>();
      break;
    case kind::sint:
      (void)r.read<std::int64_t>();
      break;
    case kind::float32:
      (void)r.read<float>();
      break;
    case kind::float64:
      (void)r.read<double>();
      break;
    case kind::str:
      EXPECT_TRUE(r.read_string_view().empty());
      break;
    case kind::bin:
      EXPECT_TRUE(r.read_bin().empty());
      break;
    case kind::ext:
      EXPECT_TRUE(r.read_ext().data.empty());
      break;
    case kind::array:
      // A container header alone may be complete: then an element is missing.
      for (std::uint32_t n = r.read_array_header(); n > 0 && r.ok(); --n)
        (void)mpk_test::read(r);
      break;
    case kind::map:
      for (std::uint32_t n = r.read_map_header(); n > 0 && r.ok(); --n) {
        (void)mpk_test::read(r);
        (void)mpk_test::read(r);
      }
      break;
  }
  EXPECT_EQ(r.error().code, mpk::errc::truncated)
      << "typed read: " << r.error().to_string() << ", " << where();
}

TEST(RoundTrip, RandomValuesComeBackEqual) {
  int failures = 0;
  std::size_t bytes_total = 0;
  for (std::size_t j = 0; j < corpus().size() && failures < 10; ++j) {
    const test_value& v = corpus()[j];
    const std::vector<std::byte> bytes = encode(v);
    ASSERT_FALSE(bytes.empty()) << "writer failed on value " << j;
    bytes_total += bytes.size();
    mpk::reader r(bytes);
    const test_value back = mpk_test::read(r);
    EXPECT_TRUE(r.ok()) << "value " << j << ": " << r.error().to_string();
    EXPECT_TRUE(r.at_end()) << "value " << j;
    EXPECT_EQ(r.position(), bytes.size()) << "value " << j;
    if (!(back == v)) {
      ++failures;
      ADD_FAILURE() << "value " << j << "\n  wrote " << describe(v) << "\n  read  "
                    << describe(back) << "\n  bytes " << mpk_test::to_hex(bytes);
    }
  }
  // The corpus is not trivially small (guards against a generator that degenerates).
  EXPECT_GT(bytes_total, corpus().size() * 20);
}

TEST(RoundTrip, UncheckedReaderReadsValidInputTheSame) {
  for (std::size_t j = 0; j < corpus().size(); ++j) {
    const std::vector<std::byte> bytes = encode(corpus()[j]);
    mpk::unchecked_reader r(bytes);
    const test_value back = mpk_test::read(r);
    ASSERT_TRUE(r.ok()) << "value " << j;
    ASSERT_EQ(back, corpus()[j]) << "value " << j;
    ASSERT_EQ(r.position(), bytes.size());
  }
}

TEST(RoundTrip, SequenceOfValuesInOneBuffer) {
  mpk::buffer buf;
  mpk::writer w(buf);
  for (const auto& v : corpus())
    mpk_test::write(w, v);
  ASSERT_TRUE(w.ok());
  mpk::reader r(buf.bytes());
  for (std::size_t j = 0; j < corpus().size(); ++j) {
    ASSERT_FALSE(r.at_end()) << "input ends before value " << j;
    const test_value back = mpk_test::read(r);
    ASSERT_TRUE(r.ok()) << "value " << j << ": " << r.error().to_string();
    ASSERT_EQ(back, corpus()[j]) << "value " << j;
  }
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(r.position(), buf.size());
}

TEST(RoundTrip, SkipFieldSizeRawValueAgreeWithWriterCounts) {
  // One buffer with every value, so that each walk also sees the values after its own.
  mpk::buffer buf;
  mpk::writer w(buf);
  std::vector<std::size_t> sizes;
  for (const auto& v : corpus()) {
    const std::size_t before = buf.size();
    mpk_test::write(w, v);
    sizes.push_back(buf.size() - before);
  }
  ASSERT_TRUE(w.ok());

  mpk::reader r(buf.bytes());
  std::size_t offset = 0;
  for (std::size_t j = 0; j < corpus().size(); ++j) {
    SCOPED_TRACE("value " + std::to_string(j));
    ASSERT_EQ(r.position(), offset);
    {
      mpk::reader look = r;
      ASSERT_EQ(look.field_size(), sizes[j]);
    }
    if (j % 4 == 0) {
      // At every level of nesting (costs a re-encoding per node: every fourth value).
      check_extents(r, corpus()[j]);
      if (::testing::Test::HasFatalFailure()) return;
    } else if (j % 4 == 1) {
      const auto raw = r.raw_value();
      ASSERT_EQ(raw.size(), sizes[j]);
      ASSERT_EQ(raw.data(), buf.data() + offset) << "raw_value() is a view into the input";
    } else {
      r.skip();
    }
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    offset += sizes[j];
  }
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(offset, buf.size());
}

TEST(RoundTrip, EveryProperPrefixIsTruncated) {
  // Every prefix of values up to 512 bytes; for larger values the first and last 32
  // prefixes and 64 random ones (each prefix walks the whole value: all prefixes of all
  // values would cost minutes under sanitizers). Every third value of the corpus.
  std::mt19937_64 rng(corpus_seed ^ 0x7472756e63);  // "trunc"
  std::size_t prefixes = 0;
  for (std::size_t j = 0; j < corpus().size(); j += 3) {
    const test_value& v = corpus()[j];
    const std::vector<std::byte> bytes = encode(v);
    const std::size_t n = bytes.size();
    std::vector<std::size_t> lengths;
    if (n <= 512) {
      for (std::size_t k = 0; k < n; ++k)
        lengths.push_back(k);
    } else {
      for (std::size_t k = 0; k < 32; ++k) {
        lengths.push_back(k);
        lengths.push_back(n - 1 - k);
      }
      for (int t = 0; t < 64; ++t)
        lengths.push_back(static_cast<std::size_t>(rng() % n));
    }
    for (std::size_t k : lengths) {
      check_prefix(mpk::as_bytes(bytes), k, v);
      ++prefixes;
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(prefixes, 50000u);
  RecordProperty("prefixes_checked", static_cast<int>(prefixes));
}

// --- fixed boundary values, too large for the random trees ------------------------------

// The first byte the writer must give `v` (its smallest form).
std::size_t expected_marker(const test_value& v) {
  const std::size_t n = v.k == kind::array ? v.items.size()
                        : v.k == kind::map ? v.entries.size()
                                           : v.data.size();
  switch (v.k) {
    case kind::str:
      return n < 32 ? 0xa0 | n : n <= 0xff ? 0xd9 : n <= 0xffff ? 0xda : 0xdb;
    case kind::bin:
      return n <= 0xff ? 0xc4 : n <= 0xffff ? 0xc5 : 0xc6;
    case kind::array:
      return n < 16 ? 0x90 | n : n <= 0xffff ? 0xdc : 0xdd;
    case kind::map:
      return n < 16 ? 0x80 | n : n <= 0xffff ? 0xde : 0xdf;
    case kind::ext:
      switch (n) {
        case 1:
          return 0xd4;
        case 2:
          return 0xd5;
        case 4:
          return 0xd6;
        case 8:
          return 0xd7;
        case 16:
          return 0xd8;
        default:
          return n <= 0xff ? 0xc7 : n <= 0xffff ? 0xc8 : 0xc9;
      }
    default:
      return 0x100;  // not used for scalars here
  }
}

TEST(RoundTrip, BoundaryValues) {
  for (const test_value& v : mpk_test::boundary_values()) {
    SCOPED_TRACE(describe(v));
    const std::vector<std::byte> bytes = encode(v);
    ASSERT_FALSE(bytes.empty());
    EXPECT_EQ(std::to_integer<std::size_t>(bytes[0]), expected_marker(v));
    mpk::reader r(bytes);
    EXPECT_EQ(r.field_size(), bytes.size());
    EXPECT_EQ(mpk_test::read(r), v);
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(r.at_end());
    // The last byte cut off: still truncated, however large the value.
    const std::unique_ptr<std::byte[]> cut(new std::byte[bytes.size() - 1]);
    std::memcpy(cut.get(), bytes.data(), bytes.size() - 1);
    mpk::reader t(std::span<const std::byte>(cut.get(), bytes.size() - 1));
    t.skip();
    EXPECT_EQ(t.error().code, mpk::errc::truncated);
  }
}

// A sint that is not negative is only read from non-minimal input; write() keeps its
// family with an explicit int8..int64 width.
TEST(RoundTrip, NonNegativeSintKeepsItsFamily) {
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{127}, std::int64_t{128}, std::int64_t{40000},
                         std::int64_t{1} << 40}) {
    const test_value t = test_value::of_sint(v);
    const std::vector<std::byte> bytes = encode(t);
    mpk::reader r(bytes);
    EXPECT_EQ(r.peek(), mpk::type::sint);
    EXPECT_EQ(mpk_test::read(r), t);
  }
  const std::vector<std::byte> non_minimal = mpk_test::hex("d0 05 cd 00 05");  // int8 5, uint16 5
  mpk::reader r(non_minimal);
  EXPECT_EQ(mpk_test::read(r), test_value::of_sint(5));
  EXPECT_EQ(mpk_test::read(r), test_value::of_uint(5));
}

// --- the generator itself ---------------------------------------------------------------

// Everything a value tree holds, gathered over a corpus.
struct coverage {
  std::set<kind> kinds;
  std::set<std::uint64_t> uints;
  std::set<std::int64_t> sints;
  std::set<std::size_t> str_lengths, bin_lengths, ext_lengths, array_sizes, map_sizes;
  std::set<unsigned> utf8_lead_bytes;  // 2-, 3- and 4-byte sequence leads seen (0xc0/0xe0/0xf0)
  std::set<std::uint64_t> float64_bits;
  std::set<int> ext_types;
  bool nested_map_key = false;
  std::size_t max_depth = 0;

  void add(const test_value& v, std::size_t depth = 0, bool is_key = false) {
    kinds.insert(v.k);
    max_depth = std::max(max_depth, depth);
    switch (v.k) {
      case kind::uint:
        uints.insert(v.u);
        break;
      case kind::sint:
        sints.insert(v.i);
        break;
      case kind::float64:
        float64_bits.insert(std::bit_cast<std::uint64_t>(v.f64));
        break;
      case kind::str:
        str_lengths.insert(v.data.size());
        for (char c : v.data) {
          const auto b = static_cast<unsigned char>(c);
          if (b >= 0xf0)
            utf8_lead_bytes.insert(0xf0);
          else if (b >= 0xe0)
            utf8_lead_bytes.insert(0xe0);
          else if (b >= 0xc0)
            utf8_lead_bytes.insert(0xc0);
        }
        break;
      case kind::bin:
        bin_lengths.insert(v.data.size());
        break;
      case kind::ext:
        ext_lengths.insert(v.data.size());
        ext_types.insert(v.ext_type);
        break;
      case kind::array:
        array_sizes.insert(v.items.size());
        for (const auto& item : v.items)
          add(item, depth + 1);
        break;
      case kind::map:
        map_sizes.insert(v.entries.size());
        for (const auto& [key, value] : v.entries) {
          if (key.is_container()) nested_map_key = true;
          add(key, depth + 1, true);
          add(value, depth + 1);
        }
        break;
      default:
        break;
    }
    (void)is_key;
  }
};

TEST(Generator, CoversEveryKindAndBoundary) {
  coverage c;
  for (const auto& v : corpus())
    c.add(v);
  for (int k = 0; k <= static_cast<int>(kind::map); ++k)
    EXPECT_TRUE(c.kinds.count(static_cast<kind>(k))) << mpk_test::kind_name(static_cast<kind>(k));
  for (std::uint64_t e : mpk_test::uint_edges)
    EXPECT_TRUE(c.uints.count(e)) << e;
  for (std::int64_t e : mpk_test::sint_edges)
    EXPECT_TRUE(c.sints.count(e)) << e;
  for (std::size_t n : {0u, 31u, 32u, 255u, 256u}) {
    EXPECT_TRUE(c.str_lengths.count(n)) << "str of " << n;
    EXPECT_TRUE(c.bin_lengths.count(n)) << "bin of " << n;
  }
  for (std::size_t n : mpk_test::ext_length_edges)
    EXPECT_TRUE(c.ext_lengths.count(n)) << n;
  for (std::size_t n : {0u, 15u, 16u}) {
    EXPECT_TRUE(c.array_sizes.count(n)) << "array of " << n;
    EXPECT_TRUE(c.map_sizes.count(n)) << "map of " << n;
  }
  EXPECT_EQ(c.utf8_lead_bytes, (std::set<unsigned>{0xc0, 0xe0, 0xf0}));
  EXPECT_TRUE(c.float64_bits.count(0x8000000000000000u)) << "-0.0";
  EXPECT_TRUE(c.float64_bits.count(0x7ff0000000000000u)) << "inf";
  EXPECT_TRUE(c.float64_bits.count(0x7ff8000000000000u)) << "NaN";
  EXPECT_TRUE(c.nested_map_key);
  EXPECT_EQ(c.max_depth, static_cast<std::size_t>(max_depth));
}

TEST(Generator, IsDeterministic) {
  const auto a = make_corpus(42, 200);
  const auto b = make_corpus(42, 200);
  const auto c = make_corpus(43, 200);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

// Map keys are unique, and under the python policy hashable and distinct in Python.
bool keys_ok(const test_value& v, bool python) {
  for (const auto& item : v.items)
    if (!keys_ok(item, python)) return false;
  for (std::size_t j = 0; j < v.entries.size(); ++j) {
    const test_value& key = v.entries[j].key;
    for (std::size_t i = 0; i < j; ++i)
      if (v.entries[i].key == key) return false;
    if (python) {
      switch (key.k) {
        case kind::boolean:
        case kind::map:
        case kind::float32:
          return false;
        case kind::float64:
          if (!std::isfinite(key.f64) || key.f64 == std::trunc(key.f64)) return false;
          break;
        case kind::array:
          for (const auto& item : key.items)
            if (item.k != kind::nil && item.k != kind::uint && item.k != kind::sint &&
                item.k != kind::str)
              return false;
          break;
        default:
          break;
      }
    }
    if (!keys_ok(key, python) || !keys_ok(v.entries[j].value, python)) return false;
  }
  return true;
}

TEST(Generator, MapKeysAreUnique) {
  for (const auto& v : corpus())
    ASSERT_TRUE(keys_ok(v, false)) << describe(v);
  random_options py;
  py.keys = random_options::key_policy::python;
  py.float32 = false;
  py.negative_ext_types = false;
  std::size_t maps = 0;
  for (const auto& v : make_corpus(99, 1000, py)) {
    ASSERT_TRUE(keys_ok(v, true)) << describe(v);
    coverage c;
    c.add(v);
    EXPECT_FALSE(c.kinds.count(kind::float32));
    EXPECT_TRUE(c.ext_types.empty() || *c.ext_types.begin() >= 0);
    maps += c.map_sizes.size();
  }
  EXPECT_GT(maps, 100u);
}

}  // namespace
