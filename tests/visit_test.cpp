// Tests of mpk/visit.hpp: the event of every family at every header width and boundary,
// offsets, depth and map keys, limits (nesting beyond max_depth, counts the input cannot
// hold, with the memory it allocates), truncation at every prefix, early stops, and
// agreement with reader::field_size() on the hostile-input catalogue.
#include "mpk/visit.hpp"

#include <gtest/gtest.h>
#include <mpk/reader.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "../fuzz/alloc_count.hpp"
#include "support/hex.hpp"
#include "support/hostile_inputs.hpp"
#include "support/print_error.hpp"
#include "support/small_stack.hpp"

namespace {

using mpk::errc;
using mpk::visit_event;
using mpk::visit_kind;
using mpk_test::byte_vector;
using mpk_test::concat;
using mpk_test::hex;

/// One line per event: "offset depth kind[ value]", a "key " before map keys.
std::string describe(const visit_event& e) {
  std::string s = std::to_string(e.offset) + " " + std::to_string(e.depth) + " ";
  if (e.is_key) s += "key ";
  switch (e.kind) {
    case visit_kind::nil:
      return s + "nil";
    case visit_kind::boolean:
      return s + (e.boolean ? "true" : "false");
    case visit_kind::uint:
      return s + "uint " + std::to_string(e.u);
    case visit_kind::sint:
      return s + "sint " + std::to_string(e.i);
    case visit_kind::float32:
      return s + "float32 " + std::to_string(e.f32);
    case visit_kind::float64:
      return s + "float64 " + std::to_string(e.f64);
    case visit_kind::str:
      return s + "str \"" + std::string(e.str) + "\"";
    case visit_kind::bin:
      return s + "bin " + mpk_test::to_hex(e.bin);
    case visit_kind::ext:
      return s + "ext " + std::to_string(int{e.ext.type}) + " " + mpk_test::to_hex(e.ext.data);
    case visit_kind::array_begin:
      return s + "[" + std::to_string(e.count);
    case visit_kind::map_begin:
      return s + "{" + std::to_string(e.count);
    case visit_kind::array_end:
      return s + "]";
    case visit_kind::map_end:
      return s + "}";
  }
  return s + "?";
}

struct walk {
  std::vector<std::string> lines;
  std::vector<visit_event> events;
  mpk::result<std::size_t> result = std::size_t{0};
};

walk visit_all(std::span<const std::byte> bytes, const mpk::limits& lim = {}) {
  walk w;
  w.result = mpk::visit(bytes,
                        [&](const visit_event& e) {
                          w.lines.push_back(describe(e));
                          w.events.push_back(e);
                        },
                        {.limits = lim});
  return w;
}

/// The error reader::field_size() gives on `bytes`, or its size as errc::ok.
mpk::error reader_says(std::span<const std::byte> bytes, const mpk::limits& lim,
                       std::size_t& size) {
  mpk::reader r(bytes, {.limits = lim});
  size = r.field_size();
  return r.error();
}

/// `n` bytes 0, 1, 2, ... (mod 251).
byte_vector payload(std::size_t n) {
  byte_vector out(n);
  for (std::size_t k = 0; k < n; ++k)
    out[k] = static_cast<std::byte>(k % 251);
  return out;
}

// --- every scalar ---------------------------------------------------------------------------

TEST(visit, nil_and_booleans) {
  EXPECT_EQ(visit_all(hex("c0")).lines, std::vector<std::string>{"0 0 nil"});
  EXPECT_EQ(visit_all(hex("c2")).lines, std::vector<std::string>{"0 0 false"});
  EXPECT_EQ(visit_all(hex("c3")).lines, std::vector<std::string>{"0 0 true"});
}

TEST(visit, integers_at_every_width_and_boundary) {
  struct row {
    const char* hex;
    visit_kind kind;
    std::uint64_t u;
    std::int64_t i;
  };
  constexpr std::int64_t min64 = std::numeric_limits<std::int64_t>::min();
  const row rows[] = {
      {"00", visit_kind::uint, 0, 0},
      {"7f", visit_kind::uint, 127, 0},
      {"cc 80", visit_kind::uint, 128, 0},
      {"cc ff", visit_kind::uint, 255, 0},
      {"cd 01 00", visit_kind::uint, 256, 0},
      {"cd ff ff", visit_kind::uint, 65535, 0},
      {"ce 00 01 00 00", visit_kind::uint, 65536, 0},
      {"ce ff ff ff ff", visit_kind::uint, 0xffffffffu, 0},
      {"cf 00 00 00 01 00 00 00 00", visit_kind::uint, 0x100000000u, 0},
      {"cf ff ff ff ff ff ff ff ff", visit_kind::uint, ~std::uint64_t{0}, 0},
      {"ff", visit_kind::sint, 0, -1},
      {"e0", visit_kind::sint, 0, -32},
      {"d0 df", visit_kind::sint, 0, -33},
      {"d0 80", visit_kind::sint, 0, -128},
      {"d0 01", visit_kind::sint, 0, 1},  // a signed format holding a positive value
      {"d1 ff 7f", visit_kind::sint, 0, -129},
      {"d1 80 00", visit_kind::sint, 0, -32768},
      {"d2 ff ff 7f ff", visit_kind::sint, 0, -32769},
      {"d2 80 00 00 00", visit_kind::sint, 0, -2147483648LL},
      {"d3 ff ff ff ff 7f ff ff ff", visit_kind::sint, 0, -2147483649LL},
      {"d3 80 00 00 00 00 00 00 00", visit_kind::sint, 0, min64},
  };
  for (const row& r : rows) {
    SCOPED_TRACE(r.hex);
    const byte_vector b = hex(r.hex);
    const walk w = visit_all(b);
    ASSERT_TRUE(w.result.has_value());
    EXPECT_EQ(*w.result, b.size());
    ASSERT_EQ(w.events.size(), 1u);
    const visit_event& e = w.events[0];
    EXPECT_EQ(e.kind, r.kind);
    EXPECT_EQ(e.u, r.u);
    EXPECT_EQ(e.i, r.i);
    EXPECT_EQ(e.offset, 0u);
    EXPECT_EQ(e.depth, 0u);
    EXPECT_FALSE(e.is_key);
    EXPECT_EQ(e.bytes.data(), b.data());
    EXPECT_EQ(e.bytes.size(), b.size());
  }
}

TEST(visit, floats) {
  const walk a = visit_all(hex("ca 3f c0 00 00"));
  ASSERT_EQ(a.events.size(), 1u);
  EXPECT_EQ(a.events[0].kind, visit_kind::float32);
  EXPECT_EQ(a.events[0].f32, 1.5f);
  EXPECT_EQ(*a.result, 5u);
  const walk b = visit_all(hex("cb bf d0 00 00 00 00 00 00"));
  ASSERT_EQ(b.events.size(), 1u);
  EXPECT_EQ(b.events[0].kind, visit_kind::float64);
  EXPECT_EQ(b.events[0].f64, -0.25);
  EXPECT_EQ(*b.result, 9u);
}

/// A str, bin or ext of `n` payload bytes behind `header`, and what visit must report.
void check_payload(const char* header, std::size_t n, visit_kind kind, std::int8_t ext_type = 0) {
  SCOPED_TRACE(std::string(header) + " + " + std::to_string(n) + " bytes");
  const byte_vector head = hex(header);
  const byte_vector data = payload(n);
  const byte_vector b = concat(head, data);
  const walk w = visit_all(b);
  ASSERT_TRUE(w.result.has_value()) << w.result.error().to_string();
  EXPECT_EQ(*w.result, b.size());
  ASSERT_EQ(w.events.size(), 1u);
  const visit_event& e = w.events[0];
  EXPECT_EQ(e.kind, kind);
  EXPECT_EQ(e.bytes.size(), b.size());
  std::span<const std::byte> got;
  if (kind == visit_kind::str) got = std::as_bytes(std::span(e.str.data(), e.str.size()));
  if (kind == visit_kind::bin) got = e.bin;
  if (kind == visit_kind::ext) {
    got = e.ext.data;
    EXPECT_EQ(e.ext.type, ext_type);
  }
  EXPECT_EQ(got.data(), b.data() + head.size());  // a view into the input
  EXPECT_EQ(got.size(), n);
}

TEST(visit, str_bin_ext_at_every_header_width) {
  check_payload("a0", 0, visit_kind::str);
  check_payload("bf", 31, visit_kind::str);
  check_payload("d9 00", 0, visit_kind::str);
  check_payload("d9 20", 32, visit_kind::str);
  check_payload("d9 ff", 255, visit_kind::str);
  check_payload("da 01 00", 256, visit_kind::str);
  check_payload("da ff ff", 65535, visit_kind::str);
  check_payload("db 00 01 00 00", 65536, visit_kind::str);
  check_payload("c4 00", 0, visit_kind::bin);
  check_payload("c4 ff", 255, visit_kind::bin);
  check_payload("c5 01 00", 256, visit_kind::bin);
  check_payload("c5 ff ff", 65535, visit_kind::bin);
  check_payload("c6 00 01 00 00", 65536, visit_kind::bin);
  check_payload("d4 05", 1, visit_kind::ext, 5);
  check_payload("d5 80", 2, visit_kind::ext, -128);
  check_payload("d6 ff", 4, visit_kind::ext, -1);
  check_payload("d7 7f", 8, visit_kind::ext, 127);
  check_payload("d8 01", 16, visit_kind::ext, 1);
  check_payload("c7 00 02", 0, visit_kind::ext, 2);
  check_payload("c7 03 02", 3, visit_kind::ext, 2);
  check_payload("c7 ff 02", 255, visit_kind::ext, 2);
  check_payload("c8 01 00 fe", 256, visit_kind::ext, -2);
  check_payload("c8 ff ff 03", 65535, visit_kind::ext, 3);
  check_payload("c9 00 01 00 00 04", 65536, visit_kind::ext, 4);
}

/// An array or map of `n` nils (2 per map entry) behind `header`.
void check_container(const char* header, std::size_t n, bool is_map) {
  SCOPED_TRACE(std::string(header) + " of " + std::to_string(n));
  const byte_vector head = hex(header);
  const byte_vector b = concat(head, byte_vector(is_map ? 2 * n : n, std::byte{0xc0}));
  const walk w = visit_all(b);
  ASSERT_TRUE(w.result.has_value()) << w.result.error().to_string();
  EXPECT_EQ(*w.result, b.size());
  ASSERT_EQ(w.events.size(), (is_map ? 2 * n : n) + 2);
  const visit_event& first = w.events.front();
  EXPECT_EQ(first.kind, is_map ? visit_kind::map_begin : visit_kind::array_begin);
  EXPECT_EQ(first.count, n);
  EXPECT_EQ(first.bytes.size(), head.size());
  EXPECT_EQ(first.depth, 0u);
  for (std::size_t k = 1; k + 1 < w.events.size(); ++k) {
    const visit_event& e = w.events[k];
    ASSERT_EQ(e.kind, visit_kind::nil);
    ASSERT_EQ(e.depth, 1u);
    ASSERT_EQ(e.offset, head.size() + k - 1);
    ASSERT_EQ(e.is_key, is_map && k % 2 == 1);
  }
  const visit_event& last = w.events.back();
  EXPECT_EQ(last.kind, is_map ? visit_kind::map_end : visit_kind::array_end);
  EXPECT_EQ(last.offset, b.size());
  EXPECT_EQ(last.depth, 0u);
  EXPECT_TRUE(last.bytes.empty());
}

TEST(visit, containers_at_every_header_width) {
  check_container("90", 0, false);
  check_container("9f", 15, false);
  check_container("dc 00 10", 16, false);
  check_container("dc ff ff", 65535, false);
  check_container("dd 00 01 00 00", 65536, false);
  check_container("80", 0, true);
  check_container("8f", 15, true);
  check_container("de 00 10", 16, true);
  check_container("de ff ff", 65535, true);
  check_container("df 00 01 00 00", 65536, true);
}

// --- offsets, depth, keys -------------------------------------------------------------------

TEST(visit, nested_offsets_depth_and_keys) {
  // {"a": [1, {}, []], "b": {"c": nil}, "d": -1}
  const byte_vector b = hex("83 a1 61 93 01 80 90 a1 62 81 a1 63 c0 a1 64 ff");
  const walk w = visit_all(b);
  ASSERT_TRUE(w.result.has_value());
  EXPECT_EQ(*w.result, b.size());
  const std::vector<std::string> want = {
      "0 0 {3",              //
      "1 1 key str \"a\"",   //
      "3 1 [3",              //
      "4 2 uint 1",          //
      "5 2 {0",              //
      "6 2 }",               // an empty container ends where it starts
      "6 2 [0",              //
      "7 2 ]",               //
      "7 1 ]",               //
      "7 1 key str \"b\"",   //
      "9 1 {1",              //
      "10 2 key str \"c\"",  //
      "12 2 nil",            //
      "13 1 }",              //
      "13 1 key str \"d\"",  //
      "15 1 sint -1",        //
      "16 0 }",
  };
  EXPECT_EQ(w.lines, want);
  // A map used as a key: its items are not keys of the outer map.
  EXPECT_EQ(visit_all(hex("81 81 01 02 03")).lines,
            (std::vector<std::string>{"0 0 {1", "1 1 key {1", "2 2 key uint 1", "3 2 uint 2",
                                      "4 1 }", "4 1 uint 3", "5 0 }"}));
}

TEST(visit, reads_one_value_and_no_further) {
  const byte_vector b = hex("01 c1 c1");
  const walk w = visit_all(b);
  ASSERT_TRUE(w.result.has_value());
  EXPECT_EQ(*w.result, 1u);  // the next value starts there
  EXPECT_EQ(w.lines, std::vector<std::string>{"0 0 uint 1"});
}

TEST(visit, every_value_of_a_sequence) {
  const byte_vector b = hex("01 91 02 a1 78");
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < b.size()) {
    const auto r = mpk::visit(std::span(b).subspan(at), [&](const visit_event& e) {
      lines.push_back(std::to_string(at + e.offset) + " " + describe(e));
    });
    ASSERT_TRUE(r.has_value());
    at += *r;
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"0 0 0 uint 1", "1 0 0 [1", "2 1 1 uint 2", "3 2 0 ]",
                                             "3 0 0 str \"x\""}));
}

