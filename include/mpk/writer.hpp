// mpk/writer.hpp - writes MessagePack into a sink (buffer, span_sink, stream_sink).
//
// The writer knows nothing of trees or types beyond the wire format: it writes one value or
// one container header per call. Errors are sticky: after the first one every call is a
// no-op, so a sequence of writes is checked once with `error()`.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string_view>
#include <type_traits>

#include "buffer.hpp"
#include "config.hpp"
#include "detail/endian.hpp"
#include "detail/header.hpp"
#include "detail/writer_unsized.hpp"
#include "error.hpp"
#include "format.hpp"
#include "unicode.hpp"

namespace mpk::inline v0 {

/// When `write(double)` uses float32 instead of float64.
enum class float32_policy : std::uint8_t {
  never,     ///< always float64 (the default: no precision is ever lost)
  always,    ///< always float32 (rounds; finite values beyond float's range become ±inf)
  lossless,  ///< float32 when the value converts to float32 and back bit for bit
};

/// Options of a writer.
///
///     mpk::writer w(buf, {.old_spec = true});
struct writer_options {
  /// Old-spec compatibility (MessagePack before 2013): no str8 and no bin family. Strings of
  /// 32..65535 bytes use str16, and binaries are written as strings. For peers that predate
  /// the bin types.
  bool old_spec = false;
  float32_policy float32 = float32_policy::never;
  /// How far a stream_sink's staging area may grow to hold back an open container of unknown
  /// size (begin_array() without a count), which cannot go to the target before its header
  /// is known: the outermost such container, nested ones included, may take up to this many
  /// bytes, or the staging area's capacity if that is larger. A write beyond it fails with
  /// errc::limit_exceeded. Sinks in memory (buffer, span_sink) do not use it.
  std::uint32_t unsized_staging_limit = 1u << 20;
};

namespace detail {
template <class T>
inline constexpr bool is_character_v =
    std::is_same_v<T, char> || std::is_same_v<T, wchar_t> || std::is_same_v<T, char8_t> ||
    std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

/// Copies `n` bytes from `src` to `dst`: for n <= 32 with two fixed-size moves that overlap
/// in the middle instead of a call to memcpy, whose call costs more than the copy for the
/// short keys and strings most messages hold. Reads only [src, src + n), writes only
/// [dst, dst + n); both loads happen before the stores. 16..32 bytes is marked unlikely so that
/// GCC lays out the shorter sizes (most keys) as the fall-through path: without the hint it
/// placed the 8..15 case out of line, one more jump per short string (W2
/// ascii_8_write 37.0 -> 36.0 instructions per value; no other mpk cell moved by 0.5%).
inline void copy_bytes(std::byte* dst, const char* src, std::size_t n) noexcept {
  auto twice = [dst, src, n]<std::size_t W>() {
    unsigned char head[W], tail[W];
    std::memcpy(head, src, W);
    std::memcpy(tail, src + n - W, W);
    std::memcpy(dst, head, W);
    std::memcpy(dst + n - W, tail, W);
  };
  if (n > 32) {
    std::memcpy(dst, src, n);
  } else if (n >= 16) [[unlikely]] {
    twice.template operator()<16>();
  } else if (n >= 8) {
    twice.template operator()<8>();
  } else if (n >= 4) {
    twice.template operator()<4>();
  } else if (n != 0) {
    const auto a = static_cast<unsigned char>(src[0]);
    const auto b = static_cast<unsigned char>(src[n / 2]);
    const auto c = static_cast<unsigned char>(src[n - 1]);
    dst[0] = std::byte{a};
    dst[n / 2] = std::byte{b};
    dst[n - 1] = std::byte{c};
  }
}

// Encoders for callers that reserved room themselves (the codec writes a struct of scalars
// and strings with one reservation): each writes at `p` the bytes writer::write would write
// for the value (options at their defaults: no old-spec, float32 policy `never`) and returns
// the end. Room needed: 9 bytes for an integer or a double, 5 for a float, 1 for a bool,
// 5 + size for a str (shorter than 2^32 bytes; a longer one writes nothing).
inline std::byte* put_unsigned(std::byte* p, std::uint64_t v) noexcept {
  return uint_head(v, [&](auto h) MPK_HEAD_LAMBDA { return put_head(p, h, v); });
}

inline std::byte* put_signed(std::byte* p, std::int64_t v) noexcept {
  return sint_head(
      v, [&](auto h) MPK_HEAD_LAMBDA { return put_head(p, h, static_cast<std::uint64_t>(v)); });
}

inline std::byte* put_float64(std::byte* p, double v) noexcept {
  return put_head(p, head<8>{marker::float64}, std::bit_cast<std::uint64_t>(v));
}

inline std::byte* put_float32(std::byte* p, float v) noexcept {
  return put_head(p, head<4>{marker::float32}, std::bit_cast<std::uint32_t>(v));
}

// (Forced inline: the codec writes a struct's strings with it, and GCC left it as a call in
// structs of several strings, W5 serialize_beer_*.)
MPK_ALWAYS_INLINE std::byte* put_str(std::byte* p, std::string_view s) noexcept {
  const std::size_t n = s.size();
  return str_head(n, false, [&](auto h) MPK_HEAD_LAMBDA {
    if constexpr (decltype(h)::fits) {
      p = put_head(p, h, n);
      copy_bytes(p, s.data(), n);
      return p + n;
    } else {
      return p;
    }
  });
}

/// Bytes the sink holds; used to give a writer error its offset (cold path only).
template <class S>
std::size_t sink_position(const S& s) noexcept {
  if constexpr (requires { s.total_size(); }) {
    return s.total_size();
  } else if constexpr (requires { s.size(); }) {
    return s.size();
  } else {
    return 0;
  }
}
}  // namespace detail

/// Writes MessagePack values to a sink.
///
/// Implicit typing (`write(x)`) picks the smallest encoding the specification allows, the
/// same bytes msgpack-python and msgpack-c write. Explicit typing (`write_uint16(x)`,
/// `write_str8(s)`, ...) writes exactly the format named, for fixed layouts.
///
///     mpk::buffer buf;
///     mpk::writer w(buf);
///     w.begin_map(2);
///     w.write("id");   w.write(42);
///     w.write("tags"); w.begin_array(1); w.write("new");
///     if (w.error()) { ... }   // errc::out_of_memory, errc::too_large, ...
///
/// Errors (sticky, kept in `error()` with the sink's size at the failure as offset):
/// errc::out_of_memory (buffer), errc::buffer_full (span_sink), errc::io_error (stream_sink),
/// errc::too_large (a length or count of 2^32 or more), errc::out_of_range (a forced width
/// too small for the value). The writer does not check that containers receive the number
/// of elements their header announced: that is the caller's part, or let the writer count
/// them with begin_array() / end_array() (containers of unknown size).
template <sink Sink = buffer>
class writer {
 public:
  explicit writer(Sink& out, writer_options options = {}) noexcept
      : out_(&out), options_(options) {}

