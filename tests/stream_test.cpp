// Tests of mpk/stream.hpp: stream_decoder at every split point, one byte at a time and in
// random chunks (linear work on a 100 MB stream, asserted on its work counter), raw,
// document and typed output, max_buffer_size, errors with stream offsets, reset(),
// element-wise mode, stream_writer to an fd, a FILE*, a std::ostream and a callback, the
// fd/FILE* loops, and a real pipe between two processes.
#include <mpk/codec.hpp>
#include <mpk/stream.hpp>
#include <mpk/value.hpp>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "support/hex.hpp"

namespace {

using bytes = std::vector<std::byte>;
using mpk_test::hex;

// The W7 `stream` message of docs/workloads.md: ["tag", [[1440949922, {"message": "hi there"}]]].
struct payload {
  std::string_view message;
};
MPK_MAP(payload, message);
using entry = std::tuple<std::int64_t, payload>;
struct w7_message {
  std::string_view tag;
  std::vector<entry> entries;
};
MPK_ARRAY(w7_message, tag, entries);

bool operator==(const payload& a, const payload& b) {
  return a.message == b.message;
}
bool operator==(const w7_message& a, const w7_message& b) {
  return a.tag == b.tag && a.entries == b.entries;
}

/// A stream of messages of every kind: scalars at their encoding boundaries, strings and
/// binaries of 0..300 bytes (str8/str16 headers), ext and fixext, nested and empty
/// containers, a map of 20 entries, an array16, nesting 12 deep. Returns the stream and the
/// size of each message.
std::pair<bytes, std::vector<std::size_t>> mixed_stream() {
  mpk::buffer buf;
  mpk::writer w(buf);
  std::vector<std::size_t> sizes;
  std::size_t last = 0;
  auto done = [&] {
    sizes.push_back(buf.size() - last);
    last = buf.size();
  };
  const std::string text(300, 'x');
  const bytes blob(300, std::byte{7});
  w.write(0), done();
  w.write(127), done();
  w.write(-33), done();
  w.write(std::uint64_t{1} << 63), done();
  w.write(-1.5), done();
  w.write(1.5f), done();
  w.write_nil(), done();
  w.write(true), done();
  for (std::size_t n : {0u, 31u, 32u, 255u, 256u, 300u})
    w.write_str(std::string_view(text).substr(0, n)), done();
  w.write_bin(std::span<const std::byte>(blob).first(200)), done();
  w.write_ext(5, std::span<const std::byte>(blob).first(4)), done();
  w.write_ext(-7, std::span<const std::byte>(blob).first(17)), done();
  w.begin_array(0), done();
  w.begin_map(0), done();
  w.begin_map(20);
  for (int i = 0; i < 20; ++i) {
    w.write(std::to_string(i));
    w.begin_array(2), w.write(i), w.write_str("v");
  }
  done();
  w.begin_array(100);
  for (int i = 0; i < 100; ++i)
    w.write(i * 1000);
  done();
  for (int i = 0; i < 12; ++i)
    w.begin_array(2), w.write(i);
  w.write_str("deep"), done();
  w.begin_array(2), w.begin_map(0), w.begin_array(0), done();  // ends on empty containers
  EXPECT_TRUE(w.ok());
  return {bytes(buf.data(), buf.data() + buf.size()), sizes};
}

/// The messages of `input` as a one-shot reader sees them.
std::vector<bytes> one_shot(std::span<const std::byte> input) {
  std::vector<bytes> out;
  mpk::reader r(input);
  while (!r.at_end()) {
    const auto v = r.raw_value();
    EXPECT_TRUE(r.ok());
    out.emplace_back(v.begin(), v.end());
  }
  return out;
}

/// Feeds `input` cut at the offsets in `cuts` (ascending) and takes every message with
/// next() after each piece.
std::vector<bytes> chunked(mpk::stream_decoder& dec, std::span<const std::byte> input,
                           const std::vector<std::size_t>& cuts) {
  std::vector<bytes> out;
  std::size_t from = 0;
  auto drain = [&] {
    for (;;) {
      auto m = dec.next();
      EXPECT_TRUE(m.has_value()) << m.error().to_string();
      if (!m || m->empty()) return;
      out.emplace_back(m->begin(), m->end());
    }
  };
  for (std::size_t cut : cuts) {
    EXPECT_TRUE(dec.feed(input.subspan(from, cut - from)).has_value());
    drain();
    from = cut;
  }
  EXPECT_TRUE(dec.feed(input.subspan(from)).has_value());
  drain();
  return out;
}

TEST(StreamDecoder, EverySplitPointEqualsOneShot) {
  const auto [input, sizes] = mixed_stream();
  const std::vector<bytes> expected = one_shot(mpk::as_bytes(input));
  ASSERT_EQ(expected.size(), sizes.size());
  for (std::size_t cut = 0; cut <= input.size(); ++cut) {
    mpk::stream_decoder dec;
    EXPECT_EQ(chunked(dec, mpk::as_bytes(input), {cut}), expected) << "cut at " << cut;
    EXPECT_TRUE(dec.finish().has_value());
    EXPECT_EQ(dec.messages(), expected.size());
    EXPECT_EQ(dec.position(), input.size());
  }
}

TEST(StreamDecoder, NextAllYieldsTheCompleteMessagesAtHandAtEverySplitPoint) {
  const auto mixed = mixed_stream();  // not a structured binding: the lambda below uses it
  const bytes& input = mixed.first;
  const std::vector<std::size_t>& sizes = mixed.second;
  for (std::size_t cut = 0; cut <= input.size(); ++cut) {
    for (std::size_t cut2 : {cut, std::min(cut + 1, input.size()), (cut + input.size()) / 2}) {
      mpk::stream_decoder dec;
      bytes got;
      std::size_t from = 0;
      auto drain = [&] {
        for (;;) {
          const std::size_t at = dec.position();
          auto run = dec.next_all();
          ASSERT_TRUE(run.has_value()) << run.error().to_string();
          if (run->empty()) return;
          EXPECT_EQ(at, got.size());  // runs are back to back, from where the last ended
          got.insert(got.end(), run->begin(), run->end());
          // A run ends at a message boundary.
          std::size_t end = 0;
          for (std::size_t s : sizes) {
            if (end >= got.size()) break;
            end += s;
          }
          EXPECT_EQ(end, got.size()) << "cut " << cut << " " << cut2;
        }
      };
      for (std::size_t c : {cut, cut2, input.size()}) {
        if (c < from) continue;
        ASSERT_TRUE(dec.feed(mpk::as_bytes(input).subspan(from, c - from)).has_value());
        from = c;
        drain();
      }
      EXPECT_EQ(got, input) << "cut " << cut;
      EXPECT_EQ(dec.messages(), sizes.size());
      EXPECT_TRUE(dec.pending().empty());
      EXPECT_TRUE(dec.finish().has_value());
      EXPECT_LE(dec.scanned_bytes(), 2 * input.size());
    }
  }
}

TEST(StreamDecoder, NextAllYieldsTheRunBeforeAMalformedMessageThenItsError) {
  const bytes input = {std::byte{0x01}, std::byte{0x92}, std::byte{0x02}, std::byte{0x03},
                       std::byte{0x91}, std::byte{0xc1}, std::byte{0x04}};
  mpk::stream_decoder dec;
  ASSERT_TRUE(dec.feed(input).has_value());
  auto run = dec.next_all();
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->size(), 4u);  // 01 and [2, 3]
  EXPECT_EQ(dec.messages(), 2u);
  run = dec.next_all();
  ASSERT_FALSE(run.has_value());
  EXPECT_EQ(run.error().code, mpk::errc::invalid_marker);
  EXPECT_EQ(run.error().offset, 5u);
  EXPECT_EQ(dec.pending().size(), 3u);  // the malformed message onwards
}

