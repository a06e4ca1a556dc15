// Tests that every place which encodes or decodes first bytes agrees with the one table of
// the wire format, mpk::marker_table (mpk/format.hpp):
// - the encoder's ladders (mpk/detail/header.hpp) pick, at every size boundary, a marker of
//   the right family whose header the table sizes the same;
// - the decoders kept as their own code for speed (the reader's per-family decoders and its
//   extents behind skip(), in mpk/detail/; the document's parse loop, src/document.cpp) read
//   a value of each of the 255 valid first bytes to the extent the table gives, and report
//   every shorter prefix of it as truncated.
#include <mpk/detail/header.hpp>
#include <mpk/detail/reader_extent.hpp>
#include <mpk/format.hpp>
#include <mpk/reader.hpp>
#include <mpk/value.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace {

using bytes = std::vector<std::byte>;

// --- encoders ---------------------------------------------------------------------------

/// What the table says of the header a ladder handed over for the number `n`.
template <class H>
void expect_head(H h, std::uint64_t n, mpk::type family, std::size_t type_byte = 0) {
  if constexpr (H::fits) {
    const mpk::marker_info& info = mpk::marker_table[h.marker];
    EXPECT_EQ(info.family, family) << n;
    if (family == mpk::type::uint || family == mpk::type::sint) {
      // The number is the value: in the marker (fixint) or in the bytes the table sizes.
      EXPECT_EQ(info.header_size + info.inline_size, h.size) << n;
    } else {
      EXPECT_EQ(info.header_size, h.size + type_byte) << n;
      EXPECT_EQ(info.length_size, h.width) << n;
      // A fix format carries its length or count in the marker.
      if (h.width == 0) {
        EXPECT_EQ(info.inline_size, n) << n;
      }
    }
  } else {
    EXPECT_GT(n, mpk::max_length);
  }
}

const std::uint64_t boundaries[] = {0,        1,           15,           16,   31,    32,
                                    127,      128,         255,          256,  65535, 65536,
                                    1u << 24, 0xffffffffu, 0x100000000u, ~0ull};

TEST(WireAgreement, LengthLaddersMatchTheTable) {
  for (const std::uint64_t v : boundaries) {
    const auto n = static_cast<std::size_t>(v);
    if (n != v) continue;  // 32-bit size_t
    for (const bool old_spec : {false, true}) {
      mpk::detail::str_head(n, old_spec, [&](auto h) { expect_head(h, n, mpk::type::str); });
      mpk::detail::bin_head(n, old_spec, [&](auto h) {
        expect_head(h, n, old_spec ? mpk::type::str : mpk::type::bin);
      });
    }
    mpk::detail::ext_head(n, [&](auto h) { expect_head(h, n, mpk::type::ext, 1); });
    mpk::detail::container_head<false>(n, [&](auto h) { expect_head(h, n, mpk::type::array); });
    mpk::detail::container_head<true>(n, [&](auto h) { expect_head(h, n, mpk::type::map); });
  }
  // Old spec has no str8: 32..65535 bytes take str16.
  mpk::detail::str_head(40, true, [](auto h) {
    if constexpr (decltype(h)::fits) {
      EXPECT_EQ(h.marker, mpk::marker::str16);
    }
  });
}

TEST(WireAgreement, IntegerLaddersMatchTheTable) {
  for (const std::uint64_t v : boundaries) {
    mpk::detail::uint_head(v, [&](auto h) { expect_head(h, v, mpk::type::uint); });
    for (const std::int64_t s : {static_cast<std::int64_t>(v), -static_cast<std::int64_t>(v),
                                 -static_cast<std::int64_t>(v) - 1}) {
      mpk::detail::sint_head(s, [&](auto h) {
        expect_head(h, static_cast<std::uint64_t>(s), s >= 0 ? mpk::type::uint : mpk::type::sint);
      });
    }
  }
}

// --- decoders ---------------------------------------------------------------------------

/// A complete value whose first byte is `m`: lengths and counts of 2 where the marker does
/// not fix them, payload bytes 'a', ext type 5, container items distinct one-byte strs.
struct sample {
  bytes in;
  std::size_t payload = 0;  // str, bin, ext: payload bytes; array, map: items
  std::size_t items = 0;
};

sample make_sample(std::uint8_t m) {
  const mpk::marker_info& info = mpk::marker_table[m];
  sample s;
  s.in.push_back(std::byte{m});
  std::size_t n = info.inline_size;
  if (info.length_size != 0) {
    n = 2;
    for (std::size_t i = 1; i < info.length_size; ++i)
      s.in.push_back(std::byte{0});
    s.in.push_back(std::byte{2});
  }
  if (info.family == mpk::type::ext) s.in.push_back(std::byte{5});
  if (mpk::is_container(info.family)) {
    s.items = n * (info.family == mpk::type::map ? 2 : 1);
    for (std::size_t i = 0; i < s.items; ++i) {
      s.in.push_back(std::byte{0xa1});
      s.in.push_back(static_cast<std::byte>('A' + i));
    }
  } else {
    s.payload = n;
    s.in.insert(s.in.end(), n, std::byte{'a'});
  }
  return s;
}

