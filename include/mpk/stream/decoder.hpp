// mpk/stream/decoder.hpp - decoding MessagePack messages from bytes that arrive in pieces.
//
//     mpk::stream_decoder dec;
//     while (std::size_t n = recv_some(chunk)) {
//       if (auto r = dec.feed(std::span(chunk.data(), n)); !r) return r.error();
//       for (;;) {
//         auto msg = dec.next();              // result<std::span<const std::byte>>
//         if (!msg) return msg.error();       // code, and the offset in the whole stream
//         if (msg->empty()) break;            // the next message is not complete yet
//         handle(*msg);
//       }
//     }
//     if (auto r = dec.finish(); !r) ...      // errc::truncated: the input ended mid-message
//
// How it stays linear: the decoder keeps a resumable scan state for the message it waits
// for (the offset scanned so far, and a count of the items still owed per open container),
// so a message split into many chunks is scanned once, never again from its start. A
// complete message is decoded in place (no copy out of the buffer); the buffer moves its
// unread tail to the front only when that frees at least half of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mpk/codec/core.hpp"
#include "mpk/config.hpp"
#include "mpk/error.hpp"
#include "mpk/reader.hpp"
#include "mpk/value/document.hpp"

namespace mpk::inline v0 {

class stream_source;

/// Options of a stream_decoder. An aggregate: set the fields you need.
///
///     mpk::stream_decoder dec({.max_buffer_size = 1 << 20, .elements = true});
struct stream_options {
  /// How every message is read: its limits (with `elements`, those of the outer container
  /// and its items: the container is depth 1, so items may nest limits.max_depth - 1
  /// levels); the UTF-8 checks and strict mode of typed decoding (next(T&)) and of documents
  /// (next(document&)). `allow_trailing` plays no part: messages follow one another.
  read_options read{};
  /// Most bytes the decoder holds at once: the unread messages plus the one being received.
  /// A feed() or prepare() that would hold more fails with errc::limit_exceeded.
  std::size_t max_buffer_size = std::size_t{64} << 20;
  /// Element-wise mode: each top-level value must be an array or a map (else
  /// errc::type_mismatch); its header is consumed by the decoder and next() yields each
  /// element (array) or each key/value pair (map) as soon as it is complete. For one huge
  /// container that does not fit in memory.
  bool elements = false;
};

/// Decodes a stream of MessagePack messages (top-level values one after another) that arrives
/// in chunks of any size, down to one byte.
///
/// Feed bytes with feed() (a copy into the decoder's buffer) or prepare()/commit() (read
/// straight into it); take complete messages with next(), as a raw span, into a `document`,
/// or into a typed object. A message is yielded as soon as its last byte has arrived, never
/// before: a partial message is never reported as complete.
///
/// Views (the spans next() returns, a document parsed without `copy`, std::string_view
/// members of typed objects) point into the decoder's buffer: they stay valid until the next
/// feed(), prepare(), read_from() or reset().
///
/// Errors are sticky: after the first one (a malformed message, a limit, max_buffer_size)
/// every call returns it, until reset(). An error's offset is the byte offset in the whole
/// stream (from the first byte fed, or from the last reset()).
///
/// Memory: the buffer (at most max_buffer_size bytes) plus 8 bytes per nesting level of the
/// message being received (at most limits.max_depth levels).
class MPK_API stream_decoder {
 public:
  stream_decoder() noexcept : stream_decoder(stream_options{}) {}
  explicit stream_decoder(stream_options options) noexcept;
  stream_decoder(stream_decoder&& other) noexcept;
  stream_decoder& operator=(stream_decoder&& other) noexcept;
  stream_decoder(const stream_decoder&) = delete;
  stream_decoder& operator=(const stream_decoder&) = delete;
  ~stream_decoder();

  // --- input ---------------------------------------------------------------------------

  /// Appends a copy of `bytes` (any mpk::byte_input) to the stream. Returns the sticky error, if
  /// any; or errc::limit_exceeded (offset: the stream offset of the first byte not yet taken by
  /// next()) when the decoder would hold more than max_buffer_size bytes: take the complete
  /// messages with next() before feeding more; errc::out_of_memory when the buffer cannot
  /// grow. On error nothing is appended.
  template <byte_input B>
  result<void> feed(const B& bytes) noexcept {
    return feed_bytes(mpk::as_bytes(bytes));
  }
  result<void> feed(const void* data, std::size_t size) noexcept {
    return feed_bytes(std::span<const std::byte>(static_cast<const std::byte*>(data), size));
  }

