// Tests of the writer's containers of unknown size (begin_array() / begin_map() without a
// count, end_array() / end_map(); mpk/detail/writer_unsized.hpp): the bytes equal those of a
// counted write at every header boundary and in every sink, nesting, every misuse error, and
// a stream_sink's staging bound with what its target holds after the error.
#include <mpk/codec.hpp>
#include <mpk/reader.hpp>
#include <mpk/writer.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/hex.hpp"

using mpk_test::to_hex;

namespace {

std::string as_string(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Element i of a test container: a mix of scalars, strings and a counted array, so that
// the walk that counts them sees each kind of header.
template <class W>
void element(W& w, std::size_t i) {
  switch (i % 6) {
    case 0:
      w.write(static_cast<std::int64_t>(i) * 977 - 3000);
      break;
    case 1:
      w.write(std::string(i % 9, 'a'));
      break;
    case 2:
      w.write_nil();
      break;
    case 3:
      w.begin_array(2);
      w.write(true);
      w.write(1.5);
      break;
    case 4:
      w.write(std::uint64_t{1} << 40);
      break;
    default:
      w.write_ext(7, std::span<const std::byte>{});
      break;
  }
}

template <class W>
void key(W& w, std::size_t i) {
  w.write("k" + std::to_string(i));
}

// The reference: a counted array (or map) of n elements (entries).
std::string counted(bool map, std::size_t n) {
  mpk::buffer buf;
  mpk::writer w(buf);
  if (map) {
    w.begin_map(n);
  } else {
    w.begin_array(n);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (map) key(w, i);
    element(w, i);
  }
  EXPECT_TRUE(w.ok());
  return as_string(buf.bytes());
}

template <class W>
void unsized(W& w, bool map, std::size_t n) {
  if (map) {
    w.begin_map();
  } else {
    w.begin_array();
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (map) key(w, i);
    element(w, i);
  }
  if (map) {
    w.end_map();
  } else {
    w.end_array();
  }
}

struct collected {
  std::string bytes;
  int calls = 0;
};

bool collect(void* ctx, std::span<const std::byte> b) {
  auto* c = static_cast<collected*>(ctx);
  c->bytes += as_string(b);
  ++c->calls;
  return true;
}

constexpr std::size_t boundary_sizes[] = {0, 1, 15, 16, 17, 65535, 65536};

TEST(WriterUnsized, BufferBytesEqualCountedWrites) {
  for (bool map : {false, true}) {
    for (std::size_t n : boundary_sizes) {
      SCOPED_TRACE((map ? "map of " : "array of ") + std::to_string(n));
      mpk::buffer buf;
      mpk::writer w(buf);
      unsized(w, map, n);
      EXPECT_EQ(w.finish(), mpk::errc::ok);
      EXPECT_EQ(w.open_containers(), 0u);
      EXPECT_EQ(as_string(buf.bytes()), counted(map, n));
    }
  }
}

TEST(WriterUnsized, HeadersAtEachBoundary) {
  auto first_bytes = [](bool map, std::size_t n, std::size_t k) {
    mpk::buffer buf;
    mpk::writer w(buf);
    unsized(w, map, n);
    EXPECT_TRUE(w.ok());
    return to_hex(buf.bytes().first(k));
  };
  EXPECT_EQ(first_bytes(false, 0, 1), "90");
  EXPECT_EQ(first_bytes(false, 15, 1), "9f");
  EXPECT_EQ(first_bytes(false, 16, 3), "dc 00 10");
  EXPECT_EQ(first_bytes(false, 65535, 3), "dc ff ff");
  EXPECT_EQ(first_bytes(false, 65536, 5), "dd 00 01 00 00");
  EXPECT_EQ(first_bytes(true, 0, 1), "80");
  EXPECT_EQ(first_bytes(true, 15, 1), "8f");
  EXPECT_EQ(first_bytes(true, 16, 3), "de 00 10");
  EXPECT_EQ(first_bytes(true, 65535, 3), "de ff ff");
  EXPECT_EQ(first_bytes(true, 65536, 5), "df 00 01 00 00");
}

TEST(WriterUnsized, SpanSinkBytesEqualCountedWrites) {
  for (bool map : {false, true}) {
    for (std::size_t n : boundary_sizes) {
      SCOPED_TRACE((map ? "map of " : "array of ") + std::to_string(n));
      const std::string want = counted(map, n);
      // While open, the container's header takes 26 bytes, 25 more than it may need.
      std::vector<std::byte> memory(want.size() + 25);
      mpk::span_sink out(memory);
      mpk::writer w(out);
      unsized(w, map, n);
      EXPECT_EQ(w.finish(), mpk::errc::ok);
      EXPECT_EQ(as_string(out.bytes()), want);
    }
  }
}

TEST(WriterUnsized, StreamSinkBytesEqualCountedWrites) {
  for (bool map : {false, true}) {
    for (std::size_t n : boundary_sizes) {
      SCOPED_TRACE((map ? "map of " : "array of ") + std::to_string(n));
      collected got;
      {
        mpk::stream_sink out(&collect, &got, 64);  // small: the held bytes make it grow
        mpk::writer w(out, {.unsized_staging_limit = 4u << 20});
        w.write("before");
        unsized(w, map, n);
        w.write("after");
        EXPECT_EQ(w.finish(), mpk::errc::ok);
        EXPECT_EQ(out.flush(), mpk::errc::ok);
      }
      EXPECT_EQ(got.bytes,
                "\xa6"
                "before" +
                    counted(map, n) + "\xa5" + "after");
    }
  }
}

TEST(WriterUnsized, OpenPlaceholderIsInvalidMessagePack) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.write(1);
  w.begin_array();
  w.write(2);
  EXPECT_EQ(w.open_containers(), 1u);
  // While open: a 26-byte placeholder starting with 0xc1, the marker no reader accepts.
  ASSERT_EQ(buf.size(), 1u + 26u + 1u);
  EXPECT_EQ(buf.bytes()[1], std::byte{0xc1});
  mpk::reader r(buf.bytes());
  EXPECT_EQ(r.read<int>(), 1);
  r.skip();
  EXPECT_EQ(r.error(), mpk::errc::invalid_marker);
  w.end_array();
  EXPECT_EQ(to_hex(buf.bytes()), "01 91 02");
}

TEST(WriterUnsized, NestingInEveryCombination) {
  // [ [], {"a": [1, [2, 3]]}, [[4], {}], (counted) [ [5, 6], {"b": {}} ], 7 ]
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_array();
  w.begin_array();
  w.end_array();
  w.begin_map();
  w.write("a");
  w.begin_array(2);  // counted inside unknown-size
  w.write(1);
  w.begin_array();  // unknown-size inside counted inside unknown-size
  w.write(2);
  w.write(3);
  w.end_array();
  w.end_map();
  w.begin_array();
  w.begin_array();
  w.write(4);
  w.end_array();
  w.begin_map();
  w.end_map();
  w.end_array();
  w.begin_array(2);
  w.begin_array();
  w.write(5);
  w.write(6);
  w.end_array();
  w.begin_map(1);
  w.write("b");
  w.begin_map();
  w.end_map();
  w.write(7);
  w.end_array();
  ASSERT_EQ(w.finish(), mpk::errc::ok);

  mpk::buffer ref;
  mpk::writer c(ref);
  c.begin_array(5);
  c.begin_array(0);
  c.begin_map(1);
  c.write("a");
  c.begin_array(2);
  c.write(1);
  c.begin_array(2);
  c.write(2);
  c.write(3);
  c.begin_array(2);
  c.begin_array(1);
  c.write(4);
  c.begin_map(0);
  c.begin_array(2);
  c.begin_array(2);
  c.write(5);
  c.write(6);
  c.begin_map(1);
  c.write("b");
  c.begin_map(0);
  c.write(7);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(to_hex(buf.bytes()), to_hex(ref.bytes()));
}

TEST(WriterUnsized, DeepNestingAndLargeInnerContainers) {
  // 200 levels, each with 20 elements before its child (its header is array16) and the
  // deepest with 70000 (array32): every level moves its body.
  constexpr int depth = 200;
  mpk::buffer buf;
  mpk::writer w(buf);
  mpk::buffer ref;
  mpk::writer c(ref);
  for (int d = 0; d < depth; ++d) {
    w.begin_array();
    c.begin_array(d + 1 < depth ? 21 : 70000);
    for (int i = 0; i < (d + 1 < depth ? 20 : 70000); ++i) {
      w.write(i);
      c.write(i);
    }
  }
  EXPECT_EQ(w.open_containers(), static_cast<std::size_t>(depth));
  for (int d = 0; d < depth; ++d)
    w.end_array();
  ASSERT_EQ(w.finish(), mpk::errc::ok);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(as_string(buf.bytes()), as_string(ref.bytes()));
}

struct point {
  int x = 0;
  std::string label;
};
MPK_MAP(point, x, label);

TEST(WriterUnsized, CountsWhateverWroteTheBytes) {
  // The codec (which writes through its own reservations), write_raw of several whole values
  // and piecewise strings each count as what they are.
  mpk::buffer raw;
  mpk::writer rw(raw);
  rw.write(1);
  rw.write("two");
  rw.begin_array(1);
  rw.write(3);

  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_array();
  EXPECT_TRUE(mpk::pack(w, point{1, "p"}).has_value());
  w.write_raw(raw.bytes());  // three values
  w.write_str_header(3);
  w.write_raw(std::as_bytes(std::span("abc", 3)));
  w.end_array();
  ASSERT_EQ(w.finish(), mpk::errc::ok);
  EXPECT_EQ(buf.bytes()[0], std::byte{0x95});  // 1 + 3 + 1 elements
}

TEST(WriterUnsized, EndWithoutBegin) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.write(1);
  w.end_array();
  EXPECT_EQ(w.error(), mpk::errc::invalid_argument);
  EXPECT_EQ(w.error().offset, 1u);
  mpk::writer m(buf);
  m.end_map();
  EXPECT_EQ(m.error(), mpk::errc::invalid_argument);
}

