// The hostile-input catalogue (issue 7): each class of malicious or broken input, fed to
// every decoding entry point that exists, asserting the exact errc and offset or the
// documented behaviour, with bounded memory and without recursion.
//
// Entry points: mpk::visit (mpk/visit.hpp), skip(), field_size() and raw_value();
// document::parse and read_value (mpk/value.hpp); to_json (mpk/json.hpp, lossless); typed unpack
// into an mpk::value (mpk/codec.hpp); stream_decoder (mpk/stream.hpp) fed the whole input; the
// records decoder's expansion (mpk/ext/records.hpp) of plain input; plus typed targets and
// recursive structs (with the stack they take per level) and read_timestamp (mpk/ext/timestamp.hpp)
// where the class concerns them; from_json on hostile JSON text; UTF-8 checks (mpk/unicode.hpp
// through the reader's utf8_check policy). docs/security.md states the policies these tests hold
// the library to.
#include <gtest/gtest.h>
#include <mpk/buffer.hpp>
#include <mpk/codec.hpp>
#include <mpk/ext/records.hpp>
#include <mpk/ext/timestamp.hpp>
#if MPK_TEST_JSON  // the JSON layer is built with simdjson only (not in the s390x preset)
#include <mpk/json.hpp>
#endif
#include <mpk/reader.hpp>
#include <mpk/stream.hpp>
#include <mpk/value.hpp>
#include <mpk/visit.hpp>
#include <mpk/writer.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "../fuzz/alloc_count.hpp"
#include "../fuzz/fuzz_support.hpp"
#include "support/hex.hpp"
#include "support/hostile_inputs.hpp"
#include "support/print_error.hpp"
#include "support/small_stack.hpp"

