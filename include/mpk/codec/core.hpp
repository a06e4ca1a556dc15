// mpk/codec/core.hpp - the typed-mapping core: the codec<T> customization point, pack and
// unpack, the decoding context (strict mode, depth, codec errors) and the scalar codecs.
//
// A codec<T> has two static functions:
//
//     template <class Sink> static void write(mpk::writer<Sink>& w, const T& v);
//     static void read(mpk::reader& r, T& out, mpk::read_context& ctx);
//     // or, when the codec needs neither strict mode, depth nor its own errors:
//     static void read(mpk::reader& r, T& out);
//
// Errors are sticky on both sides: a codec never returns one, it leaves it in the writer
// (writer::set_error) or the reader (reader::set_error, read_context::fail), and pack and
// unpack report the first one.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mpk/buffer.hpp"
#include "mpk/error.hpp"
#include "mpk/format.hpp"
#include "mpk/reader.hpp"
#include "mpk/writer.hpp"

namespace mpk::inline v0 {

/// An empty tag naming a type; the argument of the ADL hooks `mpk_describe` and
/// `mpk_enum_names` that MPK_MAP, MPK_ARRAY and MPK_ENUM define.
template <class T>
struct type_tag {
  using type = T;
};

/// Options of `mpk::unpack`.
///
///     auto cfg = mpk::unpack<config>(bytes, {.strict = true});
struct unpack_options {
  /// Limits of the reader that `unpack(bytes)` makes; `unpack(reader&, ...)` uses the
  /// reader's own limits. `limits.max_depth` also bounds the nesting of typed values.
  mpk::limits limits{};
  /// Strict mode: unknown keys (errc::unknown_key), missing keys (errc::missing_key) and
  /// duplicate keys (errc::duplicate_key) of MPK_MAP structs are errors, and MPK_ARRAY
  /// structs need exactly as many elements as they have fields (shorter: errc::missing_key,
  /// longer: errc::unknown_key). Otherwise unknown keys and extra elements are skipped,
  /// missing ones keep their value, and the last of duplicate keys wins.
  bool strict = false;
  /// UTF-8 checks of the reader that `unpack(bytes)` makes (`unpack(reader&, ...)` uses the
  /// reader's): by default std::string and std::u16string members are checked
  /// (errc::invalid_utf8), std::string_view members and map keys are not.
  mpk::utf8_check utf8 = mpk::utf8_check::owned;
  /// `unpack(bytes)` only: accept bytes after the value (otherwise errc::trailing_bytes).
  bool allow_trailing_bytes = false;
};

/// A set of MessagePack types (bit `1 << mpk::type`): what a codec writes and reads first
/// (`static constexpr mpk::wire_types wire` in the codec). Untagged variants choose their
/// alternative by it, and unpack errors say what was expected from it.
using wire_types = std::uint16_t;

/// The set holding type `t` alone.
constexpr wire_types wire_of(type t) noexcept {
  return static_cast<wire_types>(1u << static_cast<unsigned>(t));
}

namespace detail {
/// "float64", "int", "str", "nil or map", ...: the types of `w` in words ("" for none).
std::string_view wire_text(wire_types w, char* buf, std::size_t size) noexcept;
}  // namespace detail

/// What a decoding carries besides the reader: strict mode and the nesting depth of typed
/// containers. Errors live in the reader (sticky, with their offset): a codec reports its
/// own with `fail` (or `reader::set_error`).
///
/// Codecs that decode containers call `enter` / `leave` around their elements, so that a
/// recursive type (a struct holding a std::vector of itself) cannot nest beyond
/// `limits::max_depth` whatever the input says.
class read_context {
 public:
  read_context() noexcept = default;
  explicit read_context(const unpack_options& options) noexcept : strict_(options.strict) {}

  /// True in strict mode (see unpack_options::strict).
  bool strict() const noexcept { return strict_; }
  /// Containers currently open (a top-level array or map is depth 1).
  std::uint32_t depth() const noexcept { return depth_; }

  /// Records errc `code` at byte `offset` of the input in the reader, unless it already
  /// holds an error; the reader stops there (every later read is a no-op that fails).
  MPK_COLD void fail(reader& r, errc code, std::size_t offset) noexcept {
    r.set_error({code, offset});
  }