TEST(StreamDecoder, PendingIsTheUnfinishedMessageAtTheEnd) {
  const bytes input = {std::byte{0x01}, std::byte{0x93}, std::byte{0x02}};
  mpk::stream_decoder dec;
  ASSERT_TRUE(dec.feed(input).has_value());
  auto run = dec.next_all();
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->size(), 1u);
  run = dec.next_all();
  ASSERT_TRUE(run.has_value());
  EXPECT_TRUE(run->empty());
  ASSERT_EQ(dec.pending().size(), 2u);
  EXPECT_EQ(dec.pending()[0], std::byte{0x93});
  EXPECT_EQ(dec.finish().error().code, mpk::errc::truncated);
}

TEST(StreamDecoder, EveryPairOfSplitPointsInsideOneMessage) {
  // Two cuts inside the same (nested) message: the scan resumes twice.
  const auto [input, sizes] = mixed_stream();
  const std::vector<bytes> expected = one_shot(mpk::as_bytes(input));
  std::size_t start = 0;
  for (std::size_t i = 0; i + 3 < sizes.size(); ++i)
    start += sizes[i];
  const std::size_t end = input.size();
  for (std::size_t a = start; a < end; ++a) {
    for (std::size_t b = a; b < end; b += 13) {
      mpk::stream_decoder dec;
      ASSERT_EQ(chunked(dec, mpk::as_bytes(input), {a, b}), expected) << a << " " << b;
    }
  }
}

