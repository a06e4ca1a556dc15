// mpk/buffer.hpp - where a writer puts its bytes.
//
// Three sinks share one small interface (the `sink` concept below):
//   buffer       owning, growable memory; never zero-filled; growth policy of your choice
//   span_sink    caller memory of fixed size; running out is errc::buffer_full, never UB
//   stream_sink  a bounded staging area flushed to a callback, fd, FILE* or std::ostream
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iosfwd>
#include <new>
#include <span>
#include <string_view>

#include "config.hpp"
#include "error.hpp"

namespace mpk::inline v0 {

/// The interface a writer needs from its output.
///
/// `prepare(n)` returns room for at least `n` bytes at the end of the output, or nullptr
/// when there is none (then `failure()` says why); `commit(n)` makes the first `n` of them
/// part of the output. `append(p, n)` copies `n` bytes at once and returns false on failure.
template <class S>
concept sink = requires(S& s, std::size_t n, const std::byte* p) {
  { s.prepare(n) } -> std::same_as<std::byte*>;
  s.commit(n);
  { s.append(p, n) } -> std::same_as<bool>;
  { s.failure() } -> std::same_as<errc>;
};

/// How a buffer grows when a write needs more room than it has.
enum class growth : std::uint8_t {
  geometric,        ///< at least double the capacity (the default: amortised O(1) per byte)
  fixed_increment,  ///< grow by `increment` bytes (or by what the write needs, if more)
  exact,            ///< grow by exactly what the write needs: least memory, most reallocations
};

namespace detail {
/// `append` of a sink whose memory is one block (`buffer`, `span_sink`): one `prepare` of
/// the whole run, one copy, one `commit`. False, with nothing written, when the sink has no
/// room. (`prepare(0)` of a buffer with no memory yet is nullptr: hence the early return.)
template <class Sink>
bool append_in_one_block(Sink& sink, const std::byte* p, std::size_t n) noexcept {
  if (n == 0) return true;
  std::byte* out = sink.prepare(n);
  if (out == nullptr) return false;
  std::memcpy(out, p, n);
  sink.commit(n);
  return true;
}

/// A byte of output as a type of its own, for put_byte() of buffer and span_sink. A store
/// through std::byte or unsigned char may alias any object, so after it the compiler reloads
/// the sink's cursor and limit; a store of an `out_byte` (an enumeration, not
/// a character type) does not alias them (type-based alias analysis), and they stay in
/// registers from one byte to the next. It creates an out_byte object in the output's
/// storage (placement new: memory from malloc, or an array of std::byte), which is read back
/// like any object through std::byte, char or unsigned char.
enum class out_byte : unsigned char {};

MPK_ALWAYS_INLINE void store_out_byte(std::byte* p, std::uint8_t b) noexcept {
  ::new (static_cast<void*>(p)) out_byte{b};
}
}  // namespace detail

/// Options of a buffer's growth.
///
///     mpk::buffer buf(mpk::growth_policy{mpk::growth::fixed_increment, 64 * 1024});
struct growth_policy {
  growth kind = growth::geometric;
  std::size_t increment = 64 * 1024;  ///< used by growth::fixed_increment only
};

/// An owning, growable byte buffer; the default sink of `mpk::writer`.
///
/// Memory is never zero-filled. `clear()` keeps the capacity for the next message;
/// `release()` frees it. Copying copies the bytes; moving steals them.
///
///     mpk::buffer buf;
///     mpk::writer w(buf);
///     w.write(42);
///     send(buf.data(), buf.size());
class MPK_API buffer {
 public:
  buffer() noexcept = default;
  explicit buffer(growth_policy policy) noexcept : policy_(policy) {}
  /// Reserves `initial_capacity` bytes up front (no error if that allocation fails: the
  /// first write will report errc::out_of_memory).
  explicit buffer(std::size_t initial_capacity, growth_policy policy = {}) noexcept;
  buffer(const buffer& other);
  buffer(buffer&& other) noexcept;
  buffer& operator=(const buffer& other);
  buffer& operator=(buffer&& other) noexcept;
  ~buffer();

  std::byte* data() noexcept { return begin_; }
  const std::byte* data() const noexcept { return begin_; }
  std::size_t size() const noexcept { return static_cast<std::size_t>(cursor_ - begin_); }
  std::size_t capacity() const noexcept { return static_cast<std::size_t>(limit_ - begin_); }
  bool empty() const noexcept { return cursor_ == begin_; }
  /// Bytes that can be written before the buffer has to grow (capacity() - size()).
  std::size_t room() const noexcept { return static_cast<std::size_t>(limit_ - cursor_); }
  /// The bytes written so far.
  std::span<const std::byte> bytes() const noexcept { return {begin_, size()}; }
  operator std::span<const std::byte>() const noexcept { return bytes(); }  // NOLINT

