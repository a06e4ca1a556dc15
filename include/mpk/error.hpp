// mpk/error.hpp - error codes, errors with their byte offset, and result<T>.
//
// mpk reports failures as values: `errc` says what went wrong, `error` adds where (the byte
// offset in the input, or the number of bytes written for a writer). `result<T>` holds either
// a T or an error, like C++23's std::expected; `value()` throws `mpk::exception` when
// exceptions are enabled and aborts otherwise, so code built with -fno-exceptions checks
// `has_value()` or uses `get()`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "config.hpp"
#include "mpk/detail/error_note.hpp"

namespace mpk::inline v0 {

/// What went wrong. One small list for every layer of mpk.
enum class errc : std::uint8_t {
  ok = 0,
  truncated,          ///< the input ends inside a value (or cannot hold a declared count)
  invalid_marker,     ///< the reserved byte 0xc1
  type_mismatch,      ///< the value has another type than the one asked for
  out_of_range,       ///< the value does not fit the target type
  depth_exceeded,     ///< nesting deeper than limits::max_depth
  limit_exceeded,     ///< a length or count above the configured limits
  invalid_utf8,       ///< a string that is not valid UTF-8
  invalid_utf16,      ///< a lone surrogate in UTF-16 input
  invalid_timestamp,  ///< timestamp with nanoseconds >= 10^9 or a bad length
  duplicate_key,      ///< a map key seen twice where the policy forbids it
  unknown_key,        ///< a map key the target does not know (strict mode)
  missing_key,        ///< a required map key or array element is absent (strict mode)
  trailing_bytes,     ///< bytes left over after the value
  too_large,          ///< a string, binary or container too large for MessagePack (>= 2^32)
  buffer_full,        ///< a fixed-size output buffer has no room left
  out_of_memory,      ///< an allocation failed
  io_error,           ///< reading or writing a file, descriptor or stream failed
  invalid_argument,   ///< a caller error, e.g. an extension type outside -128..127
};

/// A short English message for an error code ("input ends inside a value", ...).
/// Never returns nullptr.
MPK_API const char* message(errc code) noexcept;

/// An error code and where it happened.
///
/// `offset` is the byte offset in the input where the offending value starts (reader,
/// document, codec) or the number of bytes written before the failure (writer).
struct MPK_API error {
  errc code = errc::ok;
  std::size_t offset = 0;
  /// Set by mpk::unpack: where the failing member is (see path()) and what was expected.
  detail::error_note note{};

  /// True when this holds an error.
  constexpr explicit operator bool() const noexcept { return code != errc::ok; }
  const char* message() const noexcept { return mpk::message(code); }
  /// The JSON Pointer of the member an unpack error concerns ("/items/2/price"); "" for the
  /// top-level value and for errors of the other layers.
  std::string_view path() const noexcept { return note.path(); }
  /// "offset 12: input ends inside a value"; from unpack, with the path and, for a type
  /// mismatch, the types: "offset 77 at /items/2/price: expected float64, got str".
  std::string to_string() const;

  /// Code and offset (the note only describes them).
  friend bool operator==(const error& a, const error& b) noexcept {
    return a.code == b.code && a.offset == b.offset;
  }
  friend constexpr bool operator==(const error& e, errc c) noexcept { return e.code == c; }
};

namespace detail {
/// The sticky error of a reader, writer or stream decoder: code and offset only. Trivially
/// copyable on purpose: an mpk::error carries a shared note (unpack's member path), and a
/// member with a non-trivial destructor made the reader's state (cursor, end) live in memory
/// instead of registers (+27% instructions on a loop of int/str/double reads; callgrind).
/// Converted to mpk::error where the object reports it.
struct sticky_error {
  errc code = errc::ok;
  std::size_t offset = 0;

  constexpr explicit operator bool() const noexcept { return code != errc::ok; }
  operator mpk::error() const noexcept { return mpk::error{code, offset}; }
};
}  // namespace detail

/// The std::error_category of mpk::errc ("mpk").
MPK_API const std::error_category& error_category() noexcept;

inline std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

/// Thrown by result<T>::value() on an error, when exceptions are enabled.
class MPK_API exception : public std::system_error {
 public:
  explicit exception(const error& e)
      : std::system_error(make_error_code(e.code), e.to_string()), error_(e) {}
  const mpk::error& error() const noexcept { return error_; }

