// mpk/detail/reader_extent.hpp - internals of mpk/reader.hpp: the extent of a value from its
// first bytes, and the iterative walk behind skip(), field_size() and raw_value(). Not a
// public API.
#pragma once

#include "mpk/detail/level_stack.hpp"
#include "mpk/detail/reader_decoders.hpp"

namespace mpk::inline v0 {
namespace detail {

// --- extents, for skip / field_size / raw_value -----------------------------------------

/// What the first bytes of a value say about its extent.
struct extent {
  std::size_t size = 0;  ///< bytes of a scalar (header and payload) or of a container header
  std::size_t owed = 0;  ///< items a container holds (2 per map entry); 0 for scalars
  bool container = false;
  errc ec = errc::ok;
};

MPK_ALWAYS_INLINE constexpr extent scalar_extent(std::size_t n) noexcept {
  return {n, 0, false};
}
MPK_ALWAYS_INLINE constexpr extent bad_extent(errc ec) noexcept {
  return {0, 0, false, ec};
}

/// The extent of the value whose header is at `h` (same contract as the decoders).
///
/// Its own branches, not marker_table: kept for speed (see the decoders in
/// reader_decoders.hpp). A table of the sizes the marker fixes, looked up first, took W1's
/// skip from 21.7 to 14.6 instructions per value but was slower in time in 5 of 5 runs
/// (docs/investigations.md, "W1: skip"). Cells at 1e5ba45 (mpk_bench --instructions under
/// callgrind): small_fields/skip 21.8 per value, deep_nesting/field_size_128 12,842,
/// typed_objects/skip_beer_list_map 5,450.
template <bool Checked>
MPK_ALWAYS_INLINE extent value_extent(const std::byte* h, std::size_t avail,
                                      const limits& lim) noexcept {
#define MPK_NEED_(n)                        \
  do {                                      \
    if constexpr (Checked) {                \
      if (avail < (n)) [[unlikely]]         \
        return bad_extent(errc::truncated); \
    }                                       \
  } while (0)
#define MPK_PAYLOAD_(len, head, max)                                      \
  do {                                                                    \
    const errc ec_ = check_payload<Checked>((len), (head), avail, (max)); \
    if (ec_ != errc::ok) [[unlikely]]                                     \
      return bad_extent(ec_);                                             \
    return scalar_extent((head) + (len));                                 \
  } while (0)
#define MPK_COUNT_(n, head, max, per)                                        \
  do {                                                                       \
    const errc ec_ = check_count<Checked>((n), (head), avail, (max), (per)); \
    if (ec_ != errc::ok) [[unlikely]]                                        \
      return bad_extent(ec_);                                                \
    return extent{(head), std::size_t{(n)} * (per), true};                   \
  } while (0)

  const std::uint8_t m = u8(h);
  if (m <= marker::positive_fixint_max || m >= marker::negative_fixint_min) return scalar_extent(1);
  if (m < marker::nil) {
    if (m >= marker::fixstr) MPK_PAYLOAD_(std::size_t{m & 0x1fu}, std::size_t{1}, lim.max_str_len);
    if (m >= marker::fixarray) MPK_COUNT_(std::uint32_t{m & 0x0fu}, 1, lim.max_array_len, 1u);
    MPK_COUNT_(std::uint32_t{m & 0x0fu}, 1, lim.max_map_len, 2u);
  }
  switch (m) {
    case marker::nil:
    case marker::false_value:
    case marker::true_value:
      return scalar_extent(1);
    case marker::uint8:
    case marker::int8:
      MPK_NEED_(2);
      return scalar_extent(2);
    case marker::uint16:
    case marker::int16:
      MPK_NEED_(3);
      return scalar_extent(3);
    case marker::uint32:
    case marker::int32:
    case marker::float32:
      MPK_NEED_(5);
      return scalar_extent(5);
    case marker::uint64:
    case marker::int64:
    case marker::float64:
      MPK_NEED_(9);
      return scalar_extent(9);
    case marker::str8:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{u8(h + 1)}, 2, lim.max_str_len);
    case marker::str16:
      MPK_NEED_(3);
      MPK_PAYLOAD_(std::size_t{load_be16(h + 1)}, 3, lim.max_str_len);
    case marker::str32:
      MPK_NEED_(5);
      MPK_PAYLOAD_(std::size_t{load_be32(h + 1)}, 5, lim.max_str_len);
    case marker::bin8:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{u8(h + 1)}, 2, lim.max_bin_len);
    case marker::bin16:
      MPK_NEED_(3);
      MPK_PAYLOAD_(std::size_t{load_be16(h + 1)}, 3, lim.max_bin_len);
    case marker::bin32:
      MPK_NEED_(5);
      MPK_PAYLOAD_(std::size_t{load_be32(h + 1)}, 5, lim.max_bin_len);
    case marker::fixext1:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{1}, 2, lim.max_ext_len);
    case marker::fixext2:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{2}, 2, lim.max_ext_len);
    case marker::fixext4:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{4}, 2, lim.max_ext_len);
    case marker::fixext8:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{8}, 2, lim.max_ext_len);
    case marker::fixext16:
      MPK_NEED_(2);
      MPK_PAYLOAD_(std::size_t{16}, 2, lim.max_ext_len);
    case marker::ext8:
      MPK_NEED_(3);
      MPK_PAYLOAD_(std::size_t{u8(h + 1)}, 3, lim.max_ext_len);
    case marker::ext16:
      MPK_NEED_(4);
      MPK_PAYLOAD_(std::size_t{load_be16(h + 1)}, 4, lim.max_ext_len);
    case marker::ext32:
      MPK_NEED_(6);
      MPK_PAYLOAD_(std::size_t{load_be32(h + 1)}, 6, lim.max_ext_len);
    case marker::array16:
      MPK_NEED_(3);
      MPK_COUNT_(load_be16(h + 1), 3, lim.max_array_len, 1u);
    case marker::array32:
      MPK_NEED_(5);
      MPK_COUNT_(load_be32(h + 1), 5, lim.max_array_len, 1u);
    case marker::map16:
      MPK_NEED_(3);
      MPK_COUNT_(load_be16(h + 1), 3, lim.max_map_len, 2u);
    case marker::map32:
      MPK_NEED_(5);
      MPK_COUNT_(load_be32(h + 1), 5, lim.max_map_len, 2u);
    default:
      return bad_extent(errc::invalid_marker);  // 0xc1
  }