  /// The first error, or errc::ok. Its offset is the sink's size when the write failed.
  mpk::error error() const noexcept { return error_; }
  bool ok() const noexcept { return error_.code == errc::ok; }
  /// Forgets the error so the writer can be used again; the sink keeps whatever was written.
  void clear_error() noexcept { error_ = {}; }
  Sink& sink() noexcept { return *out_; }
  const writer_options& options() const noexcept { return options_; }

  // --- implicit typing -------------------------------------------------------------------

  void write(std::nullptr_t) noexcept { write_nil(); }

  /// Writes true or false. (A template so that pointers do not convert to bool.)
  template <class T>
  requires std::same_as<T, bool> MPK_WRITER_INLINE void write(T value) noexcept {
    put_header(head<0>{value ? marker::true_value : marker::false_value}, 0);
  }

  /// Writes an integer in its smallest form: positive fixint, uint8..uint64 for values
  /// >= 0, negative fixint, int8..int64 for values < 0.
  template <std::integral T>
  requires(!std::same_as<T, bool> && !detail::is_character_v<T>) MPK_WRITER_INLINE
      void write(T value) noexcept {
    if constexpr (std::is_signed_v<T>) {
      write_signed(static_cast<std::int64_t>(value));
    } else {
      write_unsigned(static_cast<std::uint64_t>(value));
    }
  }

  /// Writes float32.
  void write(float value) noexcept { write_float32(value); }

