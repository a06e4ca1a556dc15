// mpk/reader.hpp - a MessagePack pull reader over a span of bytes.
//
//     mpk::reader r(bytes);
//     std::uint32_t n = r.read_map_header();
//     for (std::uint32_t i = 0; i < n; ++i) {
//       std::string_view key = r.read_string_view();
//       if (key == "id") id = r.read<std::int64_t>();
//       else r.skip();
//     }
//     if (!r.ok()) return r.error();   // errors are sticky: check once, at the end
//
// How it is fast: every read makes one bounds check ("at least 9 bytes left?"), decodes the
// first byte through branches (the fix formats are arithmetic) and reads any header without
// further checks; values in the last 8 bytes of the input take an out-of-line path that
// checks each header byte against the end. Strings and binaries are views into
// the input. `skip()`, `field_size()` and `raw_value()` walk nested values with a count of
// items still owed per level, never by recursion.
//
// How it is safe: every length and count is checked against `limits` and against the bytes
// that remain (an array needs at least 1 byte per element, a map 2 per entry) before it is
// used; integer and float conversions are range-checked; nesting is bounded by
// `limits::max_depth`. `unchecked_reader` drops those checks for trusted input only.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mpk/bytes.hpp"
#include "mpk/detail/reader_decoders.hpp"
#include "mpk/detail/reader_extent.hpp"
#include "mpk/error.hpp"
#include "mpk/format.hpp"
#include "mpk/reader/options.hpp"
#include "mpk/unicode.hpp"

namespace mpk::inline v0 {

/// A MessagePack pull reader over bytes in memory. It never copies or allocates (except for
/// `skip()` and friends on values nested deeper than 64 levels) and never throws.
///
/// Errors are sticky: the first one is recorded with the offset of the value it concerns,
/// every later call is a no-op that returns a default value, and you check `ok()` or
/// `error()` once at the end. After an error, `position()` is the error's offset,
/// `remaining()` is 0 and `at_end()` is true.
///
/// A reader is cheap to copy: copy it to look ahead, and throw the copy away.
///
/// With the `unchecked` policy (`mpk::unchecked_reader`) the reader trusts its input: it
/// skips every bounds, limit, depth and range check, so malformed or truncated input, or
/// reading past the end, is undefined behaviour. Type mismatches and 0xc1 are still errors.
template <class Policy = checked>
class basic_reader {
  static_assert(std::is_same_v<Policy, checked> || std::is_same_v<Policy, unchecked>,
                "mpk::basic_reader: the policy is mpk::checked or mpk::unchecked");
  static constexpr bool is_checked = std::is_same_v<Policy, checked>;

 public:
  using policy = Policy;

  /// A reader with no input: every read is errc::truncated.
  basic_reader() noexcept = default;

  /// A reader over `input` (any mpk::byte_input: std::string, std::span<const std::byte>,
  /// std::vector<std::uint8_t>, mpk::buffer, ...), enforcing `options.limits` and checking
  /// the strings that `options.utf8` says for valid UTF-8. The reader views
  /// `input`, which must outlive it: a temporary that owns its bytes (a std::string, a
  /// vector, a buffer) does not compile.
  ///
  ///     mpk::reader r(msg);   // a std::string holding a message
  template <class B>
  requires byte_input<std::remove_cvref_t<B>>
  explicit basic_reader(B&& input, const read_options& options = {}) noexcept
      : basic_reader(checked_view<B>(input), options, 0) {}

  /// A reader over `size` bytes at `data`.
  basic_reader(const void* data, std::size_t size, const read_options& options = {}) noexcept
      : basic_reader(std::span<const std::byte>(static_cast<const std::byte*>(data), size), options,
                     0) {}

  /// Starts again on `input` (viewed, as by the constructor), with the same options, and
  /// clears the error.
  template <class B>
  requires byte_input<std::remove_cvref_t<B>>
  void reset(B&& input) noexcept {
    const std::span<const std::byte> in = checked_view<B>(input);
    begin_ = p_ = in.data();
    end_ = in.data() + in.size();
    err_ = {};
  }

