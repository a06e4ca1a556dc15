// The document parser and the deep comparison of elements (mpk/value/document.hpp).
#include "mpk/value/document.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <new>
#include <vector>

namespace mpk::inline v0 {

namespace {

using detail::load_be16;
using detail::load_be32;
using detail::load_be64;
using detail::node;
using detail::parse_frame;
using detail::u8;

constexpr std::size_t max_document_input = std::numeric_limits<std::uint32_t>::max();

}  // namespace

bool document::reserve_nodes(std::size_t n, std::size_t keep) noexcept {
  if (n <= node_capacity_) return true;
  auto* bigger = new (std::nothrow) node[n];  // trivial: not initialized
  if (bigger == nullptr) return false;
  if (keep != 0) std::memcpy(bigger, nodes_.get(), keep * sizeof(node));
  nodes_.reset(bigger);
  node_capacity_ = n;
  return true;
}

bool document::reserve_stack(std::size_t n) noexcept {
  if (n <= stack_capacity_) return true;
  auto* bigger = new (std::nothrow) parse_frame[n];
  if (bigger == nullptr) return false;
  if (stack_capacity_ != 0)
    std::memcpy(bigger, stack_.get(), stack_capacity_ * sizeof(parse_frame));
  stack_.reset(bigger);
  stack_capacity_ = n;
  return true;
}

result<document> document::parse_bytes(std::span<const std::byte> bytes,
                                       const document_options& options) {
  document doc;
  if (const detail::sticky_error e = doc.parse_into_bytes(bytes, options)) return mpk::error(e);
  return doc;
}

// Returns a sticky_error (trivially copyable, in registers), so that on success parse_into's
// result<void> is made in the caller and not read back through memory.
detail::sticky_error document::parse_into_bytes(std::span<const std::byte> bytes,
                                                const document_options& options) {
  size_ = 0;
  consumed_ = 0;
  input_ = bytes.data();
  if (bytes.size() > max_document_input) return {errc::too_large, 0};
  if (options.copy && !bytes.empty()) {
    if (bytes.size() > copy_capacity_) {
      auto* fresh = new (std::nothrow) std::byte[bytes.size()];  // not zero-filled
      if (fresh == nullptr) return {errc::out_of_memory, 0};
      copy_.reset(fresh);
      copy_capacity_ = bytes.size();
    }
    std::memcpy(copy_.get(), bytes.data(), bytes.size());
    input_ = copy_.get();
  }
  const read_options& read = options.read;
  utf8_ = read.utf8;
  detail::sticky_error e = run(input_, bytes.size(), read.limits, read.allow_trailing);
  if (!e && read.utf8 == utf8_check::all) {
    const mpk::error bad = check_utf8();
    e = {bad.code, bad.offset};
  }
  if (read.strict && (!e || e.code == errc::invalid_utf8)) {
    // Both checks report the first problem in input order: keep the earlier one.
    const mpk::error dup = check_duplicate_keys();
    if (dup && (!e || dup.offset < e.offset)) e = {dup.code, dup.offset};
  }
  if (e) {
    size_ = 0;
    consumed_ = 0;
  }
  return e;
}

// With utf8_check::all: every str checked after the parse (the parse loop stays free of it);
// the error names the first bad str in input order.
mpk::error document::check_utf8() const noexcept {
  std::size_t first_bad = max_document_input;
  for (std::size_t i = 0; i < size_; ++i) {
    const node& x = nodes_[i];
    if (x.tag != type::str || x.offset >= first_bad) continue;
    const auto* data = reinterpret_cast<const char*>(input_ + x.offset + x.head);
    if (!is_valid_utf8(data, static_cast<std::size_t>(x.payload))) first_bad = x.offset;
  }
  if (first_bad == max_document_input) return {};
  return {errc::invalid_utf8, first_bad};
}

// With read_options::strict: every map's keys compared by their raw bytes after the parse.
// Small maps pairwise; larger ones through a sort of key indices by bytes, then position, so
// that equal keys are neighbours and the second of each group is the duplicate. The error
// names the first duplicate key in input order (keys of one map have increasing offsets).
mpk::error document::check_duplicate_keys() const noexcept {
  std::size_t first_dup = max_document_input;
  std::unique_ptr<std::uint32_t[]> order;
  std::size_t order_capacity = 0;
  const auto key_bytes = [this](std::uint32_t index) {
    return element(nodes_.get() + index, input_, utf8_).raw();
  };
  const auto same = [](std::span<const std::byte> a, std::span<const std::byte> b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
  };
  for (std::size_t i = 0; i < size_; ++i) {
    const node& m = nodes_[i];
    const auto count = static_cast<std::uint32_t>(m.payload >> 32);
    if (m.tag != type::map || count < 2 || m.offset >= first_dup) continue;
    const auto first = static_cast<std::uint32_t>(i + static_cast<std::uint32_t>(m.payload));
    if (count <= 16) {
      for (std::uint32_t j = 1; j < count && nodes_[first + 2 * j].offset < first_dup; ++j) {
        const auto kj = key_bytes(first + 2 * j);
        for (std::uint32_t k = 0; k < j; ++k) {
          if (same(kj, key_bytes(first + 2 * k))) {
            first_dup = nodes_[first + 2 * j].offset;
            break;
          }
        }
      }
      continue;
    }
    if (count > order_capacity) {
      order.reset(new (std::nothrow) std::uint32_t[count]);
      if (!order) return {errc::out_of_memory, m.offset};
      order_capacity = count;
    }
    std::uint32_t* const idx = order.get();
    for (std::uint32_t j = 0; j < count; ++j)
      idx[j] = first + 2 * j;
    std::sort(idx, idx + count, [&](std::uint32_t a, std::uint32_t b) {
      const auto x = key_bytes(a);
      const auto y = key_bytes(b);
      if (x.size() != y.size()) return x.size() < y.size();
      const int c = x.empty() ? 0 : std::memcmp(x.data(), y.data(), x.size());
      return c != 0 ? c < 0 : a < b;
    });
    // In a group of equal keys (ordered by position) every one after the first repeats it;
    // the second has the smallest offset of them.
    for (std::uint32_t j = 1; j < count; ++j) {
      if (same(key_bytes(idx[j]), key_bytes(idx[j - 1])))
        first_dup = std::min<std::size_t>(first_dup, nodes_[idx[j]].offset);
    }
  }
  if (first_dup == max_document_input) return {};
  return {errc::duplicate_key, first_dup};
}

// The parse: run() checks the input size and makes room, then runs the loop, fast or exact.
//
// The loop fills the next reserved slot with the value at offset `i` each iteration: one
// branch on the marker (fixstr first, the keys of maps; the fix formats are arithmetic),
// every length checked against the bytes there are, and for a container one reservation of
// all its child slots at the end of the arena. Every slot reserved and not filled yet needs
// one byte of input at least: `end` is the end of the input less one byte per such slot
// after the current one, and a container whose slots would not fit before `end` is
// truncated. That is what bounds the arena by the input size.
//
// The fast loop (Exact false) checks every value against `end` too, so that the next
// marker is always readable (no test of the bytes left before it), and takes the limits of
// the fix formats as met (run() picks it only when they are). A value that does not fit
// before `end` means the input is truncated somewhere at or after it, not necessarily there:
// run() then parses again with the exact loop, which checks each value against the end of
// the input, as the reader does, and so reports the same error at the same offset (the
// reader's, tests/document_test.cpp). Errors other than truncation are the same in both
// loops: the fast loop's checks only add to the exact one's.
//
// A copy of the wire format kept for speed: its own branches on the marker, not
// marker_table, for the reason the reader's decoders give (reader_decoders.hpp); the node it
// stores and the bytes it checks come out of the same branch.
// tests/wire_agreement_test.cpp checks it against marker_table for every first byte.
template <bool Exact>
MPK_NOINLINE detail::sticky_error document::parse_loop(const std::byte* const in,
                                                       const std::size_t n, const limits& lim,
                                                       const bool allow_trailing) noexcept {
  node* nodes = nodes_.get();
  parse_frame* stack = stack_.get();
  std::size_t i = 0;  // offset of the value to read
  // The slot to fill, the end of its block, and the end of the slots reserved (slot 0: the
  // root), as pointers; the stack keeps indices (the arena may move when it grows).
  node* next = nodes;
  node* stop = nodes + 1;
  node* top = nodes + 1;
  // The input's end less a byte per slot owed after the current one (the root: none); one
  // less before the loop moves on to the root.
  std::size_t end = n - 1;
  std::uint32_t depth = 0;
  // Slots the arena has room for after `top`, and the depth the stack has room for (at most
  // the limit): a container that fits both takes no other test.
  std::size_t free_slots = node_capacity_ - 1;
  auto depth_room =
      static_cast<std::uint32_t>(std::min<std::size_t>(stack_capacity_, lim.max_depth));
  // The limits are read through `lim` where they are needed, off the common paths (kept in
  // locals, they took registers the loop needs).

  for (;;) {
    node& nd = *next;
    ++end;  // this slot is no longer owed
    // Where the value must end at the latest: the input's end (exact: a value that does not
    // fit is where the input is truncated) or `end` (fast: at least i + 1, see above).
    // Compared in 64 bits: i + header + length does not wrap.
    const std::uint64_t cap = Exact ? n : end;
    if constexpr (Exact) {
      if (i == n) [[unlikely]]
        return {errc::truncated, i};
    }
    const std::byte* const h = in + i;
    const std::uint8_t m = u8(h);

#define MPK_FAIL_(ec)           \
  return detail::sticky_error { \
    (ec), i                     \
  }
#define MPK_NEED_(k)                             \
  do {                                           \
    if (i + std::uint64_t{k} > cap) [[unlikely]] \
      MPK_FAIL_(errc::truncated);                \
  } while (0)
#define MPK_CASE4_(b) \
  case (b):           \
  case (b) + 1:       \
  case (b) + 2:       \
  case (b) + 3:
#define MPK_CASE16_(b) MPK_CASE4_(b) MPK_CASE4_((b) + 4) MPK_CASE4_((b) + 8) MPK_CASE4_((b) + 12)
#define MPK_NODE_(family, bits, hd, ext)                                        \
  nd = node {                                                                   \
    (bits), static_cast<std::uint32_t>(i), (family), std::uint8_t{hd}, (ext), 0 \
  }
#define MPK_SCALAR_(family, bits, k) \
  do {                               \
    MPK_NODE_(family, bits, k, 0);   \
    i += (k);                        \
  } while (0)
#define MPK_PAYLOAD_(family, len, hd, max, ext)          \
  do {                                                   \
    const std::size_t len_ = (len);                      \
    if (len_ > (max)) [[unlikely]]                       \
      MPK_FAIL_(errc::limit_exceeded);                   \
    if (i + std::uint64_t{hd} + len_ > cap) [[unlikely]] \
      MPK_FAIL_(errc::truncated);                        \
    MPK_NODE_(family, len_, hd, ext);                    \
    i += (hd) + len_;                                    \
  } while (0)
#define MPK_EXT_(len, hd)                                                                        \
  do {                                                                                           \
    MPK_NEED_(hd);                                                                               \
    MPK_PAYLOAD_(type::ext, len, hd, lim.max_ext_len, static_cast<std::int8_t>(u8(h + (hd)-1))); \
  } while (0)

    // A container: `count` items, `wanted` slots, a header of `hd` bytes.
    std::uint32_t count = 0;
    std::uint64_t wanted = 0;
    std::size_t hd = 1;
    type tag = type::map;

    if (const unsigned len = m - unsigned{marker::fixstr}; len < 32) {
      // The fast loop: a limit of 31 or more (run()).
      MPK_PAYLOAD_(type::str, len, 1, Exact ? lim.max_str_len : 31, 0);
      goto next_value;
    }
    // One jump through a table of the 256 markers (the fixstr markers never reach it).
    switch (m) {
      MPK_CASE16_(0x00)
      MPK_CASE16_(0x10)
      MPK_CASE16_(0x20)
      MPK_CASE16_(0x30)
      MPK_CASE16_(0x40)
      MPK_CASE16_(0x50)
      MPK_CASE16_(0x60)
      MPK_CASE16_(0x70)  // positive fixint
      MPK_SCALAR_(type::uint, m, 1);
      goto next_value;
      MPK_CASE16_(0xe0)
      MPK_CASE16_(0xf0)  // negative fixint
      MPK_SCALAR_(type::sint, static_cast<std::uint64_t>(std::int64_t{static_cast<std::int8_t>(m)}),
                  1);
      goto next_value;
      MPK_CASE16_(0x80)  // fixmap
      count = m & 0x0fu;
      wanted = 2 * count;
      if (Exact && count > lim.max_map_len) [[unlikely]]
        MPK_FAIL_(errc::limit_exceeded);
      goto container;
      MPK_CASE16_(0x90)  // fixarray
      count = m & 0x0fu;
      wanted = count;
      tag = type::array;
      if (Exact && count > lim.max_array_len) [[unlikely]]
        MPK_FAIL_(errc::limit_exceeded);
      goto container;
      case marker::nil:
        MPK_SCALAR_(type::nil, 0, 1);
        goto next_value;
      case marker::false_value:
        MPK_SCALAR_(type::boolean, 0, 1);
        goto next_value;
      case marker::true_value:
        MPK_SCALAR_(type::boolean, 1, 1);
        goto next_value;
      case marker::uint8:
        MPK_NEED_(2);
        MPK_SCALAR_(type::uint, u8(h + 1), 2);
        goto next_value;
      case marker::uint16:
        MPK_NEED_(3);
        MPK_SCALAR_(type::uint, load_be16(h + 1), 3);
        goto next_value;
      case marker::uint32:
        MPK_NEED_(5);
        MPK_SCALAR_(type::uint, load_be32(h + 1), 5);
        goto next_value;
      case marker::uint64:
        MPK_NEED_(9);
        MPK_SCALAR_(type::uint, load_be64(h + 1), 9);
        goto next_value;
      case marker::int8:
        MPK_NEED_(2);
        MPK_SCALAR_(type::sint,
                    static_cast<std::uint64_t>(std::int64_t{static_cast<std::int8_t>(u8(h + 1))}),
                    2);
        goto next_value;
      case marker::int16:
        MPK_NEED_(3);
        MPK_SCALAR_(
            type::sint,
            static_cast<std::uint64_t>(std::int64_t{static_cast<std::int16_t>(load_be16(h + 1))}),
            3);
        goto next_value;
      case marker::int32:
        MPK_NEED_(5);
        MPK_SCALAR_(
            type::sint,
            static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(load_be32(h + 1))}),
            5);
        goto next_value;
      case marker::int64:
        MPK_NEED_(9);
        MPK_SCALAR_(type::sint, load_be64(h + 1), 9);
        goto next_value;
      case marker::float32:
        MPK_NEED_(5);
        MPK_SCALAR_(type::float32, load_be32(h + 1), 5);
        goto next_value;
      case marker::float64:
        MPK_NEED_(9);
        MPK_SCALAR_(type::float64, load_be64(h + 1), 9);
        goto next_value;
      case marker::str8:
        MPK_NEED_(2);
        MPK_PAYLOAD_(type::str, std::size_t{u8(h + 1)}, 2, lim.max_str_len, 0);
        goto next_value;
      case marker::str16:
        MPK_NEED_(3);
        MPK_PAYLOAD_(type::str, std::size_t{load_be16(h + 1)}, 3, lim.max_str_len, 0);
        goto next_value;
      case marker::str32:
        MPK_NEED_(5);
        MPK_PAYLOAD_(type::str, std::size_t{load_be32(h + 1)}, 5, lim.max_str_len, 0);
        goto next_value;
      case marker::bin8:
        MPK_NEED_(2);
        MPK_PAYLOAD_(type::bin, std::size_t{u8(h + 1)}, 2, lim.max_bin_len, 0);
        goto next_value;
      case marker::bin16:
        MPK_NEED_(3);
        MPK_PAYLOAD_(type::bin, std::size_t{load_be16(h + 1)}, 3, lim.max_bin_len, 0);
        goto next_value;
      case marker::bin32:
        MPK_NEED_(5);
        MPK_PAYLOAD_(type::bin, std::size_t{load_be32(h + 1)}, 5, lim.max_bin_len, 0);
        goto next_value;
      case marker::fixext1:
        MPK_EXT_(1, 2);
        goto next_value;
      case marker::fixext2:
        MPK_EXT_(2, 2);
        goto next_value;
      case marker::fixext4:
        MPK_EXT_(4, 2);
        goto next_value;
      case marker::fixext8:
        MPK_EXT_(8, 2);
        goto next_value;
      case marker::fixext16:
        MPK_EXT_(16, 2);
        goto next_value;
      case marker::ext8:
        MPK_EXT_(std::size_t{u8(h + 1)}, 3);
        goto next_value;
      case marker::ext16:
        MPK_EXT_(std::size_t{load_be16(h + 1)}, 4);
        goto next_value;
      case marker::ext32:
        MPK_EXT_(std::size_t{load_be32(h + 1)}, 6);
        goto next_value;
#define MPK_CONTAINER_(family, k, load, max, per) \
  MPK_NEED_(k);                                   \
  count = (load);                                 \
  if (count > (max)) [[unlikely]]                 \
    MPK_FAIL_(errc::limit_exceeded);              \
  wanted = (per)*std::uint64_t{count};            \
  hd = (k);                                       \
  tag = (family);                                 \
  goto container
      case marker::array16:
        MPK_CONTAINER_(type::array, 3, load_be16(h + 1), lim.max_array_len, 1);
      case marker::map16:
        MPK_CONTAINER_(type::map, 3, load_be16(h + 1), lim.max_map_len, 2);
      case marker::array32:
        MPK_CONTAINER_(type::array, 5, load_be32(h + 1), lim.max_array_len, 1);
      case marker::map32:
        MPK_CONTAINER_(type::map, 5, load_be32(h + 1), lim.max_map_len, 2);
#undef MPK_CONTAINER_
      default:  // 0xc1 (and fixstr, handled above)
        MPK_FAIL_(errc::invalid_marker);
    }