  /// Writes float64, or float32 as `writer_options::float32` says.
  MPK_WRITER_INLINE void write(double value) noexcept {
    if (options_.float32 != float32_policy::never) [[unlikely]]
      return write_double_narrowing(value);
    write_float64(value);
  }

  /// Writes a string in its smallest form (fixstr, str8, str16, str32). The bytes are
  /// written as given: no UTF-8 validation.
  MPK_WRITER_INLINE void write(std::string_view s) noexcept { write_str(s); }
  void write(const char* s) noexcept { write_str(std::string_view(s)); }
  void write(std::u8string_view s) noexcept {
    write_str(std::string_view(reinterpret_cast<const char*>(s.data()), s.size()));
  }
  /// Writes UTF-16 text as a str, transcoded to UTF-8 straight into the output (see
  /// write_str(std::u16string_view)).
  void write(std::u16string_view s) noexcept { write_str(s); }

  /// Writes a binary in its smallest form (bin8, bin16, bin32).
  void write(std::span<const std::byte> bytes) noexcept { write_bin(bytes); }

  // --- nil, booleans, integers with explicit widths --------------------------------------

  MPK_WRITER_INLINE void write_nil() noexcept { put_header(head<0>{marker::nil}, 0); }
  void write_bool(bool value) noexcept { write(value); }

  void write_uint8(std::uint8_t v) noexcept { put_header(head<1>{marker::uint8}, v); }
  void write_uint16(std::uint16_t v) noexcept { put_header(head<2>{marker::uint16}, v); }
  void write_uint32(std::uint32_t v) noexcept { put_header(head<4>{marker::uint32}, v); }
  void write_uint64(std::uint64_t v) noexcept { put_header(head<8>{marker::uint64}, v); }
  void write_int8(std::int8_t v) noexcept { put_header(head<1>{marker::int8}, as_bits(v)); }
  void write_int16(std::int16_t v) noexcept { put_header(head<2>{marker::int16}, as_bits(v)); }
  void write_int32(std::int32_t v) noexcept { put_header(head<4>{marker::int32}, as_bits(v)); }
  void write_int64(std::int64_t v) noexcept { put_header(head<8>{marker::int64}, as_bits(v)); }
  MPK_WRITER_INLINE void write_float32(float v) noexcept {
    put_header(head<4>{marker::float32}, std::bit_cast<std::uint32_t>(v));
  }
  MPK_WRITER_INLINE void write_float64(double v) noexcept {
    put_header(head<8>{marker::float64}, std::bit_cast<std::uint64_t>(v));
  }

  /// Writes a non-negative integer in its smallest form.
  MPK_WRITER_INLINE void write_unsigned(std::uint64_t v) noexcept {
    detail::uint_head(v, [&](auto h) MPK_HEAD_LAMBDA { put_header(h, v); });
  }

  /// Writes a signed integer in its smallest form (non-negative values as unsigned ones).
  MPK_WRITER_INLINE void write_signed(std::int64_t v) noexcept {
    detail::sint_head(v, [&](auto h) MPK_HEAD_LAMBDA { put_header(h, as_bits(v)); });
  }

  // --- strings and binaries --------------------------------------------------------------

  /// Writes a string in its smallest form. errc::too_large at 2^32 bytes or more.
  MPK_WRITER_INLINE void write_str(std::string_view s) noexcept {
    detail::str_head(s.size(), options_.old_spec,
                     [&](auto h) MPK_HEAD_LAMBDA { put_with_payload(h, s); });
  }
  /// Writes UTF-16 text as a str of its UTF-8 form, in the smallest form for that length,
  /// transcoding straight into the output: no intermediate string.
  ///
  ///     w.write(u"caf\u00e9");   // a5 63 61 66 c3 a9
  ///
  /// Errors: errc::invalid_utf16 (a lone surrogate; nothing is written), errc::too_large,
  /// and the sink's errors.
  void write_str(std::u16string_view s) noexcept {
    if (!ok()) [[unlikely]]
      return;
    const std::size_t n = s.size();
    // Up to a few KiB: one pass into room for the worst case (3 bytes per code unit), the
    // payload placed after the header the shortest output (n bytes) would take. If the real
    // length needs a longer header (it crossed 31, 255 or 65535 bytes), the payload moves
    // up by 1 or 2 bytes: rare, and cheaper than measuring every string first.
    constexpr std::size_t one_pass_max = 4096;
    if (n <= one_pass_max) {
      const std::size_t low = detail::str_header_size(n, options_.old_spec);
      const std::size_t worst = detail::str_header_size(3 * n, options_.old_spec) + 3 * n;
      std::byte* p = fits_without_growing(worst) ? out_->prepare(worst) : nullptr;
      if (p != nullptr) [[likely]] {
        const detail::transcoded t =
            detail::utf16_to_utf8_wide(s.data(), n, reinterpret_cast<char*>(p + low));
        if (t.error_at != detail::transcoded::no_error) [[unlikely]]
          return fail(errc::invalid_utf16);
        const std::size_t size = detail::str_header_size(t.count, options_.old_spec);
        if (size != low) [[unlikely]]
          std::memmove(p + size, p + low, t.count);
        detail::put_str_header(p, t.count, options_.old_spec);
        return out_->commit(size + t.count);
      }
      // No room for the worst case (a span_sink near its end, or a buffer that would have
      // to grow for room it will mostly not use): measure, then write exactly.
    }
    write_str_measured(s);
  }

