// Tests of mpk/writer.hpp: exact bytes at every encoding boundary, options, sinks, errors.
#include <mpk/writer.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "support/hex.hpp"

using mpk_test::hex;
using mpk_test::to_hex;

namespace {

// Encodes one value with the default writer and returns its bytes as hex.
template <class T>
std::string encode(const T& v, mpk::writer_options options = {}) {
  mpk::buffer buf;
  mpk::writer w(buf, options);
  w.write(v);
  EXPECT_EQ(w.error(), mpk::errc::ok);
  return to_hex(buf.bytes());
}

std::string repeat(char c, std::size_t n) {
  return std::string(n, c);
}

// Header hex of a value written by `fn`, cut to the first `n` bytes.
template <class Fn>
std::string head(Fn fn, std::size_t n) {
  mpk::buffer buf;
  mpk::writer w(buf);
  fn(w);
  EXPECT_EQ(w.error(), mpk::errc::ok);
  EXPECT_GE(buf.size(), n);
  return to_hex(buf.bytes().first(n));
}

TEST(Writer, NilAndBooleans) {
  EXPECT_EQ(encode(nullptr), "c0");
  EXPECT_EQ(encode(true), "c3");
  EXPECT_EQ(encode(false), "c2");
}

TEST(Writer, UnsignedBoundaries) {
  EXPECT_EQ(encode(0u), "00");
  EXPECT_EQ(encode(127u), "7f");
  EXPECT_EQ(encode(128u), "cc 80");
  EXPECT_EQ(encode(255u), "cc ff");
  EXPECT_EQ(encode(256u), "cd 01 00");
  EXPECT_EQ(encode(65535u), "cd ff ff");
  EXPECT_EQ(encode(65536u), "ce 00 01 00 00");
  EXPECT_EQ(encode(4294967295u), "ce ff ff ff ff");
  EXPECT_EQ(encode(std::uint64_t{4294967296}), "cf 00 00 00 01 00 00 00 00");
  EXPECT_EQ(encode(std::numeric_limits<std::uint64_t>::max()), "cf ff ff ff ff ff ff ff ff");
}

TEST(Writer, SignedBoundaries) {
  // Non-negative signed values use the unsigned forms, as msgpack-python and msgpack-c do.
  EXPECT_EQ(encode(0), "00");
  EXPECT_EQ(encode(127), "7f");
  EXPECT_EQ(encode(128), "cc 80");
  EXPECT_EQ(encode(std::int64_t{65536}), "ce 00 01 00 00");
  EXPECT_EQ(encode(-1), "ff");
  EXPECT_EQ(encode(-32), "e0");
  EXPECT_EQ(encode(-33), "d0 df");
  EXPECT_EQ(encode(-128), "d0 80");
  EXPECT_EQ(encode(-129), "d1 ff 7f");
  EXPECT_EQ(encode(-32768), "d1 80 00");
  EXPECT_EQ(encode(-32769), "d2 ff ff 7f ff");
  EXPECT_EQ(encode(std::int64_t{-2147483648}), "d2 80 00 00 00");
  EXPECT_EQ(encode(std::int64_t{-2147483649}), "d3 ff ff ff ff 7f ff ff ff");
  EXPECT_EQ(encode(std::numeric_limits<std::int64_t>::min()), "d3 80 00 00 00 00 00 00 00");
  EXPECT_EQ(encode(std::numeric_limits<std::int64_t>::max()), "cf 7f ff ff ff ff ff ff ff");
}

TEST(Writer, EveryIntegerTypeUsesTheSmallestForm) {
  EXPECT_EQ(encode(std::int8_t{-128}), "d0 80");
  EXPECT_EQ(encode(std::uint8_t{200}), "cc c8");
  EXPECT_EQ(encode(std::int16_t{5}), "05");
  EXPECT_EQ(encode(std::uint16_t{300}), "cd 01 2c");
  EXPECT_EQ(encode(std::int32_t{-5}), "fb");
  EXPECT_EQ(encode(std::uint32_t{70000}), "ce 00 01 11 70");
  EXPECT_EQ(encode(static_cast<long long>(-40000)), "d2 ff ff 63 c0");
  EXPECT_EQ(encode(static_cast<unsigned long>(1)), "01");
}

TEST(Writer, ExplicitWidths) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.write_uint8(1);
  w.write_uint16(1);
  w.write_uint32(1);
  w.write_uint64(1);
  w.write_int8(-1);
  w.write_int16(-1);
  w.write_int32(-1);
  w.write_int64(-1);
  ASSERT_EQ(w.error(), mpk::errc::ok);
  EXPECT_EQ(to_hex(buf.bytes()),
            "cc 01 cd 00 01 ce 00 00 00 01 cf 00 00 00 00 00 00 00 01 "
            "d0 ff d1 ff ff d2 ff ff ff ff d3 ff ff ff ff ff ff ff ff");
}