  container : {
    if (depth >= depth_room) [[unlikely]] {
      if (depth >= lim.max_depth) MPK_FAIL_(errc::depth_exceeded);
      // The stack is made here, at the first container (16 levels), and doubles.
      if (!reserve_stack(
              std::min<std::size_t>(lim.max_depth, std::max<std::size_t>(16, 2 * stack_capacity_))))
        MPK_FAIL_(errc::out_of_memory);
      stack = stack_.get();
      depth_room =
          static_cast<std::uint32_t>(std::min<std::size_t>(stack_capacity_, lim.max_depth));
    }
    // Every slot still owed, at every level, and every new one needs a byte of its own. The
    // slots are counted in 64 bits: a map of 2^31 pairs or more has 2^32 slots or more,
    // which a 32-bit size_t would wrap to a small number. (Exact: the header may fit
    // before the input's end and not before `end`.)
    const std::size_t first = i + hd;
    if ((Exact && first > end) || wanted > end - first) [[unlikely]]
      MPK_FAIL_(errc::truncated);
    const auto slots = static_cast<std::size_t>(wanted);  // <= end - first
    // Children after the container: its payload holds the distance to the first.
    nd = node{(std::uint64_t{count} << 32) | static_cast<std::size_t>(top - next),
              static_cast<std::uint32_t>(i),
              tag,
              static_cast<std::uint8_t>(hd),
              0,
              0};
    if (slots != 0) {
      if (slots > free_slots) [[unlikely]] {
        // Never beyond n: slots owed + filled <= bytes of input.
        const auto size = static_cast<std::size_t>(top - nodes);
        const std::size_t want = std::min(n, std::max(size + slots, 2 * node_capacity_));
        node* const old = nodes;
        if (!reserve_nodes(want, size)) MPK_FAIL_(errc::out_of_memory);
        nodes = nodes_.get();
        next = nodes + (next - old);
        stop = nodes + (stop - old);
        top = nodes + size;
        free_slots = node_capacity_ - size;
      }
      free_slots -= slots;
      stack[depth++] = {static_cast<std::uint32_t>(next + 1 - nodes),
                        static_cast<std::uint32_t>(stop - nodes)};
      next = top;
      top += slots;
      stop = top;
      end -= slots;
      i = first;
      continue;
    }
    i = first;
  }