  /// Opens a container that starts at byte `offset`; false (and errc::depth_exceeded) when
  /// that is deeper than the reader's limits::max_depth. Call leave() after a true.
  MPK_ALWAYS_INLINE bool enter(reader& r, std::size_t offset) noexcept {
    if (depth_ >= r.get_limits().max_depth) [[unlikely]] {
      fail(r, errc::depth_exceeded, offset);
      return false;
    }
    ++depth_;
    return true;
  }
  /// Closes the container opened by the last successful enter().
  MPK_ALWAYS_INLINE void leave() noexcept { --depth_; }

  /// True while a container reads into an element it already had (a std::vector reusing
  /// its elements): a struct then gives the members the input does not mention the value of
  /// a new T, so that the element ends as a new one would. Returns the previous setting.
  bool as_new() const noexcept { return as_new_; }
  MPK_ALWAYS_INLINE bool set_as_new(bool on) noexcept {
    const bool was = as_new_;
    as_new_ = on;
    return was;
  }

  // --- where an error happened: codecs call these only after a read failed ---------------

  /// The error now in the reader happened in the value of map key `key`: prepends "/key" to
  /// its path. `expected` (the wire types of the value's codec) says what was expected, if
  /// this is the innermost value. Never fails (a path of more than 255 bytes loses its
  /// outermost segments, shown as "/...").
  void failed_in(std::string_view key, wire_types expected) noexcept;
  /// The same for element `index` of an array.
  void failed_at(std::size_t index, wire_types expected) noexcept;

  /// `e` with its note: the path recorded (JSON Pointer) and, for errc::type_mismatch, what
  /// was expected (`top`: the wire types of the decoded type, when no member was recorded)
  /// and, when `input` holds the bytes `e.offset` counts in, what was found. Called by
  /// unpack on failure.
  error annotate(const error& e, wire_types top, std::span<const std::byte> input) const;

 private:
  static constexpr std::size_t path_capacity = 255;
  void prepend(std::string_view segment) noexcept;

