// The document parser and the deep comparison of value_refs (mpk/value/document.hpp).
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

result<document> document::parse(std::span<const std::byte> bytes, limits lim,
                                 document_options options) {
  document doc;
  if (auto r = doc.parse_into(bytes, lim, options); !r) return r.error();
  return doc;
}

result<void> document::parse_into(std::span<const std::byte> bytes, limits lim,
                                  document_options options) {
  size_ = 0;
  consumed_ = 0;
  input_ = bytes.data();
  if (bytes.size() > max_document_input) return mpk::error{errc::too_large, 0};
  if (options.copy && !bytes.empty()) {
    if (bytes.size() > copy_capacity_) {
      auto* fresh = new (std::nothrow) std::byte[bytes.size()];  // not zero-filled
      if (fresh == nullptr) return mpk::error{errc::out_of_memory, 0};
      copy_.reset(fresh);
      copy_capacity_ = bytes.size();
    }
    std::memcpy(copy_.get(), bytes.data(), bytes.size());
    input_ = copy_.get();
  }
  utf8_ = options.utf8;
  mpk::error e = run(input_, bytes.size(), lim, options.allow_trailing);
  if (!e && options.utf8 == utf8_check::all) e = check_utf8();
  if (options.reject_duplicate_keys && (!e || e.code == errc::invalid_utf8)) {
    // Both checks report the first problem in input order: keep the earlier one.
    const mpk::error dup = check_duplicate_keys();
    if (dup && (!e || dup.offset < e.offset)) e = dup;
  }
  if (e) {
    size_ = 0;
    consumed_ = 0;
    return e;
  }
  return {};
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

// With reject_duplicate_keys: every map's keys compared by their raw bytes after the parse.
// Small maps pairwise; larger ones through a sort of key indices by bytes, then position, so
// that equal keys are neighbours and the second of each group is the duplicate. The error
// names the first duplicate key in input order (keys of one map have increasing offsets).
mpk::error document::check_duplicate_keys() const noexcept {
  std::size_t first_dup = max_document_input;
  std::unique_ptr<std::uint32_t[]> order;
  std::size_t order_capacity = 0;
  const auto key_bytes = [this](std::uint32_t index) {
    return value_ref(nodes_.get(), input_, index, utf8_).raw();
  };
  const auto same = [](std::span<const std::byte> a, std::span<const std::byte> b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
  };
  for (std::size_t i = 0; i < size_; ++i) {
    const node& m = nodes_[i];
    const auto count = static_cast<std::uint32_t>(m.payload >> 32);
    if (m.tag != type::map || count < 2 || m.offset >= first_dup) continue;
    const auto first = static_cast<std::uint32_t>(m.payload);
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

// The parse loop. Each iteration fills the next reserved slot with the value at `p`:
// one branch on the marker (the fix formats are arithmetic), every header byte after the
// marker checked against the bytes left before it is read (MPK_NEED_; no padded copy of the
// last bytes: it cost ~60 instructions a message, W3 `read_dynamic`), every length checked
// against the real count, and for a container one reservation of all
// its child slots at the end of the arena. `owed` counts the slots reserved but not filled
// yet, all levels together; each needs at least one byte of input, which is what bounds the
// arena by the input size.
mpk::error document::run(const std::byte* const begin, const std::size_t n, const limits& lim,
                         const bool allow_trailing) noexcept {
  if (n == 0) return {errc::truncated, 0};
  // A first guess that fits typical messages (a node per 2 input bytes: a map of short keys
  // and small values takes about 1 per 3) without committing the worst case (a node per
  // byte) for string-heavy input; the arena grows on demand, never beyond a node per byte.
  if (!reserve_nodes(std::min<std::size_t>(n, n / 2 + 16), 0)) return {errc::out_of_memory, 0};
  if (!reserve_stack(std::min<std::size_t>(16, lim.max_depth == 0 ? 1 : lim.max_depth)))
    return {errc::out_of_memory, 0};

  node* nodes = nodes_.get();
  parse_frame* stack = stack_.get();
  const std::byte* p = begin;
  const std::byte* const end = begin + n;
  std::size_t size = 1;  // slot 0: the root
  // The slot to fill and the end of its block, as pointers (the stack keeps indices: the
  // arena may move when it grows).
  node* next = nodes;
  node* stop = nodes + 1;
  std::size_t owed = 1;
  std::uint32_t depth = 0;

  // The limits in locals: node stores write bytes (which may alias anything), so values
  // read through `lim` would be reloaded after each one.
  const std::size_t max_str = lim.max_str_len;
  const std::size_t max_bin = lim.max_bin_len;
  const std::size_t max_ext = lim.max_ext_len;
  const std::uint32_t max_array = lim.max_array_len;
  const std::uint32_t max_map = lim.max_map_len;
  const std::uint32_t max_depth = lim.max_depth;
  const auto fail = [begin](errc ec, const std::byte* at) noexcept {
    return mpk::error{ec, static_cast<std::size_t>(at - begin)};
  };

  for (;;) {
    node& nd = *next++;
    --owed;
    const auto avail = static_cast<std::size_t>(end - p);
    if (avail == 0) [[unlikely]]
      return fail(errc::truncated, p);
    const std::byte* const h = p;
    const auto offset = static_cast<std::uint32_t>(p - begin);
    const std::uint8_t m = u8(h);

#define MPK_NEED_(k)                   \
  do {                                 \
    if (avail < (k)) [[unlikely]]      \
      return fail(errc::truncated, p); \
  } while (0)
#define MPK_SCALAR_(family, bits, k)                            \
  do {                                                          \
    nd = node{(bits), offset, (family), std::uint8_t{k}, 0, 0}; \
    p += (k);                                                   \
  } while (0)
#define MPK_PAYLOAD_(family, len, hd, max)                     \
  do {                                                         \
    const std::size_t len_ = (len);                            \
    if (len_ > (max)) [[unlikely]]                             \
      return fail(errc::limit_exceeded, p);                    \
    if (len_ > avail - (hd)) [[unlikely]]                      \
      return fail(errc::truncated, p);                         \
    nd = node{len_, offset, (family), std::uint8_t{hd}, 0, 0}; \
    p += (hd) + len_;                                          \
  } while (0)
#define MPK_EXT_(len, hd)                                                                          \
  do {                                                                                             \
    MPK_NEED_(hd);                                                                                 \
    const std::size_t len_ = (len);                                                                \
    if (len_ > max_ext) [[unlikely]]                                                               \
      return fail(errc::limit_exceeded, p);                                                        \
    if (len_ > avail - (hd)) [[unlikely]]                                                          \
      return fail(errc::truncated, p);                                                             \
    nd = node{len_, offset, type::ext, std::uint8_t{hd}, static_cast<std::int8_t>(u8(h + (hd)-1)), \
              0};                                                                                  \
    p += (hd) + len_;                                                                              \
  } while (0)

    // A container of `count` items (`per` slots each) with a header of `hd` bytes.
    std::uint32_t count = 0;
    std::size_t hd = 1;
    bool is_map = false;

    if (m <= marker::positive_fixint_max) {
      MPK_SCALAR_(type::uint, m, 1);
      goto next_value;
    }
    if (m >= marker::negative_fixint_min) {
      MPK_SCALAR_(type::sint, static_cast<std::uint64_t>(std::int64_t{static_cast<std::int8_t>(m)}),
                  1);
      goto next_value;
    }
    if (m < marker::nil) {
      if (m >= marker::fixstr) {
        MPK_PAYLOAD_(type::str, std::size_t{m & 0x1fu}, 1, max_str);
        goto next_value;
      }
      count = m & 0x0fu;
      is_map = m < marker::fixarray;
      goto container;
    }
    switch (m) {
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
        MPK_PAYLOAD_(type::str, std::size_t{u8(h + 1)}, 2, max_str);
        goto next_value;
      case marker::str16:
        MPK_NEED_(3);
        MPK_PAYLOAD_(type::str, std::size_t{load_be16(h + 1)}, 3, max_str);
        goto next_value;
      case marker::str32:
        MPK_NEED_(5);
        MPK_PAYLOAD_(type::str, std::size_t{load_be32(h + 1)}, 5, max_str);
        goto next_value;
      case marker::bin8:
        MPK_NEED_(2);
        MPK_PAYLOAD_(type::bin, std::size_t{u8(h + 1)}, 2, max_bin);
        goto next_value;
      case marker::bin16:
        MPK_NEED_(3);
        MPK_PAYLOAD_(type::bin, std::size_t{load_be16(h + 1)}, 3, max_bin);
        goto next_value;
      case marker::bin32:
        MPK_NEED_(5);
        MPK_PAYLOAD_(type::bin, std::size_t{load_be32(h + 1)}, 5, max_bin);
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
      case marker::array16:
      case marker::map16:
        MPK_NEED_(3);
        count = load_be16(h + 1);
        hd = 3;
        is_map = m == marker::map16;
        goto container;
      case marker::array32:
      case marker::map32:
        MPK_NEED_(5);
        count = load_be32(h + 1);
        hd = 5;
        is_map = m == marker::map32;
        goto container;
      default:
        return fail(errc::invalid_marker, p);  // 0xc1
    }

  container : {
    if (count > (is_map ? max_map : max_array)) [[unlikely]]
      return fail(errc::limit_exceeded, p);
    if (depth >= max_depth) [[unlikely]]
      return fail(errc::depth_exceeded, p);
    // Every slot still owed, at every level, and every new one needs a byte of its own.
    // The slots are counted in 64 bits: a map of 2^31 pairs or more has 2^32 slots or more,
    // which a 32-bit size_t would wrap to a small number.
    const std::size_t rest = avail - hd;
    const std::uint64_t wanted = is_map ? 2 * std::uint64_t{count} : std::uint64_t{count};
    if (owed > rest || wanted > rest - owed) [[unlikely]]
      return fail(errc::truncated, p);
    const auto slots = static_cast<std::size_t>(wanted);  // <= rest
    nd = node{(std::uint64_t{count} << 32) | size, offset, is_map ? type::map : type::array,
              static_cast<std::uint8_t>(hd),       0,      0};
    p += hd;
    if (slots != 0) {
      if (size + slots > node_capacity_) [[unlikely]] {
        // Never beyond n: slots owed + filled <= bytes of input.
        const std::size_t want = std::min(n, std::max(size + slots, 2 * node_capacity_));
        const auto filled = next - nodes;
        const auto block_end = stop - nodes;
        if (!reserve_nodes(want, size)) return fail(errc::out_of_memory, p - hd);
        nodes = nodes_.get();
        next = nodes + filled;
        stop = nodes + block_end;
      }
      if (depth == stack_capacity_) [[unlikely]] {
        if (!reserve_stack(std::min<std::size_t>(max_depth, 2 * stack_capacity_)))
          return fail(errc::out_of_memory, p - hd);
        stack = stack_.get();
      }
      stack[depth++] = {static_cast<std::uint32_t>(next - nodes),
                        static_cast<std::uint32_t>(stop - nodes)};
      next = nodes + size;
      stop = nodes + size + slots;
      size += slots;
      owed += slots;
    }
  }

  next_value:
    while (next == stop) {
      if (depth == 0) goto done;
      const parse_frame f = stack[--depth];
      next = nodes + f.next;
      stop = nodes + f.end;
    }
  }
#undef MPK_NEED_
#undef MPK_SCALAR_
#undef MPK_PAYLOAD_
#undef MPK_EXT_

done:
  if (p != end && !allow_trailing) return fail(errc::trailing_bytes, p);
  size_ = size;
  consumed_ = static_cast<std::size_t>(p - begin);
  return {};
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

bool operator==(const value_ref& a, const value_ref& b) {
  if (a.n_ == nullptr || b.n_ == nullptr) return a.n_ == b.n_;
  // Blocks of children still to compare: (first in a, first in b, count). The order of the
  // comparisons does not matter for equality, so a plain work list does.
  struct block {
    std::uint32_t fa, fb, count;
  };
  if (!same_shallow(*a.n_, a.input_, *b.n_, b.input_)) return false;
  if (!is_container(a.n_->tag)) return true;
  std::vector<block> work;
  const auto push = [&](const node& x, const node& y) {
    const auto count = static_cast<std::uint32_t>(x.payload >> 32);
    if (count != 0)
      work.push_back({static_cast<std::uint32_t>(x.payload), static_cast<std::uint32_t>(y.payload),
                      x.tag == type::map ? 2 * count : count});
  };
  push(*a.n_, *b.n_);
  while (!work.empty()) {
    const block blk = work.back();
    work.pop_back();
    for (std::uint32_t i = 0; i < blk.count; ++i) {
      const node& x = a.base_[blk.fa + i];
      const node& y = b.base_[blk.fb + i];
      if (!same_shallow(x, a.input_, y, b.input_)) return false;
      if (is_container(x.tag)) push(x, y);
    }
  }
  return true;
}

value_ref value_ref::find(const value_ref& key) const {
  if (!is_map()) return missing();
  const std::uint32_t first = first_child();
  for (std::uint32_t i = first + 2 * static_cast<std::uint32_t>(size()); i != first; i -= 2) {
    if (at_index(i - 2) == key) return at_index(i - 1);
  }
  return missing();
}

}  // namespace mpk::inline v0