// A misuse at the end of a container: its error (sticky), then, after clear_error(), the
// container is still open and intact: what was missing is written and it closes.
struct misuse {
  const char* what;
  void (*write)(mpk::writer<mpk::buffer>&);  // up to the failing end
  mpk::errc code;
  void (*complete)(mpk::writer<mpk::buffer>&);
  const char* hex;  // the whole output in the end
};

const misuse misuses[] = {
    {"end_array closes a map",
     [](auto& w) {
       w.begin_map();
       w.write("k");
       w.write(1);
       w.end_array();
     },
     mpk::errc::invalid_argument, [](auto& w) { w.end_map(); }, "81 a1 6b 01"},
    {"end_map closes an array",
     [](auto& w) {
       w.begin_array();
       w.end_map();
     },
     mpk::errc::invalid_argument, [](auto& w) { w.end_array(); }, "90"},
    {"a key without its value",
     [](auto& w) {
       w.begin_map();
       w.write("a");
       w.write(1);
       w.write("b");
       w.end_map();
     },
     mpk::errc::invalid_argument,
     [](auto& w) {
       w.write(2);
       w.end_map();
     },
     "82 a1 61 01 a1 62 02"},
    {"a counted array short of elements",
     [](auto& w) {
       w.begin_array();
       w.begin_array(3);
       w.write(1);
       w.write(2);
       w.end_array();
     },
     mpk::errc::truncated,
     [](auto& w) {
       w.write(3);
       w.end_array();
     },
     "91 93 01 02 03"},
};

