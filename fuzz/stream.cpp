// fuzz/stream.cpp - mpk::stream_decoder on input cut into chunks chosen by the fuzzer.
//
// Input layout: byte 0 gives k = byte0 % 8; the next k bytes give the chunk sizes (each byte
// b is a chunk of b + 1 bytes, used in turn, cyclically; k = 0 feeds everything at once); the
// rest is the stream. fuzz/make_corpus.py writes the seeds with such a prefix.
//
// Properties, with the default, trusted and small limits:
// - raw output: the messages yielded are exactly the one-shot reader's messages
//   (raw_value() in a loop), same bytes, in order; when the one-shot reader accepts the whole
//   stream, so does the decoder, and finish() succeeds;
// - when the one-shot reader fails with anything but errc::truncated, the decoder reports the
//   same error at the same stream offset; with errc::truncated (the input ends, or a count
//   exceeds the bytes left), the decoder either reports truncated from finish() at the start
//   of the unfinished message, or an error of that message at or after the reader's offset
//   (docs/stream.md: it cannot know that more bytes will not come);
// - typed output (mpk::value) and document output equal what unpack / document::parse give
//   on each message alone, for the messages both accept;
// - element-wise mode: the items yielded and those of a one-shot walk agree on their common
//   prefix, and are equal when the walk accepts the whole stream;
// - bounded work and memory: scanned_bytes() <= 2 x the stream (the one-pass attempt plus
//   the resumable scan), the buffer's capacity stays within max(4096, 2 x the stream),
//   and memory allocated through operator new by the raw decoder stays within 24 bytes per
//   input byte + 1 KiB (the nesting stack: 8 bytes per level, and the old array while it
//   doubles; a level takes one input byte at least).
#include <mpk/codec.hpp>
#include <mpk/stream.hpp>
#include <mpk/value.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "alloc_count.hpp"
#include "fuzz_support.hpp"