TEST(visit, string_view_and_pointer_inputs) {
  const std::string s = "\x92\xa2hi\xc3";
  std::vector<std::string> a, b;
  const auto ra =
      mpk::visit(std::string_view(s), [&](const visit_event& e) { a.push_back(describe(e)); });
  const auto rb = mpk::visit(std::span(reinterpret_cast<const std::byte*>(s.data()), s.size()),
                             [&](const visit_event& e) { b.push_back(describe(e)); });
  ASSERT_TRUE(ra.has_value() && rb.has_value());
  EXPECT_EQ(*ra, s.size());
  EXPECT_EQ(*rb, s.size());
  EXPECT_EQ(a, (std::vector<std::string>{"0 0 [2", "1 1 str \"hi\"", "4 1 true", "5 0 ]"}));
  EXPECT_EQ(a, b);
}

// --- errors -------------------------------------------------------------------------------

TEST(visit, errors_carry_the_offset_of_the_offending_value) {
  struct row {
    const char* hex;
    errc code;
    std::size_t offset;
    std::size_t events;  // delivered before the error
  };
  const row rows[] = {
      {"", errc::truncated, 0, 0},
      {"c1", errc::invalid_marker, 0, 0},
      {"92 01 c1", errc::invalid_marker, 2, 2},
      {"93 01 02", errc::truncated, 0, 0},  // 3 elements cannot fit in 2 bytes
      {"92 01", errc::truncated, 0, 0},
      {"92 01 cd 00", errc::truncated, 2, 2},
      {"81 a1 61", errc::truncated, 3, 2},  // the value of the entry is missing
      {"81 a1", errc::truncated, 0, 0},     // 1 entry needs 2 bytes
      {"82 a1 61 01 a5 78", errc::truncated, 4, 3},
      {"cf 00 00 00", errc::truncated, 0, 0},
      {"d4 01", errc::truncated, 0, 0},
      {"c7 05 01 00", errc::truncated, 0, 0},
  };
  for (const row& r : rows) {
    SCOPED_TRACE(r.hex);
    const walk w = visit_all(hex(r.hex));
    ASSERT_FALSE(w.result.has_value());
    EXPECT_EQ(w.result.error(), (mpk::error{r.code, r.offset}));
    EXPECT_EQ(w.events.size(), r.events);
  }
}

