// mpk/detail/writer_unsized.hpp - internals of mpk/writer.hpp: containers of unknown size
// (writer::begin_array() / begin_map() without a count, closed by end_array() / end_map()).
// Not a public API.
//
// How it works, and what it costs:
// - begin_array() reserves a placeholder header of 26 bytes: 0xc1, the marker MessagePack
//   never uses (output left with a container open is invalid rather than silently wrong),
//   then the container's bookkeeping (open_container), so that the writer holds nothing but
//   the position of the innermost one.
// - The writer's value calls do not count anything (their cost stays what it was): the
//   number of elements is found from the bytes themselves, by walking the headers of the
//   body once (the reader's extent of each value, from detail/reader_extent.hpp, in
//   src/writer_unsized.cpp). Whatever wrote them (the writer's calls, the codec, write_raw of
//   whole values) counts the same. A nested container of unknown size counts its parent's
//   items up to its start when it opens and adds itself when it closes, so each byte is
//   walked once (unless a counted container sits between the two: its items are walked
//   again when it completes).
// - end_array() writes the smallest header for the count (1, 3 or 5 bytes) at the
//   placeholder and moves the body down behind it: one memmove of the body per container.
// - The sink must keep those bytes in memory until the container closes: a buffer or a
//   span_sink (rewritable_sink), or a stream_sink, which holds them back from its target
//   (holding_sink, stream_sink::hold) up to writer_options::unsized_staging_limit.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "mpk/config.hpp"
#include "mpk/error.hpp"

namespace mpk::inline v0::detail {

/// Sinks whose output stays in memory, addressed by position: buffer, span_sink.
template <class S>
concept rewritable_sink = requires(S& s, std::size_t n) {
  { s.data() } -> std::convertible_to<std::byte*>;
  { s.size() } -> std::convertible_to<std::size_t>;
  s.truncate(n);
};

/// Sinks that hand their bytes on but can hold the latest ones back: stream_sink.
template <class S>
concept holding_sink = requires(S& s, std::size_t n) {
  s.hold(n);
  s.unhold();
  { s.held_at(n) } -> std::same_as<std::byte*>;
  s.truncate_held(n);
};

/// The sinks writer::begin_array() (without a count) accepts.
template <class S>
concept unsized_sink = rewritable_sink<S> || holding_sink<S>;

/// No container of unknown size open (the writer's `unsized_at_`).
inline constexpr std::size_t no_open_container = ~std::size_t{0};

/// The state of an open container of unknown size. It is kept in the container's own
/// placeholder header, not in the writer, so that the writer stays trivially destructible
/// and one word larger: a stack of open containers in the writer (heap memory, a destructor)
/// cost counted writes 14-20 more instructions per message on the W5 and W7 encode cells;
/// this design costs 2 (callgrind counts of the mpk_bench cells, before and after).
struct open_container {
  std::uint64_t counted_to;  ///< sink position up to which `items` are counted
  std::uint64_t items;       ///< complete items before counted_to (keys and values of a map)
  std::uint64_t parent;      ///< sink position of the enclosing one, or no_open_container
  bool is_map;
};

/// Bytes of the placeholder header: 0xc1 (a marker MessagePack never uses, so that output
/// left with a container open is invalid rather than silently wrong), is_map, then the
/// three numbers of open_container.
inline constexpr std::size_t unsized_placeholder = 2 + 3 * 8;

inline void store_open(std::byte* p, const open_container& c) noexcept {
  p[0] = std::byte{0xc1};
  p[1] = std::byte{c.is_map};
  std::memcpy(p + 2, &c.counted_to, 8);
  std::memcpy(p + 10, &c.items, 8);
  std::memcpy(p + 18, &c.parent, 8);
}

inline open_container load_open(const std::byte* p) noexcept {
  open_container c{};
  c.is_map = p[1] != std::byte{0};
  std::memcpy(&c.counted_to, p + 2, 8);
  std::memcpy(&c.items, p + 10, 8);
  std::memcpy(&c.parent, p + 18, 8);
  return c;
}

/// Complete values at the start of some bytes: how many, and how many bytes they take (the
/// rest is the start of a value not complete yet).
struct item_count {
  std::size_t items = 0;
  std::size_t complete = 0;
  errc ec = errc::ok;  ///< invalid_marker: a byte 0xc1 (only write_raw can put one there)
};

/// Counts the complete values in [p, p + n). (src/writer_unsized.cpp)
MPK_API item_count count_items(const std::byte* p, std::size_t n) noexcept;

/// Closes the container `c` whose bytes (placeholder and body, `size` bytes) are at `at`,
/// with `items` complete items in its first `counted` bytes: counts the rest, writes the
/// smallest header at `at` and moves the body down behind it (one memmove). Returns the
/// container's size in bytes now, or 0 and sets `ec`: errc::truncated (the body ends inside
/// a value: a counted container short of elements, a str header without its payload),
/// errc::invalid_argument (a map with a key but no value), errc::too_large (2^32 elements or
/// more), errc::invalid_marker. (src/writer_unsized.cpp)
MPK_API std::size_t close_container(std::byte* at, std::size_t size, std::size_t counted,
                                    std::size_t items, bool is_map, errc& ec) noexcept;

/// The writer's begin_array() / end_array() and their map forms; a friend of writer<Sink>.
struct unsized_ops {
  /// The sink's position (the writer's sink_position for these sinks).
  template <class S>
  static std::size_t position(S& s) noexcept {
    if constexpr (holding_sink<S>)
      return s.total_size();
    else
      return s.size();
  }
  template <class S>
  static std::byte* byte_at(S& s, std::uint64_t position) noexcept {
    if constexpr (holding_sink<S>)
      return s.held_at(static_cast<std::size_t>(position));
    else
      return s.data() + static_cast<std::size_t>(position);
  }

