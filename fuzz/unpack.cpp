// fuzz/unpack.cpp - typed decoding: mpk::unpack into structs that hold every built-in type.
//
// Each input is unpacked into four types: `everything` (map mode, every built-in codec but
// the hash containers), `row` (array mode), `node` (a recursive type whose depth comes from
// the input) and `hashed` (std::unordered_set/map), in non-strict and strict mode. Properties:
// - no crash, no sanitizer report, whatever the input;
// - strict success implies non-strict success, to the same bytes when packed again;
// - decode -> encode is stable: when unpack succeeds, pack(obj) unpacks again, and packing
//   that gives the same bytes;
// - decoding into an element of a std::vector that held earlier inputs' values gives what a
//   new object gives (the same bytes when packed), and a failure leaves it usable;
// - memory allocated through operator new stays within 256 bytes per input byte + 64 KiB
//   (each element of a container costs at most ~256 bytes here, std::map nodes included, and
//   needs at least one input byte; the constant covers a std::deque's first block).
#include <mpk/codec.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "alloc_count.hpp"
#include "fuzz_support.hpp"

namespace fuzz_types {

enum class color { red, green, blue };
MPK_ENUM(color, red, green, blue);
enum class level : std::uint8_t { low = 1, high = 200 };  // no names: its integer

struct row {
  std::string tag;
  std::optional<std::int32_t> maybe;
  double weight = 0;
};
MPK_ARRAY(row, tag, maybe, weight);

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
  std::string_view view;
  std::span<const std::byte> bin_view;
  std::vector<std::byte> bin;
  std::array<std::byte, 4> fixed_bin{};
  std::vector<std::int32_t> vec;
  std::array<double, 3> arr{};
  std::deque<std::string> deq;
  std::list<std::int64_t> lst;
  std::set<std::string> set;
  std::map<std::string, std::int32_t> map;
  std::pair<std::int32_t, std::string> pair;
  std::tuple<bool, double, std::string> tuple;
  std::optional<std::string> opt;
  std::variant<std::int32_t, std::string, row> var;
  color col = color::red;
  level lvl = level::low;
  row nested;
  std::vector<row> rows;
  std::map<std::string, std::vector<std::optional<std::int32_t>>> deep;
  std::vector<bool> bits;
};
MPK_MAP(everything, b, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, str, view, bin_view, bin,
        fixed_bin, vec, arr, deq, lst, set, map, pair, tuple, opt, var, col, lvl, nested, rows,
        deep, bits);

// The hash containers: their iteration order depends on their history, so packing one
// that was unpacked need not give the input's order; only re-decoding is compared.
struct hashed {
  std::unordered_set<std::int32_t> uset;
  std::unordered_map<std::int32_t, std::string> umap;
};
MPK_MAP(hashed, uset, umap);

struct node {
  std::int32_t value = 0;
  std::vector<node> children;
};
MPK_ARRAY(node, value, children);

}  // namespace fuzz_types

namespace {

bool same_bytes(const mpk::buffer& a, const mpk::buffer& b) {
  return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

/// Decoding into an object that holds earlier values gives what a new one gives: `input`
/// (which decodes into a new T, packed again as `fresh`) is read as the only element of an
/// array into a std::vector<T> kept across inputs, whose element is then read in place.
/// After a failure (the array adds one level of depth) the vector must stay usable.
/// (A string_view member of the element then points into freed bytes; only assigned over.)
template <class T>
void check_reuse(std::span<const std::byte> input, const mpk::buffer& fresh) {
  static std::vector<T> kept(1);
  std::vector<std::byte> wrapped;
  wrapped.reserve(input.size() + 1);
  wrapped.push_back(std::byte{0x91});
  wrapped.insert(wrapped.end(), input.begin(), input.end());
  mpk::reader r(wrapped);
  if (mpk::unpack(r, kept).has_value()) {
    MPK_FUZZ_CHECK(kept.size() == 1);
    mpk::result<mpk::buffer> again = mpk::pack(kept[0]);
    MPK_FUZZ_CHECK(again.has_value() && same_bytes(*again, fresh));
  } else {
    // valid (ASan checks the destructors); not packed: a view member may point into the
    // bytes of an earlier input
    kept.assign(1, T{});
  }
}

/// Checks one type; `stable` says whether packing what was unpacked must give the same
/// bytes twice (not for hash containers).
template <class T, bool stable = true>
void check_type(std::span<const std::byte> input) {
  const std::size_t budget = 256 * input.size() + 64 * 1024;
  std::optional<mpk::buffer> loose_bytes;
  for (bool strict : {false, true}) {
    const mpk::unpack_options opts{.strict = strict};
    mpk_fuzz::alloc_scope scope;
    mpk::result<T> v = mpk::unpack<T>(input, opts);
    MPK_FUZZ_CHECK(scope.peak() <= budget);
    if (!v) {
      // An error points into the input (the end, for a truncated value).
      MPK_FUZZ_CHECK(v.error().offset <= input.size());
      continue;
    }
    mpk::result<mpk::buffer> once = mpk::pack(*v);
    MPK_FUZZ_CHECK(once.has_value());
    // The encoding decodes again (with the same options), and encodes to the same bytes.
    mpk::result<T> again = mpk::unpack<T>(once->bytes(), opts);
    MPK_FUZZ_CHECK(again.has_value());
    mpk::result<mpk::buffer> twice = mpk::pack(*again);
    MPK_FUZZ_CHECK(twice.has_value());
    if constexpr (!stable) continue;
    MPK_FUZZ_CHECK(same_bytes(*once, *twice));
    if (!strict) check_reuse<T>(input, *once);
    if (!strict) {
      loose_bytes = std::move(*once);
    } else {
      // Strict mode accepts less, never something else.
      MPK_FUZZ_CHECK(loose_bytes.has_value());
      MPK_FUZZ_CHECK(same_bytes(*loose_bytes, *once));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk_fuzz::as_bytes(data, size);
  mpk_fuzz::current_input = input;
  check_type<fuzz_types::everything>(input);
  check_type<fuzz_types::row>(input);
  check_type<fuzz_types::node>(input);
  check_type<fuzz_types::hashed, false>(input);
  return 0;
}