TEST(StreamDecoder, OneByteAtATimeYieldsEachMessageWhenItsLastByteArrives) {
  const auto [input, sizes] = mixed_stream();
  mpk::stream_decoder dec;
  std::size_t fed = 0;
  std::size_t message = 0;
  std::size_t message_end = sizes[0];
  for (std::byte b : input) {
    ASSERT_TRUE(dec.feed(&b, 1).has_value());
    ++fed;
    auto m = dec.next();
    ASSERT_TRUE(m.has_value()) << m.error().to_string();
    if (fed < message_end) {
      EXPECT_TRUE(m->empty()) << "a partial message reported complete at byte " << fed;
      EXPECT_EQ(dec.finish().error().code, mpk::errc::truncated);
      EXPECT_EQ(dec.finish().error().offset, message_end - sizes[message]);
    } else {
      EXPECT_EQ(m->size(), sizes[message]) << "message " << message;
      EXPECT_TRUE(dec.next()->empty());
      EXPECT_TRUE(dec.finish().has_value());
      if (++message < sizes.size()) message_end += sizes[message];
    }
  }
  EXPECT_EQ(message, sizes.size());
  // Headers cut by a boundary are read again; nothing else is. A message's first byte also
  // gets the one-pass attempt.
  EXPECT_LE(dec.scanned_bytes(), 2 * input.size());
}

TEST(StreamDecoder, RandomChunksOf100MegabytesStayLinear) {
  // 100 MB of messages (the mixed set and W7 messages), fed in chunks of random sizes from
  // 1 byte to 64 KiB: the structural work stays within twice the input, and the buffer
  // never grows much beyond a chunk plus the largest message.
  const auto [mixed, sizes] = mixed_stream();
  mpk::buffer unit;
  mpk::writer w(unit);
  w.write_raw(mpk::as_bytes(mixed));
  for (int i = 0; i < 100; ++i)
    mpk::pack_value(w, w7_message{"tag", {entry{1440949922, payload{"hi there"}}}});
  const std::size_t per_unit = sizes.size() + 100;
  const std::size_t units = (std::size_t{100} << 20) / unit.size() + 1;
  bytes input(unit.size() * units);
  for (std::size_t i = 0; i < units; ++i)
    std::memcpy(input.data() + i * unit.size(), unit.data(), unit.size());

  std::mt19937_64 rng(42);
  mpk::stream_decoder dec({.max_buffer_size = 1 << 20});
  std::size_t messages = 0;
  std::size_t message_bytes = 0;
  std::size_t largest_capacity = 0;
  for (std::size_t at = 0; at < input.size();) {
    // Mostly small chunks, sometimes large ones.
    const std::size_t n =
        std::min(input.size() - at,
                 std::size_t{1} + static_cast<std::size_t>(rng() % (rng() % 4 == 0 ? 65536 : 64)));
    ASSERT_TRUE(dec.feed(input.data() + at, n).has_value());
    at += n;
    largest_capacity = std::max(largest_capacity, dec.capacity());
    for (;;) {
      auto m = dec.next();
      ASSERT_TRUE(m.has_value()) << m.error().to_string();
      if (m->empty()) break;
      ++messages;
      message_bytes += m->size();
    }
  }
  EXPECT_TRUE(dec.finish().has_value());
  EXPECT_EQ(messages, units * per_unit);
  EXPECT_EQ(message_bytes, input.size());
  EXPECT_GT(dec.scanned_bytes(), input.size() / 2);
  EXPECT_LE(dec.scanned_bytes(), 2 * input.size());
  EXPECT_LE(largest_capacity, std::size_t{4} * 65536);
}

TEST(StreamDecoder, TypedOutputEqualsUnpackAtEverySplitPoint) {
  mpk::buffer buf;
  mpk::writer w(buf);
  std::vector<w7_message> sent;
  for (int i = 0; i < 5; ++i) {
    w7_message m{i % 2 ? "tag" : "another tag", {}};
    for (int j = 0; j < i; ++j)
      m.entries.push_back(entry{1440949922 + j, payload{j % 2 ? "hi there" : ""}});
    mpk::pack_value(w, m);
    sent.push_back(m);
  }
  const std::span<const std::byte> input = buf.bytes();
  for (std::size_t cut = 0; cut <= input.size(); ++cut) {
    mpk::stream_decoder dec;
    std::vector<w7_message> got;
    w7_message out;
    auto drain = [&] {
      for (;;) {
        out.entries.clear();
        auto r = dec.next(out);
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
        if (!*r) return;
        got.push_back(out);
      }
    };
    ASSERT_TRUE(dec.feed(input.first(cut)).has_value());
    drain();
    ASSERT_TRUE(dec.feed(input.subspan(cut)).has_value());
    drain();
    EXPECT_EQ(got, sent) << "cut at " << cut;
  }
}

