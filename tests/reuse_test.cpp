// Reuse after an error (issue 13): every stateful decoder (mpk::reader, stream_decoder,
// records_decoder, document::parse_into) is fed each class of hostile input of the catalogue
// (tests/support/hostile_inputs.hpp), made to report every errc it can report (allocation
// failures included, with fuzz/alloc_count.cpp's failing allocator), and then, after the
// documented reset where the API has one, decodes valid input into exactly the values a
// fresh decoder gives. msgpack-python's CVE-2026-57585 was a crash in that situation: an
// Unpacker reused after a failed unpack. docs/reader.md, docs/stream.md, docs/records.md and
// docs/value.md state each decoder's rule.
#include <gtest/gtest.h>
#include <mpk/codec.hpp>
#include <mpk/ext/records.hpp>
#include <mpk/ext/timestamp.hpp>
#include <mpk/reader.hpp>
#include <mpk/stream.hpp>
#include <mpk/value.hpp>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "../fuzz/alloc_count.hpp"
#include "../fuzz/fuzz_support.hpp"
#include "support/hex.hpp"
#include "support/hostile_inputs.hpp"
#include "support/print_error.hpp"

namespace {

using bytes = std::vector<std::byte>;
using mpk::errc;
using mpk_test::hex;
using errc_set = std::set<errc>;

struct point {
  std::int32_t x = 0;
  std::string name;
  friend bool operator==(const point&, const point&) = default;
};
MPK_MAP(point, x, name);

/// The valid messages of the catalogue, one after another, and each alone.
const std::vector<bytes>& valid() {
  static const std::vector<bytes> v = [] {
    auto out = mpk_test::valid_messages();
    out.push_back(hex("82 a1 78 05 a4 6e 61 6d 65 a2 6f 6b"));  // {"x": 5, "name": "ok"}
    return out;
  }();
  return v;
}
bytes valid_stream() {
  bytes all;
  for (const bytes& m : valid())
    all = mpk_test::concat(all, m);
  return all;
}

/// The tokens of one value, in order (mpk::visit over the bytes the reader's raw_value()
/// takes: the reader's own state decides where the value is), or the reader's error.
std::vector<mpk_fuzz::token> walk(mpk::reader& r, mpk::error& err) {
  std::vector<mpk_fuzz::token> out;
  const std::span<const std::byte> value = r.raw_value();
  err = r.error();
  if (err) return out;
  mpk_fuzz::cursor c{value};
  EXPECT_FALSE(mpk_fuzz::walk_value(c, r.options().limits, [&](const mpk_fuzz::token& t) {
    out.push_back(t);
  })) << "visit rejects what raw_value() took";
  return out;
}

/// Runs `fn` with the first allocation request of this thread failing.
template <class F>
void with_first_allocation_failing(F&& fn) {
  mpk_fuzz::fail_nth_allocation(1);
  fn();
  const bool failed = mpk_fuzz::allocation_failed();
  mpk_fuzz::fail_nth_allocation(0);
  EXPECT_TRUE(failed) << "nothing was allocated";
}

// --- mpk::reader --------------------------------------------------------------------------

/// Every read a reader offers, once each on `in` (reset() before each), into `seen`.
void probe_reader(mpk::reader& r, const bytes& in, errc_set& seen) {
  const auto note = [&] { seen.insert(r.error().code); };
  mpk::error e;
  r.reset(in);
  (void)walk(r, e);
  seen.insert(e.code);
  r.reset(in);
  r.skip();
  note();
  r.reset(in);
  (void)r.field_size();
  note();
  r.reset(in);
  (void)r.raw_value();
  note();
  r.reset(in);
  (void)r.read<std::int32_t>();
  note();
  r.reset(in);
  (void)r.read<std::uint64_t>();
  note();
  r.reset(in);
  (void)r.read<std::string>();
  note();
  r.reset(in);
  (void)r.read<std::u16string>();
  note();
  r.reset(in);
  (void)mpk::read_timestamp(r);
  note();
}

/// What a reader with limits `lim` makes of `msg`: the walk's tokens and error, and the
/// sizes field_size() and skip() find.
struct reading {
  std::vector<mpk_fuzz::token> tokens;
  mpk::error err;
  std::size_t field_size = 0;
  std::size_t skipped = 0;
  friend bool operator==(const reading&, const reading&) = default;
};
reading read_all(mpk::reader& r, const bytes& msg) {
  reading out;
  r.reset(msg);
  out.tokens = walk(r, out.err);
  r.reset(msg);
  out.field_size = r.field_size();
  r.reset(msg);
  r.skip();
  out.skipped = r.ok() ? r.position() : 0;
  return out;
}

/// After whatever `r` went through: reset() onto each valid message reads what a fresh
/// reader with the same limits reads, token for token; with the default limits, that is
/// every message whole.
void expect_reader_reads_valid_input(mpk::reader& r) {
  const bool defaults = r.options().limits.max_depth == mpk::limits{}.max_depth;
  for (const bytes& msg : valid()) {
    mpk::reader fresh(std::span<const std::byte>{}, r.options());
    const reading got = read_all(r, msg);
    EXPECT_EQ(got, read_all(fresh, msg));
    if (defaults) {
      EXPECT_EQ(got.err, mpk::error{});
      EXPECT_EQ(got.field_size, msg.size());
      EXPECT_EQ(got.skipped, msg.size());
    }
  }
  if (!defaults) return;
  r.reset(valid().back());
  point p;
  ASSERT_TRUE(mpk::unpack(r, p).has_value());
  EXPECT_EQ(p, (point{5, "ok"}));
}

TEST(Reuse, ReaderAfterEveryHostileInput) {
  const std::vector<mpk_test::hostile_input> catalogue = mpk_test::hostile_catalogue();
  // One reader for everything, with the default limits and with tiny ones (so that the
  // short inputs reach every limit).
  for (const mpk::limits& lim : {mpk::limits{}, mpk_fuzz::tiny_limits}) {
    mpk::reader r(std::span<const std::byte>{}, {.limits = lim});
    errc_set seen;
    for (const auto& h : catalogue) {
      SCOPED_TRACE(h.what);
      probe_reader(r, h.bytes, seen);
      expect_reader_reads_valid_input(r);
    }
    // Every error a reader reports (docs/reader.md), plus success. Under the tiny limits
    // every timestamp is above max_ext_len, and nothing nests deep enough to allocate.
    errc_set expected = {
        errc::ok,           errc::truncated,      errc::invalid_marker, errc::type_mismatch,
        errc::out_of_range, errc::depth_exceeded, errc::limit_exceeded, errc::invalid_utf8};
    if (lim.max_depth > 64) {
      // Skipping beyond 64 levels allocates its stack (when the outer levels still owe
      // items: maps as keys): make that fail, then read again.
      const bytes deep = mpk_test::deep_map_keys(100);
      r.reset(deep);
      with_first_allocation_failing([&] { r.skip(); });
      EXPECT_EQ(r.error(), (mpk::error{errc::out_of_memory, 64}));
      seen.insert(r.error().code);
      expect_reader_reads_valid_input(r);
      expected.insert({errc::invalid_timestamp, errc::out_of_memory});
    }
    EXPECT_EQ(seen, expected);
  }
}

// --- document::parse_into -------------------------------------------------------------------

/// The tree of `doc` as an owned value (nil when it has no root).
mpk::value tree(const mpk::document& doc) {
  return doc.root().exists() ? mpk::value(doc.root()) : mpk::value();
}

void expect_document_parses_valid_input(mpk::document& doc) {
  for (const bytes& msg : valid()) {
    for (const bool copy : {false, true}) {
      ASSERT_TRUE(doc.parse_into(msg, {.copy = copy}).has_value());
      const auto fresh = mpk::document::parse(msg);
      ASSERT_TRUE(fresh.has_value());
      EXPECT_EQ(tree(doc), tree(*fresh));
      EXPECT_EQ(doc.consumed(), msg.size());
      const auto raw = doc.root().raw();
      ASSERT_EQ(raw.size(), msg.size());
      // Views point into this input (or into the document's own copy), never the old one.
      EXPECT_EQ(raw.data() == msg.data(), !copy);
      EXPECT_TRUE(std::equal(raw.begin(), raw.end(), msg.begin()));
    }
  }
  ASSERT_TRUE(doc.parse_into(valid().back()).has_value());
  EXPECT_EQ(*doc.root()["name"].as<std::string>(), "ok");
  EXPECT_EQ(*doc.root()["x"].as<int>(), 5);
}

TEST(Reuse, DocumentAfterEveryHostileInput) {
  const std::vector<mpk_test::hostile_input> catalogue = mpk_test::hostile_catalogue();
  mpk::document doc;
  errc_set seen;
  const mpk::read_options strict{.utf8 = mpk::utf8_check::all, .strict = true};
  for (const auto& h : catalogue) {
    SCOPED_TRACE(h.what);
    for (const mpk::limits& lim : {mpk::limits{}, mpk_fuzz::tiny_limits}) {
      for (mpk::read_options o : {mpk::read_options{}, strict}) {
        o.limits = lim;
        const auto r = doc.parse_into(h.bytes, {.read = o});
        seen.insert(r.error().code);
        if (!r) {
          // An error leaves no tree behind (docs/value.md).
          EXPECT_FALSE(doc.root().exists());
        }
      }
    }
    expect_document_parses_valid_input(doc);
  }
  // An allocation failure, with the document's memory grown before and not.
  for (const bool grown : {true, false}) {
    mpk::document d;
    if (grown) {
      ASSERT_TRUE(d.parse_into(valid()[0]).has_value());
    }
    const bytes big = mpk_test::repeat(hex("91"), 3000, hex("c0"));
    with_first_allocation_failing([&] {
      const auto r = d.parse_into(big, {.read = {.limits = mpk::limits::trusted()}});
      EXPECT_EQ(r.error().code, errc::out_of_memory);
      seen.insert(r.error().code);
    });
    EXPECT_FALSE(d.root().exists());
    expect_document_parses_valid_input(d);
  }
  EXPECT_EQ(seen, (errc_set{errc::ok, errc::truncated, errc::invalid_marker, errc::depth_exceeded,
                            errc::limit_exceeded, errc::invalid_utf8, errc::duplicate_key,
                            errc::trailing_bytes, errc::out_of_memory}));
}

// --- stream_decoder --------------------------------------------------------------------------

/// Feeds `in` in chunks of `chunk` bytes, taking messages with `take` after each chunk (it
/// returns false to stop), then calls finish(); the errors on the way go to `seen`.
template <class Take>
void feed_in_chunks(mpk::stream_decoder& dec, const bytes& in, std::size_t chunk, errc_set& seen,
                    Take&& take) {
  for (std::size_t at = 0; at < in.size(); at += chunk) {
    const std::size_t n = std::min(chunk, in.size() - at);
    if (auto r = dec.feed(in.data() + at, n); !r) {
      seen.insert(r.error().code);
      return;
    }
    if (!take()) return;
  }
  seen.insert(dec.finish().error().code);
}

/// Takes every complete message one way per call in turn, from `turn` on: raw bytes, an
/// mpk::value, a document, a strict `point`, an int32. False once one of them fails.
struct any_take {
  mpk::stream_decoder& dec;
  errc_set& seen;
  int turn = 0;
  mpk::document doc{};
  bool operator()() {
    for (;;) {
      mpk::error e{};
      bool got = false;
      const auto typed = [&](auto&& out) {
        const auto m = dec.next(out);
        e = m.error();
        got = m && *m;
      };
      switch (turn++ % 5) {
        case 0: {
          const auto m = dec.next();
          e = m.error();
          got = m && !m->empty();
          break;
        }
        case 1:
          typed(mpk::value());
          break;
        case 2: {
          const auto m = dec.next(doc);
          e = m.error();
          got = m && *m;
          break;
        }
        case 3:
          typed(point());
          break;
        default:
          typed(std::int32_t{0});
          break;
      }
      seen.insert(e.code);
      if (e) return false;
      if (!got) return true;
    }
  }
};

/// What `dec` makes of the valid stream fed in chunks of `chunk` bytes, taking messages
/// as raw bytes and as mpk::value in turn: each message (hex of its bytes or of the value
/// packed again), then the error or the end.
std::vector<std::string> transcript(mpk::stream_decoder& dec, std::size_t chunk) {
  const bytes all = valid_stream();
  std::vector<std::string> out;
  int turn = 0;
  const auto stop = [&](const mpk::error& e) {
    out.push_back("error " + e.to_string());
    return out;
  };
  for (std::size_t at = 0; at < all.size(); at += chunk) {
    if (auto r = dec.feed(all.data() + at, std::min(chunk, all.size() - at)); !r)
      return stop(r.error());
    for (;;) {
      if (turn % 2 == 0) {
        const auto m = dec.next();
        if (!m) return stop(m.error());
        if (m->empty()) break;
        out.push_back(mpk_test::to_hex(*m));
      } else {
        mpk::value v;
        const auto m = dec.next(v);
        if (!m) return stop(m.error());
        if (!*m) break;
        out.push_back(mpk_test::to_hex(mpk::pack(v).value().bytes()));
      }
      ++turn;
    }
  }
  out.push_back("end " + dec.finish().error().to_string() + " at " +
                std::to_string(dec.position()));
  return out;
}

/// After whatever `dec` went through, reset(): the valid stream, in chunks of 1, 2, 3, 7
/// bytes and whole, gives what a fresh decoder with the same options gives; with the
/// default limits, each message exactly (its bytes, its value).
void expect_stream_decodes_valid_input(mpk::stream_decoder& dec) {
  const bytes all = valid_stream();
  const bool defaults = dec.options().read.limits.max_depth == mpk::limits{}.max_depth &&
                        dec.options().max_buffer_size >= all.size();
  std::vector<std::string> expected;
  for (const bytes& msg : valid())
    expected.push_back(mpk_test::to_hex(msg));
  expected.push_back("end " + mpk::error{}.to_string() + " at " + std::to_string(all.size()));
  for (std::size_t chunk :
       {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, all.size()}) {
    SCOPED_TRACE(chunk);
    dec.reset();
    EXPECT_TRUE(dec.ok());
    EXPECT_EQ(dec.bytes_fed(), 0u);
    EXPECT_EQ(dec.messages(), 0u);
    EXPECT_EQ(dec.buffered(), 0u);
    mpk::stream_decoder fresh(dec.options());
    const std::vector<std::string> got = transcript(dec, chunk);
    EXPECT_EQ(got, transcript(fresh, chunk));
    if (defaults) {
      EXPECT_EQ(got, expected);
    }
  }
  dec.reset();
  if (defaults) {
    ASSERT_TRUE(dec.feed(valid().back()).has_value());
    point p;
    ASSERT_TRUE(dec.next(p).value());
    EXPECT_EQ(p, (point{5, "ok"}));
    dec.reset();
  }
}

/// A hostile input from hex.
mpk_test::hostile_input named(const char* what, const char* h) {
  return {what, hex(h)};
}

/// Messages that only a typed decoding gets wrong (a strict `point`, an int32).
std::vector<mpk_test::hostile_input> typed_catalogue() {
  const auto r = named;
  return {
      r("a field missing", "81 a1 78 01"),
      r("an unknown field", "83 a1 78 01 a4 6e 61 6d 65 a0 a1 7a 01"),
      r("a field twice", "83 a1 78 01 a4 6e 61 6d 65 a0 a1 78 02"),
      r("a string for a number", "82 a1 78 a1 31 a4 6e 61 6d 65 a0"),
      r("a number too large", "82 a1 78 cf 00 00 00 01 00 00 00 00 a4 6e 61 6d 65 a0"),
      r("a name that is not UTF-8", "82 a1 78 01 a4 6e 61 6d 65 a2 c0 80"),
  };
}

TEST(Reuse, StreamDecoderAfterEveryHostileInput) {
  std::vector<mpk_test::hostile_input> catalogue = mpk_test::hostile_catalogue();
  for (auto& h : typed_catalogue())
    catalogue.push_back(std::move(h));
  errc_set seen;
  mpk::stream_decoder dec({.read = {.utf8 = mpk::utf8_check::all, .strict = true}});
  mpk::stream_decoder tiny({.read = {.limits = mpk_fuzz::tiny_limits}, .max_buffer_size = 64});
  for (const auto& h : catalogue) {
    SCOPED_TRACE(h.what);
    for (mpk::stream_decoder* d : {&dec, &tiny}) {
      // Whole, each way first; in pieces of 1 and 5 bytes (the resumable scan), raw first
      // and typed first.
      for (const auto& [chunk, turn] :
           {std::pair{h.bytes.size() + 1, 0}, std::pair{h.bytes.size() + 1, 1},
            std::pair{h.bytes.size() + 1, 2}, std::pair{h.bytes.size() + 1, 3},
            std::pair{h.bytes.size() + 1, 4}, std::pair{std::size_t{1}, 0},
            std::pair{std::size_t{5}, 1}}) {
        d->reset();
        any_take take{*d, seen, turn};
        feed_in_chunks(*d, h.bytes, chunk, seen, take);
        // The hostile input, then a valid message behind it without a reset: the error
        // stays (sticky) whatever is fed.
        if (!d->ok()) {
          const mpk::error e = d->error();
          EXPECT_EQ(d->feed(valid()[0]).error(), e);
          EXPECT_EQ(d->next().error(), e);
          EXPECT_EQ(d->finish().error(), e);
        }
      }
      expect_stream_decodes_valid_input(*d);
    }
  }
  // Element-wise mode: a top-level scalar, a map taken with next(document&), errors inside
  // an element.
  mpk::stream_decoder elements({.elements = true});
  for (const char* h : {"01", "93 01 c1 03", "dc 00 03 01 91", "82 a1 61 01 a1 62 02"}) {
    SCOPED_TRACE(h);
    elements.reset();
    ASSERT_TRUE(elements.feed(hex(h)).has_value());
    mpk::document d;
    for (int k = 0; k < 4; ++k) {
      const auto m = elements.next(d);
      seen.insert(m.error().code);
      if (!m) break;
    }
    seen.insert(elements.finish().error().code);
    // invalid_argument (a map taken into a document) is a caller error: not sticky, the
    // entries can still be taken.
    if (elements.container() == mpk::type::map) {
      std::string key;
      int value = 0;
      ASSERT_TRUE(elements.next_entry(key, value).value());
      EXPECT_EQ(key, "a");
      EXPECT_EQ(value, 1);
    }
    elements.reset();
    ASSERT_TRUE(elements.feed(hex("92 01 a1 78")).has_value());
    std::int32_t first = 0;
    std::string second;
    ASSERT_TRUE(elements.next(first).value());
    ASSERT_TRUE(elements.next(second).value());
    EXPECT_EQ(first, 1);
    EXPECT_EQ(second, "x");
    EXPECT_TRUE(elements.finish().has_value());
  }
  // A source that fails, and allocation failures (the buffer, the scan stack).
  {
    mpk::stream_source src(-1);  // no such descriptor: read() fails
    dec.reset();
    seen.insert(dec.read_from(src).error().code);
    EXPECT_EQ(dec.error().code, errc::io_error);
    expect_stream_decodes_valid_input(dec);
  }
  {
    mpk::stream_decoder fresh;
    with_first_allocation_failing([&] { seen.insert(fresh.feed(valid()[0]).error().code); });
    EXPECT_EQ(fresh.error(), (mpk::error{errc::out_of_memory, 0}));
    expect_stream_decodes_valid_input(fresh);
    const bytes deep = mpk_test::deep_arrays(100);
    ASSERT_TRUE(fresh.feed(deep.data(), 50).has_value());  // the scan of a message in pieces
    with_first_allocation_failing([&] { seen.insert(fresh.next().error().code); });
    EXPECT_EQ(fresh.error().code, errc::out_of_memory);
    expect_stream_decodes_valid_input(fresh);
  }
  EXPECT_EQ(seen,
            (errc_set{errc::ok, errc::truncated, errc::invalid_marker, errc::type_mismatch,
                      errc::out_of_range, errc::depth_exceeded, errc::limit_exceeded,
                      errc::invalid_utf8, errc::duplicate_key, errc::unknown_key, errc::missing_key,
                      errc::out_of_memory, errc::io_error, errc::invalid_argument}));
}

// --- records_decoder --------------------------------------------------------------------------

/// Record messages as msgpackr writes them (records_encoder), and the values they hold.
struct record_stream {
  std::vector<mpk::value> values;
  std::vector<bytes> messages;
};
record_stream make_records(mpk::records_mode mode) {
  record_stream s;
  s.values.push_back({{"a", 1}, {"b", "x"}});
  s.values.push_back(mpk::value::array({mpk::value{{"a", 2}, {"b", "y"}}, 70, "z"}));
  s.values.push_back({{"b", 3}, {"a", mpk::value::array({})}});
  s.values.push_back({{"a", 4}, {"b", "w"}});
  mpk::records_encoder enc({.mode = mode});
  for (const mpk::value& v : s.values) {
    auto out = enc.encode(v);
    EXPECT_TRUE(out.has_value());
    s.messages.emplace_back(out->data(), out->data() + out->size());
  }
  return s;
}

struct ab {
  std::int64_t a = 0;
  std::string b;
};
MPK_MAP(ab, a, b);

/// What `dec` makes of the record messages of its mode, one way per message in turn
/// (read_value, parse, expand), then of the last one typed: each value packed as hex, or the
/// error.
std::vector<std::string> transcript(mpk::records_decoder& dec, const record_stream& s) {
  std::vector<std::string> out;
  const auto note = [&](const mpk::result<mpk::value>& v) {
    out.push_back(v ? mpk_test::to_hex(mpk::pack(*v).value().bytes()) : v.error().to_string());
  };
  for (std::size_t i = 0; i < s.messages.size(); ++i) {
    switch (i % 3) {
      case 0:
        note(dec.read_value(s.messages[i]));
        break;
      case 1: {
        const auto doc = dec.parse(s.messages[i]);
        note(doc ? mpk::result<mpk::value>(mpk::value(doc->root()))
                 : mpk::result<mpk::value>(doc.error()));
        break;
      }
      default: {
        mpk::buffer expanded;
        const auto end = dec.expand(s.messages[i], 0, expanded);
        note(end ? mpk::unpack<mpk::value>(expanded.bytes())
                 : mpk::result<mpk::value>(end.error()));
        break;
      }
    }
  }
  // Typed: the last message is {"a": 4, "b": "w"} (in sequential mode its id was defined by
  // the first message, read above).
  const auto t = mpk::unpack_records<ab>(dec, s.messages.back());
  out.push_back(t ? std::to_string(t->a) + " " + t->b : t.error().to_string());
  return out;
}

/// After whatever `dec` went through (and reset() in sequential mode): the record messages
/// give what a fresh decoder with the same options gives; with the default limits, exactly
/// the values they were made from.
void expect_records_decode_valid_input(mpk::records_decoder& dec) {
  const record_stream s = make_records(dec.options().mode);
  if (dec.options().mode == mpk::records_mode::sequential) dec.reset();
  mpk::records_decoder fresh(dec.options());
  const std::vector<std::string> got = transcript(dec, s);
  EXPECT_EQ(got, transcript(fresh, s));
  if (dec.options().read.limits.max_depth == mpk::limits{}.max_depth) {
    std::vector<std::string> expected;
    for (const mpk::value& v : s.values)
      expected.push_back(mpk_test::to_hex(mpk::pack(v).value().bytes()));
    expected.push_back("4 w");
    EXPECT_EQ(got, expected);
  }
}

/// Inputs that only a records decoder can get wrong: ids and definitions.
std::vector<mpk_test::hostile_input> record_catalogue() {
  const auto r = named;
  return {
      r("undefined two-byte id", "d5 72 60 00 91 a1 61 01 60 01 02"),
      r("one-byte id out of range", "d4 72 20 91 a1 61 01"),
      r("keys not an array", "d4 72 40 a1 61 01"),
      r("key not a str", "d4 72 40 91 01 01"),
      r("definition truncated", "d4 72 40 92 a1 61"),
      r("instance truncated", "92 d4 72 40 92 a1 61 a1 62 01 02 40 03"),
      r("0xc1 inside an instance", "d4 72 40 92 a1 61 a1 62 01 c1"),
      r("a definition, then 0xc1 in the next", "92 d4 72 41 91 a1 61 01 d4 72 41 91 c1 01"),
      r("redefinition inside its own instance", "d4 72 40 92 a1 61 a1 62 d4 72 40 91 a1 63 01 c1"),
      r("record inside records past the depth",
        "d4 72 40 91 a1 61 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 40 "
        "01"),
      r("a record where a number is wanted", "d4 72 40 92 a1 61 a1 62 40 01 a1 78"),
      r("a string for a number", "82 a1 61 a1 78 a1 62 a1 78"),
      r("a field twice", "83 a1 61 01 a1 62 a1 78 a1 61 02"),
      r("an unknown field", "83 a1 61 01 a1 62 a1 78 a1 63 02"),
  };
}

TEST(Reuse, RecordsDecoderAfterEveryHostileInput) {
  std::vector<mpk_test::hostile_input> catalogue = mpk_test::hostile_catalogue();
  for (auto& h : record_catalogue())
    catalogue.push_back(std::move(h));
  // An expansion beyond its bound: 64 instances of 40 keys from a 300-byte definition.
  {
    bytes big = hex("d4 72 40 dc 00 28");
    for (int k = 0; k < 40; ++k)
      big = mpk_test::concat(big, hex("a1 61"));
    big = mpk_test::concat(big, hex("dc 00 40"));
    big = mpk_test::concat(big, bytes(40, std::byte{0x01}));
    big = mpk_test::concat(
        big, mpk_test::repeat(mpk_test::concat(hex("40"), bytes(40, std::byte{1})), 63));
    catalogue.push_back({"expansion beyond max_expansion", big});
  }
  errc_set seen;
  for (const mpk::records_mode mode :
       {mpk::records_mode::per_message, mpk::records_mode::sequential}) {
    SCOPED_TRACE(mode == mpk::records_mode::sequential ? "sequential" : "per message");
    mpk::records_decoder dec({.mode = mode, .max_expansion = 2});
    mpk::records_decoder strict(
        {.mode = mode, .read = {.limits = mpk_fuzz::tiny_limits, .utf8 = mpk::utf8_check::all}});
    for (const auto& h : catalogue) {
      SCOPED_TRACE(h.what);
      for (mpk::records_decoder* d : {&dec, &strict}) {
        // A valid message first, so that definitions are live when the hostile one comes.
        const record_stream s = make_records(mode);
        if (mode == mpk::records_mode::sequential) d->reset();
        ASSERT_TRUE(d->read_value(s.messages[0]).has_value());
        seen.insert(d->parse(h.bytes).error().code);
        mpk::buffer out;
        seen.insert(d->expand(h.bytes, 0, out).error().code);
        mpk::read_options strict_keys = d->options().read;
        strict_keys.strict = true;
        seen.insert(mpk::unpack_records<ab>(*d, h.bytes, strict_keys).error().code);
        seen.insert(mpk::unpack_records<std::vector<ab>>(*d, h.bytes).error().code);
        seen.insert(mpk::unpack_records<mpk::value>(*d, h.bytes).error().code);
        expect_records_decode_valid_input(*d);
      }
    }
    // Allocation failures while definitions are in use.
    const record_stream s = make_records(mode);
    for (std::size_t k = 1; k <= 3; ++k) {
      if (mode == mpk::records_mode::sequential) dec.reset();
      mpk_fuzz::fail_nth_allocation(k);
      const auto v = dec.read_value(s.messages[0]);
      mpk_fuzz::fail_nth_allocation(0);
      seen.insert(v.error().code);
      expect_records_decode_valid_input(dec);
    }
  }
  EXPECT_EQ(seen, (errc_set{errc::ok, errc::truncated, errc::invalid_marker, errc::type_mismatch,
                            errc::out_of_range, errc::depth_exceeded, errc::limit_exceeded,
                            errc::invalid_utf8, errc::unknown_key, errc::missing_key,
                            errc::duplicate_key, errc::trailing_bytes, errc::out_of_memory}));
}

}  // namespace