  next_value:
    ++next;
    while (next == stop) {
      if (depth == 0) goto done;
      const parse_frame f = stack[--depth];
      next = nodes + f.next;
      stop = nodes + f.end;
    }
  }
#undef MPK_FAIL_
#undef MPK_CASE4_
#undef MPK_CASE16_
#undef MPK_NEED_
#undef MPK_SCALAR_
#undef MPK_PAYLOAD_
#undef MPK_EXT_

done:
  if (i != n && !allow_trailing) return {errc::trailing_bytes, i};
  size_ = static_cast<std::size_t>(top - nodes);
  consumed_ = i;
  return {};
}

MPK_ALWAYS_INLINE detail::sticky_error document::run(const std::byte* const in, const std::size_t n,
                                                     const limits& lim,
                                                     const bool allow_trailing) noexcept {
  if (n == 0) return {errc::truncated, 0};
  // A first guess that fits typical messages (a node per 2 input bytes: a map of short keys
  // and small values takes about 1 per 3) without committing the worst case (a node per
  // byte) for string-heavy input; the arena grows on demand, never beyond a node per byte.
  // Capped below glibc's default mmap threshold (128 KiB): above it, a new document's arena
  // is mapped, faulted in and unmapped per parse, and for string-heavy input almost all of
  // it is never used (W7 `large`: 3.2 MB of input, 4,254 nodes, a 25.7 MB guess); doubling
  // from the cap copies fewer nodes in all than the document ends with.
  constexpr std::size_t first_guess_max = (std::size_t{120} << 10) / sizeof(node);
  if (!reserve_nodes(std::min({n, n / 2 + 16, first_guess_max}), 0))
    return {errc::out_of_memory, 0};
  if (lim.max_str_len >= 31 && lim.max_array_len >= 15 && lim.max_map_len >= 15) [[likely]] {
    const detail::sticky_error e = parse_loop<false>(in, n, lim, allow_trailing);
    if (e.code != errc::truncated) [[likely]]
      return e;
  }
  return parse_loop<true>(in, n, lim, allow_trailing);
}