TEST(WriterUnsized, MisuseAtTheEndAndRecovery) {
  for (const misuse& m : misuses) {
    SCOPED_TRACE(m.what);
    mpk::buffer buf;
    mpk::writer w(buf);
    m.write(w);
    EXPECT_EQ(w.error(), m.code);
    EXPECT_EQ(w.error().offset, buf.size());
    const std::size_t size = buf.size();
    w.end_array();  // sticky: no-ops
    w.end_map();
    EXPECT_EQ(buf.size(), size);
    EXPECT_EQ(w.open_containers(), 1u);
    w.clear_error();
    m.complete(w);
    EXPECT_EQ(w.finish(), mpk::errc::ok);
    EXPECT_EQ(to_hex(buf.bytes()), m.hex);
  }
}

TEST(WriterUnsized, FinishWithAContainerOpen) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_array();
  w.begin_map();
  EXPECT_EQ(w.open_containers(), 2u);
  EXPECT_EQ(w.finish(), mpk::errc::invalid_argument);
  EXPECT_EQ(w.error().offset, 52u);
  EXPECT_EQ(w.open_containers(), 0u);  // given up
  EXPECT_EQ(buf.size(), 52u);          // a buffer keeps the bytes, invalid (0xc1)
  EXPECT_EQ(buf.bytes()[0], std::byte{0xc1});
  // A finished writer with nothing open is fine, and says the first error otherwise.
  mpk::writer ok_writer(buf);
  EXPECT_EQ(ok_writer.finish(), mpk::errc::ok);
}

