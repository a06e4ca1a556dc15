// mpk/visit.hpp - a push walk of one MessagePack value: an event per scalar and per
// container start and end, with its offset and depth.
//
//     std::size_t strings = 0;
//     mpk::result<std::size_t> r = mpk::visit(bytes, [&](const mpk::visit_event& e) {
//       if (e.kind == mpk::visit_kind::str) ++strings;
//     });
//     if (!r) return r.error();        // e.g. "offset 17: input ends inside a value"
//
// How it is safe: the value is decoded by the reader's own decoders under `limits` (every
// length and count checked against its limit and against the bytes that remain before it is
// used), and nested values are walked with an explicit stack of the items still owed per
// level (64 levels inline, then the heap, never more than limits::max_depth levels), never
// by recursion: no input can overflow the C++ stack or make it allocate more than a few
// bytes per input byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mpk/bytes.hpp"
#include "mpk/detail/reader_decoders.hpp"
#include "mpk/detail/reader_extent.hpp"
#include "mpk/error.hpp"
#include "mpk/format.hpp"
#include "mpk/reader/options.hpp"

namespace mpk::inline v0 {

/// What a visit_event reports. The scalars are mpk::type's families; a container gives a
/// `*_begin` event before its items and an `*_end` event after them.
enum class visit_kind : std::uint8_t {
  nil,
  boolean,
  uint,  ///< positive fixint, uint8..uint64
  sint,  ///< negative fixint, int8..int64 (whatever the sign of the value)
  float32,
  float64,
  str,
  bin,
  array_begin,
  map_begin,
  ext,
  array_end,
  map_end,
};
// The scalars and begins have mpk::type's numbers: an event's kind is its family's.
static_assert(static_cast<int>(visit_kind::nil) == static_cast<int>(type::nil) &&
              static_cast<int>(visit_kind::bin) == static_cast<int>(type::bin) &&
              static_cast<int>(visit_kind::array_begin) == static_cast<int>(type::array) &&
              static_cast<int>(visit_kind::map_begin) == static_cast<int>(type::map) &&
              static_cast<int>(visit_kind::ext) == static_cast<int>(type::ext));

/// One event of mpk::visit. The views (`bytes`, `str`, `bin`, `ext.data`) point into the
/// input, valid as long as it is; only the fields of the event's kind are set.
struct visit_event {
  visit_kind kind = visit_kind::nil;
  bool is_key = false;      ///< the value is a map key (its map's value follows it)
  std::uint32_t depth = 0;  ///< containers open around the value: a top-level value is at 0;
                            ///< an end event has the depth of its begin event
  std::size_t offset = 0;   ///< the value's first byte, from the start of the input; for an
                            ///< end event, the byte after the container's last byte
  std::span<const std::byte> bytes;  ///< a scalar's bytes, a container's header; empty at an end
  bool boolean = false;
  std::uint64_t u = 0;   ///< uint
  std::int64_t i = 0;    ///< sint
  float f32 = 0;         ///< float32
  double f64 = 0;        ///< float64
  std::string_view str;  ///< str: the text, not checked for UTF-8 (mpk::is_valid_utf8 does)
  std::span<const std::byte> bin;
  ext_view ext;             ///< ext: type and data
  std::uint32_t count = 0;  ///< array_begin: elements; map_begin: entries
};

namespace detail {

/// Runs decoder D on the value at `p`: inline with 9 readable bytes, else the reader's
/// out-of-line path for the last bytes of the input.
template <class D>
MPK_ALWAYS_INLINE decoded<typename D::value_type> visit_decode(const std::byte* p,
                                                               const std::byte* end,
                                                               const limits& lim) noexcept {
  const auto avail = static_cast<std::size_t>(end - p);
  if (avail >= 9) [[likely]]
    return D::template run<true>(p, p, avail, lim);
  return decode_short<D>(p, end, lim);
}

/// Calls the handler; false when it stops the walk (`stop` then holds its error, if any).
template <class Handler>
MPK_ALWAYS_INLINE bool visit_call(Handler& h, const visit_event& e, mpk::error& stop) {
  using R = std::invoke_result_t<Handler&, const visit_event&>;
  if constexpr (std::is_void_v<R>) {
    h(e);
    return true;
  } else if constexpr (std::is_same_v<R, bool>) {
    return h(e);
  } else {
    static_assert(std::is_same_v<R, mpk::error>,
                  "mpk::visit: the handler returns void, bool (false stops the walk) or "
                  "mpk::error (an error stops the walk and is visit's result)");
    stop = h(e);
    return !stop;
  }
}

/// A scalar's size, or why it is invalid.
struct visit_step {
  std::size_t size;
  errc ec;
};

/// Decodes the scalar at `p` (of family `family`, not a container) into `e`.
MPK_ALWAYS_INLINE visit_step visit_scalar(type family, const std::byte* p, const std::byte* end,
                                          const limits& lim, visit_event& e) noexcept {
  // The reader's decoders: one definition of each format.
  e.kind = static_cast<visit_kind>(family);
  switch (family) {
    case type::nil:
      return {1, errc::ok};
    case type::boolean: {
      const auto d = detail::visit_decode<detail::bool_decoder>(p, end, lim);
      e.boolean = d.value;
      return {d.size, d.ec};
    }
    case type::uint: {
      const auto d = detail::visit_decode<detail::int_decoder<std::uint64_t>>(p, end, lim);
      e.u = d.value;
      return {d.size, d.ec};
    }
    case type::sint: {
      const auto d = detail::visit_decode<detail::int_decoder<std::int64_t>>(p, end, lim);
      e.i = d.value;
      return {d.size, d.ec};
    }
    case type::float32: {
      const auto d = detail::visit_decode<detail::float_decoder<float>>(p, end, lim);
      e.f32 = d.value;
      return {d.size, d.ec};
    }
    case type::float64: {
      const auto d = detail::visit_decode<detail::float_decoder<double>>(p, end, lim);
      e.f64 = d.value;
      return {d.size, d.ec};
    }
    case type::str: {
      const auto d = detail::visit_decode<detail::str_decoder>(p, end, lim);
      e.str = d.value;
      return {d.size, d.ec};
    }
    case type::bin: {
      const auto d = detail::visit_decode<detail::bin_decoder>(p, end, lim);
      e.bin = d.value;
      return {d.size, d.ec};
    }
    case type::ext: {
      const auto d = detail::visit_decode<detail::ext_decoder>(p, end, lim);
      e.ext = d.value;
      return {d.size, d.ec};
    }
    default:  // 0xc1
      return {0, errc::invalid_marker};
  }
}

/// The walk of mpk::visit from a container at the start of [begin, end). Out of line, so
/// that a lone scalar takes no stack frame for the levels (W1's top-level scalars: 70
/// instructions per value inlined, bench/visit_cost.cpp).
template <class Handler>
[[gnu::noinline]] result<std::size_t> visit_nested(const std::byte* const begin,
                                                   const std::byte* const end, Handler& handler,
                                                   const limits& lim) {
  const std::byte* p = begin;
  // Per open container: the items it still owes (2 per map entry), shifted left by one,
  // and whether it is a map in the low bit.
  basic_owed_stack<std::uint64_t> stack;
  std::uint64_t owed = 1;  // items still owed at the current level (the top level: 1)
  bool in_map = false;
  std::uint32_t depth = 0;
  mpk::error stop;
  const auto at = [&] { return static_cast<std::size_t>(p - begin); };
  const auto fail = [&](errc ec) { return result<std::size_t>(ec, at()); };
  // After the handler stopped the walk at `offset`: its error, or where it stopped.
  const auto stopped = [&](std::size_t offset) {
    return stop ? result<std::size_t>(stop) : result<std::size_t>(offset);
  };
  // The end event of the current level (an empty container's: at depth `depth`).
  const auto close = [&](bool is_map, std::uint32_t d) {
    visit_event e;
    e.kind = is_map ? visit_kind::map_end : visit_kind::array_end;
    e.depth = d;
    e.offset = at();
    return visit_call(handler, e, stop);
  };
  for (;;) {
    if (p == end) [[unlikely]]
      return fail(errc::truncated);
    visit_event e;
    e.offset = at();
    e.depth = depth;
    e.is_key = in_map && (owed & 1) == 0;
    const type family = family_table[u8(p)];
    if (is_container(family)) {
      const bool is_map = family == type::map;
      const auto d = is_map ? visit_decode<header_decoder<true>>(p, end, lim)
                            : visit_decode<header_decoder<false>>(p, end, lim);
      if (d.ec != errc::ok) [[unlikely]]
        return fail(d.ec);
      // After the header, as skip() does: a bad header is reported before the depth.
      if (depth >= lim.max_depth) [[unlikely]]
        return fail(errc::depth_exceeded);
      e.kind = static_cast<visit_kind>(family);
      e.count = d.value;
      e.bytes = {p, d.size};
      if (!visit_call(handler, e, stop)) return stopped(e.offset + d.size);
      p += d.size;
      --owed;
      if (d.value != 0) {
        if (!stack.push(owed << 1 | std::uint64_t{in_map})) [[unlikely]]
          return fail(errc::out_of_memory);
        owed = std::uint64_t{d.value} << unsigned{is_map};
        in_map = is_map;
        ++depth;
        continue;
      }
      if (!close(is_map, depth)) return stopped(at());  // empty: it ends where it starts
    } else {
      const visit_step step = visit_scalar(family, p, end, lim, e);
      if (step.ec != errc::ok) [[unlikely]]
        return fail(step.ec);
      e.bytes = {p, step.size};
      if (!visit_call(handler, e, stop)) return stopped(e.offset + step.size);
      p += step.size;
      --owed;
    }
    // Close every container whose items are all read (closing one completes an item of its
    // parent, counted when it began).
    while (owed == 0) {
      if (depth == 0) return at();
      --depth;
      if (!close(in_map, depth)) return stopped(at());
      const std::uint64_t level = stack.pop();
      owed = level >> 1;
      in_map = (level & 1) != 0;
    }
  }
}

}  // namespace detail

/// Walks the one complete value at the start of `input`, depth first, calling
/// `handler(const mpk::visit_event&)` for each scalar and for the start and the end of each
/// container (map items come key, value, key, value...), without recursion.
///
/// The handler returns `void` (the walk goes on), `bool` (false stops the walk) or
/// `mpk::error` (an error stops the walk and visit returns it as it is).
///
///     // the sum of every integer in a message, at any depth
///     std::int64_t sum = 0;
///     auto r = mpk::visit(bytes, [&](const mpk::visit_event& e) {
///       if (e.kind == mpk::visit_kind::uint) sum += static_cast<std::int64_t>(e.u);
///       if (e.kind == mpk::visit_kind::sint) sum += e.i;
///     });
///
/// Returns the offset where the walk ended: the size of the value, or, when a `bool` handler
/// stopped it, the end of the bytes of the event it stopped at (a scalar's end, a container
/// header's end, a container's end). Bytes after the value are not read: visit the next
/// value at that offset, or compare it with `input.size()` to refuse trailing bytes.
///
/// Errors, at the offset of the offending value (no event is given for it; events before it
/// were): errc::truncated (the input ends inside the value, or a container declares more
/// items than the bytes left can hold: at least 1 per element, 2 per map entry),
/// errc::invalid_marker (0xc1), errc::limit_exceeded (a length or count above `options.limits`),
/// errc::depth_exceeded (a container nested deeper than options.limits.max_depth; a top-level
/// container is depth 1), errc::out_of_memory (only beyond 64 levels of nesting); or the handler's
/// error. They agree with reader::skip() on the same input and limits.
template <byte_input Bytes, class Handler>
result<std::size_t> visit(const Bytes& bytes, Handler&& handler, const read_options& options = {}) {
  const std::span<const std::byte> input = mpk::as_bytes(bytes);
  const limits& lim = options.limits;
  const std::byte* const begin = input.data();
  const std::byte* const end = begin + input.size();
  if (begin == end) [[unlikely]]
    return result<std::size_t>(errc::truncated, 0);
  const type family = detail::family_table[detail::u8(begin)];
  if (is_container(family)) return detail::visit_nested(begin, end, handler, lim);
  // A scalar alone (a stream of small messages): no stack. It ends where a stop would.
  visit_event e;
  const detail::visit_step step = detail::visit_scalar(family, begin, end, lim, e);
  if (step.ec != errc::ok) [[unlikely]]
    return result<std::size_t>(step.ec, 0);
  e.bytes = {begin, step.size};
  mpk::error stop;
  if (!detail::visit_call(handler, e, stop) && stop) return stop;
  return step.size;
}

}  // namespace mpk::inline v0