namespace {

using bytes = std::vector<std::byte>;
using mpk::errc;
using mpk_test::concat;
using mpk_test::deep;
using mpk_test::deep_arrays;
using mpk_test::deep_map_keys;
using mpk_test::deep_map_values;
using mpk_test::hex;
using mpk_test::repeat;
using mpk_test::valid_messages;

// --- the entry points ------------------------------------------------------------------

/// What an entry point did with the first value of an input: the error (errc::ok when it
/// accepted), the bytes it took, and the most bytes it allocated at once.
struct outcome {
  mpk::error err;
  std::size_t size = 0;
  std::size_t peak_alloc = 0;
};

using entry_point = outcome (*)(std::span<const std::byte>, const mpk::limits&);

outcome via_visit(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk_fuzz::alloc_scope scope;
  const mpk::result<std::size_t> r =
      mpk::visit(in, [](const mpk::visit_event&) {}, {.limits = lim});
  return {r.error(), r ? *r : 0, scope.peak()};
}
outcome via_skip(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk::reader r(in, {.limits = lim});
  mpk_fuzz::alloc_scope scope;
  r.skip();
  return {r.error(), r.ok() ? r.position() : 0, scope.peak()};
}
outcome via_field_size(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk::reader r(in, {.limits = lim});
  mpk_fuzz::alloc_scope scope;
  const std::size_t n = r.field_size();
  EXPECT_EQ(r.ok() ? 0u : r.error().offset, r.position()) << "field_size consumed bytes";
  return {r.error(), n, scope.peak()};
}
outcome via_raw_value(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk::reader r(in, {.limits = lim});
  mpk_fuzz::alloc_scope scope;
  const auto raw = r.raw_value();
  if (r.ok()) {
    EXPECT_EQ(raw.data(), in.data());
  }
  return {r.error(), raw.size(), scope.peak()};
}

/// document::parse (allow_trailing: it takes the first value, like the others).
outcome via_document(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk_fuzz::alloc_scope scope;
  const auto doc = mpk::document::parse(in, {.read = {.limits = lim, .allow_trailing = true}});
  return {doc.error(), doc ? doc->consumed() : 0, scope.peak()};
}
/// read_value: an owned mpk::value (checked by the reader, built through a document).
outcome via_read_value(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk::reader r(in, {.limits = lim});
  mpk_fuzz::alloc_scope scope;
  const auto v = mpk::read_value(r);
  EXPECT_EQ(v.has_value(), r.ok());
  return {v.error(), v ? r.position() : 0, scope.peak()};
}

#if MPK_TEST_JSON
/// to_json, lossless (it carries every value, so it fails only where the reader does).
outcome via_json(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk::reader r(in, {.limits = lim});
  std::string out;
  const auto res = mpk::to_json(r, out, {.lossless = true});
  return {res.error(), res ? r.position() : 0, 0};
}
#endif

/// Typed decoding: mpk::unpack into an mpk::value (the codec of "any" fields), which takes
/// every value; the typed classes (structs, integers, containers) have their own tests below.
outcome via_unpack(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk::reader r(in, {.limits = lim});
  mpk_fuzz::alloc_scope scope;
  mpk::value v;
  const auto res = mpk::unpack(r, v);
  return {res.error(), res ? r.position() : 0, scope.peak()};
}

/// stream_decoder fed the whole input at once: the first message it yields, or the error of
/// next() or, when no message completed, of finish().
outcome via_stream(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk_fuzz::alloc_scope scope;
  mpk::stream_decoder dec({.read = {.limits = lim}});
  if (auto fed = dec.feed(in.data(), in.size()); !fed) return {fed.error(), 0, scope.peak()};
  const auto msg = dec.next();
  if (!msg) return {msg.error(), 0, scope.peak()};
  if (!msg->empty()) return {{}, msg->size(), scope.peak()};
  const auto end = dec.finish();
  if (end) {
    // A stream of no message is a valid stream; the one-value entry points call that
    // truncated at 0. Any other input must have been judged.
    EXPECT_TRUE(in.empty()) << "no message, yet finish() accepted the input";
    return {{errc::truncated, 0}, 0, scope.peak()};
  }
  return {end.error(), 0, scope.peak()};
}

/// The records decoder (msgpackr's extension) expanding plain input: no record in it, so it
/// must judge the value as the reader does.
outcome via_records(std::span<const std::byte> in, const mpk::limits& lim) {
  mpk_fuzz::alloc_scope scope;
  mpk::records_decoder dec({.read = {.limits = lim}});
  mpk::buffer out;
  const auto end = dec.expand(in, 0, out);
  return {end ? mpk::error{} : end.error(), end ? *end : 0, scope.peak()};
}

struct named_entry {
  const char* name;
  entry_point run;
  /// Bytes it may allocate per input byte, on top of a constant (docs/security.md).
  std::size_t bytes_per_input_byte;
  /// Builds a tree: checks every pending item against the bytes left (docs/value.md), so on
  /// input that ends too early it may report errc::truncated at an outer container.
  bool builds_tree;
  /// Waits for more input where a count or length goes beyond the bytes at hand, so it
  /// reports errc::truncated where the message starts (docs/stream.md).
  bool waits_for_more = false;
};
const named_entry entry_points[] = {
    // The reader's stack of counts: 8 bytes per open container beyond 64, doubled as it grows.
    {"visit", via_visit, 24, false},
    {"skip", via_skip, 24, false},
    {"field_size", via_field_size, 24, false},
    {"raw_value", via_raw_value, 24, false},
    // 16-byte nodes (at most one per input byte) and 16 bytes of stack per level, doubled.
    {"document::parse", via_document, 64, true},
    // The document, then the owned value's nodes.
    {"read_value", via_read_value, 256, true},
// Its output text is not counted (peak 0): it grows with the input, in a std::string.
#if MPK_TEST_JSON
    {"to_json", via_json, 0, false},
#endif
    // As read_value: the document, then the owned value.
    {"unpack<mpk::value>", via_unpack, 256, true},
    // A copy of the input, its scan stack (8 bytes per open container), doubled as it grows.
    {"stream_decoder", via_stream, 64, false, true},
    // The expanded copy (plain input: as long as the input), doubled as it grows.
    {"records_decoder::expand", via_records, 64, false},
};

/// Runs every entry point on `in` and checks that each reports `expected` (an error, or
/// errc::ok and `size` bytes taken) within its memory bound. With `early_truncation`, the
/// tree builders may instead report errc::truncated at an earlier offset (documented).
void expect_all(const bytes& in, const mpk::limits& lim, mpk::error expected, std::size_t size = 0,
                bool early_truncation = false) {
  for (const auto& ep : entry_points) {
    const outcome o = ep.run(in, lim);
    const bool may_see_it_earlier = (early_truncation && ep.builds_tree) ||
                                    (ep.waits_for_more && expected.code == errc::truncated);
    if (may_see_it_earlier && o.err != expected) {
      EXPECT_EQ(o.err.code, errc::truncated) << ep.name;
      EXPECT_LT(o.err.offset, expected.offset) << ep.name;
    } else {
      EXPECT_EQ(o.err.code, expected.code) << ep.name << ": got " << o.err.to_string() << " for "
                                           << mpk_test::to_hex(in).substr(0, 60);
      EXPECT_EQ(o.err.offset, expected.offset) << ep.name;
    }
    if (!expected) {
      EXPECT_EQ(o.size, size) << ep.name;
    }
    EXPECT_LE(o.peak_alloc, ep.bytes_per_input_byte * in.size() + 16 * 1024) << ep.name;
  }
}

using mpk_test::on_small_stack;

const mpk::limits defaults{};
const mpk::limits trusted = mpk::limits::trusted();

// --- declared counts and lengths beyond the input ----------------------------------------

TEST(Hostile, CountsAndLengthsBeyondTheInput) {
  // Above the default limits: limit_exceeded, before anything else is looked at.
  for (const char* h : mpk_test::lies_above_limits) {
    SCOPED_TRACE(h);
    expect_all(hex(h), defaults, {errc::limit_exceeded, 0});
    // Trusted limits lift the limit, never the check against the bytes that remain.
    expect_all(hex(h), trusted, {errc::truncated, 0});
  }
  // Within the limits, but the input cannot hold them: an array needs a byte per element.
  for (const char* h : mpk_test::lies_within_limits) {
    SCOPED_TRACE(h);
    expect_all(hex(h), defaults, {errc::truncated, 0});
    expect_all(hex(h), trusted, {errc::truncated, 0});
  }
}

TEST(Hostile, HundredLiesInARow) {
  expect_all(repeat(hex("dd ff ff ff ff"), 100), defaults, {errc::limit_exceeded, 0});
  expect_all(repeat(hex("dd ff ff ff ff"), 100), trusted, {errc::truncated, 0});
  // 300 bytes claim 65535 elements: more than remain.
  expect_all(repeat(hex("dc ff ff"), 100), defaults, {errc::truncated, 0});
  // Each str32 says 4 GiB: the first one is refused.
  expect_all(repeat(hex("db ff ff ff ff"), 100), trusted, {errc::truncated, 0});
}

TEST(Hostile, LieInsideAMapValue) {
  // {"a": array32 of 2^32 - 1}: the error points at the array, offset 3.
  expect_all(hex("81 a1 61 dd ff ff ff ff"), defaults, {errc::limit_exceeded, 3});
  expect_all(hex("81 a1 61 dd ff ff ff ff"), trusted, {errc::truncated, 3});
  expect_all(hex("81 a1 61 c6 00 00 01 00 00"), defaults, {errc::truncated, 3});
}

// --- size arithmetic ---------------------------------------------------------------------

TEST(Hostile, SizeArithmetic) {
  // 2^30 and 2^31 entries: 2^31 and 2^32 items, which overflow 32-bit arithmetic.
  for (const char* h : mpk_test::size_arithmetic) {
    SCOPED_TRACE(h);
    expect_all(hex(h), defaults, {errc::limit_exceeded, 0});
    expect_all(hex(h), trusted, {errc::truncated, 0});
  }
  // The largest counts with some bytes present: still refused before any allocation.
  bytes big = concat(hex("df 80 00 00 00"), bytes(4096, std::byte{0xc0}));
  expect_all(big, trusted, {errc::truncated, 0});
}

// Aimed at a 32-bit size_t (the i386 preset runs them; so does every 64-bit one): a header
// plus a length, or a map's 2 * count slots, that pass 2^32 wrap to a small number there.
TEST(Hostile, ThirtyTwoBitSizeArithmetic) {
  // Header + length == 2^32 exactly (str32 / bin32: 5 + (2^32 - 5); ext32: 6 + (2^32 - 6)),
  // and 2^32 - 1, each followed by a few bytes, which such a wrap would take as enough.
  for (const char* h : {"db ff ff ff fb 61 61", "c6 ff ff ff fb 01 01", "c9 ff ff ff fa 01 01",
                        "db ff ff ff ff 61", "c6 ff ff ff ff 01", "c9 ff ff ff ff 01 01"}) {
    SCOPED_TRACE(h);
    expect_all(hex(h), defaults, {errc::limit_exceeded, 0});
    expect_all(hex(h), trusted, {errc::truncated, 0});
  }
  // Maps of 2^31 + 1 and 2^32 - 1 pairs: 2^32 + 2 and 2^33 - 2 slots, 2 and 2^32 - 2 after
  // a 32-bit wrap; two or four items present. Also one level down.
  for (const char* h : {"df 80 00 00 01 c0 c0", "df ff ff ff ff c0 c0 c0 c0",
                        "92 c0 df 80 00 00 01 c0 c0", "81 a1 61 df 80 00 00 01 c0 c0"}) {
    SCOPED_TRACE(h);
    const std::size_t at = h[0] == 'd' ? 0 : h[1] == '2' ? 2 : 3;
    expect_all(hex(h), defaults, {errc::limit_exceeded, at});
    expect_all(hex(h), trusted, {errc::truncated, at});
  }
  // Arrays of 2^32 - 1 elements: one byte each cannot be there.
  expect_all(hex("dd ff ff ff ff c0 c0"), trusted, {errc::truncated, 0});
}

/// A copy of `in` that ends where the highest page this process can map ends, or an empty
/// span when no page near the top could be mapped. There `p + length` of a hostile length
/// passes the end of the address space (on i386 that is 4 GiB, within reach of a str32):
/// only checks of the length against the bytes that remain hold. The mapping is never
/// unmapped (one per call, small).
std::span<const std::byte> at_the_top(const bytes& in) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t size = (in.size() + page - 1) / page * page;
  // The top of user space: 4 GiB minus a page for a 32-bit process on a 64-bit kernel, less
  // on a 32-bit kernel; 2^47 on x86-64 and s390x's default layout. Tried from there down.
  const std::uintptr_t top =
      sizeof(void*) == 4 ? 0xffffe000u : static_cast<std::uintptr_t>(1ull << 47) - page;
  for (std::uintptr_t end = top; end > top / 2;
       end -= sizeof(void*) == 4 ? page * 16 : 1ull << 30) {
    void* want = reinterpret_cast<void*>(end - size);
    void* got = mmap(want, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == MAP_FAILED) continue;
    if (got != want) {  // an old kernel took it as a hint
      munmap(got, size);
      continue;
    }
    auto* last = static_cast<std::byte*>(got) + size - in.size();
    std::memcpy(last, in.data(), in.size());
    return {last, in.size()};
  }
  return {};
}