TEST(Writer, Floats) {
  EXPECT_EQ(encode(1.5f), "ca 3f c0 00 00");
  EXPECT_EQ(encode(1.5), "cb 3f f8 00 00 00 00 00 00");
  EXPECT_EQ(encode(-0.0), "cb 80 00 00 00 00 00 00 00");
  mpk::buffer buf;
  mpk::writer w(buf);
  w.write_float32(0.25f);
  w.write_float64(0.25);
  EXPECT_EQ(to_hex(buf.bytes()), "ca 3e 80 00 00 cb 3f d0 00 00 00 00 00 00");
}

TEST(Writer, Float32Policy) {
  const mpk::writer_options lossless{.float32 = mpk::float32_policy::lossless};
  const mpk::writer_options always{.float32 = mpk::float32_policy::always};
  EXPECT_EQ(encode(1.5, lossless), "ca 3f c0 00 00");
  EXPECT_EQ(encode(0.1, lossless), "cb 3f b9 99 99 99 99 99 9a");  // 0.1 is not a float
  EXPECT_EQ(encode(-0.0, lossless), "ca 80 00 00 00");
  EXPECT_EQ(encode(std::numeric_limits<double>::infinity(), lossless), "ca 7f 80 00 00");
  EXPECT_EQ(encode(1e300, lossless), "cb 7e 37 e4 3c 88 00 75 9c");
  EXPECT_EQ(encode(0.1, always), "ca 3d cc cc cd");
  EXPECT_EQ(encode(1e300, always), "ca 7f 80 00 00");   // beyond float: +inf
  EXPECT_EQ(encode(-1e300, always), "ca ff 80 00 00");  // and -inf
  // Just above float's largest value, within half an ulp: rounds to that value.
  EXPECT_EQ(encode(static_cast<double>(std::numeric_limits<float>::max()) + 0x1p100, always),
            "ca 7f 7f ff ff");
  EXPECT_EQ(encode(1.5f, lossless), "ca 3f c0 00 00");  // float is always float32
}

TEST(Writer, StringBoundaries) {
  EXPECT_EQ(encode(""), "a0");
  EXPECT_EQ(encode("a"), "a1 61");
  EXPECT_EQ(head([](auto& w) { w.write(repeat('x', 31)); }, 1), "bf");
  EXPECT_EQ(head([](auto& w) { w.write(repeat('x', 32)); }, 2), "d9 20");
  EXPECT_EQ(head([](auto& w) { w.write(repeat('x', 255)); }, 2), "d9 ff");
  EXPECT_EQ(head([](auto& w) { w.write(repeat('x', 256)); }, 3), "da 01 00");
  EXPECT_EQ(head([](auto& w) { w.write(repeat('x', 65535)); }, 3), "da ff ff");
  EXPECT_EQ(head([](auto& w) { w.write(repeat('x', 65536)); }, 5), "db 00 01 00 00");
}