TEST(visit, limits_of_lengths_and_counts) {
  const mpk::limits lim{.max_depth = 8,
                        .max_str_len = 3,
                        .max_bin_len = 2,
                        .max_ext_len = 1,
                        .max_array_len = 2,
                        .max_map_len = 1};
  struct row {
    const char* hex;
    errc code;  // ok: accepted under `lim`
    std::size_t offset;
  };
  const row rows[] = {
      {"91 a3 61 62 63", errc::ok, 0}, {"91 a4 61 62 63 64", errc::limit_exceeded, 1},
      {"c4 02 00 00", errc::ok, 0},    {"c4 03 00 00 00", errc::limit_exceeded, 0},
      {"d4 01 00", errc::ok, 0},       {"d5 01 00 00", errc::limit_exceeded, 0},
      {"92 01 02", errc::ok, 0},       {"93 01 02 03", errc::limit_exceeded, 0},
      {"81 01 02", errc::ok, 0},       {"91 82 01 02 03 04", errc::limit_exceeded, 1},
  };
  for (const row& r : rows) {
    SCOPED_TRACE(r.hex);
    const walk w = visit_all(hex(r.hex), lim);
    if (r.code == errc::ok) {
      EXPECT_TRUE(w.result.has_value());
    } else {
      ASSERT_FALSE(w.result.has_value());
      EXPECT_EQ(w.result.error(), (mpk::error{r.code, r.offset}));
    }
  }
}