TEST(Hostile, InputAtTheEndOfTheAddressSpace) {
  for (const char* h : {"db ff ff ff ff 61", "db ff ff ff fb 61 61", "c6 ff ff ff ff 01",
                        "c9 ff ff ff fa 01 01", "dd ff ff ff ff c0", "df 80 00 00 01 c0 c0",
                        "d9 ff 61", "c4 10 01", "c8 ff ff 01", "81 a1 61 db ff ff ff ff 61"}) {
    SCOPED_TRACE(h);
    const bytes in = hex(h);
    const auto high = at_the_top(in);
    ASSERT_EQ(high.size(), in.size()) << "no page near the top of the address space was free";
    for (const auto& lim : {defaults, trusted}) {
      for (const auto& ep : entry_points) {
        EXPECT_EQ(ep.run(high, lim).err, ep.run(in, lim).err) << ep.name;
        EXPECT_NE(ep.run(high, lim).err.code, errc::ok) << ep.name;
      }
    }
  }
}

// --- amplification within the limits -----------------------------------------------------

TEST(Hostile, AmplificationWithinLimits) {
  // 65538 bytes that say "65535 nils": valid, and it costs no memory to walk.
  const bytes in = concat(hex("dc ff ff"), bytes(65535, std::byte{0xc0}));
  expect_all(in, defaults, {}, in.size());
  // 65535 empty arrays.
  const bytes empties = concat(hex("dc ff ff"), bytes(65535, std::byte{0x90}));
  expect_all(empties, defaults, {}, empties.size());
}

// --- every truncation of valid messages --------------------------------------------------

TEST(Hostile, EveryTruncationOfValidMessages) {
  for (const bytes& msg : valid_messages()) {
    SCOPED_TRACE(mpk_test::to_hex(msg));
    expect_all(msg, defaults, {}, msg.size());
    for (std::size_t cut = 0; cut < msg.size(); ++cut) {
      const bytes prefix(msg.begin(), msg.begin() + static_cast<std::ptrdiff_t>(cut));
      // Every entry point says truncated, at the same offset (that of the innermost value
      // that does not fit), and it is inside the prefix.
      const outcome first = via_skip(prefix, defaults);
      EXPECT_EQ(first.err.code, errc::truncated) << "cut at " << cut;
      EXPECT_LE(first.err.offset, cut);
      expect_all(prefix, defaults, first.err, 0, /*early_truncation=*/true);
    }
  }
}