TEST(Writer, StringPayloadFollowsHeader) {
  for (std::size_t n : {0u, 31u, 32u, 255u, 256u, 257u, 65535u, 65536u}) {
    mpk::buffer buf;
    mpk::writer w(buf);
    std::string s(n, 'q');
    for (std::size_t i = 0; i < n; ++i)
      s[i] = static_cast<char>('a' + i % 26);
    w.write(s);
    ASSERT_EQ(w.error(), mpk::errc::ok);
    const std::size_t header = n < 32 ? 1 : n <= 255 ? 2 : n <= 65535 ? 3 : 5;
    ASSERT_EQ(buf.size(), header + n) << n;
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()) + header, n), s);
  }
}

// Short payloads are copied with overlapping fixed-size moves: every length up to past the
// 32-byte limit, at every alignment, lands exactly, with nothing written past its end.
TEST(Writer, ShortCopiesAtEveryLengthAndAlignment) {
  for (std::size_t n = 0; n <= 40; ++n) {
    for (std::size_t skew = 0; skew < 8; ++skew) {
      std::string src(skew + n + 8, '#');
      for (std::size_t i = 0; i < n; ++i)
        src[skew + i] = static_cast<char>(0x80 + i);  // distinct, high bit set
      std::vector<std::byte> dst(n + 16, std::byte{0x5a});
      mpk::detail::copy_bytes(dst.data() + 8, src.data() + skew, n);
      for (std::size_t i = 0; i < dst.size(); ++i) {
        const bool inside = i >= 8 && i < 8 + n;
        const auto want = inside ? static_cast<std::byte>(0x80 + (i - 8)) : std::byte{0x5a};
        ASSERT_EQ(dst[i], want) << "n " << n << " skew " << skew << " byte " << i;
      }
    }
    mpk::buffer buf;
    mpk::writer w(buf);
    const std::string s(n, 'k');
    w.write_bin(std::as_bytes(std::span(s)));
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()) + 2, n), s);
  }
}

TEST(Writer, EmptyPayloadsWithNullPointers) {
  // Empty views may hold a null pointer; writing them must not pass it to memcpy (UBSan).
  mpk::buffer buf;
  mpk::writer w(buf);
  w.write(std::string_view{});
  w.write(std::span<const std::byte>{});
  w.write_str8(std::string_view{});
  w.write_bin32(std::span<const std::byte>{});
  w.write_raw(std::span<const std::byte>{});
  ASSERT_EQ(w.error(), mpk::errc::ok);
  EXPECT_EQ(to_hex(buf.bytes()), "a0 c4 00 d9 00 c6 00 00 00 00");
}

TEST(Writer, StringKinds) {
  std::string s = "abc";
  EXPECT_EQ(encode(s), "a3 61 62 63");
  EXPECT_EQ(encode(std::string_view("abc")), "a3 61 62 63");
  EXPECT_EQ(encode(u8"é"), "a2 c3 a9");
  const char* p = "hi";
  EXPECT_EQ(encode(p), "a2 68 69");
}

TEST(Writer, ForcedStringWidths) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.write_str8("ab");
  w.write_str16("ab");
  w.write_str32("ab");
  EXPECT_EQ(to_hex(buf.bytes()), "d9 02 61 62 da 00 02 61 62 db 00 00 00 02 61 62");
  w.write_str8(repeat('x', 256));
  EXPECT_EQ(w.error(), mpk::errc::too_large);
  EXPECT_EQ(w.error().offset, 16u);
}

TEST(Writer, BinaryBoundaries) {
  auto bin = [](std::size_t n) { return std::vector<std::byte>(n, std::byte{7}); };
  EXPECT_EQ(encode(std::span<const std::byte>(bin(0))), "c4 00");
  EXPECT_EQ(encode(std::span<const std::byte>(bin(2))), "c4 02 07 07");
  EXPECT_EQ(head([&](auto& w) { w.write(std::span<const std::byte>(bin(255))); }, 2), "c4 ff");
  EXPECT_EQ(head([&](auto& w) { w.write(std::span<const std::byte>(bin(256))); }, 3), "c5 01 00");
  EXPECT_EQ(head([&](auto& w) { w.write(std::span<const std::byte>(bin(65535))); }, 3), "c5 ff ff");
  EXPECT_EQ(head([&](auto& w) { w.write(std::span<const std::byte>(bin(65536))); }, 5),
            "c6 00 01 00 00");
  mpk::buffer buf;
  mpk::writer w(buf);
  auto two = bin(2);
  w.write_bin8(two);
  w.write_bin16(two);
  w.write_bin32(two);
  EXPECT_EQ(to_hex(buf.bytes()), "c4 02 07 07 c5 00 02 07 07 c6 00 00 00 02 07 07");
}

