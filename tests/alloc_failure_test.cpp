// Allocation failure (issue 13): the encode and decode paths of the library run with their
// k-th allocation failing, for every k up to the number of allocations they make
// (tests/support/alloc_failure.hpp; operator new and the malloc family both fail). Each run
// ends in errc::out_of_memory, or succeeds with the complete result (a failure the code
// could work around, such as a buffer's second try at a smaller size); never a crash, an
// escaped std::bad_alloc, a leak, or a partial value reported as complete. Building an
// mpk::value is the exception to the rule: its constructors and editing calls throw
// std::bad_alloc, as the standard containers do, and leave the value as it was.
// docs/security.md ("Out of memory") states the rule.
#include <gtest/gtest.h>
#include <mpk/buffer.hpp>
#include <mpk/codec.hpp>
#include <mpk/ext/records.hpp>
#include <mpk/json.hpp>
#include <mpk/reader.hpp>
#include <mpk/stream.hpp>
#include <mpk/unicode.hpp>
#include <mpk/value.hpp>
#include <mpk/writer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <new>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "../fuzz/alloc_count.hpp"
#include "support/alloc_failure.hpp"
#include "support/hex.hpp"
#include "support/hostile_inputs.hpp"
#include "support/print_error.hpp"

namespace {

using bytes = std::vector<std::byte>;
using mpk::errc;
using mpk_test::fail_each_allocation;
using mpk_test::hex;

struct item {
  std::string name;
  std::vector<std::int32_t> values;
  std::map<std::string, std::string> tags;
  std::optional<std::string> note;
  mpk::value extra;
  friend bool operator==(const item&, const item&) = default;
};
MPK_MAP(item, name, values, tags, note, extra);

/// A value with every family, containers three levels deep and strings past the short
/// string size, so that copies and writes allocate at every level.
mpk::value sample_value() {
  mpk::value v = mpk::value::map();
  v.assign("name", std::string(40, 'n'));
  v.assign("ints", mpk::value::array({1, -2, 300, 70000, -5000000000LL}));
  v.assign("floats", mpk::value::array({1.5f, -0.25}));
  v.assign("nested", mpk::value::array({mpk::value::map({{std::string(20, 'k'), nullptr}}),
                                        mpk::value::array({true, false, std::string(30, 's')})}));
  v.assign("bin", mpk::value::binary(bytes(300, std::byte{7})));
  v.assign("ext", mpk::value::ext(5, bytes(3, std::byte{1})));
  return v;
}

item sample_item() {
  item it;
  it.name = std::string(50, 'x');
  for (int k = 0; k < 40; ++k)
    it.values.push_back(k * 1000);
  for (int k = 0; k < 5; ++k)
    it.tags[std::string(20, static_cast<char>('a' + k))] = std::string(25, 'v');
  it.note = std::string(33, 'o');
  it.extra = sample_value();
  return it;
}

bytes packed(const mpk::value& v) {
  const auto b = mpk::pack(v);
  EXPECT_TRUE(b.has_value());
  return bytes(b->data(), b->data() + b->size());
}

// --- the helper itself ------------------------------------------------------------------

TEST(AllocFailure, TheAllocatorFailsWhereAsked) {
  ASSERT_TRUE(mpk_fuzz::wraps_malloc());
  // The library's own malloc-family calls are seen (mpk::buffer grows with realloc).
  const std::size_t before = mpk_fuzz::allocation_calls();
  {
    mpk::buffer b;
    ASSERT_TRUE(b.reserve(100));
  }
  EXPECT_EQ(mpk_fuzz::allocation_calls() - before, 1u);
  // The second request from now fails, once; operator new throws, realloc returns null.
  mpk_fuzz::fail_nth_allocation(2);
  mpk::buffer b;
  EXPECT_TRUE(b.reserve(10));
  EXPECT_FALSE(b.reserve(1000));
  EXPECT_TRUE(mpk_fuzz::allocation_failed());
  EXPECT_EQ(b.capacity(), 10u);  // realloc failed: the block is as it was
  EXPECT_TRUE(b.reserve(1000));
  mpk_fuzz::fail_nth_allocation(1);
  EXPECT_THROW((void)std::string(100, 'x'), std::bad_alloc);
  mpk_fuzz::fail_nth_allocation(0);
}

// --- encoding -----------------------------------------------------------------------------

TEST(AllocFailure, BufferGrowthWhileWriting) {
  // Written into a buffer that starts empty and grows with each policy.
  for (const mpk::growth g :
       {mpk::growth::geometric, mpk::growth::exact, mpk::growth::fixed_increment}) {
    const auto runs = fail_each_allocation([g] {
      const std::string_view text = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";  // no allocation
      mpk::buffer buf(mpk::growth_policy{g, 100});
      mpk::writer w(buf);
      for (int k = 0; k < 200; ++k) {
        w.write(k);
        w.write(text.substr(0, static_cast<std::size_t>(k % 40)));
      }
      mpk_test::operation_done();
      if (!w.ok()) return w.error();
      mpk::reader r(buf.bytes());
      for (int k = 0; k < 200; ++k) {
        EXPECT_EQ(r.read<int>(), k);
        EXPECT_EQ(r.read_string_view().size(), static_cast<std::size_t>(k % 40));
      }
      EXPECT_TRUE(r.ok() && r.at_end());
      return mpk::error{};
    });
    if (g == mpk::growth::exact) {
      EXPECT_EQ(runs.out_of_memory, runs.allocations);
    } else {
      // A growth that fails is tried again at the size the write needs: one failure never
      // stops these policies.
      EXPECT_EQ(runs.recovered, runs.allocations);
    }
  }
}

TEST(AllocFailure, PackIntoANewBuffer) {
  const item it = sample_item();
  const bytes expected = [&] {
    const auto b = mpk::pack(it);
    return bytes(b->data(), b->data() + b->size());
  }();
  fail_each_allocation([&] {
    const auto b = mpk::pack(it);
    mpk_test::operation_done();
    if (!b) return b.error();
    EXPECT_TRUE(std::equal(b->bytes().begin(), b->bytes().end(), expected.begin(), expected.end()));
    return mpk::error{};
  });
}

TEST(AllocFailure, WriteAValue) {
  // write(value) keeps a work list of open containers: 64 levels inline, then heap memory
  // that grows, and a failure there is errc::out_of_memory in the writer (it used to throw
  // through the noexcept pack_value and stream_writer::write, ending the program). `deep`
  // has 100 levels, so the list's growth is among the allocations made to fail.
  const mpk::value v = sample_value();
  mpk::value deep = nullptr;
  for (int k = 0; k < 100; ++k)
    deep = mpk::value::array({std::move(deep), k});
  const mpk::value* const both[] = {&v, &deep};
  for (const mpk::value* x : both) {
    const bytes expected = packed(*x);
    fail_each_allocation([&] {
      const auto b = mpk::pack(*x);
      mpk_test::operation_done();
      if (!b) return b.error();
      EXPECT_TRUE(
          std::equal(b->bytes().begin(), b->bytes().end(), expected.begin(), expected.end()));
      return mpk::error{};
    });
  }
}

/// A stream_writer's target: collects what it receives.
bool collect(void* context, std::span<const std::byte> chunk) {
  auto& out = *static_cast<bytes*>(context);
  out.insert(out.end(), chunk.begin(), chunk.end());
  return true;
}

TEST(AllocFailure, StreamWriterWritingValues) {
  // 100 levels: deeper than write(value)'s 64 inline levels, so writing allocates.
  mpk::value deep = nullptr;
  for (int k = 0; k < 100; ++k)
    deep = mpk::value::array({std::move(deep), sample_value()});
  const bytes one = packed(deep);
  bytes out;
  out.reserve(3 * one.size());  // the target allocates nothing while the writer runs
  const auto runs = fail_each_allocation([&] {
    out.clear();
    mpk::stream_writer sw(collect, &out, 256);
    for (int k = 0; k < 3; ++k)
      if (auto r = sw.write(deep); !r) return r.error();
    if (auto r = sw.flush(); !r) return r.error();
    mpk_test::operation_done();
    EXPECT_EQ(sw.messages(), 3u);
    EXPECT_EQ(out.size(), 3 * one.size());
    EXPECT_TRUE(std::equal(one.begin(), one.end(), out.begin()));
    return mpk::error{};
  });
  EXPECT_GT(runs.out_of_memory, 0u);
}

// --- decoding -------------------------------------------------------------------------------

TEST(AllocFailure, DocumentParse) {
  const bytes in = packed(sample_value());
  const bytes deep = mpk_test::concat(mpk_test::repeat(hex("92 01"), 300), hex("c0"));
  for (const bytes* x : {&in, &deep}) {
    for (const bool strict : {false, true}) {
      fail_each_allocation([&] {
        const auto doc = mpk::document::parse(
            *x, {.read = {.utf8 = mpk::utf8_check::all, .strict = strict}, .copy = true});
        mpk_test::operation_done();
        if (!doc) return doc.error();
        EXPECT_EQ(doc->root().raw().size(), x->size());
        EXPECT_EQ(mpk::value(doc->root()), mpk::unpack<mpk::value>(*x).value());
        return mpk::error{};
      });
    }
  }
  // parse_into a document that has grown before, and one that has not.
  const bytes small = hex("92 01 02");
  fail_each_allocation([&] {
    mpk::document doc;
    if (auto r = doc.parse_into(small); !r) return r.error();
    const auto r = doc.parse_into(deep);
    mpk_test::operation_done();
    if (!r) {
      EXPECT_FALSE(doc.root().exists());
      return r.error();
    }
    EXPECT_EQ(doc.consumed(), deep.size());
    return mpk::error{};
  });
}

TEST(AllocFailure, UnpackStringsVectorsMapsAndValues) {
  const item it = sample_item();
  const bytes in = [&] {
    const auto b = mpk::pack(it);
    return bytes(b->data(), b->data() + b->size());
  }();
  fail_each_allocation([&] {
    const auto got = mpk::unpack<item>(in);
    mpk_test::operation_done();
    if (!got) return got.error();
    EXPECT_EQ(*got, it);
    return mpk::error{};
  });
  // Into an existing object, through a reader: the same.
  fail_each_allocation([&] {
    item out;
    mpk::reader r(in);
    const auto res = mpk::unpack(r, out);
    mpk_test::operation_done();
    if (!res) {
      EXPECT_EQ(r.error(), res.error());  // the reader holds it too
      return res.error();
    }
    EXPECT_EQ(out, it);
    return mpk::error{};
  });
  const bytes v = packed(sample_value());
  fail_each_allocation([&] {
    const auto got = mpk::unpack<mpk::value>(v);
    mpk_test::operation_done();
    if (!got) return got.error();
    EXPECT_EQ(*got, sample_value());
    return mpk::error{};
  });
  fail_each_allocation([&] {
    mpk::reader r(v);
    const auto got = mpk::read_value(r);
    mpk_test::operation_done();
    if (!got) {
      EXPECT_EQ(got.error(), (mpk::error{errc::out_of_memory, 0}));
      return got.error();
    }
    EXPECT_EQ(*got, sample_value());
    return mpk::error{};
  });
  // The reader's own allocations: owned strings, UTF-16.
  const bytes s =
      hex("d9 26 68 c3 a9 6c 6c 6f 20 77 c3 b6 72 6c 64 20 e2 9c 93 20 68 c3 a9 6c 6c 6f "
          "20 77 c3 b6 72 6c 64 20 e2 9c 93 20 21 21");
  fail_each_allocation([&] {
    mpk::reader r(s);
    const std::u16string u = r.read<std::u16string>();
    if (!r.ok()) return r.error();
    EXPECT_EQ(u.size(), 30u);
    r.reset(s);
    const std::string t = r.read<std::string>();
    mpk_test::operation_done();
    if (!r.ok()) return r.error();
    EXPECT_EQ(t.size(), 38u);
    return mpk::error{};
  });
}

TEST(AllocFailure, JsonBothWays) {
  const bytes in = packed(sample_value());
  std::string expected_text;
  {
    mpk::reader r(in);
    ASSERT_TRUE(mpk::to_json(r, expected_text, {.lossless = true}).has_value());
  }
  fail_each_allocation([&] {
    mpk::reader r(in);
    std::string text;
    const auto res = mpk::to_json(r, text, {.lossless = true});
    mpk_test::operation_done();
    if (!res) return res.error();
    EXPECT_EQ(text, expected_text);
    return mpk::error{};
  });
  fail_each_allocation([&] {
    mpk::buffer out;
    const auto n = mpk::from_json(expected_text, out, {.lossless = true});
    mpk_test::operation_done();
    if (!n) return n.error();
    EXPECT_EQ(*n, 1u);
    EXPECT_TRUE(std::equal(out.bytes().begin(), out.bytes().end(), in.begin(), in.end()));
    return mpk::error{};
  });
}

TEST(AllocFailure, Utf16Transcoding) {
  const std::string text = "h\u00e9llo w\u00f6rld \u2713 \U0001d11e, and a little more text";
  const std::u16string wide = u"h\u00e9llo w\u00f6rld \u2713 \U0001d11e, and a little more text";
  fail_each_allocation([&] {
    const auto w = mpk::to_utf16(text);
    if (!w) return w.error();
    EXPECT_EQ(*w, wide);
    const auto n = mpk::to_utf8(*w);
    mpk_test::operation_done();
    if (!n) return n.error();
    EXPECT_EQ(*n, text);
    return mpk::error{};
  });
}

TEST(AllocFailure, StreamDecoder) {
  mpk::value deep = nullptr;
  for (int k = 0; k < 30; ++k)
    deep = mpk::value::array({std::move(deep), k});
  const bytes a = packed(sample_value());
  const bytes b = packed(deep);
  const bytes all = mpk_test::concat(mpk_test::concat(a, b), a);
  fail_each_allocation([&] {
    // In pieces of 7 bytes (the resumable scan and its stack), each message a different way.
    mpk::stream_decoder dec;
    std::array<mpk::value, 4> got;  // no allocation of the test's own in the operation
    std::size_t n = 0;
    mpk::document doc;
    for (std::size_t at = 0; at < all.size(); at += 7) {
      if (auto r = dec.feed(all.data() + at, std::min<std::size_t>(7, all.size() - at)); !r)
        return r.error();
      for (;;) {
        if (n == 1) {
          const auto m = dec.next(doc);
          if (!m) return m.error();
          if (!*m) break;
          auto v = mpk::detail::make_value(doc.root());
          if (!v) return v.error();
          got[n++] = std::move(*v);
        } else {
          const auto m = dec.next(got[n]);
          if (!m) return m.error();
          if (!*m) break;
          ++n;
        }
        if (n == got.size()) return mpk::error{errc::invalid_argument, 0};  // one too many
      }
    }
    if (auto r = dec.finish(); !r) return r.error();
    mpk_test::operation_done();
    EXPECT_EQ(n, 3u);
    EXPECT_EQ(got[0], sample_value());
    EXPECT_EQ(got[1], deep);
    EXPECT_EQ(got[2], sample_value());
    return mpk::error{};
  });
}

// --- records --------------------------------------------------------------------------------

struct beer {
  std::string brand;
  double alcohol = 0;
  std::vector<std::string> sort;
  friend bool operator==(const beer&, const beer&) = default;
};
MPK_MAP(beer, brand, alcohol, sort);

std::vector<beer> beers() {
  std::vector<beer> out;
  for (int k = 0; k < 6; ++k)
    out.push_back({std::string(20 + k, 'b'), 4.5 + k, {std::string(30, 's'), "pale"}});
  return out;
}

TEST(AllocFailure, RecordsBothWays) {
  for (const mpk::records_mode mode :
       {mpk::records_mode::per_message, mpk::records_mode::sequential}) {
    mpk::records_encoder enc({.mode = mode});
    const auto first = mpk::pack_records(enc, beers());
    ASSERT_TRUE(first.has_value());
    const bytes in(first->data(), first->data() + first->size());
    // Typed and dynamic decoding; the decoders and encoders are made outside (constructors
    // throw std::bad_alloc) and reset() at the start of each run (sequential: a new stream),
    // so that each run also reuses them after the failure of the one before.
    mpk::records_decoder dec({.mode = mode});
    mpk::records_decoder d({.mode = mode});
    mpk::records_encoder e({.mode = mode});
    fail_each_allocation(
        [&] {
          dec.reset();
          const auto got = mpk::unpack_records<std::vector<beer>>(dec, in);
          mpk_test::operation_done();
          if (!got) return got.error();
          EXPECT_EQ(*got, beers());
          return mpk::error{};
        },
        /*same_live_bytes=*/false);
    fail_each_allocation(
        [&] {
          dec.reset();
          const auto got = dec.read_value(in);
          mpk_test::operation_done();
          if (!got) return got.error();
          EXPECT_EQ(got->size(), 6u);
          return mpk::error{};
        },
        /*same_live_bytes=*/false);
    const std::vector<beer> expected = beers();
    // Encoding: a fresh encoder, then two messages with the same encoder. After a failed
    // message the next one must still be readable by a decoder that saw only the messages
    // that succeeded (the encoder forgot the definitions of the failed one).
    fail_each_allocation(
        [&] {
          e.reset();
          d.reset();
          mpk::error first_error{};
          for (int k = 0; k < 2; ++k) {
            mpk::buffer out;
            out.reserve(1);  // something before the message, which an error must not touch
            const std::byte marker[1] = {std::byte{0x2a}};
            if (!out.append(marker, 1)) return mpk::error{errc::out_of_memory, 0};
            if (auto r = mpk::pack_records(e, expected, out); !r) {
              EXPECT_EQ(out.size(), 1u);  // cut back
              if (!first_error) first_error = r.error();
              continue;
            }
            const auto got = mpk::unpack_records<std::vector<beer>>(d, out.bytes().subspan(1));
            if (!got) return got.error();
            EXPECT_EQ(*got, expected);
          }
          return first_error;
        },
        /*same_live_bytes=*/false);
    const mpk::value v = sample_value();
    fail_each_allocation(
        [&] {
          e.reset();
          d.reset();
          const auto out = e.encode(v);
          if (!out) return out.error();
          const auto back = d.read_value(out->bytes());
          mpk_test::operation_done();
          if (!back) return back.error();
          EXPECT_EQ(*back, v);
          return mpk::error{};
        },
        /*same_live_bytes=*/false);
  }
}

// --- building an mpk::value: std::bad_alloc, the value unchanged -------------------------

TEST(AllocFailure, BuildingAValueThrowsAndKeepsIt) {
  // The value's own calls allocate through the standard containers and throw std::bad_alloc
  // as they do, with the value left as it was before the call.
  std::size_t throws = 0;
  std::size_t k = 1;
  for (;; ++k) {
    mpk::value v = sample_value();
    const mpk::value before = v;
    bool threw = false;
    mpk_fuzz::fail_nth_allocation(k);
    try {
      v.assign(std::string(40, 'q'), mpk::value::array({std::string(40, 'z'), 1}));
      mpk::value copy = v;
      v.push_back(1);  // not an array: false, nothing changes
      mpk::value* ints = v.if_contains("ints");
      ints->push_back(std::string(50, 'w'));
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    const bool failed = mpk_fuzz::allocation_failed();
    mpk_fuzz::fail_nth_allocation(0);
    if (!failed) break;  // k is past the last allocation
    // The destruction of `copy` works around a failure (its work list falls back to nested
    // destructor calls); every other failure throws.
    throws += threw ? 1 : 0;
    // Each call either happened whole or not at all.
    const std::string q_key(40, 'q');
    const mpk::value* q = v.if_contains(std::string_view(q_key));
    const mpk::value* ints = v.if_contains("ints");
    ASSERT_NE(ints, nullptr);
    EXPECT_TRUE(ints->size() == 5 || ints->size() == 6) << k;
    if (q == nullptr) {
      EXPECT_EQ(v, before) << k;
    }
    ASSERT_LT(k, 1000u);
  }
  EXPECT_GT(throws, k / 2);
}

// --- the order of a value's allocations ----------------------------------------------------

TEST(AllocFailure, ReadValueAllocatesAKeyBeforeItsValue) {
  // mpk::write reads a map's key, then its value: a tree whose payloads lie in that order in
  // memory is written faster (W7 encode_large, docs/investigations.md), so building one
  // allocates the key's payload (and a container key's items) before the value's.
  for (const bool containers : {false, true}) {
    mpk::buffer b;
    mpk::writer w(b);
    w.begin_map(1);
    if (containers) w.begin_array(1);
    w.write_str(std::string(1000, 'k'));
    if (containers) w.begin_array(1);
    w.write_str(std::string(3000, 'v'));
    const auto doc = mpk::document::parse(b.bytes());
    ASSERT_TRUE(doc);
    // A build whose k-th allocation fails peaks with the k - 1 before it live: the first
    // peak to hold a payload says which payload came first.
    std::size_t first = 0;
    for (std::size_t k = 1; first == 0 && k < 100; ++k) {
      const mpk_fuzz::alloc_scope scope;
      mpk_fuzz::fail_nth_allocation(k);
      try {
        const mpk::value v(doc->root());
      } catch (const std::bad_alloc&) {
      }
      mpk_fuzz::fail_nth_allocation(0);
      if (scope.peak() >= 1000) first = scope.peak();
    }
    EXPECT_GE(first, 1000u) << containers;
    EXPECT_LT(first, 3000u) << containers << ": the value's payload was allocated first";
  }
}

}  // namespace