 private:
  mpk::error error_;
};

namespace detail {
[[noreturn]] MPK_API void throw_error(const error& e);
}  // namespace detail

namespace detail {
template <class T>
inline constexpr bool result_is_trivial_v =
    std::is_trivially_copyable_v<mpk::error> && std::is_trivially_copy_constructible_v<T>&&
    std::is_trivially_move_constructible_v<T>&& std::is_trivially_copy_assignable_v<T>&&
        std::is_trivially_move_assignable_v<T>&& std::is_trivially_destructible_v<T>;

struct result_value_tag {};

/// result<T>'s union and flag. For a T whose copies, moves and destructor are trivial (int,
/// size_t, a struct of scalars), every special member is the union's own: result<T> is then
/// trivially copyable too, and returned in registers when small.
template <class T, bool Trivial = result_is_trivial_v<T>>
struct result_storage {
  explicit result_storage(result_value_tag) : value_(), has_(true) {}
  result_storage(result_value_tag, const T& v) : value_(v), has_(true) {}
  result_storage(result_value_tag, T&& v) : value_(std::move(v)), has_(true) {}
  explicit result_storage(mpk::error e) noexcept : error_(std::move(e)), has_(false) {}

  union {
    T value_;
    mpk::error error_;
  };
  bool has_;
};

/// Any other T: copies, moves and the destructor run T's. Assignment never leaves a
/// destroyed T behind: value over value uses T's own assignment (its guarantee), an error
/// over a value destroys the value, and a value over an error constructs the value and,
/// should that throw, puts the error back (strong guarantee).
template <class T>
struct result_storage<T, false> {
  explicit result_storage(result_value_tag) : value_(), has_(true) {}
  result_storage(result_value_tag, const T& v) : value_(v), has_(true) {}
  result_storage(result_value_tag, T&& v) : value_(std::move(v)), has_(true) {}
  explicit result_storage(mpk::error e) noexcept : error_(std::move(e)), has_(false) {}

  result_storage(const result_storage& o) : has_(o.has_) {
    if (has_)
      new (&value_) T(o.value_);
    else
      new (&error_) mpk::error(o.error_);
  }
  result_storage(result_storage&& o) noexcept(std::is_nothrow_move_constructible_v<T>)
      : has_(o.has_) {
    if (has_)
      new (&value_) T(std::move(o.value_));
    else
      new (&error_) mpk::error(std::move(o.error_));
  }
  result_storage& operator=(const result_storage& o) {
    if (this != &o) assign(o, o.value_);
    return *this;
  }
  result_storage& operator=(result_storage&& o) noexcept(
      std::is_nothrow_move_constructible_v<T>&& std::is_nothrow_move_assignable_v<T>) {
    if (this != &o) assign(o, std::move(o.value_));
    return *this;
  }
  ~result_storage() {
    if (has_)
      value_.~T();
    else
      error_.~error();  // its note is shared
  }

  union {
    T value_;
    mpk::error error_;
  };
  bool has_;

 private:
  /// Puts the error back if constructing the value over it throws (no try/catch, so that
  /// this compiles with -fno-exceptions too).
  struct error_keeper {
    result_storage* self;
    mpk::error saved;
    bool done = false;
    ~error_keeper() {
      if (!done) new (&self->error_) mpk::error(saved);
    }
  };

