// Every public writer call into sinks of every size: the promise that nothing is ever written
// past the end of a span_sink, checked where AddressSanitizer can see it.
//
// One table lists the calls (each overload and forced width, the headers, raw bytes,
// timestamps, UTF-16 text; every size class of str, bin, ext, array and map; the integer
// boundaries). Each call's reference is what it writes into a default mpk::buffer. Then:
// - span_sink over a heap block of exactly n bytes (`new std::byte[n]`, so that ASan reports
//   a store one byte past it), for every n from 0 to what the call needs + 2: the call either
//   writes the reference bytes, or fails with errc::buffer_full (or the reference's own
//   error) having committed a prefix of them, with the error's offset at the committed size;
// - mpk::buffer with an initial capacity of exactly the size needed (and around it);
// - stream_sink with staging areas of 1, 2, 3, 5, 8, 100 bytes, a callback collecting it.
// Calls of more than 300 bytes are tried at every size near the start and the end of their
// output and half way (the sinks behave alike for all the sizes in between), so that the
// whole test takes seconds under the sanitizers.
#include <mpk/ext/timestamp.hpp>
#include <mpk/writer.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "support/hex.hpp"

namespace {

using mpk_test::to_hex;
using bytes = std::vector<std::byte>;

// One writer call, for each of the three sinks (built from one generic lambda).
struct call {
  std::string name;
  mpk::writer_options options;
  std::function<void(mpk::writer<mpk::buffer>&)> on_buffer;
  std::function<void(mpk::writer<mpk::span_sink>&)> on_span;
  std::function<void(mpk::writer<mpk::stream_sink>&)> on_stream;
};

template <class F>
call make_call(std::string name, F f, mpk::writer_options options = {}) {
  return {std::move(name), options, f, f, f};
}

std::shared_ptr<const std::string> text(std::size_t n) {
  std::string s(n, 'x');
  for (std::size_t i = 0; i < n; ++i)
    s[i] = static_cast<char>('a' + i % 26);
  return std::make_shared<const std::string>(std::move(s));
}

// The size classes of str, bin, ext, array and map: each boundary, one below and one above.
const std::vector<std::size_t> lengths = {0,  1,  2,  3,  4,   5,   7,   8,    9,     15,    16,
                                          17, 31, 32, 33, 255, 256, 257, 4096, 65535, 65536, 65537};

std::vector<call> all_calls() {
  std::vector<call> calls;
  auto add = [&](std::string name, auto f, mpk::writer_options o = {}) {
    calls.push_back(make_call(std::move(name), f, o));
  };

  // nil, booleans
  add("write(nullptr)", [](auto& w) { w.write(nullptr); });
  add("write_nil", [](auto& w) { w.write_nil(); });
  add("write(true)", [](auto& w) { w.write(true); });
  add("write(false)", [](auto& w) { w.write(false); });
  add("write_bool(true)", [](auto& w) { w.write_bool(true); });

  // integers in their smallest form: every boundary of the ladder, through each overload
  const std::vector<std::uint64_t> unsigned_values = {0,
                                                      1,
                                                      127,
                                                      128,
                                                      255,
                                                      256,
                                                      65535,
                                                      65536,
                                                      0xffffffff,
                                                      0x100000000,
                                                      std::numeric_limits<std::uint64_t>::max()};
  const std::vector<std::int64_t> signed_values = {
      0,     1,         127,      128,    -1,     -31,       -32,
      -33,   -128,      -129,     -32768, -32769, INT32_MIN, std::int64_t{INT32_MIN} - 1,
      65536, INT64_MIN, INT64_MAX};
  for (std::uint64_t v : unsigned_values) {
    const std::string s = std::to_string(v);
    add("write(uint64 " + s + ")", [v](auto& w) { w.write(v); });
    add("write_unsigned(" + s + ")", [v](auto& w) { w.write_unsigned(v); });
    add("write_uint64(" + s + ")", [v](auto& w) { w.write_uint64(v); });
    if (v <= 0xffffffff) {
      add("write(uint32 " + s + ")", [v](auto& w) { w.write(static_cast<std::uint32_t>(v)); });
      add("write_uint32(" + s + ")",
          [v](auto& w) { w.write_uint32(static_cast<std::uint32_t>(v)); });
    }
    if (v <= 0xffff) {
      add("write(uint16 " + s + ")", [v](auto& w) { w.write(static_cast<std::uint16_t>(v)); });
      add("write_uint16(" + s + ")",
          [v](auto& w) { w.write_uint16(static_cast<std::uint16_t>(v)); });
    }
    if (v <= 0xff) {
      add("write(uint8 " + s + ")", [v](auto& w) { w.write(static_cast<std::uint8_t>(v)); });
      add("write_uint8(" + s + ")", [v](auto& w) { w.write_uint8(static_cast<std::uint8_t>(v)); });
    }
  }
  for (std::int64_t v : signed_values) {
    const std::string s = std::to_string(v);
    add("write(int64 " + s + ")", [v](auto& w) { w.write(v); });
    add("write_signed(" + s + ")", [v](auto& w) { w.write_signed(v); });
    add("write_int64(" + s + ")", [v](auto& w) { w.write_int64(v); });
    if (v >= INT32_MIN && v <= INT32_MAX) {
      add("write(int " + s + ")", [v](auto& w) { w.write(static_cast<int>(v)); });
      add("write_int32(" + s + ")", [v](auto& w) { w.write_int32(static_cast<std::int32_t>(v)); });
    }
    if (v >= INT16_MIN && v <= INT16_MAX) {
      add("write(short " + s + ")", [v](auto& w) { w.write(static_cast<short>(v)); });
      add("write_int16(" + s + ")", [v](auto& w) { w.write_int16(static_cast<std::int16_t>(v)); });
    }
    if (v >= INT8_MIN && v <= INT8_MAX) {
      add("write(int8 " + s + ")", [v](auto& w) { w.write(static_cast<std::int8_t>(v)); });
      add("write_int8(" + s + ")", [v](auto& w) { w.write_int8(static_cast<std::int8_t>(v)); });
    }
  }
  add("write(long long min)", [](auto& w) { w.write(std::numeric_limits<long long>::min()); });
  add("write(unsigned long max)",
      [](auto& w) { w.write(std::numeric_limits<unsigned long>::max()); });

  // floats, and write(double) under each float32 policy
  for (double d : {0.0, -0.0, 1.5, 0.1, 1e300, -std::numeric_limits<double>::infinity()}) {
    const std::string s = std::to_string(d);
    add("write(double " + s + ")", [d](auto& w) { w.write(d); });
    add("write_float64(" + s + ")", [d](auto& w) { w.write_float64(d); });
    add("write(float " + s + ")", [d](auto& w) { w.write(static_cast<float>(d)); });
    add("write_float32(" + s + ")", [d](auto& w) { w.write_float32(static_cast<float>(d)); });
    add("write(double " + s + ") float32 always", [d](auto& w) { w.write(d); },
        {.float32 = mpk::float32_policy::always});
    add("write(double " + s + ") float32 lossless", [d](auto& w) { w.write(d); },
        {.float32 = mpk::float32_policy::lossless});
  }

  // strings, binaries, extensions, containers: every size class
  for (std::size_t n : lengths) {
    const std::string s = std::to_string(n);
    const auto t = text(n);
    add("write(string_view " + s + ")", [t](auto& w) { w.write(std::string_view(*t)); });
    add("write_str(" + s + ")", [t](auto& w) { w.write_str(std::string_view(*t)); });
    add("write_str(" + s + ") old_spec", [t](auto& w) { w.write_str(std::string_view(*t)); },
        {.old_spec = true});
    add("write(u8string_view " + s + ")", [t](auto& w) {
      w.write(std::u8string_view(reinterpret_cast<const char8_t*>(t->data()), t->size()));
    });
    add("write(span " + s + ")", [t](auto& w) { w.write(mpk::as_bytes(*t)); });
    add("write_bin(" + s + ")", [t](auto& w) { w.write_bin(mpk::as_bytes(*t)); });
    add("write_bin(" + s + ") old_spec", [t](auto& w) { w.write_bin(mpk::as_bytes(*t)); },
        {.old_spec = true});
    add("write_str8(" + s + ")", [t](auto& w) { w.write_str8(*t); });
    add("write_str16(" + s + ")", [t](auto& w) { w.write_str16(*t); });
    add("write_str32(" + s + ")", [t](auto& w) { w.write_str32(*t); });
    add("write_bin8(" + s + ")", [t](auto& w) { w.write_bin8(mpk::as_bytes(*t)); });
    add("write_bin16(" + s + ")", [t](auto& w) { w.write_bin16(mpk::as_bytes(*t)); });
    add("write_bin32(" + s + ")", [t](auto& w) { w.write_bin32(mpk::as_bytes(*t)); });
    add("write_ext(7, " + s + ")", [t](auto& w) { w.write_ext(7, mpk::as_bytes(*t)); });
    add("write_ext(-1, " + s + ")", [t](auto& w) { w.write_ext(-1, mpk::as_bytes(*t)); });
    add("write_str_header(" + s + ") + raw", [t](auto& w) {
      w.write_str_header(t->size());
      w.write_raw(mpk::as_bytes(*t));
    });
    add("write_str_header(" + s + ") old_spec", [n](auto& w) { w.write_str_header(n); },
        {.old_spec = true});
    add("write_bin_header(" + s + ") + raw", [t](auto& w) {
      w.write_bin_header(t->size());
      w.write_raw(mpk::as_bytes(*t));
    });
    add("write_bin_header(" + s + ") old_spec", [n](auto& w) { w.write_bin_header(n); },
        {.old_spec = true});
    add("write_ext_header(7, " + s + ")", [n](auto& w) { w.write_ext_header(7, n); });
    add("write_ext_header(7, " + s + ") + raw", [t](auto& w) {
      w.write_ext_header(7, t->size());
      w.write_raw(mpk::as_bytes(*t));
    });
    add("begin_array(" + s + ")", [n](auto& w) { w.begin_array(n); });
    add("begin_map(" + s + ")", [n](auto& w) { w.begin_map(n); });
    add("write_raw(" + s + ")", [t](auto& w) { w.write_raw(mpk::as_bytes(*t)); });
    // UTF-16: ASCII (as long in UTF-8), 2-byte and 3-byte forms, and surrogate pairs, so
    // that the UTF-8 length crosses the str boundaries the UTF-16 length does not (the
    // multi-byte forms up to 4096 units: beyond, they cross no further boundary).
    add("write(u16string_view ascii " + s + ")",
        [u = std::make_shared<const std::u16string>(n, u'a')](auto& w) {
          w.write(std::u16string_view(*u));
        });
    if (n > 4096) continue;
    using unit_label = std::pair<char16_t, const char*>;
    for (auto [unit, label] : {unit_label{u'\u00e9', "2-byte"}, unit_label{u'\u20ac', "3-byte"}}) {
      auto u = std::make_shared<const std::u16string>(n, unit);
      add("write(u16string_view " + std::string(label) + " " + s + ")",
          [u](auto& w) { w.write(std::u16string_view(*u)); });
    }
    auto pairs = std::make_shared<std::u16string>();
    for (std::size_t i = 0; i < n / 2; ++i)
      *pairs += u"\U0001F600";
    add("write_str(u16 pairs " + s + ")",
        [pairs](auto& w) { w.write_str(std::u16string_view(*pairs)); });
    add("write_str(u16 " + s + ") old_spec",
        [u = std::make_shared<const std::u16string>(n, u'\u00e9')](auto& w) {
          w.write_str(std::u16string_view(*u));
        },
        {.old_spec = true});
  }
  // Header calls at the 32-bit limit, and beyond it (errc::too_large, nothing written) where
  // a size_t can say 2^32.
  std::vector<std::size_t> at_limit = {std::size_t{0xffffffff}};
  if constexpr (sizeof(std::size_t) > 4)
    at_limit.push_back(static_cast<std::size_t>(std::uint64_t{1} << 32));
  for (std::size_t n : at_limit) {
    const std::string s = std::to_string(n);
    add("write_str_header(" + s + ")", [n](auto& w) { w.write_str_header(n); });
    add("write_bin_header(" + s + ")", [n](auto& w) { w.write_bin_header(n); });
    add("write_ext_header(1, " + s + ")", [n](auto& w) { w.write_ext_header(1, n); });
    add("begin_array(" + s + ")", [n](auto& w) { w.begin_array(n); });
    add("begin_map(" + s + ")", [n](auto& w) { w.begin_map(n); });
  }
  add("write(const char*)", [](auto& w) { w.write("hello"); });
  add("write_str(u16 lone surrogate)",
      [](auto& w) { w.write_str(std::u16string_view(u"ab\xd800")); });

  // timestamps: 32, 64 and 96-bit forms, the error, and a time point
  for (mpk::timestamp ts :
       {mpk::timestamp{0, 0}, mpk::timestamp{0xffffffff, 0}, mpk::timestamp{1, 1},
        mpk::timestamp{(std::int64_t{1} << 34) - 1, 999999999}, mpk::timestamp{-1, 0},
        mpk::timestamp{std::int64_t{1} << 34, 5}, mpk::timestamp{1, 1000000000}}) {
    add("write_timestamp(" + std::to_string(ts.seconds) + ", " + std::to_string(ts.nanoseconds) +
            ")",
        [ts](auto& w) { mpk::write_timestamp(w, ts); });
  }
  add("write_timestamp(time_point)", [](auto& w) {
    mpk::write_timestamp(w, std::chrono::sys_time<std::chrono::nanoseconds>(
                                std::chrono::nanoseconds(1'500'000'000)));
  });

  // a short sequence: the sinks' state carries over from call to call
  add("sequence", [](auto& w) {
    w.begin_map(2);
    w.write("id");
    w.write(70000);
    w.write("tags");
    w.begin_array(2);
    w.write(u"caf\u00e9");
    w.write_ext(3, mpk::as_bytes(std::string(4, 'z')));
  });
  return calls;
}

struct reference {
  bytes out;
  mpk::error error;
};

reference run_on_buffer(const call& c) {
  mpk::buffer buf;
  mpk::writer w(buf, c.options);
  c.on_buffer(w);
  return {bytes(buf.bytes().begin(), buf.bytes().end()), w.error()};
}

bool is_prefix(std::span<const std::byte> part, const bytes& whole) {
  return part.size() <= whole.size() && std::equal(part.begin(), part.end(), whole.begin());
}
bool same(std::span<const std::byte> a, const bytes& b) {
  return a.size() == b.size() && is_prefix(a, b);
}

// The sizes of span_sink to try for output of `needed` bytes (see the file comment).
std::vector<std::size_t> span_sizes(std::size_t needed) {
  std::vector<std::size_t> sizes;
  constexpr std::size_t every_size_max = 300, edge = 16;
  for (std::size_t n = 0; n <= needed + 2; ++n) {
    if (needed <= every_size_max || n <= edge || n + edge >= needed) sizes.push_back(n);
  }
  if (needed > every_size_max) sizes.push_back(needed / 2);
  sizes.push_back(3 * needed + 8);  // room for the worst case (the UTF-16 one-pass path)
  return sizes;
}

class WriterSink : public ::testing::Test {
 protected:
  static const std::vector<call>& calls() {
    static const std::vector<call> list = all_calls();
    return list;
  }
};

TEST_F(WriterSink, TheTableCoversEachSizeClassAndTheReferencesAreSane) {
  // A guard on the table itself: the references hold what the format says for a few calls.
  std::size_t failing = 0;
  for (const call& c : calls()) {
    const reference ref = run_on_buffer(c);
    if (ref.error) {
      ++failing;
      EXPECT_TRUE(ref.out.empty()) << c.name;  // every error before writing anything
    }
  }
  EXPECT_GT(calls().size(), 500u);
  EXPECT_GT(failing, 10u);  // too_large, invalid_utf16, invalid_timestamp among them
  auto find = [&](std::string_view name) {
    for (const call& c : calls())
      if (c.name == name) return to_hex(run_on_buffer(c).out);
    ADD_FAILURE() << "no call " << name;
    return std::string();
  };
  EXPECT_EQ(find("write_ext_header(7, 4)"), "d6 07");
  EXPECT_EQ(find("write_ext_header(7, 3)"), "c7 03 07");
  EXPECT_EQ(find("begin_map(65536)"), "df 00 01 00 00");
  EXPECT_EQ(find("write(int64 -33)"), "d0 df");
  EXPECT_EQ(find("write_timestamp(1, 1)").substr(0, 5), "d7 ff");
}

TEST_F(WriterSink, SpanSinkOfEverySizeNeverWritesPastItsEnd) {
  for (const call& c : calls()) {
    SCOPED_TRACE(c.name);
    const reference ref = run_on_buffer(c);
    for (std::size_t size : span_sizes(ref.out.size())) {
      SCOPED_TRACE(size);
      // Exactly `size` bytes on the heap: a store past them is a heap-buffer-overflow for
      // ASan. (new std::byte[0] is a valid, unique pointer with no bytes.)
      const std::unique_ptr<std::byte[]> memory(new std::byte[size]);
      mpk::span_sink out(std::span<std::byte>(memory.get(), size));
      mpk::writer w(out, c.options);
      c.on_span(w);
      ASSERT_LE(out.size(), size);
      if (w.ok()) {
        ASSERT_EQ(ref.error, mpk::errc::ok);
        ASSERT_TRUE(same(out.bytes(), ref.out)) << to_hex(out.bytes());
        continue;
      }
      // A failure: the reference's own error, or no room. Committed bytes are a prefix.
      if (w.error() != ref.error) {
        ASSERT_EQ(w.error(), mpk::errc::buffer_full);
      }
      ASSERT_TRUE(ref.error || size < ref.out.size());
      ASSERT_TRUE(is_prefix(out.bytes(), ref.out)) << to_hex(out.bytes());
      ASSERT_EQ(w.error().offset, out.size());
    }
  }
}

TEST_F(WriterSink, BufferAtExactCapacityAndAroundIt) {
  for (const call& c : calls()) {
    SCOPED_TRACE(c.name);
    const reference ref = run_on_buffer(c);
    const std::size_t needed = ref.out.size();
    for (mpk::growth g : {mpk::growth::exact, mpk::growth::geometric}) {
      for (std::size_t capacity :
           {needed, needed + 1, needed == 0 ? 0 : needed - 1, std::size_t{0}}) {
        SCOPED_TRACE(capacity);
        mpk::buffer buf(capacity, mpk::growth_policy{g});
        mpk::writer w(buf, c.options);
        c.on_buffer(w);
        ASSERT_EQ(w.error(), ref.error);
        ASSERT_TRUE(same(buf.bytes(), ref.out)) << to_hex(buf.bytes());
        ASSERT_LE(buf.size(), buf.capacity());
      }
    }
  }
}

bool collect(void* context, std::span<const std::byte> chunk) {
  auto* out = static_cast<bytes*>(context);
  out->insert(out->end(), chunk.begin(), chunk.end());
  return true;
}

TEST_F(WriterSink, StreamSinkWithTinyStagingAreas) {
  for (const call& c : calls()) {
    SCOPED_TRACE(c.name);
    const reference ref = run_on_buffer(c);
    for (std::size_t staging : {1, 2, 3, 5, 8, 100}) {
      SCOPED_TRACE(staging);
      bytes collected;
      {
        mpk::stream_sink out(&collect, &collected, staging);
        mpk::writer w(out, c.options);
        c.on_stream(w);
        ASSERT_EQ(w.error(), ref.error);
        ASSERT_EQ(out.flush(), mpk::errc::ok);
        ASSERT_EQ(out.total_size(), ref.out.size());
      }
      ASSERT_EQ(collected.size(), ref.out.size());
      ASSERT_TRUE(same(collected, ref.out)) << to_hex(collected);
    }
  }
}

}  // namespace
