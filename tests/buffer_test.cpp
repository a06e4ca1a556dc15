// Tests of mpk/buffer.hpp: growth policies, reuse, release, copies, span_sink.
#include <mpk/buffer.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

namespace {

void put(mpk::buffer& buf, std::size_t n, std::byte value) {
  std::byte* p = buf.prepare(n);
  ASSERT_NE(p, nullptr);
  std::memset(p, static_cast<int>(value), n);
  buf.commit(n);
}

TEST(Buffer, StartsEmpty) {
  mpk::buffer buf;
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_EQ(buf.capacity(), 0u);
  EXPECT_TRUE(buf.empty());
  EXPECT_TRUE(buf.bytes().empty());
}

TEST(Buffer, GeometricGrowthDoubles) {
  mpk::buffer buf;
  put(buf, 1, std::byte{1});
  EXPECT_EQ(buf.capacity(), 64u);  // smallest first allocation
  put(buf, 64, std::byte{2});
  EXPECT_EQ(buf.capacity(), 128u);
  put(buf, 1000, std::byte{3});
  EXPECT_EQ(buf.capacity(), 1065u);  // a write bigger than double gets what it needs
  EXPECT_EQ(buf.size(), 1065u);
  EXPECT_EQ(buf.data()[0], std::byte{1});
  EXPECT_EQ(buf.data()[64], std::byte{2});
  EXPECT_EQ(buf.data()[1064], std::byte{3});
}

TEST(Buffer, FixedIncrementGrowth) {
  mpk::buffer buf(mpk::growth_policy{mpk::growth::fixed_increment, 100});
  put(buf, 10, std::byte{1});
  EXPECT_EQ(buf.capacity(), 100u);
  put(buf, 95, std::byte{1});
  EXPECT_EQ(buf.capacity(), 200u);
  put(buf, 500, std::byte{1});
  EXPECT_EQ(buf.capacity(), 605u);
}

TEST(Buffer, ExactGrowth) {
  mpk::buffer buf(mpk::growth_policy{mpk::growth::exact});
  for (std::size_t i = 1; i <= 5; ++i) {
    put(buf, 3, std::byte{9});
    EXPECT_EQ(buf.capacity(), 3 * i);
  }
}

TEST(Buffer, ClearKeepsCapacityReleaseFreesIt) {
  mpk::buffer buf(1024);
  EXPECT_EQ(buf.capacity(), 1024u);
  put(buf, 100, std::byte{1});
  const std::byte* before = buf.data();
  buf.clear();
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_EQ(buf.capacity(), 1024u);
  put(buf, 100, std::byte{2});
  EXPECT_EQ(buf.data(), before);  // reused, no new allocation
  buf.release();
  EXPECT_EQ(buf.capacity(), 0u);
  EXPECT_EQ(buf.data(), nullptr);
  put(buf, 5, std::byte{3});  // usable again
  EXPECT_EQ(buf.size(), 5u);
}

TEST(Buffer, CopyAndMove) {
  mpk::buffer a;
  put(a, 10, std::byte{7});
  mpk::buffer b = a;
  EXPECT_EQ(b.size(), 10u);
  EXPECT_NE(b.data(), a.data());
  EXPECT_EQ(b.data()[9], std::byte{7});
  mpk::buffer c = std::move(a);
  EXPECT_EQ(c.size(), 10u);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  a = c;
  EXPECT_EQ(a.size(), 10u);
  b = std::move(c);
  EXPECT_EQ(b.size(), 10u);
}

TEST(Buffer, HugeRequestFailsCleanly) {
  mpk::buffer buf;
  put(buf, 8, std::byte{1});
  EXPECT_EQ(buf.prepare(~std::size_t{0}), nullptr);  // size arithmetic would overflow
  EXPECT_EQ(buf.prepare(~std::size_t{0} - 100), nullptr);
  EXPECT_EQ(buf.failure(), mpk::errc::out_of_memory);
  EXPECT_EQ(buf.size(), 8u);  // contents untouched
  // volatile: GCC would otherwise warn about the (refused) huge copy at compile time.
  volatile std::size_t huge = ~std::size_t{0};
  EXPECT_FALSE(buf.append(buf.data(), huge));
}

TEST(Buffer, AppendAndTruncate) {
  mpk::buffer buf;
  const std::array<std::byte, 3> bytes{std::byte{1}, std::byte{2}, std::byte{3}};
  EXPECT_TRUE(buf.append(bytes.data(), bytes.size()));
  EXPECT_TRUE(buf.append(bytes.data(), 0));
  EXPECT_EQ(buf.size(), 3u);
  buf.truncate(1);
  EXPECT_EQ(buf.size(), 1u);
  buf.truncate(10);
  EXPECT_EQ(buf.size(), 1u);
}

// Appending nothing always succeeds, also before any memory exists (it used to fail with
// out_of_memory on a new buffer, and buffer_full on a span_sink over no memory, because
// prepare(0) returns their null data pointer).
TEST(Buffer, AppendingNothingSucceedsWithoutMemory) {
  mpk::buffer buf;
  EXPECT_TRUE(buf.append(nullptr, 0));
  EXPECT_EQ(buf.size(), 0u);
  mpk::span_sink none{std::span<std::byte>()};
  EXPECT_TRUE(none.append(nullptr, 0));
  EXPECT_EQ(none.size(), 0u);
}

// put_byte is the writer's path for one-byte values: it grows a buffer (from no memory too)
// like prepare(1) and commit(1), and a full span_sink refuses it with nothing written.
TEST(Buffer, PutByteGrowsAndAppends) {
  mpk::buffer buf(mpk::growth_policy{mpk::growth::exact});
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(buf.put_byte(static_cast<std::uint8_t>(0x90 + i)));
  EXPECT_EQ(buf.size(), 3u);
  EXPECT_EQ(buf.capacity(), 3u);  // exact growth: one byte at a time
  EXPECT_EQ(buf.data()[0], std::byte{0x90});
  EXPECT_EQ(buf.data()[2], std::byte{0x92});
}

// The buffer keeps its place as pointers into its memory: after every growth (realloc may
// move the block), copy, move, clear and truncate, the next byte lands right after the last
// one, in the buffer's current memory, and room() is what capacity() and size() say.
TEST(Buffer, CursorFollowsItsMemory) {
  mpk::buffer buf(mpk::growth_policy{mpk::growth::exact});
  std::vector<std::byte> expected;
  for (int i = 0; i < 300; ++i) {  // exact growth: a reallocation for every byte
    ASSERT_TRUE(buf.put_byte(static_cast<std::uint8_t>(i)));
    expected.push_back(static_cast<std::byte>(i));
    ASSERT_EQ(buf.prepare(1) - buf.data(), static_cast<std::ptrdiff_t>(buf.size()));
    ASSERT_EQ(buf.room(), buf.capacity() - buf.size());
  }
  ASSERT_EQ(buf.size(), expected.size());
  EXPECT_EQ(std::memcmp(buf.data(), expected.data(), expected.size()), 0);

  mpk::buffer copy = buf;
  ASSERT_TRUE(copy.put_byte(0xaa));
  EXPECT_EQ(copy.size(), 301u);
  EXPECT_EQ(copy.data()[300], std::byte{0xaa});
  EXPECT_EQ(buf.size(), 300u);  // the original is untouched
  EXPECT_EQ(std::memcmp(copy.data(), expected.data(), expected.size()), 0);

  mpk::buffer moved = std::move(copy);
  ASSERT_TRUE(moved.put_byte(0xbb));
  EXPECT_EQ(moved.size(), 302u);
  EXPECT_EQ(moved.data()[301], std::byte{0xbb});

  moved.truncate(2);
  ASSERT_TRUE(moved.put_byte(0xcc));
  EXPECT_EQ(moved.size(), 3u);
  EXPECT_EQ(moved.data()[2], std::byte{0xcc});
  moved.clear();
  EXPECT_EQ(moved.room(), moved.capacity());
  ASSERT_TRUE(moved.put_byte(0xdd));
  EXPECT_EQ(moved.data()[0], std::byte{0xdd});

  moved.release();
  EXPECT_EQ(moved.room(), 0u);
  ASSERT_TRUE(moved.put_byte(0xee));
  EXPECT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved.data()[0], std::byte{0xee});
}