TEST(visit, huge_declared_counts_on_tiny_input_fail_without_allocating) {
  struct row {
    const char* hex;
    errc by_default;  // under the default limits
    errc trusted;     // under limits::trusted(): the bytes left decide
  };
  const row rows[] = {
      {"dd ff ff ff ff", errc::limit_exceeded, errc::truncated},
      {"df ff ff ff ff 01 01", errc::limit_exceeded, errc::truncated},
      {"dc ff ff 01", errc::truncated, errc::truncated},
      {"db ff ff ff ff 61", errc::limit_exceeded, errc::truncated},
      {"c6 ff ff ff ff", errc::limit_exceeded, errc::truncated},
      {"c9 ff ff ff ff 01", errc::limit_exceeded, errc::truncated},
      {"91 91 91 dd 00 ff ff ff 01", errc::truncated, errc::truncated},
  };
  for (const row& r : rows) {
    SCOPED_TRACE(r.hex);
    const byte_vector b = hex(r.hex);
    for (const bool trusted : {false, true}) {
      mpk_fuzz::alloc_scope scope;
      const walk w = visit_all(b, trusted ? mpk::limits::trusted() : mpk::limits{});
      ASSERT_FALSE(w.result.has_value());
      EXPECT_EQ(w.result.error().code, trusted ? r.trusted : r.by_default);
      std::size_t size;
      EXPECT_EQ(w.result.error(),
                reader_says(b, trusted ? mpk::limits::trusted() : mpk::limits{}, size));
      EXPECT_LE(scope.peak(), 4096u);  // the events' lines, nothing proportional to a count
    }
  }
}