  /// Room for up to `n` bytes at the end of the stream, to read into directly (no copy):
  /// fewer than `n` when max_buffer_size allows fewer, and empty on error (see error()) or
  /// when nothing more may be held. Call commit() with the bytes actually written.
  ///
  ///     auto room = dec.prepare(64 * 1024);
  ///     ssize_t n = ::read(fd, room.data(), room.size());
  ///     if (n > 0) dec.commit(n);
  ///
  /// Errors (sticky): errc::limit_exceeded when the decoder already holds max_buffer_size
  /// bytes, errc::out_of_memory.
  std::span<std::byte> prepare(std::size_t n) noexcept;
  /// Adds the first `n` bytes of the last prepare() to the stream (`n` at most its size).
  void commit(std::size_t n) noexcept {
    end_ += n < room_ ? n : room_;
    room_ = 0;
    plain_ = false;
  }

  /// Reads once from `source` (at most `max` bytes) into the buffer. Returns the bytes read,
  /// 0 at the end of the input; errors: errc::io_error, and those of prepare().
  result<std::size_t> read_from(stream_source& source,
                                std::size_t max = std::size_t{64} << 10) noexcept;

  // --- output --------------------------------------------------------------------------

  /// The next complete message (with `elements`: element, or key and value of a map
  /// entry, one after the other) as a view into the buffer; an empty span when it has not
  /// fully arrived yet (every message takes one byte at least).
  ///
  /// Errors (offset in the stream): errc::invalid_marker, errc::limit_exceeded,
  /// errc::depth_exceeded, errc::out_of_memory (the nesting stack), errc::type_mismatch
  /// (with `elements`: a top-level value that is no container), and any earlier error.
  result<std::span<const std::byte>> next() noexcept { return yield(unit_end()); }

  /// Every complete message at hand, back to back, as one view into the buffer: what
  /// repeated next() calls would yield until "not complete yet", in one call (one reader
  /// walks them all: cheaper than a call per message when they are small). An empty span
  /// when the next message has not fully arrived. When a malformed message follows complete
  /// ones, those are yielded first and the error comes with the next call. Not in
  /// element-wise mode (errc::invalid_argument, not sticky: use next()).
  ///
  /// Errors: those of next().
  result<std::span<const std::byte>> next_all() noexcept;

  /// Parses the next complete message into `doc` (its memory is reused). Returns true when
  /// a message was parsed, false when it has not fully arrived. Without options.copy, views
  /// of `doc` point into the decoder's buffer (see the class comment). The message is read
  /// with the decoder's read options (stream_options::read): `options.read` is not used.
  ///
  /// Errors: those of next() and of document::parse (offsets in the stream);
  /// errc::invalid_argument in element-wise mode over a map (use next() or next_entry()).
  result<bool> next(document& doc, document_options options = {});

  /// Decodes the next complete message into `out` through its codec (see mpk::unpack).
  /// Returns true when a message was decoded, false when it has not fully arrived (then
  /// `out` may be partly assigned: decode into it again). No allocation happens for types
  /// whose strings are std::string_view (they point into the buffer).
  ///
  ///     event e;
  ///     while (auto got = dec.next(e)) { if (!*got) break; handle(e); }
  ///
  /// Errors: those of next() and of mpk::unpack (offsets in the stream);
  /// errc::invalid_argument in element-wise mode over a map (use next_entry()).
  template <class T>
  requires has_codec<T> result<bool> next(T& out) {
    return decode_unit<false>([&](reader& r) {
      read_context ctx(options_.read);
      detail::unpack_top(r, out, ctx);
    });
  }

  /// Element-wise mode over a map: decodes the next complete entry into `key` and `value`.
  /// Returns true, or false when the entry has not fully arrived. Errors: those of
  /// next(T&); errc::invalid_argument when the container is not a map.
  template <class K, class V>
  requires(has_codec<K>&& has_codec<V>) result<bool> next_entry(K& key, V& value) {
    return decode_unit<true>([&](reader& r) {
      read_context ctx(options_.read);
      detail::unpack_top(r, key, ctx);
      detail::unpack_top(r, value, ctx);
    });
  }

  /// Says that the input has ended; call it once next() has returned "not complete yet".
  /// Returns the sticky error if any; errc::truncated (offset: where the unfinished message
  /// starts) when the decoder still holds bytes, or, with `elements`, when the container
  /// still owes items; otherwise success.
  result<void> finish() const noexcept;

  /// Forgets everything (bytes held, scan state, error, counters, stream offset) and keeps
  /// the buffer's memory: the decoder starts a new stream.
  void reset() noexcept;

  // --- state ---------------------------------------------------------------------------