TEST(StreamDecoder, TypedOutputOneByteAtATime) {
  mpk::buffer buf;
  mpk::writer w(buf);
  const w7_message m{"tag", {entry{1440949922, payload{"hi there"}}}};
  for (int i = 0; i < 50; ++i)
    mpk::pack_value(w, m);
  mpk::stream_decoder dec;
  std::size_t got = 0;
  for (std::byte b : buf.bytes()) {
    ASSERT_TRUE(dec.feed(&b, 1).has_value());
    w7_message out;
    auto r = dec.next(out);
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    if (*r) {
      EXPECT_EQ(out, m);
      ++got;
    }
  }
  EXPECT_EQ(got, 50u);
  EXPECT_EQ(dec.messages(), 50u);
}

TEST(StreamDecoder, DocumentOutputEqualsParseAtEverySplitPoint) {
  const auto [input, sizes] = mixed_stream();
  std::vector<mpk::document> expected;
  for (const bytes& m : one_shot(mpk::as_bytes(input)))
    expected.push_back(*mpk::document::parse(m, {.copy = true}));
  for (std::size_t cut = 0; cut <= input.size(); cut += 7) {
    mpk::stream_decoder dec;
    mpk::document doc;
    std::size_t n = 0;
    auto drain = [&] {
      for (;;) {
        auto r = dec.next(doc);
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
        if (!*r) return;
        ASSERT_LT(n, expected.size());
        EXPECT_TRUE(doc.root() == expected[n].root()) << "message " << n << " cut " << cut;
        ++n;
      }
    };
    ASSERT_TRUE(dec.feed(mpk::as_bytes(input).first(cut)).has_value());
    drain();
    ASSERT_TRUE(dec.feed(mpk::as_bytes(input).subspan(cut)).has_value());
    drain();
    EXPECT_EQ(n, expected.size());
  }
}

TEST(StreamDecoder, RawTypedAndDocumentOutputsMixOnOneStream) {
  // 1, [2, "x"], 3, "four", 5 ... taken alternately as raw bytes, typed and as a document,
  // in chunks that cut messages.
  const bytes input = hex("01 92 02 a1 78 03 a4 66 6f 75 72 05 92 06 a1 79 07");
  for (std::size_t chunk = 1; chunk <= input.size(); ++chunk) {
    mpk::stream_decoder dec;
    mpk::document doc;
    std::vector<std::string> got;
    int step = 0;
    for (std::size_t at = 0; at < input.size(); at += chunk) {
      ASSERT_TRUE(dec.feed(mpk::as_bytes(input).subspan(at, std::min(chunk, input.size() - at))));
      for (bool more = true; more;) {
        switch (step % 3) {
          case 0: {
            auto m = dec.next();
            ASSERT_TRUE(m.has_value());
            more = !m->empty();
            if (more) got.push_back("raw " + mpk_test::to_hex(*m));
            break;
          }
          case 1: {
            std::tuple<int, std::string> pair;
            int x = 0;
            auto r = (step % 2) ? dec.next(pair) : dec.next(x);
            ASSERT_TRUE(r.has_value()) << r.error().to_string();
            more = *r;
            if (more)
              got.push_back((step % 2)
                                ? "pair " + std::to_string(std::get<0>(pair)) + std::get<1>(pair)
                                : "int " + std::to_string(x));
            break;
          }
          default: {
            auto r = dec.next(doc);
            ASSERT_TRUE(r.has_value()) << r.error().to_string();
            more = *r;
            if (more) got.push_back("doc " + mpk_test::to_hex(doc.root().raw()));
          }
        }
        if (more) ++step;
      }
    }
    const std::vector<std::string> expected = {
        "raw 01", "pair 2x", "doc 03", "raw a4 66 6f 75 72", "int 5", "doc 92 06 a1 79", "raw 07"};
    EXPECT_EQ(got, expected) << "chunks of " << chunk;
  }
}

TEST(StreamDecoder, MaxBufferSize) {
  mpk::stream_decoder dec({.max_buffer_size = 16});
  const bytes eight = hex("01 02 03 04 05 06 07 08");
  ASSERT_TRUE(dec.feed(eight).has_value());
  ASSERT_TRUE(dec.feed(eight).has_value());  // 16 held: the limit
  auto over = dec.feed(eight);
  EXPECT_EQ(over.error(), (mpk::error{mpk::errc::limit_exceeded, 0}));

  // Taking the messages frees the room.
  dec.reset();
  ASSERT_TRUE(dec.feed(eight).has_value());
  ASSERT_TRUE(dec.feed(eight).has_value());
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(dec.next()->size(), 1u);
  EXPECT_TRUE(dec.feed(eight).has_value());
  EXPECT_TRUE(dec.feed(eight).has_value());
  EXPECT_LE(dec.capacity(), 16u);

  // A message larger than the limit: its start is the error's offset.
  dec.reset();
  ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("07 d9 20"))).has_value());  // 7, then a str8 of 32 bytes
  EXPECT_EQ(dec.next()->size(), 1u);
  EXPECT_TRUE(dec.next()->empty());
  ASSERT_TRUE(dec.feed(mpk::as_bytes(bytes(14, std::byte{'a'}))).has_value());
  EXPECT_EQ(dec.feed(eight).error(), (mpk::error{mpk::errc::limit_exceeded, 1}));
  EXPECT_EQ(dec.next().error(), (mpk::error{mpk::errc::limit_exceeded, 1}));  // sticky
  EXPECT_TRUE(dec.prepare(4).empty());

  // prepare() gives no more than the limit allows.
  mpk::stream_decoder small({.max_buffer_size = 10});
  EXPECT_EQ(small.prepare(100).size(), 10u);
  small.commit(3);
  EXPECT_EQ(small.buffered(), 3u);
  EXPECT_EQ(small.prepare(100).size(), 7u);
}