TEST(visit, nesting_beyond_max_depth_is_an_error_with_its_offset) {
  mpk_test::on_small_stack([] {
    const byte_vector deep = mpk_test::deep_arrays();  // 100000 levels
    const walk w = visit_all(deep);
    ASSERT_FALSE(w.result.has_value());
    // Depth 512 is the default: the 513th array, at offset 512, is one too many.
    EXPECT_EQ(w.result.error(), (mpk::error{errc::depth_exceeded, 512}));
    EXPECT_EQ(w.events.size(), 512u);

    const mpk::limits three{.max_depth = 3};
    const walk m = visit_all(mpk_test::deep_map_keys(10), three);
    ASSERT_FALSE(m.result.has_value());
    EXPECT_EQ(m.result.error(), (mpk::error{errc::depth_exceeded, 3}));
    // An empty container counts as a level too, as in skip().
    EXPECT_EQ(visit_all(hex("91 91 90"), mpk::limits{.max_depth = 2}).result.error(),
              (mpk::error{errc::depth_exceeded, 2}));
    EXPECT_TRUE(visit_all(hex("91 91 90"), mpk::limits{.max_depth = 3}).result.has_value());
  });
}

TEST(visit, deep_nesting_within_the_limit_uses_the_heap_not_the_stack) {
  mpk_test::on_small_stack([] {
    for (const byte_vector& deep :
         {mpk_test::deep_arrays(), mpk_test::deep_map_keys(), mpk_test::deep_map_values()}) {
      std::size_t events = 0, max_depth = 0, ends = 0;
      mpk_fuzz::alloc_scope scope;
      const auto r = mpk::visit(
          deep,
          [&](const visit_event& e) {
            ++events;
            if (e.depth > max_depth) max_depth = e.depth;
            ends += e.kind == visit_kind::array_end || e.kind == visit_kind::map_end;
          },
          {.limits = mpk::limits::trusted()});
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(*r, deep.size());
      EXPECT_EQ(ends, mpk_test::deep);
      EXPECT_EQ(max_depth, mpk_test::deep);
      EXPECT_GT(events, 2 * mpk_test::deep);
      // 8 bytes per level, in a doubling array: well within 24 bytes per input byte.
      EXPECT_LE(scope.peak(), 24 * deep.size());
    }
  });
}