namespace {

using span = std::span<const std::byte>;

/// Feeds `stream` in the chunks `sizes` gives (cyclically; empty: all at once) and after each
/// chunk takes every complete message: `take()` returns result<bool> (false: none complete
/// yet), then `on(n)` runs for the n-th message taken. Stops at the first error. Returns
/// the number of messages taken.
template <class Take, class On>
std::size_t each_message(mpk::stream_decoder& dec, span stream, span sizes, Take&& take, On&& on) {
  std::size_t n = 0;
  auto drain = [&] {
    for (;;) {
      const mpk::result<bool> got = take();
      if (!got || !*got) return got.has_value();
      on(n++);
    }
  };
  std::size_t at = 0;
  std::size_t turn = 0;
  while (at < stream.size()) {
    std::size_t len = stream.size() - at;
    if (!sizes.empty())
      len = std::min(len, std::to_integer<std::size_t>(sizes[turn++ % sizes.size()]) + 1);
    if (!dec.feed(stream.subspan(at, len))) return n;
    at += len;
    if (!drain()) return n;
  }
  drain();
  return n;
}

/// A take() for each_message: the raw bytes of the next message, into `out`.
auto raw_take(mpk::stream_decoder& dec, span& out) {
  return [&dec, &out]() -> mpk::result<bool> {
    const auto m = dec.next();
    if (!m) return m.error();
    out = *m;
    return !m->empty();
  };
}

struct one_shot_result {
  std::vector<span> messages;
  std::vector<std::size_t> offsets;
  mpk::error error{};
};

one_shot_result one_shot(span stream, const mpk::limits& lim) {
  one_shot_result out;
  mpk::reader r(stream, {.limits = lim});
  while (!r.at_end()) {
    const std::size_t at = r.position();
    const span v = r.raw_value();
    if (!r.ok()) {
      out.error = r.error();
      break;
    }
    out.messages.push_back(v);
    out.offsets.push_back(at);
  }
  return out;
}

void check_raw(span stream, span sizes, const mpk::limits& lim) {
  const one_shot_result expected = one_shot(stream, lim);
  mpk::stream_decoder dec({.read = {.limits = lim}, .max_buffer_size = stream.size() + 1});
  mpk_fuzz::alloc_scope scope;
  span m;
  const std::size_t n = each_message(dec, stream, sizes, raw_take(dec, m), [&](std::size_t i) {
    MPK_FUZZ_CHECK(i < expected.messages.size());
    MPK_FUZZ_CHECK(std::ranges::equal(m, expected.messages[i]));
    MPK_FUZZ_CHECK(dec.position() == expected.offsets[i] + m.size());
  });
  MPK_FUZZ_CHECK(scope.peak() <= 24 * stream.size() + 1024);
  MPK_FUZZ_CHECK(dec.scanned_bytes() <= 2 * stream.size());
  MPK_FUZZ_CHECK(dec.capacity() <= std::max<std::size_t>(4096, 2 * stream.size()));
  const mpk::error got = dec.ok() ? dec.finish().error() : dec.error();
  MPK_FUZZ_CHECK(n == expected.messages.size());
  MPK_FUZZ_CHECK(static_cast<bool>(got) == static_cast<bool>(expected.error));
  if (!expected.error) return;
  if (expected.error.code != mpk::errc::truncated) {
    MPK_FUZZ_CHECK(got == expected.error);
  } else {
    const std::size_t start =
        n == 0 ? 0 : expected.offsets[n - 1] + expected.messages[n - 1].size();
    MPK_FUZZ_CHECK(got == (mpk::error{mpk::errc::truncated, start}) ||
                   (got.offset >= expected.error.offset && got.offset < stream.size()));
  }
}

void check_typed_and_document(span stream, span sizes, const mpk::limits& lim) {
  const one_shot_result expected = one_shot(stream, lim);
  {
    mpk::stream_decoder dec({.read = {.limits = lim}, .max_buffer_size = stream.size() + 1});
    mpk::value v;
    const std::size_t n = each_message(
        dec, stream, sizes, [&] { return dec.next(v); },
        [&](std::size_t i) {
          MPK_FUZZ_CHECK(i < expected.messages.size());
          mpk::reader r(expected.messages[i], {.limits = lim});
          mpk::value one;
          MPK_FUZZ_CHECK(mpk::unpack(r, one).has_value());
          MPK_FUZZ_CHECK(one == v);
        });
    MPK_FUZZ_CHECK(n <= expected.messages.size());
    // A message the reader accepts can fail typed decoding only as unpack fails on it.
    if (n < expected.messages.size() && !dec.ok()) {
      mpk::reader r(expected.messages[n], {.limits = lim});
      mpk::value one;
      const auto alone = mpk::unpack(r, one);
      MPK_FUZZ_CHECK(!alone.has_value());
      MPK_FUZZ_CHECK(dec.error().code == alone.error().code);
      MPK_FUZZ_CHECK(dec.error().offset == expected.offsets[n] + alone.error().offset);
    }
  }
  {
    mpk::stream_decoder dec({.read = {.limits = lim}, .max_buffer_size = stream.size() + 1});
    mpk::document doc;
    const std::size_t n = each_message(
        dec, stream, sizes, [&] { return dec.next(doc); },
        [&](std::size_t i) {
          MPK_FUZZ_CHECK(i < expected.messages.size());
          const auto alone = mpk::document::parse(expected.messages[i], {.read = {.limits = lim}});
          MPK_FUZZ_CHECK(alone.has_value());
          MPK_FUZZ_CHECK(alone->root() == doc.root());
        });
    MPK_FUZZ_CHECK(n <= expected.messages.size());
  }
}

/// The items of a one-shot walk in element-wise mode: header, then each element (or key and
/// value together), until the first error.
std::vector<span> one_shot_items(span stream, const mpk::limits& lim, bool& clean) {
  std::vector<span> items;
  mpk::limits inner = lim;
  if (inner.max_depth != 0) --inner.max_depth;
  clean = false;
  std::size_t at = 0;
  while (at < stream.size()) {
    mpk::reader r(stream.subspan(at), {.limits = lim});
    const mpk::type t = r.peek();
    if (!mpk::is_container(t) || lim.max_depth == 0) return items;
    const std::uint32_t count = t == mpk::type::map ? r.read_map_header() : r.read_array_header();
    if (!r.ok()) return items;
    at += r.position();
    for (std::uint32_t i = 0; i < count; ++i) {
      mpk::reader item(stream.subspan(at), {.limits = inner});
      item.skip();
      if (t == mpk::type::map) item.skip();
      if (!item.ok()) return items;
      items.push_back(stream.subspan(at, item.position()));
      at += item.position();
    }
  }
  clean = true;
  return items;
}

void check_elements(span stream, span sizes, const mpk::limits& lim) {
  bool clean = false;
  const std::vector<span> expected = one_shot_items(stream, lim, clean);
  mpk::stream_decoder dec(
      {.read = {.limits = lim}, .max_buffer_size = stream.size() + 1, .elements = true});
  std::vector<std::vector<std::byte>> got;
  span m;
  each_message(dec, stream, sizes, raw_take(dec, m),
               [&](std::size_t) { got.emplace_back(m.begin(), m.end()); });
  const std::size_t common = std::min(got.size(), expected.size());
  for (std::size_t i = 0; i < common; ++i)
    MPK_FUZZ_CHECK(std::ranges::equal(got[i], expected[i]));
  if (clean) {
    MPK_FUZZ_CHECK(got.size() == expected.size());
    MPK_FUZZ_CHECK(dec.finish().has_value());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk::as_bytes(std::span(data, size));
  mpk_fuzz::current_input = input;
  if (input.empty()) return 0;
  const std::size_t k = std::min<std::size_t>(std::to_integer<std::size_t>(input[0]) % 8, size - 1);
  const span sizes = input.subspan(1, k);
  const span stream = input.subspan(1 + k);
  for (const mpk::limits& lim : {mpk::limits{}, mpk::limits::trusted(), mpk_fuzz::tiny_limits}) {
    check_raw(stream, sizes, lim);
    check_typed_and_document(stream, sizes, lim);
    check_elements(stream, sizes, lim);
  }
  return 0;
}