  growth_policy policy() const noexcept { return policy_; }
  void set_policy(growth_policy policy) noexcept { policy_ = policy; }

  /// Forgets the contents and keeps the capacity, for reuse with the next message.
  void clear() noexcept { cursor_ = begin_; }
  /// Makes the capacity at least `n` bytes; returns false if the allocation failed.
  bool reserve(std::size_t n) noexcept;
  /// Cuts the contents to `n` bytes (no effect when `n >= size()`).
  void truncate(std::size_t n) noexcept {
    if (n < size()) cursor_ = begin_ + n;
  }
  /// Frees the memory; the buffer is empty with capacity 0 and can be used again.
  void release() noexcept;

  // --- sink interface ---
  std::byte* prepare(std::size_t n) noexcept {
    if (room() >= n) [[likely]] {
      // Room for n >= 1 bytes means memory is allocated (a cursor is null only with no
      // memory, an invariant of every member that sets it): telling the compiler lets the
      // writer drop its null test after each reservation of a known size.
      if (n != 0 && cursor_ == nullptr) __builtin_unreachable();
      return cursor_;
    }
    return grow_for(n);
  }
  void commit(std::size_t n) noexcept { cursor_ += n; }
  /// Appends one byte: prepare(1), the store, commit(1) in one (false, with nothing written,
  /// when there is no room). The writer's path for its one-byte values and headers (fixints,
  /// fixarray, nil, ...). The byte is stored as a detail::out_byte, so that the cursor and
  /// limit need no reload after it: a run of one-byte writes (W4 build) keeps them in
  /// registers.
  MPK_ALWAYS_INLINE bool put_byte(std::uint8_t b) noexcept {
    if (cursor_ == limit_) [[unlikely]] {
      if (grow_for(1) == nullptr) return false;
    }
    detail::store_out_byte(cursor_, b);
    ++cursor_;
    return true;
  }
  bool append(const std::byte* p, std::size_t n) noexcept {
    return detail::append_in_one_block(*this, p, n);
  }
  errc failure() const noexcept { return errc::out_of_memory; }

 private:
  std::byte* grow_for(std::size_t n) noexcept;  // cold path, in src/buffer.cpp

  // The memory is [begin_, limit_), the bytes written [begin_, cursor_); all three null
  // before the first allocation. Pointers rather than a size and a capacity: a reservation
  // returns the cursor as it is and a commit moves it, with no address to form from a base
  // and an offset (W2 writes of 1 KiB, W1 writes; docs/investigations.md, "W2 1 KiB").
  std::byte* begin_ = nullptr;
  std::byte* cursor_ = nullptr;
  std::byte* limit_ = nullptr;
  growth_policy policy_{};
};

/// A sink over caller memory of fixed size. Writing past its end is not possible: the write
/// fails with errc::buffer_full and nothing is written beyond `capacity()`. The memory should
/// be an array of bytes (std::byte, char, unsigned char) or from an allocation: the writer
/// creates byte objects in it (put_byte), so it ends the life of any other object there.
///
///     std::array<std::byte, 64> mem;
///     mpk::span_sink out(mem);
///     mpk::writer w(out);
class span_sink {
 public:
  explicit span_sink(std::span<std::byte> memory) noexcept
      : begin_(memory.data()), cursor_(memory.data()), limit_(memory.data() + memory.size()) {}

  std::byte* data() const noexcept { return begin_; }
  std::size_t size() const noexcept { return static_cast<std::size_t>(cursor_ - begin_); }
  std::size_t capacity() const noexcept { return static_cast<std::size_t>(limit_ - begin_); }
  /// Bytes that can still be written (capacity() - size()).
  std::size_t room() const noexcept { return static_cast<std::size_t>(limit_ - cursor_); }
  std::span<const std::byte> bytes() const noexcept { return {begin_, size()}; }
  void clear() noexcept { cursor_ = begin_; }
  /// Cuts the contents to `n` bytes (no effect when `n >= size()`).
  void truncate(std::size_t n) noexcept {
    if (n < size()) cursor_ = begin_ + n;
  }