TEST(Writer, OldSpecCompatibility) {
  const mpk::writer_options old{.old_spec = true};
  EXPECT_EQ(encode("ab", old), "a2 61 62");
  mpk::buffer buf;
  mpk::writer w(buf, old);
  w.write(repeat('x', 32));
  EXPECT_EQ(to_hex(buf.bytes().first(3)), "da 00 20");  // str16, never str8
  buf.clear();
  auto three = std::vector<std::byte>(3, std::byte{1});
  w.write(std::span<const std::byte>(three));
  EXPECT_EQ(to_hex(buf.bytes()), "a3 01 01 01");  // binaries as strings
  buf.clear();
  std::vector<std::byte> big(300, std::byte{1});
  w.write(std::span<const std::byte>(big));
  EXPECT_EQ(to_hex(buf.bytes().first(3)), "da 01 2c");
  buf.clear();
  w.write_str_header(40);
  w.write_bin_header(40);
  EXPECT_EQ(to_hex(buf.bytes()), "da 00 28 da 00 28");
}

TEST(Writer, ContainerBoundaries) {
  EXPECT_EQ(head([](auto& w) { w.begin_array(0); }, 1), "90");
  EXPECT_EQ(head([](auto& w) { w.begin_array(15); }, 1), "9f");
  EXPECT_EQ(head([](auto& w) { w.begin_array(16); }, 3), "dc 00 10");
  EXPECT_EQ(head([](auto& w) { w.begin_array(65535); }, 3), "dc ff ff");
  EXPECT_EQ(head([](auto& w) { w.begin_array(65536); }, 5), "dd 00 01 00 00");
  EXPECT_EQ(head([](auto& w) { w.begin_map(0); }, 1), "80");
  EXPECT_EQ(head([](auto& w) { w.begin_map(15); }, 1), "8f");
  EXPECT_EQ(head([](auto& w) { w.begin_map(16); }, 3), "de 00 10");
  EXPECT_EQ(head([](auto& w) { w.begin_map(65535); }, 3), "de ff ff");
  EXPECT_EQ(head([](auto& w) { w.begin_map(65536); }, 5), "df 00 01 00 00");
  EXPECT_EQ(head([](auto& w) { w.begin_map(0xffffffffu); }, 5), "df ff ff ff ff");
}

TEST(Writer, CountsAndLengthsBeyond32BitsAreTooLarge) {
  if constexpr (sizeof(std::size_t) <= 4) {
    GTEST_SKIP() << "size_t has 32 bits: no count or length beyond 2^32 - 1 can be passed";
  } else {
    const auto big = static_cast<std::size_t>(std::uint64_t{1} << 32);
    mpk::buffer buf;
    mpk::writer w(buf);
    w.begin_array(big);
    EXPECT_EQ(w.error(), mpk::errc::too_large);
    EXPECT_EQ(buf.size(), 0u);
    mpk::writer w2(buf);
    w2.begin_map(big);
    EXPECT_EQ(w2.error(), mpk::errc::too_large);
    mpk::writer w3(buf);
    w3.write_str_header(big);
    EXPECT_EQ(w3.error(), mpk::errc::too_large);
    mpk::writer w4(buf);
    w4.write_ext_header(1, big);
    EXPECT_EQ(w4.error(), mpk::errc::too_large);
  }
}