TEST(StreamDecoder, ErrorsCarryTheStreamOffsetAndResetRecovers) {
  // 3 good messages (6 bytes), then an array whose second element is 0xc1.
  const bytes input = hex("01 a1 78 92 02 03 93 04 c1 05");
  mpk::stream_decoder dec;
  ASSERT_TRUE(dec.feed(mpk::as_bytes(input).first(8)).has_value());
  EXPECT_EQ(dec.next()->size(), 1u);
  EXPECT_EQ(dec.next()->size(), 2u);
  EXPECT_EQ(dec.next()->size(), 3u);
  EXPECT_TRUE(dec.next()->empty());  // 93 04: not complete yet
  ASSERT_TRUE(dec.feed(mpk::as_bytes(input).subspan(8)).has_value());
  const mpk::error bad{mpk::errc::invalid_marker, 8};
  EXPECT_EQ(dec.next().error(), bad);
  EXPECT_EQ(dec.next().error(), bad);  // sticky
  EXPECT_EQ(dec.feed(input).error(), bad);
  EXPECT_EQ(dec.finish().error(), bad);
  std::int64_t x = 0;
  EXPECT_EQ(dec.next(x).error(), bad);

  dec.reset();
  EXPECT_TRUE(dec.ok());
  ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("cd 01 00"))).has_value());
  EXPECT_EQ(*dec.next(x), true);
  EXPECT_EQ(x, 256);
  EXPECT_EQ(dec.position(), 3u);  // offsets start again after reset()

  // Offsets count every byte fed, across compactions of the buffer.
  mpk::stream_decoder far;
  const bytes many(100000, std::byte{0x01});
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(far.feed(many).has_value());
    while (!far.next()->empty()) {
    }
  }
  ASSERT_TRUE(far.feed(mpk::as_bytes(hex("92 01 c1"))).has_value());
  EXPECT_EQ(far.next().error(), (mpk::error{mpk::errc::invalid_marker, 1000002}));
}

TEST(StreamDecoder, LimitsApply) {
  {  // a str above max_str_len, found from its header before the payload arrives
    mpk::stream_decoder dec({.read = {.limits = {.max_str_len = 10}}});
    ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("05 91 d9 20"))).has_value());
    EXPECT_EQ(dec.next()->size(), 1u);
    EXPECT_EQ(dec.next().error(), (mpk::error{mpk::errc::limit_exceeded, 2}));
  }
  {  // nesting deeper than max_depth
    mpk::stream_decoder dec({.read = {.limits = {.max_depth = 3}}});
    ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("91 91 91 c0"))).has_value());
    EXPECT_EQ(dec.next()->size(), 4u);
    ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("91 91"))).has_value());
    EXPECT_TRUE(dec.next()->empty());
    ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("91 91 c0"))).has_value());
    EXPECT_EQ(dec.next().error(), (mpk::error{mpk::errc::depth_exceeded, 7}));
  }
  {  // an array count above max_array_len
    mpk::stream_decoder dec({.read = {.limits = {.max_array_len = 2}}});
    ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("dc 00"))).has_value());
    EXPECT_TRUE(dec.next()->empty());
    ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("03"))).has_value());
    EXPECT_EQ(dec.next().error(), (mpk::error{mpk::errc::limit_exceeded, 0}));
  }
  {  // a declared count far beyond the bytes: waits (bounded memory), never allocates for it
    mpk::stream_decoder dec({.read = {.limits = mpk::limits::trusted()}, .max_buffer_size = 1024});
    ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("dd ff ff ff ff 01 02"))).has_value());
    EXPECT_TRUE(dec.next()->empty());
    EXPECT_EQ(dec.finish().error(), (mpk::error{mpk::errc::truncated, 0}));
    EXPECT_LE(dec.capacity(), 4096u);
  }
  {  // typed: unpack's own errors, with the stream offset
    mpk::stream_decoder dec;
    ASSERT_TRUE(dec.feed(mpk::as_bytes(hex("01 cd 01 00"))).has_value());
    std::uint8_t small = 0;
    EXPECT_EQ(*dec.next(small), true);
    EXPECT_EQ(dec.next(small).error(), (mpk::error{mpk::errc::out_of_range, 1}));
  }
}