  std::byte* prepare(std::size_t n) noexcept { return room() >= n ? cursor_ : nullptr; }
  void commit(std::size_t n) noexcept { cursor_ += n; }
  /// Appends one byte (false, with nothing written, when there is no room): as
  /// buffer::put_byte.
  MPK_ALWAYS_INLINE bool put_byte(std::uint8_t b) noexcept {
    if (cursor_ == limit_) [[unlikely]]
      return false;
    detail::store_out_byte(cursor_, b);
    ++cursor_;
    return true;
  }
  bool append(const std::byte* p, std::size_t n) noexcept {
    return detail::append_in_one_block(*this, p, n);
  }
  errc failure() const noexcept { return errc::buffer_full; }

 private:
  // As mpk::buffer's: [begin_, limit_) the memory, [begin_, cursor_) the bytes written.
  std::byte* begin_;
  std::byte* cursor_;
  std::byte* limit_;
};

/// A sink that stages bytes in a bounded buffer and hands them to a target when it fills,
/// on `flush()`, and on destruction (where a failure can no longer be reported: call
/// `flush()` yourself and check it).
///
/// Targets: a callback, a file descriptor, a `FILE*` or a `std::ostream`. The sink does not
/// own or close the target. A write error of the target is errc::io_error, and sticky.
///
///     mpk::stream_sink out(stdout);
///     mpk::writer w(out);
///     w.write("hello");
///     if (auto e = out.flush()) ...
class MPK_API stream_sink {
 public:
  /// Called with each chunk of output; returns false to report an I/O error.
  using callback = bool (*)(void* context, std::span<const std::byte> bytes);

  static constexpr std::size_t default_capacity = 64 * 1024;

  stream_sink(callback fn, void* context, std::size_t capacity = default_capacity);
  explicit stream_sink(int fd, std::size_t capacity = default_capacity);
  explicit stream_sink(std::FILE* file, std::size_t capacity = default_capacity);
  explicit stream_sink(std::ostream& os, std::size_t capacity = default_capacity);
  stream_sink(const stream_sink&) = delete;
  stream_sink& operator=(const stream_sink&) = delete;
  ~stream_sink();

  /// Hands all staged bytes to the target. Returns errc::io_error (sticky) on failure.
  errc flush() noexcept;
  /// Bytes handed to the target so far, plus those staged.
  std::size_t total_size() const noexcept { return flushed_ + staging_.size(); }

  std::byte* prepare(std::size_t n) noexcept {
    if (staging_.room() >= n) [[likely]]
      return staging_.prepare(n);
    return make_room(n);
  }
  void commit(std::size_t n) noexcept { staging_.commit(n); }
  bool append(const std::byte* p, std::size_t n) noexcept;
  /// Why the last prepare() or append() failed. All failures are sticky but one: a hold()
  /// beyond its limit (errc::limit_exceeded), which leaves the sink usable.
  errc failure() const noexcept { return failure_ != errc::ok ? failure_ : errc::limit_exceeded; }

  // --- holding bytes back (for writer::begin_array() without a count) --------------------

  /// Keeps the bytes written from now on (from position total_size()) in the staging area,
  /// out of every flush, until unhold(): a writer rewrites the header of a container of
  /// unknown size there when it closes. Bytes staged before the call are still handed on
  /// when room is needed. For the held bytes the staging area grows beyond its capacity up to
  /// `limit` bytes; a prepare() or append() that needs more fails (failure():
  /// errc::limit_exceeded) and changes nothing. The destructor drops held bytes.
  void hold(std::size_t limit) noexcept {
    held_from_ = total_size();
    hold_limit_ = limit;
  }
  /// Ends hold(): the held bytes are staged like any others.
  void unhold() noexcept { held_from_ = not_held; }
  /// The held byte at `position` (between where hold() began and total_size()).
  std::byte* held_at(std::size_t position) noexcept {
    return staging_.data() + (position - flushed_);
  }
  /// Cuts the output back to `position` (not before where hold() began).
  void truncate_held(std::size_t position) noexcept { staging_.truncate(position - flushed_); }

 private:
  static constexpr std::size_t not_held = ~std::size_t{0};

  std::byte* make_room(std::size_t n) noexcept;
  std::byte* make_room_held(std::size_t n) noexcept;
  bool emit(std::span<const std::byte> bytes) noexcept;

  callback fn_;
  void* context_;
  buffer staging_;
  std::size_t flushed_ = 0;
  errc failure_ = errc::ok;
  std::size_t held_from_ = not_held;  // position where hold() began
  std::size_t hold_limit_ = 0;
};

}  // namespace mpk::inline v0