// --- 0xc1 --------------------------------------------------------------------------------

TEST(Hostile, NeverUsedMarker) {
  // Alone, as an element, as a key, as a value: the error is at the marker.
  const std::size_t at[] = {0, 1, 1, 2};
  for (std::size_t i = 0; i < std::size(mpk_test::never_used_marker); ++i)
    expect_all(hex(mpk_test::never_used_marker[i]), defaults, {errc::invalid_marker, at[i]});
  expect_all(concat(repeat(hex("91"), 100), hex("c1")), defaults, {errc::invalid_marker, 100});
  // Every typed read refuses it the same way.
  const bytes c1 = hex("c1");  // the reader views it: it must outlive the reader
  mpk::reader r(c1);
  EXPECT_EQ(r.peek(), mpk::type::invalid);
  EXPECT_EQ(r.error(), (mpk::error{errc::invalid_marker, 0}));
  for (int k = 0; k < 5; ++k) {
    mpk::reader t(c1);
    if (k == 0) (void)t.read<int>();
    if (k == 1) (void)t.read_string_view();
    if (k == 2) (void)t.read_array_header();
    if (k == 3) (void)t.read<double>();
    if (k == 4) t.read_nil();
    EXPECT_EQ(t.error(), (mpk::error{errc::invalid_marker, 0})) << k;
  }
}

// --- nesting 100000 deep -----------------------------------------------------------------

TEST(Hostile, DeepNestingHitsTheDepthLimit) {
  on_small_stack([] {
    // The container at depth 513 is refused: the 513th header.
    expect_all(deep_arrays(), defaults, {errc::depth_exceeded, 512});
    expect_all(deep_map_keys(), defaults, {errc::depth_exceeded, 512});
    expect_all(deep_map_values(), defaults, {errc::depth_exceeded, 1024});
  });
}

TEST(Hostile, DeepNestingWithoutLimitsUsesNoStack) {
  // Trusted limits: 100000 levels are walked, on a 256 KiB stack, in bounded memory.
  on_small_stack([] {
    for (const bytes& in : {deep_arrays(), deep_map_keys(), deep_map_values()}) {
      expect_all(in, trusted, {}, in.size());
      mpk::unchecked_reader u(in);
      EXPECT_EQ(u.field_size(), in.size());
    }
  });
}

// --- strings that are not UTF-8 ----------------------------------------------------------

TEST(Hostile, InvalidUtf8IsPassedThroughByViews) {
  // Views and skipping do not validate text (docs/security.md: UTF-8 policy): read_string_view()
  // returns the bytes as they are; read_value, which owns its strings, checks them.
  for (const char* h :
       {"a2 c0 80", "a3 ed a0 80", "a4 f4 90 80 80", "a2 e2 82", "a3 61 00 62", "a1 ff"}) {
    SCOPED_TRACE(h);
    const bytes in = hex(h);
    const bool valid = mpk::is_valid_utf8(
        std::string_view(reinterpret_cast<const char*>(in.data()) + 1, in.size() - 1));
    EXPECT_EQ(valid, std::string_view(h) == "a3 61 00 62");  // only the embedded NUL
    for (const auto& ep : entry_points) {
      const outcome o = ep.run(in, defaults);
      if (ep.run == via_read_value && !valid) {
        EXPECT_EQ(o.err, (mpk::error{errc::invalid_utf8, 0})) << ep.name;
      } else {
        EXPECT_EQ(o.err, mpk::error{}) << ep.name;
        EXPECT_EQ(o.size, in.size()) << ep.name;
      }
    }
    mpk::reader r(in);
    const std::string_view s = r.read_string_view();
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(s.size(), in.size() - 1);
    EXPECT_EQ(std::memcmp(s.data(), in.data() + 1, s.size()), 0);
  }
}

// --- timestamps and extension types ------------------------------------------------------

TEST(Hostile, TimestampsOutOfRangeAreOpaqueToTheReader) {
  // nanoseconds = 10^9 (timestamp 64) and seconds = INT64_MAX (timestamp 96): the reader
  // hands them over as ext -1 with their data; converting them to a time is the timestamp
  // layer's job, which must refuse them (errc::invalid_timestamp).
  const bytes ns = hex("d7 ff ee 6b 28 00 00 00 00 00");  // 10^9 << 34
  const bytes secs = hex("c7 0c ff 00 00 00 00 7f ff ff ff ff ff ff ff");
  for (const bytes& in : {ns, secs}) {
    expect_all(in, defaults, {}, in.size());
    mpk::reader r(in);
    const mpk::ext_view e = r.read_ext();
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(e.type, -1);
    EXPECT_EQ(e.data.data(), in.data() + (in.size() - e.data.size()));
  }
  EXPECT_EQ(mpk::detail::load_be64(ns.data() + 2) >> 34, 1000000000u);  // the vector is right
}

TEST(Hostile, ReservedExtensionTypes) {
  // Types -128..-2 are reserved by the specification: the reader returns them as they are.
  for (int t : {-128, -2, -1, 0, 127}) {
    bytes in = hex("d4 00 2a");
    in[1] = static_cast<std::byte>(static_cast<std::int8_t>(t));
    expect_all(in, defaults, {}, 3);
    mpk::reader r(in);
    EXPECT_EQ(r.read_ext().type, t);
  }
  // An ext32 of 2^32 - 1 bytes is a lie like any other length.
  expect_all(hex("c9 ff ff ff ff 80"), defaults, {errc::limit_exceeded, 0});
}

// --- map keys ----------------------------------------------------------------------------

