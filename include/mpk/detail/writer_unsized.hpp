// mpk/detail/writer_unsized.hpp - internals of mpk/writer.hpp: containers of unknown size
// (writer::begin_array() / begin_map() without a count, closed by end_array() / end_map()).
// Not a public API.
//
// How it works, and what it costs:
// - begin_array() reserves the widest header (5 bytes, array32) as a placeholder whose first
//   byte is 0xc1, the marker MessagePack never uses, so that output left with a container
//   open is invalid rather than silently wrong.
// - The writer's value calls do not count anything (their cost stays what it was): the
//   number of elements is found from the bytes themselves, by walking the headers of the
//   body once (the reader's extent of each value, from detail/reader_extent.hpp, in
//   src/writer_unsized.cpp). Whatever wrote them (the writer's calls, the codec, write_raw of
//   whole values) counts the same. A nested container of unknown size counts its parent's
//   items up to its start when it opens and adds itself when it closes, so each byte is
//   walked once (unless a counted container sits between the two: its items are walked
//   again when it completes).
// - end_array() writes the smallest header for the count at the placeholder; when that
//   header is shorter than 5 bytes (fewer than 65536 elements), it moves the body down by
//   2 or 4 bytes: one memmove of the body per container.
// - The sink must keep those bytes in memory until the container closes: a buffer or a
//   span_sink (rewritable_sink), or a stream_sink, which holds them back from its target
//   (holding_sink, stream_sink::hold) up to writer_options::unsized_staging_limit.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <utility>

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

/// The widest container header (array32 / map32), reserved until the count is known.
inline constexpr std::size_t unsized_placeholder = 5;

/// A container of unknown size, while open.
struct open_container {
  std::size_t start;       ///< sink position of its placeholder header
  std::size_t counted_to;  ///< sink position up to which `items` are counted
  std::size_t items;       ///< complete items before counted_to (keys and values of a map)
  bool is_map;
};

/// The writer's open containers of unknown size, innermost last. No memory until the first
/// one opens (a writer that never uses them pays nothing but the three zeroed words).
class open_stack {
 public:
  open_stack() noexcept = default;
  open_stack(open_stack&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  open_stack& operator=(open_stack&&) = delete;
  ~open_stack() { std::free(data_); }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  open_container& top() noexcept { return data_[size_ - 1]; }
  const open_container& bottom() const noexcept { return data_[0]; }
  void pop() noexcept { --size_; }
  /// False when memory ran out.
  bool push(const open_container& c) noexcept {
    if (size_ == capacity_) {
      const std::size_t cap = capacity_ == 0 ? 8 : 2 * capacity_;
      void* p = std::realloc(data_, cap * sizeof(open_container));
      if (p == nullptr) return false;
      data_ = static_cast<open_container*>(p);
      capacity_ = cap;
    }
    data_[size_++] = c;
    return true;
  }

 private:
  open_container* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

/// Complete values at the start of some bytes: how many, and how many bytes they take (the
/// rest is the start of a value not complete yet).
struct item_count {
  std::size_t items = 0;
  std::size_t complete = 0;
  errc ec = errc::ok;  ///< invalid_marker: a byte 0xc1 (only write_raw can put one there)
};

/// Counts the complete values in [p, p + n). (src/writer_unsized.cpp)
MPK_API item_count count_items(const std::byte* p, std::size_t n) noexcept;

/// Closes the container `c` whose bytes (placeholder and body, `size` bytes) are at `at`:
/// counts the items after c.counted_to, writes the smallest header at `at` and moves the body
/// down behind it. Returns the container's size in bytes now, or 0 and sets `ec`:
/// errc::truncated (the body ends inside a value: a counted container short of elements, a
/// str header without its payload), errc::invalid_argument (a map with a key but no value),
/// errc::too_large (2^32 elements or more), errc::invalid_marker. (src/writer_unsized.cpp)
MPK_API std::size_t close_container(std::byte* at, std::size_t size, const open_container& c,
                                    errc& ec) noexcept;

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
  static std::byte* byte_at(S& s, std::size_t position) noexcept {
    if constexpr (holding_sink<S>)
      return s.held_at(position);
    else
      return s.data() + position;
  }

  template <class W>
  static void begin(W& w, bool is_map) noexcept {
    if (!w.ok()) return;
    auto& out = *w.out_;
    using S = std::remove_reference_t<decltype(out)>;
    const std::size_t at = position(out);
    if (!w.open_.empty()) {
      // Count the parent's items so far, so that its walk at the end skips them.
      open_container& parent = w.open_.top();
      const item_count n = count_items(byte_at(out, parent.counted_to), at - parent.counted_to);
      if (n.ec != errc::ok) return w.fail(n.ec);
      parent.items += n.items;
      parent.counted_to += n.complete;
    }
    if (!w.open_.push({at, at + unsized_placeholder, 0, is_map}))
      return w.fail(errc::out_of_memory);
    if constexpr (holding_sink<S>) {
      if (w.open_.size() == 1) out.hold(w.options_.unsized_staging_limit);
    }
    std::byte* p = w.reserve(unsized_placeholder);
    if (p == nullptr) {  // not opened (after clear_error(), the writer goes on without it)
      w.open_.pop();
      if constexpr (holding_sink<S>) {
        if (w.open_.empty()) out.unhold();
      }
      return;
    }
    p[0] = std::byte{0xc1};  // never used: a container left open is invalid MessagePack
    for (std::size_t i = 1; i < unsized_placeholder; ++i)
      p[i] = std::byte{0};
    out.commit(unsized_placeholder);
  }

  template <class W>
  static void end(W& w, bool is_map) noexcept {
    if (!w.ok()) return;
    if (w.open_.empty() || w.open_.top().is_map != is_map) return w.fail(errc::invalid_argument);
    auto& out = *w.out_;
    using S = std::remove_reference_t<decltype(out)>;
    const open_container c = w.open_.top();
    errc ec = errc::ok;
    const std::size_t size = close_container(byte_at(out, c.start), position(out) - c.start, c, ec);
    if (ec != errc::ok) return w.fail(ec);
    if constexpr (holding_sink<S>)
      out.truncate_held(c.start + size);
    else
      out.truncate(c.start + size);
    w.open_.pop();
    if (w.open_.empty()) {
      if constexpr (holding_sink<S>) out.unhold();
    } else if (open_container& parent = w.open_.top(); parent.counted_to == c.start) {
      ++parent.items;  // the parent had counted up to this container: it is one more item
      parent.counted_to = c.start + size;
    }
  }

  /// A writer going away with containers open: a stream_sink must not hold the bytes back
  /// for ever (nothing can close them now); they are dropped. Memory sinks keep theirs.
  template <class S>
  static void abandon(S& s, const open_stack& open) noexcept {
    if constexpr (holding_sink<S>) {
      if (!open.empty()) {
        s.truncate_held(open.bottom().start);
        s.unhold();
      }
    }
  }
};

}  // namespace mpk::inline v0::detail