/// Reads the value with the reader's decoder for its family; returns what it consumed. With
/// `whole`, checks what it read against the sample.
std::size_t read_as_family(mpk::reader& r, mpk::type family, const sample& s, bool whole = true) {
  const std::size_t items = whole ? s.items : 0;
  const std::size_t payload = whole ? s.payload : 0;
  switch (family) {
    case mpk::type::nil:
      (void)r.read<std::nullptr_t>();
      break;
    case mpk::type::boolean:
      (void)r.read<bool>();
      break;
    case mpk::type::uint:
      (void)r.read<std::uint64_t>();
      break;
    case mpk::type::sint:
      (void)r.read<std::int64_t>();
      break;
    case mpk::type::float32:
      (void)r.read<float>();
      break;
    case mpk::type::float64:
      (void)r.read<double>();
      break;
    case mpk::type::str:
      EXPECT_EQ(r.read<std::string_view>().size(), payload);
      break;
    case mpk::type::bin:
      EXPECT_EQ(r.read<std::span<const std::byte>>().size(), payload);
      break;
    case mpk::type::ext: {
      const mpk::ext_view x = r.read<mpk::ext_view>();
      EXPECT_EQ(x.type, whole ? 5 : 0);
      EXPECT_EQ(x.data.size(), payload);
      break;
    }
    case mpk::type::array:
      EXPECT_EQ(r.read_array_header(), items);
      break;
    case mpk::type::map:
      EXPECT_EQ(r.read_map_header(), items / 2);
      break;
    case mpk::type::invalid:
      ADD_FAILURE();
  }
  return r.position();
}

TEST(WireAgreement, EveryFirstByteDecodesToTheTablesExtent) {
  for (unsigned b = 0; b < 256; ++b) {
    const auto m = static_cast<std::uint8_t>(b);
    const mpk::marker_info& info = mpk::marker_table[m];
    if (info.family == mpk::type::invalid) continue;
    const sample s = make_sample(m);
    const std::size_t total = s.in.size();
    const bool container = mpk::is_container(info.family);
    const std::size_t first = container ? info.header_size : total;  // the value's own bytes
    SCOPED_TRACE(info.format_name);

    // The extent behind skip(), field_size() and raw_value(): checked and trusted.
    bytes padded = s.in;
    padded.resize(total + 16);
    for (const bool checked : {true, false}) {
      const mpk::detail::extent x =
          checked ? mpk::detail::value_extent<true>(padded.data(), total, mpk::limits{})
                  : mpk::detail::value_extent<false>(padded.data(), 0, mpk::limits{});
      EXPECT_EQ(x.ec, mpk::errc::ok);
      EXPECT_EQ(x.size, first);
      EXPECT_EQ(x.container, container);
      EXPECT_EQ(x.owed, s.items);
    }

    // The reader: its family, the decoder of that family, skip() (walks the items too).
    {
      mpk::reader r(s.in);
      EXPECT_EQ(r.peek(), info.family);
      EXPECT_EQ(read_as_family(r, info.family, s), first);
      EXPECT_TRUE(r.ok());
      mpk::reader k(s.in);
      k.skip();
      EXPECT_TRUE(k.ok());
      EXPECT_EQ(k.position(), total);
    }

    // The document's parse loop.
    {
      auto doc = mpk::document::parse(s.in);
      ASSERT_TRUE(doc);
      EXPECT_EQ(doc->root().type(), info.family);
      EXPECT_EQ(doc->consumed(), total);
      if (container) {
        EXPECT_EQ(doc->root().size(), s.items / (info.family == mpk::type::map ? 2 : 1));
      }
    }

    // Every shorter prefix is truncated, wherever it ends (header, payload or items).
    for (std::size_t k = 1; k < total; ++k) {
      const std::span<const std::byte> cut(s.in.data(), k);
      mpk::reader r(cut);
      r.skip();
      EXPECT_EQ(r.error().code, mpk::errc::truncated) << k;
      auto doc = mpk::document::parse(cut);
      ASSERT_FALSE(doc) << k;
      EXPECT_EQ(doc.error().code, mpk::errc::truncated) << k;
      if (k < first) {
        mpk::reader d(cut);
        (void)read_as_family(d, info.family, s, false);
        EXPECT_EQ(d.error().code, mpk::errc::truncated) << k;
      }
    }
  }
}

}  // namespace