// --- comparison --------------------------------------------------------------------------

namespace {

/// Scalar part of the deep comparison; for containers: same family and count.
bool same_shallow(const node& a, const std::byte* ia, const node& b, const std::byte* ib) {
  const auto int_family = [](type t) { return t == type::uint || t == type::sint; };
  if (int_family(a.tag) && int_family(b.tag)) {
    // Equal bits are equal numbers, except where one side reads them as negative.
    if (a.payload != b.payload) return false;
    return a.tag == b.tag || static_cast<std::int64_t>(a.payload) >= 0;
  }
  if (a.tag != b.tag) return false;
  switch (a.tag) {
    case type::str:
    case type::bin:
    case type::ext:
      return a.payload == b.payload && a.ext_type == b.ext_type &&
             (a.payload == 0 ||
              std::memcmp(ia + a.offset + a.head, ib + b.offset + b.head,
                          static_cast<std::size_t>(a.payload)) == 0);  // within the input
    case type::array:
    case type::map:
      return (a.payload >> 32) == (b.payload >> 32);
    default:
      return a.payload == b.payload;  // nil (0), boolean, float bits
  }
}

}  // namespace

bool operator==(const element& a, const element& b) {
  if (a.n_ == nullptr || b.n_ == nullptr) return a.n_ == b.n_;
  // Blocks of children still to compare: (first in a, first in b, count). The order of the
  // comparisons does not matter for equality, so a plain work list does.
  struct block {
    const node* fa;
    const node* fb;
    std::uint32_t count;
  };
  if (!same_shallow(*a.n_, a.input_, *b.n_, b.input_)) return false;
  if (!is_container(a.n_->tag)) return true;
  std::vector<block> work;
  const auto push = [&](const node& x, const node& y) {
    const auto count = static_cast<std::uint32_t>(x.payload >> 32);
    if (count != 0)
      work.push_back({&x + static_cast<std::uint32_t>(x.payload),
                      &y + static_cast<std::uint32_t>(y.payload),
                      x.tag == type::map ? 2 * count : count});
  };
  push(*a.n_, *b.n_);
  while (!work.empty()) {
    const block blk = work.back();
    work.pop_back();
    for (std::uint32_t i = 0; i < blk.count; ++i) {
      const node& x = blk.fa[i];
      const node& y = blk.fb[i];
      if (!same_shallow(x, a.input_, y, b.input_)) return false;
      if (is_container(x.tag)) push(x, y);
    }
  }
  return true;
}

element element::find(const element& key) const {
  if (!is_map()) return missing();
  const node* const first = first_child();
  for (const node* x = first + 2 * size(); x != first; x -= 2) {
    if (at(x - 2) == key) return at(x - 1);
  }
  return missing();
}

}  // namespace mpk::inline v0