TEST(WriterUnsized, StrHeaderWithoutItsPayloadInside) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_map();
  w.write("k");
  w.write_str_header(4);
  w.write_raw(std::as_bytes(std::span("ab", 2)));
  w.end_map();
  EXPECT_EQ(w.error(), mpk::errc::truncated);
}

TEST(WriterUnsized, InvalidMarkerFromWriteRaw) {
  const std::byte c1[] = {std::byte{0xc1}};
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_array();
  w.write_raw(c1);
  w.end_array();
  EXPECT_EQ(w.error(), mpk::errc::invalid_marker);
  // Also when a nested container opens after it (the parent counts its items then).
  mpk::buffer buf2;
  mpk::writer n(buf2);
  n.begin_array();
  n.write_raw(c1);
  n.begin_array();
  EXPECT_EQ(n.error(), mpk::errc::invalid_marker);
  EXPECT_EQ(n.open_containers(), 1u);
}

TEST(WriterUnsized, ErrorsAreSticky) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.end_array();
  ASSERT_EQ(w.error(), mpk::errc::invalid_argument);
  w.begin_array();
  w.write(1);
  w.end_array();
  EXPECT_EQ(w.open_containers(), 0u);
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_EQ(w.finish(), mpk::errc::invalid_argument);
}

TEST(WriterUnsized, SpanSinkTooSmallForThePlaceholder) {
  std::byte memory[25];
  mpk::span_sink out(memory);
  mpk::writer w(out);
  w.begin_array();  // needs 26 bytes while open, though [] takes 1
  EXPECT_EQ(w.error(), mpk::errc::buffer_full);
  EXPECT_EQ(w.open_containers(), 0u);
  EXPECT_EQ(out.size(), 0u);
  w.clear_error();
  w.begin_array(0);
  EXPECT_EQ(w.finish(), mpk::errc::ok);
  EXPECT_EQ(to_hex(out.bytes()), "90");
}

TEST(WriterUnsized, StreamSinkStagingBound) {
  // Staging capacity 32, limit 100: the container may hold up to 100 bytes. The values
  // before it are handed on; the refused write and the container never reach the target.
  collected got;
  {
    mpk::stream_sink out(&collect, &got, 32);
    mpk::writer w(out, {.unsized_staging_limit = 100});
    for (int i = 0; i < 40; ++i)
      w.write(i);  // 40 bytes: one flush of 32 so far
    w.begin_map();
    std::size_t held = 26;
    for (int i = 0; w.ok(); ++i) {
      w.write(i);  // positive fixints: one byte each
      if (w.ok()) ++held;
    }
    EXPECT_EQ(w.error(), mpk::errc::limit_exceeded);
    EXPECT_EQ(held, 100u);
    EXPECT_EQ(w.error().offset, 40u + 100u);
    EXPECT_EQ(out.total_size(), 140u);
    // The values before the container were all handed on to make room; nothing of it.
    EXPECT_EQ(got.bytes.size(), 40u);
    EXPECT_EQ(out.flush(), mpk::errc::ok);
    EXPECT_EQ(got.bytes.size(), 40u);
    EXPECT_EQ(w.finish(), mpk::errc::limit_exceeded);  // drops the held bytes
    EXPECT_EQ(out.total_size(), 40u);
  }  // the sink's destructor has nothing more to flush
  ASSERT_EQ(got.bytes.size(), 40u);
  for (int i = 0; i < 40; ++i)
    EXPECT_EQ(static_cast<unsigned char>(got.bytes[static_cast<std::size_t>(i)]), i);
}

TEST(WriterUnsized, StreamSinkBoundIsTheCapacityWhenLarger) {
  collected got;
  mpk::stream_sink out(&collect, &got, 256);
  mpk::writer w(out, {.unsized_staging_limit = 16});
  w.begin_array();
  for (int i = 0; i < 200; ++i)
    w.write(i % 100);  // 200 bytes: within the capacity, no growth
  w.end_array();
  ASSERT_EQ(w.finish(), mpk::errc::ok);
  EXPECT_EQ(out.flush(), mpk::errc::ok);
  ASSERT_EQ(got.bytes.size(), 203u);
  EXPECT_EQ(to_hex(std::as_bytes(std::span(got.bytes)).first(3)), "dc 00 c8");
}