  bool strict_ = false;
  bool as_new_ = false;
  bool path_cut_ = false;  // segments were lost
  std::uint8_t path_size_ = 0;
  wire_types expected_ = 0;
  std::uint32_t depth_ = 0;
  char path_[path_capacity];  // the path, in path_[path_capacity - path_size_, path_capacity)
};

namespace detail {
/// The offset of a value that started when `r` had `remaining_before` bytes left, for a
/// reader without an error: cheaper on the hot path than position() taken before the read
/// (no load of the error; the subtraction runs only where the offset is needed).
MPK_ALWAYS_INLINE std::size_t offset_before(const reader& r,
                                            std::size_t remaining_before) noexcept {
  return r.position() + r.remaining() - remaining_before;
}
}  // namespace detail

/// The customization point: specialize `mpk::codec<T>` for a type of yours (see the top of
/// this header and docs/codec.md). The primary template is left undefined, so a type
/// without a codec is a compile error naming it.
template <class T>
struct codec;

#define MPK_DETAIL_NO_CODEC_MESSAGE                                                         \
  "mpk: no mpk::codec<T> for this type. Only plain aggregates (public members, no "         \
  "constructors, no base classes) work without a description: describe T with MPK_MAP / "   \
  "MPK_ARRAY, or MPK_CLASS_MAP / MPK_CLASS_ARRAY inside the class for private members, or " \
  "specialize mpk::codec<T>"

/// True when `codec<T>` is defined (built in, MPK_MAP / MPK_ARRAY, or your own).
template <class T>
concept has_codec = requires {
  sizeof(codec<T>);
};

namespace detail {
/// True when a read into an existing T ends with what a read into a new T gives (for a
/// struct, with read_context::as_new() set): scalars and strings are replaced whole, the
/// standard containers end with exactly the input's elements, and a codec says so with a
/// `static constexpr bool reads_as_new` (a described struct: when all its members do). A
/// std::vector of such elements reads into the elements it has; of others (your own codecs
/// that do not say), into new ones.
template <class T>
struct reads_as_new : std::bool_constant<std::is_arithmetic_v<T> || std::is_enum_v<T>> {};
template <class T>
requires requires {
  codec<T>::reads_as_new;
}
struct reads_as_new<T> : std::bool_constant<codec<T>::reads_as_new> {};
template <class T>
inline constexpr bool reads_as_new_v = reads_as_new<T>::value;
}  // namespace detail

/// The wire types of T's codec (0 when it does not say).
template <class T>
constexpr wire_types wire_types_of() noexcept {
  if constexpr (requires { codec<T>::wire; })
    return codec<T>::wire;
  else
    return 0;
}

/// Writes `v` through its codec: the call codecs make for their members and elements.
/// Errors stay in the writer (see writer::error()).
template <class S, class T>
MPK_ALWAYS_INLINE void pack_value(writer<S>& w, const T& v) noexcept {
  static_assert(has_codec<T>, MPK_DETAIL_NO_CODEC_MESSAGE);
  codec<T>::write(w, v);
}

/// Reads into `out` through its codec: the call codecs make for their members and elements.
/// Errors stay in the reader (sticky; see reader::error()).
template <class T>
MPK_ALWAYS_INLINE void unpack_value(reader& r, T& out, read_context& ctx) {
  static_assert(has_codec<T>, MPK_DETAIL_NO_CODEC_MESSAGE);
  if constexpr (requires { codec<T>::read(r, out, ctx); }) {
    codec<T>::read(r, out, ctx);
  } else {
    codec<T>::read(r, out);
  }
}

namespace detail {
/// unpack_value at the top of a decoding (mpk::unpack, stream_decoder::next): a
/// std::bad_alloc from the target's containers or strings becomes errc::out_of_memory in the
/// reader, at the position reached, so that calls returning a result never throw it.
template <class T>
void unpack_top(reader& r, T& out, read_context& ctx) {
#if __cpp_exceptions
  try {
#endif
    unpack_value(r, out, ctx);
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    r.set_error({errc::out_of_memory, r.position()});
  }
#endif
}
}  // namespace detail

/// Encodes `v` into a new buffer.
///
///     mpk::result<mpk::buffer> bytes = mpk::pack(order);
///
/// Errors: errc::out_of_memory (the buffer could not grow), errc::too_large (a string,
/// binary or container of 2^32 bytes or elements or more). The offset is the number of
/// bytes written before the failure.
template <class T>
[[nodiscard]] result<buffer> pack(const T& v, writer_options options = {}) {
  buffer out;
  writer<buffer> w(out, options);
  pack_value(w, v);
  if (!w.ok()) return w.error();
  return out;  // moved: C++20 implicit move into result<T>(T&&)
}

/// Encodes `v` with an existing writer (any sink), after what it already holds, and returns
/// the writer's error: errc::ok, or whatever its sink can fail with (errc::out_of_memory,
/// errc::buffer_full, errc::io_error) and errc::too_large. The error is sticky in `w` too.
///
///     mpk::writer w(buf);  if (auto e = mpk::pack(order, w).error()) ...
template <class S, class T>
result<void> pack(const T& v, writer<S>& w) noexcept {
  pack_value(w, v);
  return w.error();
}

/// Decodes the next value of `r` into `out`. Members that the input does not mention keep
/// the value `out` has (non-strict mode). Returns the first error, with the byte offset of
/// the value it concerns:
/// - from the reader: errc::truncated, errc::invalid_marker, errc::type_mismatch,
///   errc::out_of_range, errc::limit_exceeded, errc::out_of_memory (see reader.hpp);
/// - errc::out_of_memory when a string or container of `out` cannot allocate (at the
///   position reached; std::bad_alloc does not escape);
/// - from the codecs: errc::depth_exceeded (typed containers nested beyond
///   limits::max_depth), errc::unknown_key, errc::missing_key, errc::duplicate_key (strict
///   mode, and duplicate elements of a std::set or keys of a std::map), errc::out_of_range
///   (a std::array, std::pair, std::tuple or std::variant of the wrong size or index, an
///   enum name that is not known).
/// The error returned also says where (error::path(), a JSON Pointer such as
/// "/items/2/price") and, for errc::type_mismatch, what was expected (error::to_string()).
/// After an error, `out` is partly assigned and `r` holds the error (see reader::error()),
/// without the path.
template <class T>
result<void> unpack(reader& r, T& out, const unpack_options& options = {}) {
  read_context ctx(options);
  detail::unpack_top(r, out, ctx);
  if (const mpk::error e = r.error()) [[unlikely]]
    return ctx.annotate(e, wire_types_of<T>(), {});
  return {};
}

/// Decodes one whole message into a new T (default-constructed first, so members the input
/// does not mention keep their defaults). Strings and binaries read into std::string_view or
/// std::span<const std::byte> members point into `bytes`, which must then outlive them.
///
///     mpk::result<order> o = mpk::unpack<order>(buf);
///     auto strict = mpk::unpack<order>(buf, {.strict = true});
///
/// Errors: those of unpack(reader&, T&), and errc::trailing_bytes when bytes follow the
/// value (unless options.allow_trailing_bytes).
template <class T>
[[nodiscard]] result<T> unpack(std::span<const std::byte> bytes,
                               const unpack_options& options = {}) {
  static_assert(std::is_default_constructible_v<T>,
                "mpk::unpack<T>: T must be default-"
                "constructible; unpack into an existing "
                "object with unpack(reader&, T&)");
  reader r(bytes, options.limits, options.utf8);
  read_context ctx(options);
  result<T> out;  // T value-initialized in place: decoded there and returned without a move
  detail::unpack_top(r, *out, ctx);
  if (const mpk::error e = r.error()) [[unlikely]]
    out = ctx.annotate(e, wire_types_of<T>(), bytes);
  else if (!options.allow_trailing_bytes && !r.at_end())
    out = mpk::error{errc::trailing_bytes, r.position()};
  return out;
}

// --- scalars ------------------------------------------------------------------------------

/// bool: true / false.
template <>
struct codec<bool> {
  template <class S>
  static void write(writer<S>& w, bool v) noexcept {
    w.write(v);
  }
  // One-reservation writing of structs (codec/describe.hpp): the room a value needs at most,
  // and the encoder that writes it there.
  static constexpr std::size_t direct_size(bool) noexcept { return 1; }
  MPK_ALWAYS_INLINE static std::byte* put_direct(std::byte* p, bool v) noexcept {
    p[0] = std::byte{v ? marker::true_value : marker::false_value};
    return p + 1;
  }
  MPK_ALWAYS_INLINE static void read(reader& r, bool& out) noexcept { out = r.read<bool>(); }
  static constexpr wire_types wire = wire_of(type::boolean);
};

/// Integers (not the character types): the smallest form on write; on read every integer
/// format whose value fits (errc::out_of_range otherwise).
template <class T>
requires detail::is_read_integer<T>
struct codec<T> {
  template <class S>
  MPK_ALWAYS_INLINE static void write(writer<S>& w, T v) noexcept {
    w.write(v);
  }
  MPK_ALWAYS_INLINE static void read(reader& r, T& out) noexcept { out = r.read<T>(); }
  static constexpr wire_types wire = wire_of(type::uint) | wire_of(type::sint);
  // The widest form of a T: its marker and sizeof(T) bytes (uint_head / sint_head).
  static constexpr std::size_t direct_size(T) noexcept { return 1 + sizeof(T); }
  MPK_ALWAYS_INLINE static std::byte* put_direct(std::byte* p, T v) noexcept {
    if constexpr (std::is_signed_v<T>)
      return detail::put_signed(p, static_cast<std::int64_t>(v));
    else
      return detail::put_unsigned(p, static_cast<std::uint64_t>(v));
  }
};

/// float: float32. double: float64 (or float32 as the writer's float32 policy says). Read
/// with the reader's coercions (integers a float or double holds exactly are accepted).
template <std::floating_point T>
requires(std::is_same_v<T, float> || std::is_same_v<T, double>) struct codec<T> {
  template <class S>
  MPK_ALWAYS_INLINE static void write(writer<S>& w, T v) noexcept {
    w.write(v);
  }
  MPK_ALWAYS_INLINE static void read(reader& r, T& out) noexcept { out = r.read<T>(); }
  // Written as float32 or float64 (reads integers too, but an untagged variant gives them
  // to an integer alternative first).
  static constexpr wire_types wire =
      wire_of(std::is_same_v<T, float> ? type::float32 : type::float64);
  // (The one-reservation path is taken only with float32_policy::never.)
  static constexpr std::size_t direct_size(T) noexcept { return 1 + sizeof(T); }
  MPK_ALWAYS_INLINE static std::byte* put_direct(std::byte* p, T v) noexcept {
    if constexpr (std::is_same_v<T, float>)
      return detail::put_float32(p, v);
    else
      return detail::put_float64(p, v);
  }
};

/// std::nullptr_t: nil.
template <>
struct codec<std::nullptr_t> {
  template <class S>
  static void write(writer<S>& w, std::nullptr_t) noexcept {
    w.write_nil();
  }
  static void read(reader& r, std::nullptr_t&) noexcept { r.read_nil(); }
  static constexpr wire_types wire = wire_of(type::nil);
};

/// std::string_view: a str, read zero-copy (a view into the input; no UTF-8 check).
template <>
struct codec<std::string_view> {
  template <class S>
  MPK_ALWAYS_INLINE static void write(writer<S>& w, std::string_view v) noexcept {
    w.write_str(v);
  }
  MPK_ALWAYS_INLINE static void read(reader& r, std::string_view& out) noexcept {
    out = r.read_str();
  }
  static constexpr wire_types wire = wire_of(type::str);
  static constexpr std::size_t direct_size(std::string_view v) noexcept { return 5 + v.size(); }
  MPK_ALWAYS_INLINE static std::byte* put_direct(std::byte* p, std::string_view v) noexcept {
    return detail::put_str(p, v);
  }
};

/// std::span<const std::byte>: a bin, read zero-copy (a view into the input).
template <>
struct codec<std::span<const std::byte>> {
  template <class S>
  static void write(writer<S>& w, std::span<const std::byte> v) noexcept {
    w.write_bin(v);
  }
  static void read(reader& r, std::span<const std::byte>& out) noexcept { out = r.read_bin(); }
  static constexpr wire_types wire = wire_of(type::bin);
};

// --- error paths (cold: run only after a read failed) --------------------------------------

namespace detail {
inline std::string_view wire_text(wire_types w, char* buf, std::size_t size) noexcept {
  const auto has = [w](type t) { return (w & wire_of(t)) != 0; };
  std::size_t n = 0;
  const auto add = [&](std::string_view word) {
    if (n != 0 && n + 4 <= size) {
      std::memcpy(buf + n, " or ", 4);
      n += 4;
    }
    if (n + word.size() <= size) {
      std::memcpy(buf + n, word.data(), word.size());
      n += word.size();
    }
  };
  if (has(type::uint) || has(type::sint)) add("int");
  for (type t : {type::boolean, type::float32, type::float64, type::str, type::bin, type::array,
                 type::map, type::ext, type::nil})
    if (has(t)) add(t == type::boolean ? std::string_view("bool") : type_name(t));
  return {buf, n};
}
}  // namespace detail

inline void read_context::prepend(std::string_view segment) noexcept {
  if (path_cut_ || path_size_ + segment.size() > path_capacity) {
    path_cut_ = true;
    return;
  }
  path_size_ = static_cast<std::uint8_t>(path_size_ + segment.size());
  std::memcpy(path_ + path_capacity - path_size_, segment.data(), segment.size());
}

MPK_COLD inline void read_context::failed_in(std::string_view key, wire_types expected) noexcept {
  if (path_size_ == 0 && !path_cut_) expected_ = expected;
  // JSON Pointer escapes: '~' as "~0", '/' as "~1" (RFC 6901)
  char buf[path_capacity];
  std::size_t n = 0;
  buf[n++] = '/';
  for (char c : key) {
    if (n + 2 > sizeof buf) {
      path_cut_ = true;
      return;
    }
    if (c == '~' || c == '/') {
      buf[n++] = '~';
      buf[n++] = c == '~' ? '0' : '1';
    } else {
      buf[n++] = c;
    }
  }
  prepend({buf, n});
}

MPK_COLD inline void read_context::failed_at(std::size_t index, wire_types expected) noexcept {
  if (path_size_ == 0 && !path_cut_) expected_ = expected;
  char buf[24];
  char* end = buf + sizeof buf;
  char* p = end;
  do {
    *--p = static_cast<char>('0' + index % 10);
    index /= 10;
  } while (index != 0);
  *--p = '/';
  prepend({p, static_cast<std::size_t>(end - p)});
}

MPK_COLD inline error read_context::annotate(const error& e, wire_types top,
                                             std::span<const std::byte> input) const {
  std::string path;
  if (path_cut_) path = "/...";
  path.append(path_ + path_capacity - path_size_, path_size_);
  std::string what;
  if (e.code == errc::type_mismatch) {
    const wire_types expected = path_size_ == 0 && !path_cut_ ? top : expected_;
    char buf[64];
    const std::string_view want = detail::wire_text(expected, buf, sizeof buf);
    if (!want.empty()) {
      what.append("expected ").append(want);
      if (e.offset < input.size()) {
        const type got = detail::family_table[static_cast<std::uint8_t>(input[e.offset])];
        what.append(", got ").append(detail::wire_text(wire_of(got), buf, sizeof buf));
      }
    }
  }
  if (path.empty() && what.empty()) return e;
  return {e.code, e.offset, detail::error_note::make(std::move(path), std::move(what))};
}

}  // namespace mpk::inline v0