  /// Writes a string as str8 / str16 / str32 whatever its length; errc::too_large when it
  /// does not fit the chosen width.
  void write_str8(std::string_view s) noexcept { put_sized(head<1>{marker::str8}, s); }
  void write_str16(std::string_view s) noexcept { put_sized(head<2>{marker::str16}, s); }
  void write_str32(std::string_view s) noexcept { put_sized(head<4>{marker::str32}, s); }

  /// Writes a binary in its smallest form (bin8/16/32; a string in old-spec mode).
  void write_bin(std::span<const std::byte> b) noexcept {
    detail::bin_head(b.size(), options_.old_spec,
                     [&](auto h) MPK_HEAD_LAMBDA { put_with_payload(h, as_chars(b)); });
  }
  void write_bin8(std::span<const std::byte> b) noexcept {
    put_sized(head<1>{marker::bin8}, as_chars(b));
  }
  void write_bin16(std::span<const std::byte> b) noexcept {
    put_sized(head<2>{marker::bin16}, as_chars(b));
  }
  void write_bin32(std::span<const std::byte> b) noexcept {
    put_sized(head<4>{marker::bin32}, as_chars(b));
  }

  /// Writes only the header of a string of `n` bytes; the caller then writes exactly `n`
  /// bytes with `write_raw` (for text produced piece by piece).
  void write_str_header(std::size_t n) noexcept {
    detail::str_head(n, options_.old_spec, [&](auto h) MPK_HEAD_LAMBDA { put_header(h, n); });
  }
  /// Writes only the header of a binary of `n` bytes (see write_str_header).
  void write_bin_header(std::size_t n) noexcept {
    detail::bin_head(n, options_.old_spec, [&](auto h) MPK_HEAD_LAMBDA { put_header(h, n); });
  }

  // --- extensions ------------------------------------------------------------------------

  /// Writes an extension value: fixext1/2/4/8/16 when the size is one of those, else
  /// ext8/16/32. Types -128..-1 are reserved by the specification (-1 is the timestamp).
  void write_ext(std::int8_t type, std::span<const std::byte> data) noexcept {
    detail::ext_head(data.size(),
                     [&](auto h) MPK_HEAD_LAMBDA { put_with_payload(h, as_chars(data), type); });
  }

  /// Writes the header of an extension of `n` bytes (ext8/16/32, or fixext when `n` is
  /// 1, 2, 4, 8 or 16); the caller then writes exactly `n` bytes with `write_raw`.
  void write_ext_header(std::int8_t type, std::size_t n) noexcept {
    detail::ext_head(n, [&](auto h) MPK_HEAD_LAMBDA { put_header(h, n, type); });
  }

  // --- containers and raw bytes ----------------------------------------------------------

  /// Writes an array header for `n` elements (fixarray, array16, array32); the caller then
  /// writes the `n` elements. errc::too_large at 2^32 or more.
  void begin_array(std::size_t n) noexcept {
    detail::container_head<false>(n, [&](auto h) MPK_HEAD_LAMBDA { put_header(h, n); });
  }