TEST(WriterUnsized, StreamSinkHoldsLargePayloadsBack) {
  // A payload over the staging capacity normally goes straight to the target; inside an
  // open container it is held like the rest.
  collected got;
  mpk::stream_sink out(&collect, &got, 16);
  mpk::writer w(out);
  w.begin_array();
  const std::string big(1000, 'x');
  w.write(big);
  w.write(std::u16string(300, u'\u00e9'));
  EXPECT_EQ(got.bytes.size(), 0u);
  EXPECT_EQ(out.flush(), mpk::errc::ok);  // flushes nothing held
  EXPECT_EQ(got.bytes.size(), 0u);
  w.end_array();
  ASSERT_EQ(w.finish(), mpk::errc::ok);
  EXPECT_EQ(out.flush(), mpk::errc::ok);

  mpk::buffer ref;
  mpk::writer c(ref);
  c.begin_array(2);
  c.write(big);
  c.write(std::u16string(300, u'\u00e9'));
  EXPECT_EQ(got.bytes, as_string(ref.bytes()));
}

TEST(WriterUnsized, StreamSinkAfterAnErrorInside) {
  // Any error inside an open container: the target gets the bytes before it, never a part of it.
  collected got;
  {
    mpk::stream_sink out(&collect, &got, 8);
    mpk::writer w(out);
    w.write("abc");
    w.begin_array();
    w.write(std::string(100, 'y'));
    w.end_map();  // wrong kind
    EXPECT_EQ(w.error(), mpk::errc::invalid_argument);
    EXPECT_EQ(out.flush(), mpk::errc::ok);
    EXPECT_EQ(got.bytes,
              "\xa3"
              "abc");
  }
  EXPECT_EQ(got.bytes,
            "\xa3"
            "abc");
}

TEST(WriterUnsized, StreamSinkFreeAgainAfterFinish) {
  collected got;
  mpk::stream_sink out(&collect, &got, 8);
  {
    mpk::writer w(out);
    w.write(1);
    w.begin_array();
    w.write(2);
    EXPECT_EQ(w.finish(), mpk::errc::invalid_argument);  // drops the array, releases the sink
  }
  mpk::writer w(out);
  w.write(3);
  EXPECT_EQ(out.flush(), mpk::errc::ok);
  EXPECT_EQ(to_hex(std::as_bytes(std::span(got.bytes))), "01 03");
}

TEST(WriterUnsized, StreamSinkNestedFlushesOnlyWhenTheOutermostCloses) {
  collected got;
  mpk::stream_sink out(&collect, &got, 4);
  mpk::writer w(out);
  w.begin_array();
  for (int i = 0; i < 3; ++i) {
    w.begin_map();
    w.write("k");
    w.write(i);
    w.end_map();
    EXPECT_EQ(got.bytes.size(), 0u);
  }
  w.end_array();
  w.write(nullptr);
  ASSERT_EQ(w.finish(), mpk::errc::ok);
  EXPECT_EQ(out.flush(), mpk::errc::ok);
  EXPECT_EQ(to_hex(std::as_bytes(std::span(got.bytes))),
            "93 81 a1 6b 00 81 a1 6b 01 81 a1 6b 02 c0");
}

// A sink that can neither rewrite nor hold: begin_array() without a count does not compile.
struct append_only_sink {
  std::byte* prepare(std::size_t) { return nullptr; }
  void commit(std::size_t) {}
  bool append(const std::byte*, std::size_t) { return false; }
  mpk::errc failure() const { return mpk::errc::io_error; }
};
template <class W>
concept can_begin_unsized = requires(W& w) {
  w.begin_array();
  w.begin_map();
  w.end_array();
  w.end_map();
};
static_assert(mpk::sink<append_only_sink>);
static_assert(!can_begin_unsized<mpk::writer<append_only_sink>>);
static_assert(requires(mpk::writer<append_only_sink> & w) { w.begin_array(1); });
static_assert(can_begin_unsized<mpk::writer<mpk::buffer>>);
static_assert(can_begin_unsized<mpk::writer<mpk::span_sink>>);
static_assert(can_begin_unsized<mpk::writer<mpk::stream_sink>>);

}  // namespace