TEST(Hostile, MapKeysAreNotJudgedByTheReader) {
  // Duplicate, container, nil and NaN keys: the reader has no key policy (documented); the
  // layers that build maps (document, codec) apply theirs.
  for (const char* h : {"82 a1 61 01 a1 61 02",              // {"a": 1, "a": 2}
                        "81 90 01",                          // {[]: 1}
                        "81 81 c0 c0 01",                    // {{nil: nil}: 1}
                        "81 c0 01",                          // {nil: 1}
                        "81 cb 7f f8 00 00 00 00 00 00 01",  // {NaN: 1}
                        "82 cb 7f f8 00 00 00 00 00 00 01 cb 7f f8 00 00 00 00 00 00 02"}) {
    SCOPED_TRACE(h);
    const bytes in = hex(h);
    expect_all(in, defaults, {}, in.size());
  }
}

// --- integers that do not fit --------------------------------------------------------------

TEST(Hostile, IntegersIntoNarrowerTargets) {
  const bytes u64max = hex("cf ff ff ff ff ff ff ff ff");
  const bytes i64min = hex("d3 80 00 00 00 00 00 00 00");
  auto err_of = [](const bytes& in, auto read) {
    mpk::reader r(in);
    read(r);
    return r.error();
  };
  const mpk::error range{errc::out_of_range, 0};
  EXPECT_EQ(err_of(u64max, [](auto& r) { (void)r.template read<std::int64_t>(); }), range);
  EXPECT_EQ(err_of(u64max, [](auto& r) { (void)r.template read<std::int32_t>(); }), range);
  EXPECT_EQ(err_of(u64max, [](auto& r) { (void)r.template read<double>(); }), range);
  EXPECT_EQ(err_of(i64min, [](auto& r) { (void)r.template read<std::uint64_t>(); }), range);
  EXPECT_EQ(err_of(i64min, [](auto& r) { (void)r.template read<std::int32_t>(); }), range);
  {
    mpk::reader r(i64min);
    EXPECT_EQ(r.read<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
    EXPECT_TRUE(r.ok());
  }
  {
    mpk::reader r(i64min);  // -2^63 is a power of two: a double holds it exactly
    EXPECT_EQ(r.read<double>(), -9223372036854775808.0);
    EXPECT_TRUE(r.ok());
  }
  {
    mpk::reader r(u64max);
    EXPECT_EQ(r.read<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
  }
  // A failed read consumes nothing and leaves the reader failed at the value.
  const bytes one_then_max = concat(hex("01"), u64max);
  mpk::reader r(one_then_max);
  EXPECT_EQ(r.read<int>(), 1);
  EXPECT_EQ(r.read<std::int64_t>(), 0);
  EXPECT_EQ(r.error(), (mpk::error{errc::out_of_range, 1}));
}

// --- trailing bytes and reuse after an error ----------------------------------------------

TEST(Hostile, TrailingBytesAreLeftToTheCaller) {
  // Every entry point takes one value; what follows is not looked at. The caller checks
  // at_end() (the document and codec layers report errc::trailing_bytes).
  const bytes in = hex("01 c1 ff ff");
  expect_all(in, defaults, {}, 1);
  mpk::reader r(in);
  EXPECT_EQ(r.read<int>(), 1);
  EXPECT_FALSE(r.at_end());
  EXPECT_EQ(r.remaining(), 3u);
}

TEST(Hostile, ReuseAfterAnError) {
  const bytes bad = hex("92 01 c1 03");
  mpk::reader r(bad);
  r.skip();
  const mpk::error e{errc::invalid_marker, 2};
  EXPECT_EQ(r.error(), e);
  // Sticky: every later call is a no-op that returns a default and keeps the first error.
  EXPECT_EQ(r.peek(), mpk::type::invalid);
  EXPECT_EQ(r.read<int>(), 0);
  EXPECT_EQ(r.read_array_header(), 0u);
  EXPECT_EQ(r.field_size(), 0u);
  EXPECT_TRUE(r.raw_value().empty());
  r.skip();
  EXPECT_EQ(r.error(), e);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_EQ(r.position(), 2u);
  // reset() starts again on new input, error cleared.
  const bytes good = hex("92 01 02");
  r.reset(good);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.field_size(), 3u);
  EXPECT_EQ(r.read_array_header(), 2u);
  EXPECT_EQ(r.read<int>() + r.read<int>(), 3);
  EXPECT_TRUE(r.ok() && r.at_end());
}

// --- the tree builders see truncation earlier ---------------------------------------------

TEST(Hostile, TreeBuildersReportTruncationAtTheOuterContainer) {
  // {{{{{nil: ?}: ?}: ?}: ?}: ?}: four values owed, and no byte left for them. The reader
  // meets the end of the input at the fifth map; document::parse checks everything still owed
  // at every level against the bytes left, and stops at the third (docs/value.md).
  const bytes in = hex("81 81 81 81 81 c0");
  EXPECT_EQ(via_skip(in, defaults).err, (mpk::error{errc::truncated, 4}));
  EXPECT_EQ(via_document(in, defaults).err, (mpk::error{errc::truncated, 2}));
  EXPECT_EQ(via_read_value(in, defaults).err, (mpk::error{errc::truncated, 4}));
  // Too deep and too short at once: each reports what it meets first.
  const mpk::limits shallow{.max_depth = 3};
  EXPECT_EQ(via_skip(in, shallow).err, (mpk::error{errc::depth_exceeded, 3}));
  EXPECT_EQ(via_document(in, shallow).err, (mpk::error{errc::truncated, 2}));
}

// --- typed unpack ------------------------------------------------------------------------

namespace typed {
struct node {
  std::int32_t value = 0;
  std::vector<node> children;
};
MPK_ARRAY(node, value, children);
}  // namespace typed

namespace typed {
/// A field that records the stack address at which it is decoded: one probe per level of
/// a recursive type shows the stack each level takes.
struct stack_probe {};
std::vector<std::uintptr_t> probe_addresses;

/// probed_node = [nil, [children...]], the shape of `node` with a probe for its value.
struct probed_node {
  stack_probe probe;
  std::vector<probed_node> children;
};
MPK_ARRAY(probed_node, probe, children);
}  // namespace typed
}  // namespace