TEST(StreamDecoder, ElementWiseArray) {
  // [1, "ab", [2, 3], {}] then [] then [nil]: elements, one byte at a time.
  const bytes input = hex("94 01 a2 61 62 92 02 03 80 90 91 c0");
  const std::vector<bytes> expected = {hex("01"), hex("a2 61 62"), hex("92 02 03"), hex("80"),
                                       hex("c0")};
  mpk::stream_decoder dec({.elements = true});
  std::vector<bytes> got;
  for (std::byte b : input) {
    ASSERT_TRUE(dec.feed(&b, 1).has_value());
    for (;;) {
      auto m = dec.next();
      ASSERT_TRUE(m.has_value()) << m.error().to_string();
      if (m->empty()) break;
      got.emplace_back(m->begin(), m->end());
    }
    if (got.size() == 2) {
      EXPECT_EQ(dec.container(), mpk::type::array);
      EXPECT_EQ(dec.items_left(), 2u);
    }
  }
  EXPECT_EQ(got, expected);
  EXPECT_TRUE(dec.finish().has_value());
  EXPECT_EQ(dec.container(), mpk::type::invalid);

  // Typed elements, and the end of input inside the container.
  mpk::stream_decoder typed({.elements = true});
  ASSERT_TRUE(typed.feed(mpk::as_bytes(hex("93 01 02"))).has_value());
  int x = 0;
  EXPECT_EQ(*typed.next(x), true);
  EXPECT_EQ(x, 1);
  EXPECT_EQ(*typed.next(x), true);
  EXPECT_EQ(x, 2);
  EXPECT_EQ(*typed.next(x), false);
  EXPECT_EQ(typed.finish().error(), (mpk::error{mpk::errc::truncated, 3}));

  // A top-level scalar is not a container.
  mpk::stream_decoder scalar({.elements = true});
  ASSERT_TRUE(scalar.feed(mpk::as_bytes(hex("91 01 05"))).has_value());
  EXPECT_EQ(scalar.next()->size(), 1u);
  EXPECT_EQ(scalar.next().error(), (mpk::error{mpk::errc::type_mismatch, 2}));

  // Items nest one level less than max_depth (the container is depth 1).
  mpk::stream_decoder deep({.read = {.limits = {.max_depth = 2}}, .elements = true});
  ASSERT_TRUE(deep.feed(mpk::as_bytes(hex("92 91 01 91 91 01"))).has_value());
  EXPECT_EQ(deep.next()->size(), 2u);
  EXPECT_EQ(deep.next().error(), (mpk::error{mpk::errc::depth_exceeded, 4}));
}

TEST(StreamDecoder, ElementWiseHugeArrayInSmallMemory) {
  // One array of 500000 elements (about 2.5 MB), fed in 4 KiB chunks to a decoder allowed
  // 64 KiB: far more than it may hold at once.
  const std::uint32_t count = 500000;
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_array(count);
  for (std::uint32_t i = 0; i < count; ++i)
    w.write(std::uint64_t{i} * 1000);
  mpk::stream_decoder dec({.max_buffer_size = 64 << 10, .elements = true});
  std::uint32_t n = 0;
  const auto input = buf.bytes();
  for (std::size_t at = 0; at < input.size(); at += 4096) {
    ASSERT_TRUE(dec.feed(input.subspan(at, std::min<std::size_t>(4096, input.size() - at))));
    std::uint64_t v = 0;
    for (;;) {
      auto got = dec.next(v);
      ASSERT_TRUE(got.has_value()) << got.error().to_string();
      if (!*got) break;
      ASSERT_EQ(v, std::uint64_t{n} * 1000);
      ++n;
    }
  }
  EXPECT_EQ(n, count);
  EXPECT_TRUE(dec.finish().has_value());
  EXPECT_LE(dec.capacity(), std::size_t{64} << 10);
}