  /// `v` is o.value_ (copied or moved), read only when o holds a value.
  template <class V>
  void assign(const result_storage& o, V&& v) {
    if (has_ && o.has_) {
      value_ = std::forward<V>(v);
    } else if (has_) {
      value_.~T();
      has_ = false;
      new (&error_) mpk::error(o.error_);
    } else if (o.has_) {
      error_keeper keep{this, std::move(error_)};
      error_.~error();
      new (&value_) T(std::forward<V>(v));
      keep.done = true;
      has_ = true;
    } else {
      error_ = o.error_;
    }
  }
};
}  // namespace detail

/// Either a T or an error, shaped like std::expected<T, error>.
///
///     mpk::result<int> r = ...;
///     if (!r) std::puts(r.error().message());
///     int v = *r;             // unchecked
///     int w = r.value();      // throws mpk::exception (or aborts without exceptions)
///     int x; if (auto e = r.get(x)) { ... }   // no exceptions
///
/// Copies and moves are trivial when T's and mpk::error's are (mpk::error holds unpack's
/// shared note, so today they are not). Assignment is exception-safe: when copying or
/// moving the new value throws, the result keeps what it held (an error), or T's own
/// assignment's guarantee applies (a value replacing a value).
template <class T>
class [[nodiscard]] result : private detail::result_storage<T> {
  using storage = detail::result_storage<T>;
  using storage::error_;
  using storage::has_;
  using storage::value_;

 public:
  using value_type = T;

  result() requires std::is_default_constructible_v<T> : storage(detail::result_value_tag{}) {}
  result(const T& v) : storage(detail::result_value_tag{}, v) {}        // NOLINT(implicit)
  result(T&& v) : storage(detail::result_value_tag{}, std::move(v)) {}  // NOLINT(implicit)
  result(mpk::error e) noexcept : storage(std::move(e)) {}              // NOLINT(implicit)
  result(errc c, std::size_t offset = 0) noexcept : storage(mpk::error{c, offset}) {}  // NOLINT

  bool has_value() const noexcept { return has_; }
  explicit operator bool() const noexcept { return has_; }

  /// The value; throws mpk::exception (aborts without exceptions) when this holds an error.
  T& value() & {
    if (!has_) detail::throw_error(error_);
    return value_;
  }
  const T& value() const& {
    if (!has_) detail::throw_error(error_);
    return value_;
  }
  T&& value() && {
    if (!has_) detail::throw_error(error_);
    return std::move(value_);
  }
  /// Unchecked access: only after has_value() said true.
  T& operator*() & noexcept { return value_; }
  const T& operator*() const& noexcept { return value_; }
  T&& operator*() && noexcept { return std::move(value_); }
  T* operator->() noexcept { return &value_; }
  const T* operator->() const noexcept { return &value_; }

  /// The error; `errc::ok` with offset 0 when this holds a value.
  mpk::error error() const noexcept { return has_ ? mpk::error{} : error_; }

  /// The value, or `fallback` converted to T. On an rvalue result the value is moved out, not
  /// copied (`mpk::unpack<std::vector<beer>>(bytes).value_or({})` costs no copy of the list).
  template <class U = T>
  T value_or(U&& fallback) const& {
    return has_ ? value_ : static_cast<T>(std::forward<U>(fallback));
  }
  template <class U = T>
  T value_or(U&& fallback) && {
    return has_ ? std::move(value_) : static_cast<T>(std::forward<U>(fallback));
  }

  /// Moves the value into `out` and returns no error, or leaves `out` alone and returns the
  /// error: the exception-free style of simdjson.
  mpk::error get(T& out) && {
    if (!has_) return error_;
    out = std::move(value_);
    return {};
  }
};

/// result<void>: success, or an error.
template <>
class [[nodiscard]] result<void> {
 public:
  result() noexcept = default;
  // The error is moved in, here and in result<T>: a copy of its note (a std::shared_ptr) is
  // an out-of-line call as GCC's inliner counts it, so every `return w.error();` (pack(w, v))
  // looked bigger than it is, and a user's small serialize function stopped being inlined
  // into its loop once the writer had two more fields to set up (W5 serialize_beer_array
  // 1,381 -> 1,512 instructions; moved: 1,383; docs/investigations.md).
  result(mpk::error e) noexcept : error_(std::move(e)) {}                 // NOLINT
  result(errc c, std::size_t offset = 0) noexcept : error_{c, offset} {}  // NOLINT
  bool has_value() const noexcept { return !error_; }
  explicit operator bool() const noexcept { return !error_; }
  void value() const {
    if (error_) detail::throw_error(error_);
  }
  mpk::error error() const noexcept { return error_; }

 private:
  mpk::error error_{};
};

}  // namespace mpk::inline v0

template <>
struct std::is_error_code_enum<mpk::errc> : std::true_type {};