  /// Writes a map header for `n` entries (fixmap, map16, map32); the caller then writes
  /// `n` keys and values alternately. errc::too_large at 2^32 or more.
  void begin_map(std::size_t n) noexcept {
    detail::container_head<true>(n, [&](auto h) MPK_HEAD_LAMBDA { put_header(h, n); });
  }

  // --- containers of unknown size (detail/writer_unsized.hpp) ----------------------------

  /// Opens an array whose number of elements is not known yet: write them, then end_array().
  /// The result is byte for byte what begin_array(n) and the same elements write: end_array()
  /// counts the elements (walking their headers; counted writes do no counting) and writes
  /// the smallest header. The cost: a placeholder header of 26 bytes holds the count's
  /// bookkeeping while the array is open, and end_array() moves the elements down behind
  /// the final header: one memmove per container. Nests with itself and with counted
  /// containers. The sink keeps the container's bytes until it closes: a buffer or a
  /// span_sink (which needs room for the 26 bytes), or a stream_sink, which holds them back
  /// from its target up to writer_options::unsized_staging_limit (beyond it
  /// errc::limit_exceeded).
  ///
  ///     w.begin_array();
  ///     for (int x : xs) if (x > 0) w.write(x);
  ///     w.end_array();
  ///
  /// Errors: errc::out_of_memory, errc::limit_exceeded (stream_sink), the sink's errors.
  void begin_array() noexcept requires detail::unsized_sink<Sink> {
    detail::unsized_ops::begin(*this, false);
  }
  /// Opens a map whose number of entries is not known yet: write keys and values
  /// alternately, then end_map(), which writes the header for their number of pairs.
  void begin_map() noexcept requires detail::unsized_sink<Sink> {
    detail::unsized_ops::begin(*this, true);
  }
  /// Closes the innermost begin_array() without a count. Errors: errc::invalid_argument (no
  /// such array open, or a map is the innermost), errc::truncated (the array ends inside a
  /// value: a counted container inside it short of elements, or a str/bin/ext header without
  /// all its payload), errc::too_large (2^32 elements or more), errc::invalid_marker (a byte
  /// 0xc1 written with write_raw). On an error the array stays open.
  void end_array() noexcept requires detail::unsized_sink<Sink> {
    detail::unsized_ops::end(*this, false);
  }
  /// Closes the innermost begin_map() without a count; as end_array(), and
  /// errc::invalid_argument when the map holds a key without its value.
  void end_map() noexcept requires detail::unsized_sink<Sink> {
    detail::unsized_ops::end(*this, true);
  }
  /// Containers of unknown size open (begun, not yet ended).
  std::size_t open_containers() noexcept { return detail::unsized_ops::count_open(*this); }

  /// Checks that the output is complete: returns error(), after setting it to
  /// errc::invalid_argument if a container of unknown size is still open. Such containers
  /// are then given up: a stream_sink drops their bytes (its target never sees any of them)
  /// and is free for other writes; a buffer or span_sink keeps them, their header a 0xc1
  /// byte that no reader accepts. Call it when done, before using the output.
  mpk::error finish() noexcept {
    if (unsized_at_ != detail::no_open_container) [[unlikely]] {
      if (ok()) fail(errc::invalid_argument);
      detail::unsized_ops::abandon(*this);
    }
    return error();
  }

  /// Copies pre-encoded bytes to the output unchanged (no check that they are MessagePack).
  void write_raw(std::span<const std::byte> bytes) noexcept {
    if (!ok()) [[unlikely]]
      return;
    if (!out_->append(bytes.data(), bytes.size())) [[unlikely]]
      fail(out_->failure());
  }

  /// Records `code` as the writer's error (when there is none yet), with the sink's size as
  /// its offset: for encoders layered on the writer that find their input invalid (e.g. a
  /// timestamp with nanoseconds >= 10^9). Later writes are no-ops, as after any error.
  void set_error(errc code) noexcept {
    if (code != errc::ok) fail(code);
  }

 private:
  friend struct detail::unsized_ops;

  template <std::size_t W>
  using head = detail::head<W>;

  static std::string_view as_chars(std::span<const std::byte> b) noexcept {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }
  /// A signed integer's two's-complement bits, for put_header (which stores the low bytes).
  static constexpr std::uint64_t as_bits(std::int64_t v) noexcept {
    return static_cast<std::uint64_t>(v);
  }

