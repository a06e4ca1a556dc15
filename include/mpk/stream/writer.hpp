// mpk/stream/writer.hpp - writing many messages, one after another, to a file, pipe, socket,
// std::ostream or callback.
//
//     mpk::stream_writer out(fd);                 // or a FILE*, a std::ostream, a callback
//     for (const event& e : events) out.write(e); // any type with a codec
//     if (auto r = out.flush(); !r) return r.error();
#pragma once

#include <cstddef>
#include <cstdio>
#include <iosfwd>
#include <span>

#include "mpk/buffer.hpp"
#include "mpk/codec/core.hpp"
#include "mpk/error.hpp"
#include "mpk/writer.hpp"

namespace mpk::inline v0 {

/// Writes a stream of messages to a `stream_sink` target (see buffer.hpp): bytes are staged
/// in a buffer of `capacity` bytes and handed to the target when it fills, on flush() and
/// on destruction (call flush() yourself: the destructor cannot report a failure). The
/// writer neither owns nor closes the target.
///
/// Errors are sticky: after the first one (errc::io_error from the target,
/// errc::out_of_memory, errc::too_large, ...) every write is a no-op that returns it. The
/// offset is the number of bytes written (staged or handed over) before the failure.
class stream_writer {
 public:
  explicit stream_writer(int fd, std::size_t capacity = stream_sink::default_capacity,
                         writer_options options = {})
      : sink_(fd, capacity), w_(sink_, options) {}
  explicit stream_writer(std::FILE* file, std::size_t capacity = stream_sink::default_capacity,
                         writer_options options = {})
      : sink_(file, capacity), w_(sink_, options) {}
  explicit stream_writer(std::ostream& os, std::size_t capacity = stream_sink::default_capacity,
                         writer_options options = {})
      : sink_(os, capacity), w_(sink_, options) {}
  /// `fn(context, bytes)` receives each chunk of output and returns false to report an error.
  stream_writer(stream_sink::callback fn, void* context,
                std::size_t capacity = stream_sink::default_capacity, writer_options options = {})
      : sink_(fn, context, capacity), w_(sink_, options) {}
  stream_writer(const stream_writer&) = delete;
  stream_writer& operator=(const stream_writer&) = delete;

  /// Encodes `message` through its codec as the next message. Returns the sticky error.
  template <class T>
  result<void> write(const T& message) noexcept {
    pack_value(w_, message);
    return end_message();
  }

  /// Writes pre-encoded bytes as the next message (not checked: they should be exactly one
  /// MessagePack value). Returns the sticky error.
  result<void> write_raw(std::span<const std::byte> message) noexcept {
    w_.write_raw(message);
    return end_message();
  }

  /// The underlying writer, to write a message value by value; call end_message() after
  /// each complete message.
  ///
  ///     out.writer().begin_array(2); out.writer().write("tag"); out.writer().write(1);
  ///     out.end_message();
  mpk::writer<stream_sink>& writer() noexcept { return w_; }

  /// Counts one more message and returns the sticky error.
  result<void> end_message() noexcept {
    if (!w_.ok()) [[unlikely]]
      return w_.error();
    ++messages_;
    return {};
  }

  /// Hands every staged byte to the target. Returns the sticky error (errc::io_error when
  /// the target fails).
  result<void> flush() noexcept {
    if (w_.ok() && sink_.flush() != errc::ok) w_.set_error(sink_.failure());
    return w_.error();
  }

  /// The sticky error; errc::ok when none.
  mpk::error error() const noexcept { return w_.error(); }
  bool ok() const noexcept { return w_.ok(); }
  /// Messages written without error.
  std::size_t messages() const noexcept { return messages_; }
  /// Bytes written so far (handed to the target or staged).
  std::size_t bytes() const noexcept { return sink_.total_size(); }

 private:
  stream_sink sink_;
  mpk::writer<stream_sink> w_;
  std::size_t messages_ = 0;
};

}  // namespace mpk::inline v0
