// mpk/stream/io.hpp - reading a stream of messages straight from a file descriptor or FILE*.
//
//     mpk::stream_decoder dec;
//     auto stats = mpk::read_messages(mpk::stream_source(fd), dec,
//                                     [](std::span<const std::byte> msg) { handle(msg); });
//     if (!stats) return stats.error();       // io_error, a malformed message, truncated
//     std::printf("%zu messages, %zu bytes\n", stats->messages, stats->bytes);
#pragma once

#include <cstddef>
#include <cstdio>
#include <span>
#include <type_traits>
#include <utility>

#include "mpk/config.hpp"
#include "mpk/error.hpp"
#include "mpk/stream/decoder.hpp"

namespace mpk::inline v0 {

/// Where a stream_decoder reads from: a file descriptor (a pipe, a socket, a file) or a
/// FILE*. The source neither owns nor closes it. Cheap to copy.
class MPK_API stream_source {
 public:
  explicit stream_source(int fd) noexcept : fd_(fd) {}
  explicit stream_source(std::FILE* file) noexcept : file_(file) {}

  /// Reads at most `out.size()` bytes (blocking until at least one is there or the input
  /// ends) and returns how many: 0 at the end of the input. Retries on EINTR.
  /// Errors: errc::io_error (offset 0).
  result<std::size_t> read(std::span<std::byte> out) noexcept;

 private:
  int fd_ = -1;
  std::FILE* file_ = nullptr;
};

/// What a read_messages() or read_values() loop saw.
struct stream_stats {
  std::size_t messages = 0;  ///< messages (elements, map entries) handed to the callback
  std::size_t bytes = 0;     ///< bytes read from the source
};

namespace detail {

/// Calls f(args...) and says whether to go on: a callback returning void goes on, one
/// returning bool goes on while it returns true.
template <class F, class... A>
bool call_on(F& f, A&... args) {
  if constexpr (std::is_same_v<std::invoke_result_t<F&, A&...>, void>) {
    f(args...);
    return true;
  } else {
    return static_cast<bool>(f(args...));
  }
}

/// The loop of read_messages / read_values: reads chunks of `chunk` bytes into `dec` and
/// runs `drain()` (true: go on, false: stopped by the callback) after each.
template <class Drain>
result<stream_stats> read_loop(stream_source source, stream_decoder& dec, std::size_t chunk,
                               Drain&& drain) {
  const std::size_t start_messages = dec.messages();
  stream_stats stats;
  for (;;) {
    const result<std::size_t> n = dec.read_from(source, chunk);
    if (!n) return n.error();
    stats.bytes += *n;
    const result<bool> go_on = drain();
    stats.messages = dec.messages() - start_messages;
    if (!go_on) return go_on.error();
    if (!*go_on) return stats;  // stopped by the callback: no end-of-input check
    if (*n == 0) break;
  }
  if (const result<void> end = dec.finish(); !end) return end.error();
  return stats;
}

}  // namespace detail

/// Reads `source` to its end through `dec` and calls `on_message(std::span<const std::byte>)`
/// for each complete message (with `elements`: element or map entry). The callback may
/// return bool: false stops the loop early (without the end-of-input check). The span is
/// valid during the call only.
///
/// Returns the messages handed to the callback and the bytes read. Errors: errc::io_error,
/// the errors of stream_decoder::next(), and errc::truncated when the input ends inside a
/// message (offsets in the stream).
template <class F>
result<stream_stats> read_messages(stream_source source, stream_decoder& dec, F&& on_message,
                                   std::size_t chunk = std::size_t{64} << 10) {
  return detail::read_loop(source, dec, chunk, [&]() -> result<bool> {
    for (;;) {
      result<std::span<const std::byte>> msg = dec.next();
      if (!msg) return msg.error();
      if (msg->empty()) return true;
      if (!detail::call_on(on_message, *msg)) return false;
    }
  });
}

/// Like read_messages(), decoding each message into a T (see stream_decoder::next(T&)) and
/// calling `on_value(T&)`. The same T object is reused for every message; views inside it
/// are valid during the call only. Errors: those of read_messages() and of mpk::unpack.
///
///     mpk::read_values<event>(mpk::stream_source(stdin), dec, [](event& e) { handle(e); });
template <class T, class F>
result<stream_stats> read_values(stream_source source, stream_decoder& dec, F&& on_value,
                                 std::size_t chunk = std::size_t{64} << 10) {
  T value{};
  return detail::read_loop(source, dec, chunk, [&]() -> result<bool> {
    for (;;) {
      const result<bool> got = dec.next(value);
      if (!got) return got.error();
      if (!*got) return true;
      if (!detail::call_on(on_value, value)) return false;
    }
  });
}

}  // namespace mpk::inline v0