  // Out of line so that write(double), on every typed hot path, stays small enough to inline.
  MPK_NOINLINE void write_double_narrowing(double value) noexcept {
    if (float f; use_float32(value, f)) return write_float32(f);
    write_float64(value);
  }

  /// Narrows `d` for the float32 policy; true when float32 is to be written.
  bool use_float32(double d, float& f) const noexcept {
    constexpr double max = std::numeric_limits<float>::max();
    constexpr double half_ulp = 0x1p103;  // half of float's ulp at its largest value
    const bool beyond = std::isfinite(d) && (d > max || d < -max);
    if (beyond) {
      // A plain cast of a finite double beyond float's range is undefined in C++; round as
      // IEEE does instead: to the largest float within half an ulp, else to infinity.
      const double magnitude = std::fabs(d);
      const float r = magnitude < max + half_ulp ? std::numeric_limits<float>::max()
                                                 : std::numeric_limits<float>::infinity();
      f = d > 0 ? r : -r;
    } else {
      f = static_cast<float>(d);
    }
    if (options_.float32 == float32_policy::always) return true;
    return !beyond &&
           std::bit_cast<std::uint64_t>(static_cast<double>(f)) == std::bit_cast<std::uint64_t>(d);
  }

  // Cold but not noinline: passing `this` to an out-of-line function would let the writer's
  // address escape, and every byte stored through the sink's pointer would then force a
  // reload of its state (a few percent on a loop of one-byte writes like W4 build).
  [[gnu::cold]] void fail(errc code) noexcept { fail_inline(code); }
  /// fail() forced inline, for put_header's one-byte path: GCC leaves a cold function of the
  /// writer as a call there, and then reloads the sink's cursor after each store (W4 build).
  MPK_ALWAYS_INLINE void fail_inline(errc code) noexcept {
    if (error_.code == errc::ok) error_ = {code, detail::sink_position(*out_)};
  }

  /// Room for `n` bytes, or nullptr (and the sticky error set) when there is none. Forced
  /// inline with both compilers: each size class of a ladder has its own reservation of a
  /// constant size, and GCC left some as calls (W5 pack of maps of strings).
  MPK_ALWAYS_INLINE std::byte* reserve(std::size_t n) noexcept {
    if (!ok()) [[unlikely]]
      return nullptr;
    std::byte* p = out_->prepare(n);
    if (p == nullptr) [[unlikely]]
      fail(out_->failure());
    return p;
  }

  /// Header `h` (from a ladder of detail/header.hpp, or a forced width) with number `n`: the
  /// whole value for a scalar (`n` its bits), the header alone for the header calls (`n` the
  /// length or count). errc::too_large when a ladder found `n` too large (too_large_head).
  template <class H>
  MPK_WRITER_INLINE void put_header(H h, std::uint64_t n) noexcept {
    if constexpr (!H::fits) {
      fail(errc::too_large);
    } else if constexpr (H::size == 1 && one_block_sink) {
      // A one-byte value or header (the marker alone: fixints, fixarray, fixmap, nil, bool)
      // through put_byte(), whose store does not make the compiler reload the sink's size,
      // capacity and data pointer: W4 build (four one-byte writes a level) runs 1.25-1.4x
      // faster for it, though cells where the next write does not reuse the size in a
      // register count up to 3.6% more instructions (docs/investigations.md, "W4 build").
      if (!ok()) [[unlikely]]
        return;
      if (!out_->put_byte(h.marker)) [[unlikely]]
        fail_inline(out_->failure());
    } else {
      std::byte* p = reserve(H::size);
      if (p == nullptr) [[unlikely]]
        return;
      detail::put_head(p, h, n);
      out_->commit(H::size);
    }
  }
  /// An ext header: `h` for `n` bytes of data, then the type byte.
  template <class H>
  void put_header(H h, std::uint64_t n, std::int8_t type) noexcept {
    if constexpr (!H::fits) {
      fail(errc::too_large);
    } else {
      std::byte* p = reserve(H::size + 1);
      if (p == nullptr) [[unlikely]]
        return;
      // n < 2^32 here (a head that fits was chosen for it), so it fits a 32-bit size_t too.
      detail::put_ext_head(p, h, type, static_cast<std::size_t>(n));
      out_->commit(H::size + 1);
    }
  }