template <>
struct mpk::codec<typed::stack_probe> {
  template <class S>
  static void write(mpk::writer<S>& w, typed::stack_probe) noexcept {
    w.write_nil();
  }
  [[gnu::noinline]] static void read(mpk::reader& r, typed::stack_probe&) {
    r.read_nil();
    typed::probe_addresses.push_back(reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)));
  }
};

namespace {

template <class T>
mpk::error unpack_error(const bytes& in, mpk::read_options opts = {}) {
  return mpk::unpack<T>(in, opts).error();
}

TEST(Hostile, UnpackLiesAndSizeArithmetic) {
  using vec = std::vector<std::int32_t>;
  using dict = std::map<std::string, std::int32_t>;
  EXPECT_EQ(unpack_error<vec>(hex("dd ff ff ff ff")), (mpk::error{errc::limit_exceeded, 0}));
  EXPECT_EQ(unpack_error<vec>(hex("dc ff ff")), (mpk::error{errc::truncated, 0}));
  EXPECT_EQ(unpack_error<vec>(hex("9f 01 01 01")), (mpk::error{errc::truncated, 0}));
  EXPECT_EQ(unpack_error<std::string>(hex("db ff ff ff ff 5a")),
            (mpk::error{errc::limit_exceeded, 0}));
  EXPECT_EQ(unpack_error<std::vector<std::byte>>(hex("c6 ff ff ff ff")),
            (mpk::error{errc::limit_exceeded, 0}));
  EXPECT_EQ(unpack_error<dict>(hex("df 40 00 00 00")), (mpk::error{errc::limit_exceeded, 0}));
  EXPECT_EQ(unpack_error<dict>(hex("df 80 00 00 00"), {.limits = trusted}),
            (mpk::error{errc::truncated, 0}));
  EXPECT_EQ(unpack_error<dict>(hex("81 a1 61 dd ff ff ff ff")),
            (mpk::error{errc::type_mismatch, 3}));
  using dict_of_vec = std::map<std::string, vec>;
  EXPECT_EQ(unpack_error<dict_of_vec>(hex("81 a1 61 dd ff ff ff ff")),
            (mpk::error{errc::limit_exceeded, 3}));
  EXPECT_EQ(unpack_error<vec>(hex("91 c1")), (mpk::error{errc::invalid_marker, 1}));
}

TEST(Hostile, UnpackAmplificationIsBoundedBySizeofElement) {
  // 65538 bytes declare 65535 empty strings: valid, and they cost sizeof(std::string) each.
  const bytes in = concat(hex("dc ff ff"), bytes(65535, std::byte{0xa0}));
  mpk_fuzz::alloc_scope scope;
  const auto v = mpk::unpack<std::vector<std::string>>(in);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->size(), 65535u);
  EXPECT_LE(scope.peak(), 2 * sizeof(std::string) * in.size() + 16 * 1024);
}

TEST(Hostile, UnpackDeepRecursiveTypeStopsAtTheDepthLimit) {
  // node = [value, [children...]]: "92 00 91" per level, two containers per level. The
  // container at depth 513 is the node of level 256, at offset 3 * 256.
  const bytes in = concat(repeat(hex("92 00 91"), deep), hex("92 00 90"));
  // The codec recurses once per typed container, as deep as limits::max_depth allows
  // (codec/core.hpp): 512 levels take more than 256 KiB of stack in a debug build, so this
  // runs on 2 MiB; with max_depth = 32 the small stack is plenty.
  on_small_stack(
      [&] {
        EXPECT_EQ(unpack_error<typed::node>(in), (mpk::error{errc::depth_exceeded, 768}));
      },
      2 * 1024 * 1024);
  on_small_stack([&] {
    EXPECT_EQ(unpack_error<typed::node>(in, {.limits = {.max_depth = 32}}),
              (mpk::error{errc::depth_exceeded, 48}));
  });
  // Arrays 100000 deep into a type that nests: the same limit, the same small stack.
  on_small_stack([] {
    EXPECT_EQ(unpack_error<std::vector<std::vector<std::int32_t>>>(deep_arrays()),
              (mpk::error{errc::type_mismatch, 2}));
  });
}

// The stack a recursive type takes per level, as docs/security.md states it: measured with a
// probe at every level, then a 100000-deep input on a stack sized by that bound for the
// default max_depth (512 containers, 256 levels of this type) ends in depth_exceeded.
#if defined(__SANITIZE_ADDRESS__)
#define MPK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MPK_TEST_ASAN 1
#endif
#endif
#ifndef MPK_TEST_ASAN
#define MPK_TEST_ASAN 0
#endif

TEST(Hostile, UnpackStackPerLevelIsBounded) {
  // Documented bounds per level of `probed_node` (two typed containers: the struct's array
  // and the vector's): 4 KiB in a debug build, 16 KiB under ASan (whose frames carry red
  // zones); docs/security.md has the measured figures.
  constexpr std::size_t bound = MPK_TEST_ASAN ? 16384 : 4096;
  const bytes in = concat(repeat(hex("92 c0 91"), deep), hex("92 c0 90"));
  typed::probe_addresses.clear();
  typed::probe_addresses.reserve(300);
  on_small_stack(
      [&] {
        EXPECT_EQ(unpack_error<typed::probed_node>(in), (mpk::error{errc::depth_exceeded, 768}));
      },
      256 * bound + 128 * 1024);
  ASSERT_EQ(typed::probe_addresses.size(), 256u);  // levels 1..256 decoded their probe
  const std::uintptr_t top = typed::probe_addresses.front();
  const std::uintptr_t bottom = typed::probe_addresses.back();
  ASSERT_GT(top, bottom);  // the stack grows down, one frame chain per level
  const std::size_t per_level = (top - bottom) / 255;
  EXPECT_LE(per_level, bound);
  std::printf("[ stack    ] %zu bytes per level of a recursive struct (this build)\n", per_level);
  // With a lower max_depth the same input needs proportionally less.
  typed::probe_addresses.clear();
  on_small_stack(
      [&] {
        EXPECT_EQ(unpack_error<typed::probed_node>(in, {.limits = {.max_depth = 64}}),
                  (mpk::error{errc::depth_exceeded, 96}));
      },
      32 * bound + 64 * 1024);
  EXPECT_EQ(typed::probe_addresses.size(), 32u);
}