TEST(visit, every_prefix_of_a_valid_message_is_truncated) {
  for (const byte_vector& msg : mpk_test::valid_messages()) {
    SCOPED_TRACE(mpk_test::to_hex(std::span(msg).first(std::min<std::size_t>(msg.size(), 16))));
    const walk whole = visit_all(msg);
    ASSERT_TRUE(whole.result.has_value());
    ASSERT_EQ(*whole.result, msg.size());
    for (std::size_t n = 0; n < msg.size(); ++n) {
      const std::span<const std::byte> cut = std::span(msg).first(n);
      const walk w = visit_all(cut);
      ASSERT_FALSE(w.result.has_value()) << n;
      ASSERT_EQ(w.result.error().code, errc::truncated) << n;
      std::size_t size;
      ASSERT_EQ(w.result.error(), reader_says(cut, {}, size)) << n;
      // The events before the cut are those of the whole message.
      ASSERT_LE(w.lines.size(), whole.lines.size());
      for (std::size_t k = 0; k < w.lines.size(); ++k)
        ASSERT_EQ(w.lines[k], whole.lines[k]) << n;
    }
  }
}

TEST(visit, agrees_with_field_size_on_hostile_inputs) {
  std::vector<byte_vector> inputs;
  const auto add = [&](const auto& list) {
    for (const char* h : list)
      inputs.push_back(hex(h));
  };
  add(mpk_test::lies_above_limits);
  add(mpk_test::lies_within_limits);
  add(mpk_test::size_arithmetic);
  add(mpk_test::never_used_marker);
  add(mpk_test::invalid_timestamps);
  for (const mpk::limits& lim : {mpk::limits{}, mpk::limits::trusted()}) {
    for (const byte_vector& b : inputs) {
      SCOPED_TRACE(mpk_test::to_hex(b));
      std::size_t size;
      const mpk::error e = reader_says(b, lim, size);
      const walk w = visit_all(b, lim);
      if (e) {
        EXPECT_EQ(w.result.error(), e);
      } else {
        ASSERT_TRUE(w.result.has_value());
        EXPECT_EQ(*w.result, size);
      }
    }
  }
}

// --- stopping early -------------------------------------------------------------------------

TEST(visit, a_handler_returning_false_stops_at_any_event) {
  const byte_vector b = hex("83 a1 61 93 01 80 90 a1 62 81 a1 63 c0 a1 64 ff");
  const walk whole = visit_all(b);
  ASSERT_TRUE(whole.result.has_value());
  for (std::size_t stop = 0; stop < whole.events.size(); ++stop) {
    SCOPED_TRACE(whole.lines[stop]);
    std::vector<std::string> seen;
    const auto r = mpk::visit(b, [&](const visit_event& e) {
      seen.push_back(describe(e));
      return seen.size() <= stop;
    });
    ASSERT_TRUE(r.has_value());
    ASSERT_EQ(seen.size(), stop + 1);
    EXPECT_EQ(seen.back(), whole.lines[stop]);
    // Where it stopped: after the event's bytes (an end event has none: its offset).
    const visit_event& e = whole.events[stop];
    EXPECT_EQ(*r, e.offset + e.bytes.size());
  }
}

TEST(visit, a_handler_error_stops_the_walk_and_is_the_result) {
  std::size_t calls = 0;
  const auto r = mpk::visit(hex("93 a1 61 a1 62 01"), [&](const visit_event& e) -> mpk::error {
    ++calls;
    if (e.kind == visit_kind::str && e.str == "b") return {errc::invalid_argument, 77};
    return {};
  });
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), (mpk::error{errc::invalid_argument, 77}));
  EXPECT_EQ(calls, 3u);
  // An error handler that never fails: the walk completes.
  const auto ok = mpk::visit(hex("91 01"), [](const visit_event&) { return mpk::error{}; });
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(*ok, 2u);
}

}  // namespace