TEST(Writer, ExtensionForms) {
  auto ext = [](std::size_t n) {
    mpk::buffer buf;
    mpk::writer w(buf);
    std::vector<std::byte> data(n, std::byte{0xaa});
    w.write_ext(5, data);
    EXPECT_EQ(w.error(), mpk::errc::ok);
    EXPECT_EQ(buf.size(), n + (n == 1 || n == 2 || n == 4 || n == 8 || n == 16 ? 2
                               : n <= 255                                      ? 3
                               : n <= 65535                                    ? 4
                                                                               : 6));
    return to_hex(buf.bytes().first(std::min<std::size_t>(buf.size(), 6)));
  };
  EXPECT_EQ(ext(1), "d4 05 aa");
  EXPECT_EQ(ext(2), "d5 05 aa aa");
  EXPECT_EQ(ext(4), "d6 05 aa aa aa aa");
  EXPECT_EQ(ext(8), "d7 05 aa aa aa aa");
  EXPECT_EQ(ext(16), "d8 05 aa aa aa aa");
  EXPECT_EQ(ext(0), "c7 00 05");
  EXPECT_EQ(ext(3), "c7 03 05 aa aa aa");
  EXPECT_EQ(ext(17), "c7 11 05 aa aa aa");
  EXPECT_EQ(ext(255), "c7 ff 05 aa aa aa");
  EXPECT_EQ(ext(256), "c8 01 00 05 aa aa");
  EXPECT_EQ(ext(65535), "c8 ff ff 05 aa aa");
  EXPECT_EQ(ext(65536), "c9 00 01 00 00 05");
  mpk::buffer buf;
  mpk::writer w(buf);
  w.write_ext(-1, std::vector<std::byte>(4, std::byte{0}));  // timestamp 32
  EXPECT_EQ(to_hex(buf.bytes()), "d6 ff 00 00 00 00");
}

TEST(Writer, RawBytesAndHeaders) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_array(2);
  w.write_raw(hex("a1 78"));
  w.write_bin_header(2);
  w.write_raw(hex("01 02"));
  EXPECT_EQ(to_hex(buf.bytes()), "92 a1 78 c4 02 01 02");
}

TEST(Writer, NestedDocument) {
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_map(2);
  w.write("compact");
  w.write(true);
  w.write("schema");
  w.write(0);
  EXPECT_EQ(to_hex(buf.bytes()), "82 a7 63 6f 6d 70 61 63 74 c3 a6 73 63 68 65 6d 61 00");
}

TEST(Writer, SpanSinkNeverWritesPastTheEnd) {
  std::array<std::byte, 8> memory{};
  memory.fill(std::byte{0xee});
  mpk::span_sink out(std::span<std::byte>(memory).first(4));
  mpk::writer w(out);
  w.write(1);
  w.write(300);  // 3 bytes: fits exactly
  EXPECT_EQ(w.error(), mpk::errc::ok);
  w.write(2);  // no room
  EXPECT_EQ(w.error(), mpk::errc::buffer_full);
  EXPECT_EQ(w.error().offset, 4u);
  EXPECT_EQ(out.size(), 4u);
  EXPECT_EQ(to_hex(out.bytes()), "01 cd 01 2c");
  for (std::size_t i = 4; i < memory.size(); ++i)
    EXPECT_EQ(memory[i], std::byte{0xee});
}

// Issue 13: the fixext header is 2 bytes (marker, type), and a span_sink of exactly 2 bytes
// must hold it. The block is a heap block of exactly that size, so that AddressSanitizer
// reports any byte stored past it (the old write_ext_header stored a 4-byte length there).
TEST(Writer, FixextHeaderIntoAnExactlySizedSpanSink) {
  for (std::size_t n : {1, 2, 4, 8, 16}) {
    SCOPED_TRACE(n);
    const std::unique_ptr<std::byte[]> memory(new std::byte[2]);
    mpk::span_sink out(std::span<std::byte>(memory.get(), 2));
    mpk::writer w(out);
    w.write_ext_header(7, n);
    EXPECT_EQ(w.error(), mpk::errc::ok);
    mpk::buffer expected;
    mpk::writer(expected).write_ext_header(7, n);
    EXPECT_EQ(to_hex(out.bytes()), to_hex(expected.bytes()));
  }
}