#if MPK_TEST_JSON
// --- JSON text into MessagePack ------------------------------------------------------------

/// from_json of `text` into a fresh buffer, on the small stack: the error, or ok.
mpk::error from_json_error(const std::string& text, mpk::from_json_options options = {}) {
  mpk::error e{};
  on_small_stack([&] {
    mpk::buffer out;
    const auto n = mpk::from_json(text, out, options);
    e = n ? mpk::error{} : n.error();
  });
  return e;
}

TEST(Hostile, FromJsonDeepNesting) {
  // 100000 '[' (unclosed, and closed): a depth error, not a stack overflow, however the
  // depth option is set (simdjson stops at 1024 levels itself).
  const std::string open(deep, '[');
  const std::string closed = open + std::string(deep, ']');
  const std::string objects = [] {
    std::string t;
    for (std::size_t i = 0; i < deep; ++i)
      t += "{\"a\":";
    t += "1";
    t += std::string(deep, '}');
    return t;
  }();
  for (const std::string* text : {&open, &closed, &objects}) {
    EXPECT_NE(from_json_error(*text).code, errc::ok);
    EXPECT_EQ(from_json_error(*text, {.max_depth = 1000000}).code, from_json_error(*text).code);
  }
  EXPECT_EQ(from_json_error(closed).code, errc::depth_exceeded);
  EXPECT_EQ(from_json_error(objects).code, errc::depth_exceeded);
  // Within the limit: fine; one past it: depth_exceeded.
  EXPECT_EQ(from_json_error(std::string(512, '[') + std::string(512, ']')), mpk::error{});
  EXPECT_EQ(from_json_error(std::string(513, '[') + std::string(513, ']')).code,
            errc::depth_exceeded);
}

TEST(Hostile, FromJsonNumbersStringsAndKeys) {
  const auto packed = [](const std::string& text) {
    mpk::buffer out;
    const auto n = mpk::from_json(text, out);
    return n ? mpk_test::to_hex(out.bytes()) : std::string("error ") + n.error().to_string();
  };
  // Integers beyond 64 bits become the nearest float64; a number beyond double's range (a
  // 100000-digit integer too) is an error, not an infinity.
  EXPECT_EQ(packed("18446744073709551616"), "cb 43 f0 00 00 00 00 00 00");
  EXPECT_EQ(packed("-9223372036854775809"), "cb c3 e0 00 00 00 00 00 00");
  EXPECT_EQ(from_json_error("1e400").code, errc::out_of_range);
  EXPECT_EQ(from_json_error("-1e400").code, errc::out_of_range);
  EXPECT_EQ(packed("1e-400"), "cb 00 00 00 00 00 00 00 00");  // underflow: zero
  const std::string digits(deep, '9');
  const mpk::error huge = from_json_error(digits);
  EXPECT_EQ(huge.code, errc::out_of_range) << huge.to_string();
  // 1 and 100000 zeros, times 10^-99999: exactly 10, as a float64 (it has an exponent).
  EXPECT_EQ(packed("1" + std::string(deep, '0') + "e-99999"), "cb 40 24 00 00 00 00 00 00");
  // Text that is not UTF-8 (overlong, surrogate, above U+10FFFF, truncated), in a value and
  // in a key.
  for (const char* bad : {"\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(from_json_error(std::string("\"") + bad + "\"").code, errc::invalid_utf8);
    EXPECT_EQ(from_json_error(std::string("{\"") + bad + "\": 1}").code, errc::invalid_utf8);
  }
  // Escapes of lone surrogates cannot become UTF-8: rejected; a pair is one code point.
  for (const char* lone : {R"("\ud800")", R"("\udc00")", R"("a\ud83dx")", R"("\ude00\ud83d")"}) {
    SCOPED_TRACE(lone);
    EXPECT_NE(from_json_error(lone).code, errc::ok);
  }
  EXPECT_EQ(packed(R"("\ud83d\ude00")"), "a4 f0 9f 98 80");
  // Duplicate keys are written as they come; a strict document then rejects them.
  EXPECT_EQ(packed(R"({"a": 1, "a": 2})"), "82 a1 61 01 a1 61 02");
  mpk::buffer out;
  ASSERT_TRUE(mpk::from_json(R"({"a": 1, "b": {"c": 1, "c": 2}})", out).has_value());
  EXPECT_EQ(mpk::document::parse(out.bytes(), {.read = {.strict = true}}).error(),
            (mpk::error{errc::duplicate_key, 10}));
}

#endif  // MPK_TEST_JSON