  /// The sticky error; errc::ok when none.
  mpk::error error() const noexcept { return err_; }
  bool ok() const noexcept { return !err_; }
  /// Messages yielded so far (with `elements`: elements or map entries).
  std::size_t messages() const noexcept { return messages_; }
  /// Bytes fed (or committed) since the start or the last reset().
  std::size_t bytes_fed() const noexcept { return base_ + end_; }
  /// Stream offset of the next message: the bytes taken by next() and container headers.
  std::size_t position() const noexcept { return base_ + begin_; }
  /// Bytes held: those fed and not yet taken by next().
  std::size_t buffered() const noexcept { return end_ - begin_; }
  /// The bytes held and not yet taken by next() (a view, valid as next()'s spans). Once the
  /// input has ended and next() has said "not complete yet", the unfinished message: a
  /// caller may read it with a reader to report exactly where it is cut (finish() gives the
  /// offset where it starts).
  std::span<const std::byte> pending() const noexcept { return {buf_ + begin_, end_ - begin_}; }
  /// Takes the first `n` bytes of pending() as `count` complete messages that the caller
  /// has read itself with a reader over pending(), which finds where each ends as it reads:
  /// one pass over the bytes instead of next()'s and the caller's. `n` must be where a
  /// message ends. Returns false, taking nothing, when `n` is more than buffered(), after an
  /// error, in element-wise mode, or when a message is being scanned (next() has said "not
  /// complete yet": take it with next()).
  bool take(std::size_t n, std::size_t count) noexcept {
    if (err_ || scanning_ || options_.elements || n > end_ - begin_) return false;
    plain_ = false;
    begin_ += n;
    messages_ += count;
    return true;
  }
  /// The buffer's capacity in bytes.
  std::size_t capacity() const noexcept { return cap_; }
  /// A work counter: bytes at hand that the structural scans walked over (the one-pass
  /// attempt on a message's first piece, and the resumable scan of a message in pieces; a
  /// payload skipped by its length is not walked). Decoding a stream chunked in any way
  /// walks at most twice its size.
  std::size_t scanned_bytes() const noexcept { return scanned_; }
  /// With `elements`: the family of the container being read (type::array or type::map),
  /// or type::invalid between containers; always type::invalid otherwise.
  mpk::type container() const noexcept { return container_; }
  /// With `elements`: elements (or map entries) of the current container not yet yielded.
  std::size_t items_left() const noexcept { return items_left_; }
  const stream_options& options() const noexcept { return options_; }

 private:
  result<void> feed_bytes(std::span<const std::byte> bytes) noexcept;
  static constexpr std::size_t ready = 0;
  static constexpr std::size_t waiting = 1;
  static constexpr std::size_t failed = 2;

  /// Makes sure a unit (message, element or entry) can start at begin_: with `elements`,
  /// reads the container header when between containers. ready, waiting or failed.
  std::size_t start_unit() noexcept {
    if (!options_.elements || items_left_ != 0) [[likely]]
      return begin_ < end_ ? ready : waiting;
    return start_container();
  }
  std::size_t start_container() noexcept;

  /// End offset (in the buffer) of the next complete unit; 0 when it has not fully arrived
  /// or on error (then err_ is set).
  std::size_t unit_end() noexcept {
    if (err_ || start_unit() != ready) [[unlikely]]
      return 0;
    if (!scanning_) {
      reader r(std::span<const std::byte>(buf_ + begin_, end_ - begin_), item_options_);
      r.skip();
      if (container_ == mpk::type::map) r.skip();
      if (r.ok()) [[likely]] {
        scanned_ += r.position();
        return begin_ + r.position();
      }
      if (r.error().code != errc::truncated) {
        fail(r.error());
        return 0;
      }
      scanned_ += end_ - begin_;
    }
    return scan();
  }

  /// Runs `decode(reader&)` on the next unit (a map entry when Entry): first on all the
  /// bytes at hand (one pass, no scan), and only when they end inside the unit, on the exact
  /// unit once the resumable scan finds it complete (decode_scanned).
  template <bool Entry, class F>
  MPK_ALWAYS_INLINE result<bool> decode_unit(F&& decode) {
    if (!Entry && (plain_ || make_plain())) [[likely]] {
      // The hot path: no error, no scan in progress, no element-wise mode. One reader, rd_,
      // walks the bytes at hand from message to message (a reader built per message costs
      // about a third of a small message's decoding: its limits are stored again each time).
      decode(rd_);
      if (rd_.ok()) [[likely]] {
        begin_ = rd_start_ + rd_.position();
        ++messages_;
        return true;
      }
      plain_ = false;
      const mpk::error e = rd_.error();  // offset from rd_start_; begin_ is where it started
      if (e.code != errc::truncated) return fail({e.code, rd_start_ + e.offset - begin_});
      if (begin_ == end_) return false;
      scanned_ += end_ - begin_;
      return decode_scanned(decode);
    }
    return decode_unit_slow<Entry>(decode);
  }

