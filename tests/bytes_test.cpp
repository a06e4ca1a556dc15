// Tests of mpk/bytes.hpp: every reading entry point takes each kind of byte input through
// mpk::byte_input, reads the same message from it, and rejects what is not bytes at compile
// time.
#include "mpk/bytes.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mpk/mpk.hpp"

namespace {

// [1, 2]
constexpr unsigned char message_bytes[] = {0x92, 0x01, 0x02};
constexpr std::size_t message_size = sizeof message_bytes;

template <class T>
struct tag {
  using type = T;
};

// Inputs of each kind holding the message: owning containers, and views of `backing`.
struct inputs {
  std::string backing{reinterpret_cast<const char*>(message_bytes), message_size};
  std::vector<std::byte> bytes_backing{
      reinterpret_cast<const std::byte*>(message_bytes),
      reinterpret_cast<const std::byte*>(message_bytes) + message_size};
  std::vector<unsigned char> uchar_backing{message_bytes, message_bytes + message_size};

  std::string string = backing;
  std::string_view string_view = backing;
  std::vector<char> vector_char{backing.begin(), backing.end()};
  std::vector<unsigned char> vector_uchar = uchar_backing;
  std::vector<std::uint8_t> vector_u8 = uchar_backing;
  std::vector<std::byte> vector_byte = bytes_backing;
  std::span<const char> span_char{backing};
  std::span<const unsigned char> span_uchar{uchar_backing};
  std::span<const std::byte> span_byte{bytes_backing};
  std::span<std::byte> span_mutable_byte{bytes_backing};
  std::array<std::byte, message_size> array_byte{std::byte{0x92}, std::byte{0x01}, std::byte{0x02}};
  mpk::buffer buffer = make_buffer();
  unsigned char c_array_uchar[message_size] = {0x92, 0x01, 0x02};
  std::byte c_array_byte[message_size] = {std::byte{0x92}, std::byte{0x01}, std::byte{0x02}};

  static mpk::buffer make_buffer() {
    mpk::buffer b;
    EXPECT_TRUE(b.append(reinterpret_cast<const std::byte*>(message_bytes), message_size));
    return b;
  }