TEST(Hostile, UnpackIntegersAndTrailingBytes) {
  EXPECT_EQ(unpack_error<std::int64_t>(hex("cf ff ff ff ff ff ff ff ff")),
            (mpk::error{errc::out_of_range, 0}));
  EXPECT_EQ(unpack_error<std::int32_t>(hex("d3 80 00 00 00 00 00 00 00")),
            (mpk::error{errc::out_of_range, 0}));
  EXPECT_EQ(unpack_error<std::uint64_t>(hex("d3 80 00 00 00 00 00 00 00")),
            (mpk::error{errc::out_of_range, 0}));
  EXPECT_EQ(*mpk::unpack<std::int64_t>(hex("d3 80 00 00 00 00 00 00 00")),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(unpack_error<std::int32_t>(hex("01 02")), (mpk::error{errc::trailing_bytes, 1}));
  EXPECT_EQ(*mpk::unpack<std::int32_t>(hex("01 02"), {.allow_trailing = true}), 1);
  const bytes two = hex("01 02");
  EXPECT_EQ(mpk::document::parse(two).error(), (mpk::error{errc::trailing_bytes, 1}));
}

TEST(Hostile, DuplicateAndOddMapKeys) {
  using dict = std::map<std::string, std::int32_t>;
  const bytes dup = hex("82 a1 61 01 a1 61 02");  // {"a": 1, "a": 2}
  // Non-strict: the last one wins. Strict: errc::duplicate_key at the second key.
  EXPECT_EQ(mpk::unpack<dict>(dup)->at("a"), 2);
  EXPECT_EQ(unpack_error<dict>(dup, {.strict = true}), (mpk::error{errc::duplicate_key, 4}));
  // The document keeps both entries; lookups find the last.
  const auto doc = mpk::document::parse(dup);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->root().size(), 2u);
  EXPECT_EQ(*doc->root()["a"].as<int>(), 2);
  // A key of another type than the target's: type_mismatch at the key.
  EXPECT_EQ(unpack_error<dict>(hex("81 90 01")), (mpk::error{errc::type_mismatch, 1}));
  EXPECT_EQ(unpack_error<dict>(hex("81 c0 01")), (mpk::error{errc::type_mismatch, 1}));
  // NaN keys: the document compares keys by bits, so a NaN key finds the same NaN.
  const bytes nan_keys = hex("82 cb 7f f8 00 00 00 00 00 00 01 cb 7f f8 00 00 00 00 00 00 02");
  const auto nan_doc = mpk::document::parse(nan_keys);
  ASSERT_TRUE(nan_doc.has_value());
  const auto first_key = nan_doc->root().entries().begin();
  EXPECT_EQ(*nan_doc->root().find((*first_key).key).as<int>(), 2);
}

// --- UTF-8 policy ------------------------------------------------------------------------

TEST(Hostile, InvalidUtf8IntoOwnedStringsIsAnError) {
  // overlong, surrogate, above U+10FFFF, truncated, a lone continuation byte
  for (const char* h : mpk_test::invalid_utf8_strs) {
    SCOPED_TRACE(h);
    const bytes in = hex(h);
    const mpk::error bad{errc::invalid_utf8, 0};
    {
      mpk::reader r(in);  // default policy: owned strings are checked
      (void)r.read<std::string>();
      EXPECT_EQ(r.error(), bad);
    }
    {
      mpk::reader r(in);
      (void)r.read<std::u16string>();
      EXPECT_EQ(r.error(), bad);
    }
    {
      mpk::reader r(in, {.utf8 = mpk::utf8_check::all});  // views too
      (void)r.read_string_view();
      EXPECT_EQ(r.error(), bad);
    }
    {
      mpk::reader r(in, {.utf8 = mpk::utf8_check::none});  // raw bytes, on request
      EXPECT_EQ(r.read<std::string>().size(), in.size() - 1);
      EXPECT_TRUE(r.ok());
    }
    EXPECT_EQ(unpack_error<std::string>(in), bad);
    {
      const auto doc = mpk::document::parse(in);  // the tree keeps the bytes ...
      ASSERT_TRUE(doc.has_value());
      EXPECT_EQ(doc->root().as<std::string>().error(), bad);  // ... an owned copy is checked
      EXPECT_EQ(mpk::document::parse(in, {.read = {.utf8 = mpk::utf8_check::all}}).error(), bad);
    }
#if MPK_TEST_JSON
    EXPECT_EQ(mpk::to_json(in).error(), bad);           // plain JSON needs text
    EXPECT_TRUE(mpk::to_json(in, {.lossless = true}));  // lossless carries the bytes
#endif
    EXPECT_FALSE(mpk::is_valid_utf8(
        std::string_view(reinterpret_cast<const char*>(in.data()) + 1, in.size() - 1)));
  }
  // An embedded NUL is valid UTF-8: kept as it is.
  EXPECT_EQ(*mpk::unpack<std::string>(hex("a3 61 00 62")), std::string("a\0b", 3));
}

// --- timestamps --------------------------------------------------------------------------

TEST(Hostile, TimestampsOutOfRange) {
  // nanoseconds = 10^9 (64 and 96 bits), a length that is no timestamp's
  for (const char* h : mpk_test::invalid_timestamps) {
    const bytes in = hex(h);
    mpk::reader r(in);
    (void)mpk::read_timestamp(r);
    EXPECT_EQ(r.error(), (mpk::error{errc::invalid_timestamp, 0}));
  }
  // seconds = INT64_MAX is a valid timestamp, beyond what a time_point holds.
  const bytes max_secs = hex("c7 0c ff 00 00 00 00 7f ff ff ff ff ff ff ff");
  mpk::reader r(max_secs);
  const mpk::timestamp ts = mpk::read_timestamp(r);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ts.seconds, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(mpk::to_time_point(ts).error().code, errc::out_of_range);
  // A timestamp-typed read on another type of extension.
  const bytes other = hex("d6 05 00 00 00 01");
  mpk::reader o(other);
  (void)mpk::read_timestamp(o);
  EXPECT_EQ(o.error(), (mpk::error{errc::type_mismatch, 0}));
}

// --- reuse of a document after an error --------------------------------------------------

TEST(Hostile, DocumentReuseAfterAnError) {
  mpk::document doc;
  const bytes bad = hex("92 01 c1");
  EXPECT_EQ(doc.parse_into(bad).error(), (mpk::error{errc::invalid_marker, 2}));
  EXPECT_FALSE(doc.root().exists());
  const bytes good = hex("92 01 02");
  ASSERT_TRUE(doc.parse_into(good).has_value());
  EXPECT_EQ(*doc.root()[1].as<int>(), 2);
}

}  // namespace