  template <class W>
  static void begin(W& w, bool is_map) noexcept {
    if (!w.ok()) return;
    auto& out = *w.out_;
    using S = std::remove_reference_t<decltype(out)>;
    const std::size_t at = position(out);
    const std::size_t parent = w.unsized_at_;
    if (parent != no_open_container) {
      // Count the parent's items so far, so that its walk at the end skips them.
      std::byte* pp = byte_at(out, parent);
      open_container pc = load_open(pp);
      const auto from = static_cast<std::size_t>(pc.counted_to);
      const item_count n = count_items(byte_at(out, from), at - from);
      if (n.ec != errc::ok) return w.fail(n.ec);
      pc.items += n.items;
      pc.counted_to += n.complete;
      store_open(pp, pc);
    } else if constexpr (holding_sink<S>) {
      out.hold(w.options_.unsized_staging_limit);
    }
    std::byte* p = w.reserve(unsized_placeholder);
    if (p == nullptr) {  // not opened (after clear_error(), the writer goes on without it)
      if constexpr (holding_sink<S>) {
        if (parent == no_open_container) out.unhold();
      }
      return;
    }
    store_open(p, {at + unsized_placeholder, 0, parent, is_map});
    out.commit(unsized_placeholder);
    w.unsized_at_ = at;
  }

  template <class W>
  static void end(W& w, bool is_map) noexcept {
    if (!w.ok()) return;
    const std::size_t at = w.unsized_at_;
    if (at == no_open_container) return w.fail(errc::invalid_argument);
    auto& out = *w.out_;
    using S = std::remove_reference_t<decltype(out)>;
    std::byte* p = byte_at(out, at);
    const open_container c = load_open(p);
    if (c.is_map != is_map) return w.fail(errc::invalid_argument);
    errc ec = errc::ok;
    const std::size_t size =
        close_container(p, position(out) - at, static_cast<std::size_t>(c.counted_to) - at,
                        static_cast<std::size_t>(c.items), is_map, ec);
    if (ec != errc::ok) return w.fail(ec);
    if constexpr (holding_sink<S>)
      out.truncate_held(at + size);
    else
      out.truncate(at + size);
    w.unsized_at_ = static_cast<std::size_t>(c.parent);
    if (c.parent == no_open_container) {
      if constexpr (holding_sink<S>) out.unhold();
    } else {
      std::byte* pp = byte_at(out, c.parent);
      if (open_container pc = load_open(pp); pc.counted_to == at) {
        ++pc.items;  // the parent had counted up to this container: it is one more item
        pc.counted_to = at + size;
        store_open(pp, pc);
      }
    }
  }

  /// Open containers of unknown size, innermost first: calls f(position, state) for each.
  template <class W, class F>
  static void each_open(W& w, F&& f) noexcept {
    for (std::size_t at = w.unsized_at_; at != no_open_container;) {
      const open_container c = load_open(byte_at(*w.out_, at));
      f(at, c);
      at = static_cast<std::size_t>(c.parent);
    }
  }

  template <class W>
  static std::size_t count_open(W& w) noexcept {
    std::size_t n = 0;
    each_open(w, [&](std::size_t, const open_container&) { ++n; });
    return n;
  }

  /// finish() with containers open: they are given up. A stream_sink drops their bytes
  /// (nothing can complete them now) and stops holding; memory sinks keep them.
  template <class W>
  static void abandon(W& w) noexcept {
    std::size_t outermost = no_open_container;
    each_open(w, [&](std::size_t at, const open_container&) { outermost = at; });
    using S = std::remove_reference_t<decltype(*w.out_)>;
    if constexpr (holding_sink<S>) {
      if (outermost != no_open_container) {
        w.out_->truncate_held(outermost);
        w.out_->unhold();
      }
    }
    w.unsized_at_ = no_open_container;
  }
};

}  // namespace mpk::inline v0::detail