  /// Points rd_ at the bytes at hand and says true, when the hot path applies.
  bool make_plain() noexcept {
    if (err_ || scanning_ || options_.elements) return false;
    rd_.reset(std::span<const std::byte>(buf_ + begin_, end_ - begin_));
    rd_start_ = begin_;
    plain_ = true;
    return true;
  }

  template <bool Entry, class F>
  MPK_NOINLINE result<bool> decode_unit_slow(F& decode) {
    if (err_) return error();
    if (const std::size_t s = start_unit(); s != ready)
      return s == failed ? result<bool>(error()) : result<bool>(false);
    if ((container_ == mpk::type::map) != Entry)
      return mpk::error{errc::invalid_argument, position()};
    if (!scanning_) {
      reader r(std::span<const std::byte>(buf_ + begin_, end_ - begin_), item_options_);
      decode(r);
      if (r.ok()) {
        consume(r.position());
        return true;
      }
      if (r.error().code != errc::truncated) return fail(r.error());
      scanned_ += end_ - begin_;
    }
    return decode_scanned(decode);
  }

  /// Runs `decode` on the exact unit once the resumable scan finds it complete.
  template <class F>
  result<bool> decode_scanned(F& decode) {
    const std::size_t e = scan();
    if (e == 0) return err_ ? result<bool>(error()) : result<bool>(false);
    reader r(std::span<const std::byte>(buf_ + begin_, e - begin_), item_options_);
    decode(r);
    if (!r.ok()) return fail(r.error());
    if (!r.at_end()) return fail({errc::trailing_bytes, r.position()});
    consume(e - begin_);
    return true;
  }

  /// The unit at begin_ that ends at buffer offset `e` (taken), or, when `e` is 0, the error
  /// or "not complete yet".
  result<std::span<const std::byte>> yield(std::size_t e) noexcept {
    if (e == 0) {
      if (err_) return error();
      return std::span<const std::byte>{};
    }
    const std::span<const std::byte> s(buf_ + begin_, e - begin_);
    consume(e - begin_);
    return s;
  }

  /// Takes `n` bytes at begin_ as one yielded unit.
  void consume(std::size_t n) noexcept {
    plain_ = false;
    begin_ += n;
    ++messages_;
    if (options_.elements && --items_left_ == 0) container_ = mpk::type::invalid;
  }

  /// Resumes the structural scan of the unit at begin_ (see the top of this file).
  std::size_t scan() noexcept;
  /// Records `e` (its offset counted from begin_) as the sticky error, unless there is one
  /// already, and returns the sticky error.
  mpk::error fail(mpk::error e) noexcept {
    if (!err_) err_ = {e.code, base_ + begin_ + e.offset};
    plain_ = false;
    return error();
  }
  /// Saves the owed count of level `depth` of the scan; false when memory ran out.
  bool push_owed(std::uint32_t depth, std::size_t owed) noexcept;
  /// Moves the buffer's contents `n` bytes down (after they were copied there).
  void shift(std::size_t n) noexcept;
  /// Makes room for `n` more bytes at end_ (compacting or growing); false on error.
  bool reserve_tail(std::size_t n) noexcept;

  stream_options options_;
  read_options item_options_;  // options.read, max_depth less one with `elements`

  std::byte* buf_ = nullptr;
  std::size_t cap_ = 0;
  std::size_t begin_ = 0;  // buffer offset of the next unit
  std::size_t end_ = 0;    // buffer offset of the end of the data
  std::size_t room_ = 0;   // bytes of the last prepare()
  std::size_t base_ = 0;   // stream offset of buf_[0]

  // True while the typed hot path applies: no error, no scan in progress, not element-wise,
  // and rd_ reads the bytes at hand from rd_start_ (see make_plain()).
  bool plain_ = false;
  reader rd_;
  std::size_t rd_start_ = 0;
  // The resumable scan of the unit at begin_.
  bool scanning_ = false;
  std::size_t scan_ = 0;  // buffer offset where it resumes (beyond end_ inside a payload)
  std::size_t owed_ = 0;  // items still owed at the innermost open level
  std::uint32_t depth_ = 0;
  std::unique_ptr<std::size_t[]> stack_;  // owed counts of the outer levels
  std::size_t stack_cap_ = 0;

  // Element-wise mode.
  mpk::type container_ = mpk::type::invalid;
  std::size_t items_left_ = 0;

  detail::sticky_error err_{};
  std::size_t messages_ = 0;
  std::size_t scanned_ = 0;
};

}  // namespace mpk::inline v0