TEST(StreamDecoder, ElementWiseMapEntries) {
  // {"a": 1, "bc": [2], "d": "xy"}
  const bytes input = hex("83 a1 61 01 a2 62 63 91 02 a1 64 a2 78 79");
  for (std::size_t cut = 0; cut <= input.size(); ++cut) {
    mpk::stream_decoder dec({.elements = true});
    std::vector<std::pair<std::string, std::string>> got;
    std::string_view key;
    mpk::value value;
    auto drain = [&] {
      for (;;) {
        auto r = dec.next_entry(key, value);
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
        if (!*r) return;
        got.emplace_back(std::string(key), mpk_test::to_hex(mpk::pack(value)->bytes()));
      }
    };
    ASSERT_TRUE(dec.feed(mpk::as_bytes(input).first(cut)));
    drain();
    ASSERT_TRUE(dec.feed(mpk::as_bytes(input).subspan(cut)));
    drain();
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"a", "01"}, {"bc", "91 02"}, {"d", "a2 78 79"}};
    EXPECT_EQ(got, expected) << "cut at " << cut;
  }
  // Raw entries are key and value together; typed elements are for arrays only.
  mpk::stream_decoder dec({.elements = true});
  ASSERT_TRUE(dec.feed(input));
  EXPECT_EQ(mpk_test::to_hex(*dec.next()), "a1 61 01");
  int x = 0;
  EXPECT_EQ(dec.next(x).error().code, mpk::errc::invalid_argument);
  EXPECT_EQ(mpk_test::to_hex(*dec.next()), "a2 62 63 91 02");
  EXPECT_EQ(dec.items_left(), 1u);
}

// --- stream_writer --------------------------------------------------------------------------

/// The messages the W7 writer test sends, and their bytes written by hand.
std::vector<w7_message> w7_messages(int n) {
  std::vector<w7_message> out;
  for (int i = 0; i < n; ++i)
    out.push_back({i % 2 ? "tag" : "other", {entry{1440949922 + i, payload{"hi there"}}}});
  return out;
}

bytes packed(const std::vector<w7_message>& messages) {
  mpk::buffer buf;
  mpk::writer w(buf);
  for (const auto& m : messages)
    mpk::pack_value(w, m);
  return bytes(buf.data(), buf.data() + buf.size());
}

/// Writes `messages` through `out` (small staging: many flushes along the way), one of
/// them by hand and one pre-encoded.
void write_all(mpk::stream_writer& out, const std::vector<w7_message>& messages) {
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (i == 1) {
      const auto one = mpk::pack(messages[i]);
      ASSERT_TRUE(out.write_raw(one->bytes()).has_value());
    } else if (i == 2) {
      auto& w = out.writer();
      w.begin_array(2);
      w.write_str(messages[i].tag);
      w.begin_array(1);
      w.begin_array(2);
      w.write(std::get<0>(messages[i].entries[0]));
      w.begin_map(1);
      w.write_str("message");
      w.write_str(std::get<1>(messages[i].entries[0]).message);
      ASSERT_TRUE(out.end_message().has_value());
    } else {
      ASSERT_TRUE(out.write(messages[i]).has_value());
    }
  }
  ASSERT_TRUE(out.flush().has_value());
  EXPECT_EQ(out.messages(), messages.size());
}

TEST(StreamWriter, ToOstreamCallbackFileAndFd) {
  const auto messages = w7_messages(1000);
  const bytes expected = packed(messages);

  std::ostringstream os;
  {
    mpk::stream_writer out(os, 100);
    write_all(out, messages);
    EXPECT_EQ(out.bytes(), expected.size());
  }
  EXPECT_EQ(os.str(), std::string(reinterpret_cast<const char*>(expected.data()), expected.size()));

  bytes collected;
  std::size_t calls = 0;
  auto collect = [](void* ctx, std::span<const std::byte> b) {
    auto* c = static_cast<std::pair<bytes*, std::size_t*>*>(ctx);
    c->first->insert(c->first->end(), b.begin(), b.end());
    ++*c->second;
    return true;
  };
  std::pair<bytes*, std::size_t*> ctx{&collected, &calls};
  {
    mpk::stream_writer out(collect, &ctx, 256);
    write_all(out, messages);
  }
  EXPECT_EQ(collected, expected);
  EXPECT_GT(calls, 10u);  // staged in 256 bytes: flushed many times

  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    mpk::stream_writer out(file, 300);
    write_all(out, messages);
  }
  std::rewind(file);
  mpk::stream_decoder from_file;
  std::vector<w7_message> got;
  auto stats = mpk::read_values<w7_message>(
      mpk::stream_source(file), from_file, [&](w7_message& m) { got.push_back(m); }, 1000);
  ASSERT_TRUE(stats.has_value()) << stats.error().to_string();
  EXPECT_EQ(stats->messages, messages.size());
  EXPECT_EQ(stats->bytes, expected.size());
  EXPECT_EQ(got.size(), messages.size());
  std::fclose(file);

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    mpk::stream_writer out(fds[1], 512);
    write_all(out, w7_messages(100));  // 3 KB: fits in the pipe's buffer
  }
  ::close(fds[1]);
  mpk::stream_decoder from_pipe;
  std::size_t seen = 0;
  auto raw =
      mpk::read_messages(mpk::stream_source(fds[0]), from_pipe, [&](std::span<const std::byte> m) {
        EXPECT_EQ(*mpk::unpack<w7_message>(m), w7_messages(100)[seen]);
        ++seen;
      });
  ::close(fds[0]);
  ASSERT_TRUE(raw.has_value()) << raw.error().to_string();
  EXPECT_EQ(raw->messages, 100u);
  EXPECT_EQ(seen, 100u);
}

