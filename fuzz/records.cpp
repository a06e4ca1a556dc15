// fuzz/records.cpp - msgpackr records decoding (mpk/ext/records.hpp).
//
// Properties, with the default, trusted and small limits:
// - records_decoder::expand either fails cleanly (an errc and an offset within the input) or
//   gives plain MessagePack that document::parse accepts with the same limits, and the end
//   offset it returns is within the input;
// - re-encoding that document as records and decoding it again gives an equal document (in
//   per-message, sequential and shared-structures modes), and encoding is deterministic;
// - the input read as a sequence of values in sequential mode never fails differently from
//   the first value read alone when that one fails;
// - typed decoding into structs (records, vectors, optionals, a fallback through mpk::value)
//   never crashes, and agrees with expand() on whether the first value is well formed;
// - memory allocated stays within 40 bytes per input byte + 512 KiB for expand(), and within
//   16 * 16 bytes per input byte + 512 KiB for the document of the expansion (expansion at
//   most 16 times the input, a document at most 16 bytes of nodes per byte).
#include <mpk/ext/records.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloc_count.hpp"
#include "fuzz_support.hpp"

namespace {

struct inner {
  std::int64_t a = 0;
  std::optional<std::string> b;
  std::vector<double> c;
};
MPK_MAP(inner, a, b, c);

struct outer {
  std::vector<inner> items;
  inner one;
  mpk::value any;
  std::uint8_t small = 0;
};
MPK_MAP(outer, items, one, any, small);

const mpk::shared_structures& shared() {
  static const mpk::shared_structures s = [] {
    mpk::shared_structures out;
    for (int i = 0; i < 40; ++i)
      (void)out.add({"k" + std::to_string(i), "a"});
    (void)mpk::add_shared_structure<inner>(out);
    return out;
  }();
  return s;
}

void roundtrip(const mpk::document& doc, mpk::records_options o) {
  o.read.limits = mpk::limits::trusted();
  mpk::records_encoder enc(o);
  auto bytes = enc.encode(doc.root());
  MPK_FUZZ_CHECK(bytes.has_value());
  mpk::records_encoder enc2(o);
  auto again = enc2.encode(doc.root());
  MPK_FUZZ_CHECK(again.has_value());
  MPK_FUZZ_CHECK(again->size() == bytes->size() &&
                 std::equal(again->data(), again->data() + again->size(), bytes->data()));
  mpk::records_decoder dec(o);
  auto back = dec.parse(bytes->bytes());
  MPK_FUZZ_CHECK(back.has_value());
  MPK_FUZZ_CHECK(back->root() == doc.root());
}

void check_with(std::span<const std::byte> input, const mpk::limits& lim) {
  mpk::records_decoder dec({.read = {.limits = lim}});
  mpk::buffer out;
  mpk::result<std::size_t> end = 0;
  {
    mpk_fuzz::alloc_scope scope;
    end = dec.expand(input, 0, out);
    MPK_FUZZ_CHECK(scope.peak() <= 40 * input.size() + 512 * 1024);
  }
  if (!end) {
    MPK_FUZZ_CHECK(end.error().offset <= input.size());
    // typed decoding fails on it too (it reads at least as much), except on depth: it skips
    // the values it does not decode with the reader's whole depth budget, as mpk::unpack
    // does (docs/records.md), so a value nested too deep for expand() may still decode.
    mpk::records_decoder typed_dec({.read = {.limits = lim}});
    outer o;
    if (end.error().code != mpk::errc::depth_exceeded)
      MPK_FUZZ_CHECK(!mpk::unpack_records(typed_dec, input, 0, o).has_value());
    // and so does the first value of a sequential read
    mpk::records_decoder seq({.mode = mpk::records_mode::sequential, .read = {.limits = lim}});
    mpk::buffer ignored;
    MPK_FUZZ_CHECK(seq.expand(input, 0, ignored).error() == end.error());
    return;
  }
  MPK_FUZZ_CHECK(*end > 0 && *end <= input.size());
  MPK_FUZZ_CHECK(out.size() <= 16 * *end + 4096);
  mpk_fuzz::alloc_scope scope;
  auto doc = mpk::document::parse(out.bytes(), {.read = {.limits = lim}});
  MPK_FUZZ_CHECK(doc.has_value());
  MPK_FUZZ_CHECK(scope.peak() <= 16 * 16 * input.size() + 512 * 1024);

  roundtrip(*doc, {});
  roundtrip(*doc, {.mode = mpk::records_mode::sequential});
  roundtrip(*doc, {.shared = &shared()});

  // Typed: whatever it says, no crash; the shared-structures decoder too.
  outer o;
  mpk::records_decoder typed_dec({.read = {.limits = lim}});
  (void)mpk::unpack_records(typed_dec, input, 0, o);
  mpk::records_decoder shared_dec({.shared = &shared(), .read = {.limits = lim}});
  (void)mpk::unpack_records(shared_dec, input, 0, o);
  mpk::buffer ignored;
  (void)shared_dec.expand(input, 0, ignored);

  // The rest of the input as further values of a sequential stream.
  mpk::records_decoder seq({.mode = mpk::records_mode::sequential, .read = {.limits = lim}});
  std::size_t at = 0;
  for (int n = 0; n < 64 && at < input.size(); ++n) {
    mpk::buffer value;
    auto next = seq.expand(input, at, value);
    if (!next) break;
    MPK_FUZZ_CHECK(*next > at && *next <= input.size());
    MPK_FUZZ_CHECK(mpk::document::parse(value.bytes(), {.read = {.limits = lim}}).has_value());
    at = *next;
  }
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