  /// The options this reader was given: the limits it enforces, the strings it checks for
  /// UTF-8, and (for the decoders layered on it) strictness.
  const read_options& options() const noexcept { return options_; }

  // --- state ---------------------------------------------------------------------------

  /// True when no bytes remain (or after an error).
  bool at_end() const noexcept { return p_ == end_; }
  /// Offset of the next value from the start of the input (after an error: its offset).
  std::size_t position() const noexcept {
    return err_.code != errc::ok ? err_.offset : static_cast<std::size_t>(p_ - begin_);
  }
  /// Bytes not read yet (0 after an error).
  std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - p_); }
  /// The first error and the offset of the value it concerns; errc::ok when none.
  mpk::error error() const noexcept { return err_; }
  /// True while no error happened.
  bool ok() const noexcept { return err_.code == errc::ok; }

  /// Records `e` as the reader's error (when there is none yet) and stops the reader, as any
  /// read error does; `e.offset` is an offset into the input (clamped to its size). For
  /// decoders layered on the reader that find a well-formed value invalid for their target
  /// (e.g. read_timestamp on nanoseconds >= 10^9).
  void set_error(mpk::error e) noexcept {
    if (e.code == errc::ok) return;
    const auto size = static_cast<std::size_t>(end_ - begin_);
    fail_at(begin_ + (e.offset < size ? e.offset : size), e.code);
  }

  // --- reading -------------------------------------------------------------------------

  /// The family of the next value, without consuming it.
  ///
  ///     switch (r.peek()) { case mpk::type::str: ...; case mpk::type::uint: ...; }
  ///
  /// Errors (returning type::invalid): errc::truncated at the end of the input,
  /// errc::invalid_marker on the byte 0xc1.
  [[nodiscard]] MPK_ALWAYS_INLINE type peek() noexcept {
    if constexpr (is_checked) {
      if (p_ == end_) [[unlikely]] {
        fail_at(p_, errc::truncated);
        return type::invalid;
      }
    }
    const type t = detail::family_table[detail::u8(p_)];
    if (t == type::invalid) [[unlikely]]
      fail_at(p_, errc::invalid_marker);
    return t;
  }

  /// Reads the next value as a T and consumes it. T is one of:
  /// - an integer type (int8_t..int64_t, uint8_t..uint64_t, long, ...; not char): accepts
  ///   every integer format, whatever its width or signedness, when the value fits T;
  /// - `bool`; `std::nullptr_t` (a nil);
  /// - `double`: accepts float32, float64 and integers that a double holds exactly;
  /// - `float`: accepts float32, float64 (rounded to nearest; NaN and infinities pass) and
  ///   integers that a float holds exactly;
  /// - `std::string_view` (a str), `std::span<const std::byte>` (a bin): views into the input;
  ///   a view is checked for UTF-8 only with utf8_check::all;
  /// - `std::string` (a str, copied; checked for UTF-8 unless utf8_check::none);
  /// - `std::u16string` (a str, transcoded from UTF-8; always checked, so it never holds a
  ///   lone surrogate);
  /// - `mpk::ext_view` (fixext1..16, ext8/16/32).
  ///
  ///     auto id = r.read<std::uint32_t>();   auto name = r.read<std::string_view>();
  ///
  /// Errors (returning T{} and consuming nothing): errc::truncated (the input ends inside the
  /// value), errc::invalid_marker (0xc1), errc::type_mismatch (another family, e.g. a float
  /// into an integer), errc::out_of_range (an integer that does not fit T, a finite double
  /// beyond float's range, an integer a float or double cannot hold exactly),
  /// errc::limit_exceeded (a str, bin or ext longer than its limit), errc::invalid_utf8 (a str
  /// that is not UTF-8, where checked; the offset is the str's), errc::out_of_memory (copying
  /// into a std::string or std::u16string failed).
  template <class T>
  [[nodiscard]] MPK_ALWAYS_INLINE T read() noexcept {
    if constexpr (std::is_same_v<T, std::string>) {
      return read_string();
    } else if constexpr (std::is_same_v<T, std::u16string>) {
      return read_u16string();
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      return read_string_view();
    } else {
      static_assert(!std::is_same_v<T, char> && !std::is_same_v<T, wchar_t> &&
                        !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> &&
                        !std::is_same_v<T, char32_t>,
                    "mpk::reader::read<T>: character types are not integers here; read "
                    "std::int8_t / std::uint8_t, or read<std::string_view>() for text");
      static_assert(!std::is_void_v<detail::decoder_for<T>>,
                    "mpk::reader::read<T>: T must be an integer, bool, float, double, "
                    "std::string_view, std::string, std::u16string, "
                    "std::span<const std::byte>, std::nullptr_t or mpk::ext_view");
      return read_with<detail::decoder_for<T>>();
    }
  }

  /// Reads a nil. Errors: errc::truncated, errc::invalid_marker, errc::type_mismatch.
  MPK_ALWAYS_INLINE void read_nil() noexcept { (void)read_with<detail::nil_decoder>(); }

  /// Consumes the next value and returns true if it is a nil; otherwise (also at the end of
  /// the input or after an error) returns false, consumes nothing and records no error.
  ///
  ///     std::optional<int> v; if (!r.try_read_nil()) v = r.read<int>();
  [[nodiscard]] MPK_ALWAYS_INLINE bool try_read_nil() noexcept {
    if (p_ != end_ && detail::u8(p_) == marker::nil) {
      ++p_;
      return true;
    }
    return false;
  }

  /// Reads a str (fixstr, str8/16/32) as a view into the input; checked for UTF-8 only
  /// with utf8_check::all.
  /// Errors (returning ""): errc::truncated, errc::invalid_marker, errc::type_mismatch,
  /// errc::limit_exceeded (longer than limits::max_str_len), errc::invalid_utf8 (with
  /// utf8_check::all; the offset is the str's).
  [[nodiscard]] MPK_ALWAYS_INLINE std::string_view read_string_view() noexcept {
    const std::byte* const at = p_;
    const std::string_view s = read_with<detail::str_decoder>();
    if (options_.utf8 == utf8_check::all && !is_valid_utf8(s)) [[unlikely]]
      return invalid_utf8_at(at);
    return s;
  }

  /// Reads a str into a new std::string, checked for UTF-8 unless utf8_check::none.
  /// Errors (returning ""): those of read_string_view(), errc::invalid_utf8, errc::out_of_memory.
  [[nodiscard]] std::string read_string() noexcept {
    const std::byte* const at = p_;
    const std::string_view s = read_with<detail::str_decoder>();
    if (options_.utf8 != utf8_check::none && !is_valid_utf8(s)) [[unlikely]]
      return std::string(invalid_utf8_at(at));
#if __cpp_exceptions
    try {
      return std::string(s);
    } catch (const std::bad_alloc&) {
      fail_at(at, errc::out_of_memory);
      return {};
    }
#else
    return std::string(s);
#endif
  }

  /// Reads a str into a new std::u16string, transcoded from UTF-8 (always checked: the
  /// result never holds a lone surrogate).
  /// Errors (returning u""): those of read_string_view(), errc::invalid_utf8, errc::out_of_memory.
  [[nodiscard]] std::u16string read_u16string() noexcept {
    const std::byte* const at = p_;
    const std::string_view s = read_with<detail::str_decoder>();
    std::u16string out;
#if __cpp_exceptions
    try {
#endif
      out.resize(s.size());  // one code unit per byte at most
#if __cpp_exceptions
    } catch (const std::bad_alloc&) {
      fail_at(at, errc::out_of_memory);
      return {};
    }
#endif
    const detail::transcoded t = detail::utf8_to_utf16_raw(s.data(), s.size(), out.data());
    if (t.error_at != detail::transcoded::no_error) [[unlikely]] {
      invalid_utf8_at(at);
      return {};
    }
    out.resize(t.count);  // shrinking: no allocation
    return out;
  }

  /// Reads a bin (bin8/16/32) as a view into the input.
  /// Errors (returning an empty span): errc::truncated, errc::invalid_marker,
  /// errc::type_mismatch, errc::limit_exceeded (longer than limits::max_bin_len).
  [[nodiscard]] MPK_ALWAYS_INLINE std::span<const std::byte> read_bin() noexcept {
    return read_with<detail::bin_decoder>();
  }

  /// Reads an extension value (fixext1..16, ext8/16/32); its data is a view into the input.
  /// Errors (returning {0, {}}): errc::truncated, errc::invalid_marker, errc::type_mismatch,
  /// errc::limit_exceeded (data longer than limits::max_ext_len).
  [[nodiscard]] MPK_ALWAYS_INLINE ext_view read_ext() noexcept {
    return read_with<detail::ext_decoder>();
  }

  /// Reads an array header and returns its element count; read (or skip) that many values
  /// next.
  ///
  ///     for (auto n = r.read_array_header(); n > 0; --n) sum += r.read<double>();
  ///
  /// Errors (returning 0): errc::truncated (also when fewer bytes remain than elements: each
  /// needs one at least), errc::invalid_marker, errc::type_mismatch, errc::limit_exceeded
  /// (more than limits::max_array_len). Depth is not tracked here: the caller nests.
  [[nodiscard]] MPK_ALWAYS_INLINE std::uint32_t read_array_header() noexcept {
    return read_with<detail::header_decoder<false>>();
  }

  /// Reads a map header and returns its entry count; read that many key/value pairs next.
  /// Errors (returning 0): errc::truncated (also when fewer than 2 bytes per entry remain),
  /// errc::invalid_marker, errc::type_mismatch, errc::limit_exceeded (more than
  /// limits::max_map_len).
  [[nodiscard]] MPK_ALWAYS_INLINE std::uint32_t read_map_header() noexcept {
    return read_with<detail::header_decoder<true>>();
  }

  // --- whole values --------------------------------------------------------------------

  /// Consumes the next complete value, however nested, without recursion.
  ///
  ///     if (key != "id") r.skip();
  ///
  /// Errors: errc::truncated, errc::invalid_marker (0xc1 anywhere inside),
  /// errc::limit_exceeded (a length or count above its limit), errc::depth_exceeded (nesting
  /// beyond limits::max_depth), errc::out_of_memory (only when nesting beyond 64 levels and
  /// an allocation fails). The error offset is that of the innermost offending value.
  MPK_ALWAYS_INLINE void skip() noexcept {
    p_ += value_size();
  }

  /// The size in bytes of the next complete value, without consuming it. Agrees exactly
  /// with skip() and raw_value().
  ///
  ///     std::size_t n = r.field_size();   // bytes of the next value, header included
  ///
  /// Errors (returning 0): those of skip().
  [[nodiscard]] MPK_ALWAYS_INLINE std::size_t field_size() noexcept {
    return value_size();
  }

  /// Consumes the next complete value and returns its bytes (a view into the input), e.g.
  /// to store or forward it undecoded.
  ///
  ///     std::span<const std::byte> payload = r.raw_value();
  ///
  /// Errors (returning an empty span): those of skip().
  [[nodiscard]] MPK_ALWAYS_INLINE std::span<const std::byte> raw_value() noexcept {
    const std::byte* const s = p_;
    const std::size_t n = value_size();
    p_ += n;
    return {s, n};
  }

 protected:
  // For a reader layered on this one (ext/records' value source, which resolves msgpackr
  // records before the codec reads): the bytes as they stand, and a move past `n` bytes
  // the caller has checked are there.
  const std::byte* input_begin() const noexcept {
    return begin_;
  }
  const std::byte* next_byte() const noexcept {
    return p_;
  }
  const std::byte* input_end() const noexcept {
    return end_;
  }
  MPK_ALWAYS_INLINE void advance(std::size_t n) noexcept {
    p_ += n;
  }
  MPK_ALWAYS_INLINE void fail_at_ptr(const std::byte* where, errc code) noexcept {
    fail_at(where, code);
  }

 private:
  // The hot paths are inline and hand nothing but values to out-of-line code (never `this`
  // nor the address of a member), so a reader in a local variable lives in registers.

  /// Runs decoder D on the next value.
  template <class D>
  MPK_ALWAYS_INLINE typename D::value_type read_with() noexcept {
    const std::byte* const p = p_;
    if constexpr (is_checked) {
      const auto avail = static_cast<std::size_t>(end_ - p);
      if (avail >= 9) [[likely]]
        return finish(D::template run<true>(p, p, avail, options_.limits));
      return finish(detail::decode_short<D>(p, end_, limits_copy()));
    } else {
      return finish(D::template run<false>(p, p, 0, options_.limits));
    }
  }

  template <class T>
  MPK_ALWAYS_INLINE T finish(const detail::decoded<T>& d) noexcept {
    if (d.ec == errc::ok) [[likely]] {
      p_ += d.size;
      return d.value;
    }
    fail_at(p_, d.ec);
    return T{};
  }

  /// The size of the complete value at p_, or 0 after recording an error (every value takes
  /// one byte at least). Scalars take the inline path; containers, errors and the last few
  /// bytes of the input take walk_nested().
  MPK_ALWAYS_INLINE std::size_t value_size() noexcept {
    const std::byte* const p = p_;
    if constexpr (is_checked) {
      const auto avail = static_cast<std::size_t>(end_ - p);
      if (avail >= 9) [[likely]] {
        const detail::extent x = detail::value_extent<true>(p, avail, options_.limits);
        if (!x.container && x.ec == errc::ok) [[likely]]
          return x.size;
      }
    } else {
      const detail::extent x = detail::value_extent<false>(p, 0, options_.limits);
      if (!x.container && x.ec == errc::ok) [[likely]]
        return x.size;
    }
    const detail::walk_result w = detail::walk_nested<is_checked>(p, end_, limits_copy());
    if (w.ec != errc::ok) [[unlikely]] {
      fail_at(w.at, w.ec);
      return 0;
    }
    return static_cast<std::size_t>(w.at - p);
  }

  basic_reader(std::span<const std::byte> input, const read_options& options, int) noexcept
      : begin_(input.data()),
        p_(input.data()),
        end_(input.data() + input.size()),
        options_(options) {}

  // The view a reader takes of `input`; a temporary that owns its bytes would dangle.
  template <class B>
  static std::span<const std::byte> checked_view(const std::remove_cvref_t<B>& input) noexcept {
    static_assert(std::is_lvalue_reference_v<B> || std::ranges::borrowed_range<B>,
                  "mpk::reader: the input is a temporary that owns its bytes, and the reader "
                  "would point into it after it is destroyed; keep it in a variable");
    return mpk::as_bytes(input);
  }

  /// Records errc::invalid_utf8 for the str at `at` (already consumed: the reader stops there).
  MPK_COLD std::string_view invalid_utf8_at(const std::byte* at) noexcept {
    fail_at(at, errc::invalid_utf8);
    return {};
  }

  /// The limits, copied field by field: the out-of-line paths get a copy, never the member
  /// itself (a compiler may pass a by-value aggregate by address, and the reader would then
  /// no longer live in registers).
  MPK_ALWAYS_INLINE limits limits_copy() const noexcept {
    return limits{options_.limits.max_depth,     options_.limits.max_str_len,
                  options_.limits.max_bin_len,   options_.limits.max_ext_len,
                  options_.limits.max_array_len, options_.limits.max_map_len};
  }

  /// Records the first error (a later one is ignored) and stops the reader: the end moves to
  /// the error's position, so every later read falls into the short path and fails there,
  /// without touching the error. The unchecked reader moves to a run of 0xc1 bytes instead,
  /// on which every read fails at once.
  MPK_ALWAYS_INLINE void fail_at(const std::byte* where, errc code) noexcept {
    if (err_.code != errc::ok) return;
    err_ = {code, static_cast<std::size_t>(where - begin_)};
    if constexpr (is_checked) {
      p_ = end_ = where;
    } else {
      p_ = end_ = detail::poison;
    }
  }

  const std::byte* begin_ = nullptr;
  const std::byte* p_ = nullptr;
  const std::byte* end_ = nullptr;
  read_options options_{};
  detail::sticky_error err_{};
};

/// The reader for untrusted input: every check on (the default policy).
using reader = basic_reader<checked>;
/// The reader for trusted input only: no bounds, limit, depth or range checks. Malformed or
/// truncated input is undefined behaviour: never use it on bytes an attacker can influence.
using unchecked_reader = basic_reader<unchecked>;

}  // namespace mpk::inline v0