TEST(StreamWriter, ErrorsAreSticky) {
  int calls = 0;
  auto failing = [](void* ctx, std::span<const std::byte>) {
    ++*static_cast<int*>(ctx);
    return false;
  };
  mpk::stream_writer out(failing, &calls, 16);
  EXPECT_TRUE(out.write(std::string_view("0123456789")).has_value());  // staged
  const auto first = out.write(std::string_view("0123456789"));        // staging full: flush fails
  EXPECT_EQ(first.error().code, mpk::errc::io_error);
  EXPECT_EQ(out.write(1).error(), first.error());
  EXPECT_EQ(out.write_raw(hex("01")).error(), first.error());
  EXPECT_EQ(out.flush().error(), first.error());
  EXPECT_EQ(out.messages(), 1u);
  EXPECT_EQ(calls, 1);  // no retry after the failure

  int flushes = 0;
  mpk::stream_writer later(failing, &flushes);
  EXPECT_TRUE(later.write(1).has_value());
  EXPECT_EQ(later.flush().error(), (mpk::error{mpk::errc::io_error, 1}));
  EXPECT_EQ(later.write(2).error().code, mpk::errc::io_error);
}

// --- reading loops ---------------------------------------------------------------------------

TEST(StreamRead, TruncatedAtEndOfInputAndEarlyStop) {
  bytes input = packed(w7_messages(10));
  input.resize(input.size() - 3);  // the last message loses its end
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ::close(fds[1]);
  mpk::stream_decoder dec;
  std::size_t seen = 0;
  auto stats =
      mpk::read_values<w7_message>(mpk::stream_source(fds[0]), dec, [&](w7_message&) { ++seen; });
  ::close(fds[0]);
  EXPECT_EQ(seen, 9u);
  EXPECT_EQ(stats.error().code, mpk::errc::truncated);
  EXPECT_EQ(stats.error().offset, packed(w7_messages(9)).size());  // where message 10 starts

  // A callback returning false stops the loop.
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  const bytes full = packed(w7_messages(10));
  ASSERT_EQ(std::fwrite(full.data(), 1, full.size(), file), full.size());
  std::rewind(file);
  mpk::stream_decoder again;
  std::size_t taken = 0;
  auto stopped = mpk::read_messages(mpk::stream_source(file), again,
                                    [&](std::span<const std::byte>) { return ++taken < 4; });
  std::fclose(file);
  ASSERT_TRUE(stopped.has_value());
  EXPECT_EQ(stopped->messages, 4u);
  EXPECT_EQ(taken, 4u);

  // An fd that cannot be read.
  mpk::stream_decoder bad;
  auto failed = mpk::read_messages(mpk::stream_source(-1), bad, [](std::span<const std::byte>) {});
  EXPECT_EQ(failed.error().code, mpk::errc::io_error);
}

TEST(StreamPipe, WriterInOneProcessDecoderInAnother) {
  // A child process writes 100000 W7 messages (about 3 MB: far more than a pipe holds, so
  // both sides block and resume many times) through stream_writer; this process decodes them
  // with read_values as they arrive.
  constexpr int count = 100000;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    int status = 0;
    {
      mpk::stream_writer out(fds[1], 4000);  // odd staging size: chunks cut messages
      for (int i = 0; i < count && status == 0; ++i) {
        const w7_message m{"tag", {entry{i, payload{i % 3 ? "hi there" : ""}}}};
        if (!out.write(m)) status = 1;
      }
      if (!out.flush()) status = 2;
    }
    ::close(fds[1]);
    ::_exit(status);
  }
  ::close(fds[1]);
  mpk::stream_decoder dec({.max_buffer_size = 1 << 16});
  int next = 0;
  bool in_order = true;
  auto stats = mpk::read_values<w7_message>(
      mpk::stream_source(fds[0]), dec,
      [&](w7_message& m) {
        in_order = in_order && m.entries.size() == 1 && std::get<0>(m.entries[0]) == next &&
                   std::get<1>(m.entries[0]).message == (next % 3 ? "hi there" : "");
        ++next;
        m.entries.clear();
      },
      3000);
  ::close(fds[0]);
  int status = -1;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSERT_TRUE(stats.has_value()) << stats.error().to_string();
  EXPECT_EQ(stats->messages, static_cast<std::size_t>(count));
  EXPECT_EQ(next, count);
  EXPECT_TRUE(in_order);
  EXPECT_EQ(stats->bytes, dec.bytes_fed());
}

}  // namespace