  // Calls f(name, input) for every kind.
  template <class F>
  void each(F&& f) {
    f("std::string", string);
    f("std::string_view", string_view);
    f("std::vector<char>", vector_char);
    f("std::vector<unsigned char>", vector_uchar);
    f("std::vector<std::uint8_t>", vector_u8);
    f("std::vector<std::byte>", vector_byte);
    f("std::span<const char>", span_char);
    f("std::span<const unsigned char>", span_uchar);
    f("std::span<const std::byte>", span_byte);
    f("std::span<std::byte>", span_mutable_byte);
    f("std::array<std::byte, 3>", array_byte);
    f("mpk::buffer", buffer);
    f("unsigned char[3]", c_array_uchar);
    f("std::byte[3]", c_array_byte);
  }
};

// --- the concept, at compile time ------------------------------------------------------------

static_assert(mpk::byte_input<std::string>);
static_assert(mpk::byte_input<std::string_view>);
static_assert(mpk::byte_input<std::vector<char>>);
static_assert(mpk::byte_input<std::vector<unsigned char>>);
static_assert(mpk::byte_input<std::vector<std::uint8_t>>);
static_assert(mpk::byte_input<std::vector<std::byte>>);
static_assert(mpk::byte_input<std::span<const char>>);
static_assert(mpk::byte_input<std::span<std::uint8_t>>);
static_assert(mpk::byte_input<std::span<const std::byte>>);
static_assert(mpk::byte_input<std::array<std::uint8_t, 4>>);
static_assert(mpk::byte_input<mpk::buffer>);
static_assert(mpk::byte_input<unsigned char[4]>);
static_assert(mpk::byte_input<const std::byte[4]>);

// Not bytes: elements wider than a byte, signed char, pointers alone, non-contiguous ranges.
static_assert(!mpk::byte_input<std::vector<int>>);
static_assert(!mpk::byte_input<std::span<const int>>);
static_assert(!mpk::byte_input<int[4]>);
static_assert(!mpk::byte_input<std::u16string>);
static_assert(!mpk::byte_input<std::vector<signed char>>);
static_assert(!mpk::byte_input<const char*>);
static_assert(!mpk::byte_input<std::vector<bool>>);

// A visitor handler for the checks below (a lambda cannot appear in a requires-expression
// before C++20's unevaluated lambdas, which Clang 14 lacks).
struct ignore_events {
  void operator()(const mpk::visit_event&) const noexcept {}
};

// Every entry point, as a concept over its input type: each accepts the listed kinds and
// rejects a range of int at compile time.
template <class In>
concept reads_everywhere = std::is_constructible_v<mpk::reader, const In&> &&
    std::is_constructible_v<mpk::unchecked_reader, const In&> &&
    requires(const In& in, mpk::reader& r, mpk::document& doc, mpk::stream_decoder& stream,
             mpk::records_decoder& records, mpk::buffer& out, std::vector<int>& into) {
  r.reset(in);
  mpk::unpack<std::vector<int>>(in);
  mpk::document::parse(in);
  doc.parse_into(in);
  mpk::to_json(in);
  stream.feed(in);
  records.expand(in, 0, out);
  records.parse(in);
  records.read_value(in);
  mpk::shared_structures::load(in);
  mpk::unpack_records<std::vector<int>>(records, in);
  mpk::unpack_records(records, in, 0, into);
  mpk::visit(in, ignore_events{});
};

// Accepted by none of them, one by one (not only the conjunction).
template <class In>
constexpr bool rejected_by_each() {
  return !std::is_constructible_v<mpk::reader, const In&> &&
         !std::is_constructible_v<mpk::unchecked_reader, const In&> &&
         !requires(mpk::reader & r, const In& in) {
    r.reset(in);
  }
  &&!requires(const In& in) {
    mpk::unpack<std::vector<int>>(in);
  }
  &&!requires(const In& in) {
    mpk::document::parse(in);
  }
  &&!requires(mpk::document & d, const In& in) {
    d.parse_into(in);
  }
  &&!requires(const In& in) {
    mpk::to_json(in);
  }
  &&!requires(mpk::stream_decoder & d, const In& in) {
    d.feed(in);
  }
  &&!requires(mpk::records_decoder & d, const In& in, mpk::buffer& out) {
    d.expand(in, 0, out);
  }
  &&!requires(mpk::records_decoder & d, const In& in) {
    d.parse(in);
  }
  &&!requires(mpk::records_decoder & d, const In& in) {
    d.read_value(in);
  }
  &&!requires(const In& in) {
    mpk::shared_structures::load(in);
  }
  &&!requires(mpk::records_decoder & d, const In& in) {
    mpk::unpack_records<std::vector<int>>(d, in);
  }
  &&!requires(mpk::records_decoder & d, const In& in, std::vector<int>& out) {
    mpk::unpack_records(d, in, 0, out);
  }
  &&!requires(const In& in) {
    mpk::visit(in, ignore_events{});
  };
}

static_assert(reads_everywhere<std::string>);
static_assert(reads_everywhere<std::string_view>);
static_assert(reads_everywhere<std::vector<char>>);
static_assert(reads_everywhere<std::vector<unsigned char>>);
static_assert(reads_everywhere<std::vector<std::uint8_t>>);
static_assert(reads_everywhere<std::vector<std::byte>>);
static_assert(reads_everywhere<std::span<const char>>);
static_assert(reads_everywhere<std::span<const std::uint8_t>>);
static_assert(reads_everywhere<std::span<const std::byte>>);
static_assert(reads_everywhere<std::span<std::byte>>);
static_assert(reads_everywhere<std::array<std::byte, 3>>);
static_assert(reads_everywhere<mpk::buffer>);
static_assert(reads_everywhere<unsigned char[3]>);
static_assert(reads_everywhere<std::byte[3]>);

static_assert(rejected_by_each<std::vector<int>>());
static_assert(rejected_by_each<std::span<const int>>());
static_assert(rejected_by_each<int[3]>());

// A reader views its input: a temporary that owns its bytes does not compile, a view does.
static_assert(std::is_constructible_v<mpk::reader, std::string&>);
static_assert(std::is_constructible_v<mpk::reader, std::span<const std::byte>>);
static_assert(std::is_constructible_v<mpk::reader, std::string_view>);

// --- every entry point reads the message from every kind -------------------------------------

TEST(ByteInput, AsBytesViewsTheSameMemory) {
  inputs in;
  in.each([](const char* name, const auto& input) {
    const std::span<const std::byte> s = mpk::as_bytes(input);
    ASSERT_EQ(s.size(), message_size) << name;
    EXPECT_EQ(static_cast<const void*>(s.data()), static_cast<const void*>(std::data(input)))
        << name;
    EXPECT_EQ(s[0], std::byte{0x92}) << name;
  });
}

TEST(ByteInput, Reader) {
  inputs in;
  in.each([](const char* name, const auto& input) {
    mpk::reader r(input);
    EXPECT_EQ(r.read_array_header(), 2u) << name;
    EXPECT_EQ(r.read<int>(), 1) << name;
    EXPECT_EQ(r.read<int>(), 2) << name;
    EXPECT_TRUE(r.ok() && r.at_end()) << name;

    mpk::reader again;
    again.reset(input);
    EXPECT_EQ(again.remaining(), message_size) << name;

    mpk::unchecked_reader u(input);
    EXPECT_EQ(u.read_array_header(), 2u) << name;
  });
}

TEST(ByteInput, Unpack) {
  inputs in;
  in.each([](const char* name, const auto& input) {
    auto v = mpk::unpack<std::vector<int>>(input);
    ASSERT_TRUE(v) << name << ": " << v.error().to_string();
    EXPECT_EQ(*v, (std::vector<int>{1, 2})) << name;
  });
}

TEST(ByteInput, Document) {
  inputs in;
  in.each([](const char* name, const auto& input) {
    auto doc = mpk::document::parse(input);
    ASSERT_TRUE(doc) << name;
    EXPECT_EQ(doc->root()[1].template as<int>().value(), 2) << name;
    mpk::document reused;
    ASSERT_TRUE(reused.parse_into(input)) << name;
    EXPECT_EQ(reused.consumed(), message_size) << name;
  });
}

#if MPK_TEST_JSON  // the JSON layer is built with simdjson only (not in the s390x preset)
TEST(ByteInput, ToJson) {
  inputs in;
  in.each([](const char* name, const auto& input) {
    auto json = mpk::to_json(input);
    ASSERT_TRUE(json) << name;
    EXPECT_EQ(*json, "[1,2]\n") << name;
  });
}
#endif

TEST(ByteInput, StreamDecoder) {
  inputs in;
  in.each([](const char* name, const auto& input) {
    mpk::stream_decoder dec;
    ASSERT_TRUE(dec.feed(input)) << name;
    auto msg = dec.next();
    ASSERT_TRUE(msg) << name;
    EXPECT_EQ(msg->size(), message_size) << name;
  });
}

TEST(ByteInput, Records) {
  inputs in;
  in.each([](const char* name, const auto& input) {
    mpk::records_decoder dec;
    mpk::buffer out;
    auto end = dec.expand(input, 0, out);
    ASSERT_TRUE(end) << name;
    EXPECT_EQ(*end, message_size) << name;
    auto doc = dec.parse(input);
    ASSERT_TRUE(doc) << name;
    EXPECT_EQ(doc->root().size(), 2u) << name;
    auto v = dec.read_value(input);
    ASSERT_TRUE(v) << name;
    auto typed = mpk::unpack_records<std::vector<int>>(dec, input);
    ASSERT_TRUE(typed) << name;
    EXPECT_EQ(*typed, (std::vector<int>{1, 2})) << name;
    std::vector<int> into;
    auto at = mpk::unpack_records(dec, input, 0, into);
    ASSERT_TRUE(at) << name;
    EXPECT_EQ(*at, message_size) << name;
  });
}

TEST(ByteInput, SharedStructures) {
  // [["a", "b"]]: one structure of two keys.
  const std::string text(
      "\x91\x92\xa1"
      "a\xa1"
      "b",
      6);
  const std::vector<std::uint8_t> bytes(text.begin(), text.end());
  for (auto loaded : {mpk::shared_structures::load(text), mpk::shared_structures::load(bytes),
                      mpk::shared_structures::load(std::string_view(text))}) {
    ASSERT_TRUE(loaded);
    ASSERT_EQ(loaded->size(), 1u);
    EXPECT_EQ((*loaded)[0].size(), 2u);
  }
}

}  // namespace
