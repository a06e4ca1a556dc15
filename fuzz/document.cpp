// fuzz/document.cpp - mpk::document::parse against the reader.
//
// Properties, with the default, trusted and small limits:
// - parse accepts exactly when the reader's skip() accepts the input as one value with
//   nothing after it; otherwise both report the same errc at the same offset (trailing
//   bytes: errc::trailing_bytes at the end of the first value), or parse reports
//   errc::truncated at an earlier offset (see check_with);
// - with allow_trailing, consumed() is field_size() of the first value;
// - the tree holds the same values as the generic reader walk, in the same order, and each
//   node's raw() is the value's bytes (its offset, and field_size() bytes);
// - a copying parse, and parse_into() reusing a document, give an equal tree;
// - at most one node per input byte; memory allocated through operator new stays within
//   48 bytes per input byte + 16 KiB (16-byte nodes, 8 bytes of stack per level, and the
//   arena's growth; docs/value.md states 16 bytes of nodes per input byte).
#include <mpk/value.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "alloc_count.hpp"
#include "fuzz_support.hpp"

namespace {

using mpk_fuzz::token;

/// The token the generic walk gives for the value at `v` (fuzz_support.hpp).
token token_of(const mpk::element& v) {
  token t;
  t.family = v.type();
  switch (t.family) {
    case mpk::type::nil:
      break;
    case mpk::type::boolean:
      t.boolean = *v.as<bool>();
      break;
    case mpk::type::uint:
      t.u = *v.as<std::uint64_t>();
      break;
    case mpk::type::sint:
      t.i = *v.as<std::int64_t>();
      t.negative = t.i < 0;
      if (!t.negative) t.u = static_cast<std::uint64_t>(t.i), t.i = 0;
      break;
    case mpk::type::float32:
      t.float_bits = std::bit_cast<std::uint32_t>(*v.as<float>());
      break;
    case mpk::type::float64:
      t.float_bits = std::bit_cast<std::uint64_t>(*v.as<double>());
      break;
    case mpk::type::str:
      t.bytes = *v.as<std::string_view>();
      break;
    case mpk::type::bin: {
      const auto b = *v.as<std::span<const std::byte>>();
      t.bytes = {reinterpret_cast<const char*>(b.data()), b.size()};
      break;
    }
    case mpk::type::ext: {
      const auto e = *v.as<mpk::ext_view>();
      t.ext_type = e.type;
      t.bytes = {reinterpret_cast<const char*>(e.data.data()), e.data.size()};
      break;
    }
    case mpk::type::array:
    case mpk::type::map:
      t.count = static_cast<std::uint32_t>(v.size());
      break;
    case mpk::type::invalid:
      MPK_FUZZ_CHECK(false);
  }
  return t;
}

/// The document's values in document order, without recursion; checks raw() on the first
/// `raw_checks` of them against the reader's field_size().
std::vector<token> flatten(const mpk::element& root, std::span<const std::byte> input,
                           const mpk::limits& lim, std::size_t raw_checks) {
  std::vector<token> out;
  std::vector<mpk::element> todo{root};
  std::vector<mpk::element> children;
  while (!todo.empty()) {
    const mpk::element v = todo.back();
    todo.pop_back();
    MPK_FUZZ_CHECK(v.exists());
    out.push_back(token_of(v));
    if (out.size() <= raw_checks) {
      const auto raw = v.raw();
      MPK_FUZZ_CHECK(raw.data() == input.data() + v.offset());
      mpk::reader r(input.subspan(v.offset()), {.limits = lim});
      MPK_FUZZ_CHECK(r.field_size() == raw.size());
    }
    children.clear();
    if (v.is_array()) {
      for (const mpk::element x : v.elements())
        children.push_back(x);
    } else if (v.is_map()) {
      for (const auto& [key, value] : v.entries()) {
        children.push_back(key);
        children.push_back(value);
      }
    }
    MPK_FUZZ_CHECK(children.size() == (v.is_map() ? 2 : 1) * v.size() || !is_container(v.type()));
    todo.insert(todo.end(), children.rbegin(), children.rend());
  }
  return out;
}

void check_with(std::span<const std::byte> input, const mpk::limits& lim) {
  // What the reader says about the input as one message.
  mpk::reader r(input, {.limits = lim});
  const std::size_t first = r.field_size();
  mpk::error expected = r.error();
  if (!expected && first != input.size()) expected = {mpk::errc::trailing_bytes, first};

  mpk_fuzz::alloc_scope scope;
  mpk::result<mpk::document> doc = mpk::document::parse(input, {.read = {.limits = lim}});
  MPK_FUZZ_CHECK(scope.peak() <= 48 * input.size() + 16 * 1024);
  MPK_FUZZ_CHECK(doc.has_value() == !expected);
  if (doc.error() != expected) {
    // The one documented difference (docs/security.md): parse checks the items that every
    // open container still owes against the bytes left, so it can see that the input ends
    // too early at an outer container, before the reader meets the error further in.
    //
    // And on one container header that is both too deep and bad (its count beyond the
    // bytes left or above its limit), parse reports the depth, the reader the header.
    const mpk::error e = doc.error();
    const bool earlier_truncation = e.code == mpk::errc::truncated && e.offset < expected.offset;
    const bool depth_first =
        e.code == mpk::errc::depth_exceeded && e.offset == expected.offset &&
        (expected.code == mpk::errc::truncated || expected.code == mpk::errc::limit_exceeded);
    MPK_FUZZ_CHECK(earlier_truncation || depth_first);
  }

  mpk::result<mpk::document> lenient =
      mpk::document::parse(input, {.read = {.limits = lim, .allow_trailing = true}});
  MPK_FUZZ_CHECK(lenient.has_value() == r.ok());
  if (!lenient) return;  // the error: checked above
  MPK_FUZZ_CHECK(lenient->consumed() == first);
  MPK_FUZZ_CHECK(lenient->node_count() <= first);

  // The same values as the generic reader walk.
  std::vector<token> walked;
  mpk_fuzz::cursor w{input};
  MPK_FUZZ_CHECK(!mpk_fuzz::walk_value(w, lim, [&](const token& t) { walked.push_back(t); }));
  const std::vector<token> tree = flatten(lenient->root(), input, lim, 64);
  MPK_FUZZ_CHECK(tree == walked);

  // A copying parse and a reused document hold equal trees.
  mpk::result<mpk::document> copied =
      mpk::document::parse(input, {.read = {.limits = lim, .allow_trailing = true}, .copy = true});
  MPK_FUZZ_CHECK(copied.has_value());
  MPK_FUZZ_CHECK(copied->root() == lenient->root());
  mpk::document reused;
  MPK_FUZZ_CHECK(
      reused.parse_into(input, {.read = {.limits = lim, .allow_trailing = true}}).has_value());
  MPK_FUZZ_CHECK(
      reused.parse_into(input, {.read = {.limits = lim, .allow_trailing = true}}).has_value());
  MPK_FUZZ_CHECK(reused.root() == lenient->root());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk::as_bytes(std::span(data, size));
  mpk_fuzz::current_input = input;
  check_with(input, mpk::limits{});
  check_with(input, mpk::limits::trusted());
  check_with(input, mpk_fuzz::tiny_limits);
  return 0;
}