TEST(SpanSink, PutByteStopsAtTheEnd) {
  std::array<std::byte, 3> memory{std::byte{7}, std::byte{7}, std::byte{7}};
  mpk::span_sink out(std::span<std::byte>(memory).first(2));
  EXPECT_TRUE(out.put_byte(1));
  EXPECT_TRUE(out.put_byte(2));
  EXPECT_FALSE(out.put_byte(3));
  EXPECT_EQ(out.size(), 2u);
  EXPECT_EQ(memory[1], std::byte{2});
  EXPECT_EQ(memory[2], std::byte{7});  // past the span: untouched
}

TEST(SpanSink, RefusesWhatDoesNotFit) {
  std::array<std::byte, 4> memory{};
  mpk::span_sink out(memory);
  EXPECT_NE(out.prepare(4), nullptr);
  EXPECT_EQ(out.prepare(5), nullptr);
  EXPECT_EQ(out.failure(), mpk::errc::buffer_full);
  const std::array<std::byte, 3> bytes{std::byte{1}, std::byte{2}, std::byte{3}};
  EXPECT_TRUE(out.append(bytes.data(), 3));
  EXPECT_FALSE(out.append(bytes.data(), 2));
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(out.capacity(), 4u);
  EXPECT_EQ(out.room(), 1u);
  out.truncate(1);
  EXPECT_EQ(out.room(), 3u);
  EXPECT_TRUE(out.put_byte(9));
  EXPECT_EQ(memory[1], std::byte{9});
  out.clear();
  EXPECT_EQ(out.size(), 0u);
  EXPECT_EQ(out.room(), 4u);
}

}  // namespace