TEST(Writer, ErrorsAreSticky) {
  std::array<std::byte, 2> memory{};
  mpk::span_sink out(memory);
  mpk::writer w(out);
  w.write(1000);  // 3 bytes: does not fit
  EXPECT_EQ(w.error(), mpk::errc::buffer_full);
  w.write(1);  // would fit, but the writer stopped at its first error
  w.write_str("x");
  EXPECT_EQ(out.size(), 0u);
  EXPECT_EQ(w.error(), mpk::errc::buffer_full);
  EXPECT_EQ(w.error().offset, 0u);
  w.clear_error();
  w.write(1);
  EXPECT_EQ(w.error(), mpk::errc::ok);
  EXPECT_EQ(out.size(), 1u);
}

TEST(Writer, StreamSinkToOstream) {
  std::ostringstream os;
  {
    mpk::stream_sink out(os, 16);  // tiny staging area: forces flushes and direct writes
    mpk::writer w(out);
    w.begin_array(3);
    w.write(1);
    w.write(std::string(40, 'z'));
    w.write(-1);
    EXPECT_EQ(out.flush(), mpk::errc::ok);
    EXPECT_EQ(out.total_size(), 1u + 1u + 2u + 40u + 1u);
  }
  const std::string s = os.str();
  ASSERT_EQ(s.size(), 45u);
  EXPECT_EQ(static_cast<unsigned char>(s[0]), 0x93);
  EXPECT_EQ(static_cast<unsigned char>(s[2]), 0xd9);
  EXPECT_EQ(static_cast<unsigned char>(s[44]), 0xff);
}

TEST(Writer, StreamSinkCallbackFailureIsAnIoError) {
  struct state {
    std::string got;
    int calls = 0;
  } st;
  auto fn = [](void* ctx, std::span<const std::byte> bytes) {
    auto* s = static_cast<state*>(ctx);
    if (++s->calls > 1) return false;
    s->got.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return true;
  };
  mpk::stream_sink out(fn, &st, 8);
  mpk::writer w(out);
  for (int i = 0; i < 20; ++i)
    w.write(i);
  EXPECT_EQ(w.error(), mpk::errc::io_error);
  EXPECT_EQ(st.got.size(), 8u);
  EXPECT_EQ(out.flush(), mpk::errc::io_error);
}

TEST(Writer, StreamSinkToFile) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    mpk::stream_sink out(f);
    mpk::writer w(out);
    w.write("hello");
    ASSERT_EQ(out.flush(), mpk::errc::ok);
  }
  std::rewind(f);
  char got[8] = {};
  EXPECT_EQ(std::fread(got, 1, sizeof got, f), 6u);
  EXPECT_EQ(std::string(got, 6), "\xa5hello");
  std::fclose(f);
}

TEST(Writer, StreamSinkToDescriptor) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    mpk::stream_sink out(fileno(f));
    mpk::writer w(out);
    w.write(std::uint64_t{1} << 40);
  }  // flushed by the destructor
  std::rewind(f);
  unsigned char got[16] = {};
  ASSERT_EQ(std::fread(got, 1, sizeof got, f), 9u);
  EXPECT_EQ(got[0], 0xcf);
  EXPECT_EQ(got[3], 0x01);
  std::fclose(f);
}

TEST(Writer, BufferGrowthPoliciesGiveTheSameBytes) {
  std::string reference;
  for (auto policy : {mpk::growth_policy{}, mpk::growth_policy{mpk::growth::fixed_increment, 100},
                      mpk::growth_policy{mpk::growth::exact}}) {
    mpk::buffer buf(policy);
    mpk::writer w(buf);
    for (int i = 0; i < 1000; ++i) {
      w.write(i * 1000);
      w.write("text");
    }
    ASSERT_EQ(w.error(), mpk::errc::ok);
    std::string got = to_hex(buf.bytes());
    if (reference.empty()) reference = got;
    EXPECT_EQ(got, reference);
    if (policy.kind == mpk::growth::exact) {
      EXPECT_EQ(buf.capacity(), buf.size());
    }
  }
}

}  // namespace