  /// Header `h` for `payload` (for an ext with its type byte: `Ext...` is the type), then the
  /// payload. Into a sink that holds its output in one block (mpk::buffer, span_sink) the
  /// header and payload share one reservation whatever the length: a large payload costs one
  /// growth and one copy (W2 bin_1m_write, W6 strN). Into other sinks (stream_sink) large
  /// payloads are appended, so that they pass straight to the target.
  template <class H, class... Ext>
  MPK_WRITER_INLINE void put_with_payload(H h, std::string_view payload, Ext... type) noexcept {
    static_assert(sizeof...(Ext) <= 1);
    const std::size_t n = payload.size();
    if constexpr (!H::fits) {
      fail(errc::too_large);
    } else {
      constexpr std::size_t one_reservation_max = 256;
      if (!one_block_sink && n > one_reservation_max) {
        put_header(h, n, type...);
        return write_raw({reinterpret_cast<const std::byte*>(payload.data()), n});
      }
      constexpr std::size_t header = H::size + sizeof...(Ext);
      std::byte* p = reserve(header + n);
      if (p == nullptr) [[unlikely]]
        return;
      if constexpr (sizeof...(Ext) == 0)
        detail::put_head(p, h, n);
      else
        detail::put_ext_head(p, h, type..., n);
      detail::copy_bytes(p + header, payload.data(), n);
      out_->commit(header + n);
    }
  }

  /// Sinks whose prepare() gives room for any length in one block (the output is one array
  /// of bytes), so a payload gains nothing from being appended apart from its header.
  static constexpr bool one_block_sink =
      std::is_same_v<Sink, buffer> || std::is_same_v<Sink, span_sink>;

  /// False when reserving `n` bytes would make the sink grow (a sink that says how much
  /// room it has, like mpk::buffer). Worst-case reservations ask this first: a buffer sized
  /// for its output should not double (and copy everything) for room that goes unused.
  bool fits_without_growing(std::size_t n) const noexcept {
    if constexpr (requires(const Sink& s) {
                    { s.room() } -> std::convertible_to<std::size_t>;
                  })
      return out_->room() >= n;
    else
      return true;  // prepare() decides
  }

  /// write_str(u16string_view) in two passes: the UTF-8 length (which also finds a lone
  /// surrogate before anything is written), the header, then the payload in pieces, so that a
  /// stream_sink never stages more than a piece.
  MPK_NOINLINE void write_str_measured(std::u16string_view s) noexcept {
    const detail::transcoded len = detail::utf8_length_raw(s.data(), s.size());
    if (len.error_at != detail::transcoded::no_error) return fail(errc::invalid_utf16);
    write_str_header(len.count);
    constexpr std::size_t piece = 4096;
    for (std::size_t i = 0; i < s.size() && ok();) {
      std::size_t take = std::min(piece, s.size() - i);
      if (take < s.size() - i && (s[i + take - 1] & 0xfc00u) == 0xd800u)
        --take;  // never split a surrogate pair
      std::byte* p = fits_without_growing(3 * take) ? out_->prepare(3 * take) : nullptr;
      if (p == nullptr) {  // not the worst case: maybe the exact size
        p = reserve(take == s.size() ? len.count
                                     : detail::utf8_length_raw(s.data() + i, take).count);
        if (p == nullptr) return;
      }
      const detail::transcoded t =
          detail::utf16_to_utf8_raw(s.data() + i, take, reinterpret_cast<char*>(p));
      out_->commit(t.count);
      i += take;
    }
  }

  /// A forced width (write_str8, write_bin16, ...): errc::too_large when `s` is longer than
  /// the width holds.
  template <std::size_t W>
  void put_sized(head<W> h, std::string_view s) noexcept {
    if (s.size() > head<W>::max) return fail(errc::too_large);
    put_with_payload(h, s);
  }

  Sink* out_;
  writer_options options_;
  detail::sticky_error error_{};
  std::size_t unsized_at_ = detail::no_open_container;  // innermost begin_array() (no count)
};

template <sink Sink>
writer(Sink&) -> writer<Sink>;
template <sink Sink>
writer(Sink&, writer_options) -> writer<Sink>;

}  // namespace mpk::inline v0