#undef MPK_NEED_
#undef MPK_PAYLOAD_
#undef MPK_COUNT_
}

using owed_stack = basic_owed_stack<std::size_t>;

/// Where a reader points after an error in unchecked mode: every byte is 0xc1, so every
/// later read fails at its first byte without touching the input.
inline constexpr std::byte poison[16] = {
    std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1},
    std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1},
    std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1},
    std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}, std::byte{0xc1}};

/// Runs decoder D when fewer than 9 bytes remain. Every decoder checks each header byte
/// after the first against `avail` before it reads it (MPK_NEED_), so it runs on the input
/// itself; no copy. Out of line: at most once per message in practice (its last value).
template <class D>
MPK_NOINLINE decoded<typename D::value_type> decode_short(const std::byte* p, const std::byte* end,
                                                          limits lim) noexcept {
  const auto avail = static_cast<std::size_t>(end - p);
  if (avail == 0) return fail_with<typename D::value_type>(errc::truncated);
  return D::template run<true>(p, p, avail, lim);
}

/// value_extent() when fewer than 9 bytes remain.
MPK_COLD inline extent extent_short(const std::byte* p, const std::byte* end,
                                    const limits& lim) noexcept {
  const auto avail = static_cast<std::size_t>(end - p);
  if (avail == 0) return bad_extent(errc::truncated);
  std::byte pad[16] = {};
  std::memcpy(pad, p, avail);
  return value_extent<true>(pad, avail, lim);
}

/// Where a walk ended: the end of the value, or the start of the offending one and why.
struct walk_result {
  const std::byte* at;
  errc ec;
};

/// Walks the complete value at `p` (a container, a short input or an error: scalars take the
/// inline path) with a count of the items still owed per level.
template <bool Checked>
MPK_NOINLINE walk_result walk_nested(const std::byte* p, const std::byte* const end,
                                     const limits lim) noexcept {
  if constexpr (Checked) {
    owed_stack stack;
    std::size_t owed = 1;     // items still owed at the current level
    std::uint32_t depth = 0;  // containers open
    for (;;) {
      const auto avail = static_cast<std::size_t>(end - p);
      const extent x = avail >= 9 ? value_extent<true>(p, avail, lim) : extent_short(p, end, lim);
      if (x.ec != errc::ok) [[unlikely]]
        return {p, x.ec};
      --owed;
      if (x.container) {
        if (depth >= lim.max_depth) [[unlikely]]
          return {p, errc::depth_exceeded};
        if (x.owed != 0) {
          if (!stack.push(owed)) [[unlikely]]
            return {p, errc::out_of_memory};
          owed = x.owed;
          ++depth;
        }
      }
      p += x.size;
      while (owed == 0) {
        if (depth == 0) return {p, errc::ok};
        owed = stack.pop();
        --depth;
      }
    }
  } else {
    (void)end;
    std::size_t owed = 1;  // items still owed, all levels together
    do {
      const extent x = value_extent<false>(p, 0, lim);
      if (x.ec != errc::ok) [[unlikely]]
        return {p, x.ec};
      p += x.size;
      owed += x.owed - 1;
    } while (owed != 0);
    return {p, errc::ok};
  }
}

}  // namespace detail
}  // namespace mpk::inline v0
