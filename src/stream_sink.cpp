// mpk::stream_sink: staging, flushing, and the four kinds of target.
#include <mpk/buffer.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ostream>

namespace mpk::inline v0 {
namespace {

bool write_fd(void* context, std::span<const std::byte> bytes) {
  const int fd = static_cast<int>(reinterpret_cast<std::intptr_t>(context));
  const std::byte* p = bytes.data();
  std::size_t left = bytes.size();
  while (left != 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

bool write_file(void* context, std::span<const std::byte> bytes) {
  auto* file = static_cast<std::FILE*>(context);
  return std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
}

bool write_ostream(void* context, std::span<const std::byte> bytes) {
  auto* os = static_cast<std::ostream*>(context);
  os->write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(*os);
}

}  // namespace

stream_sink::stream_sink(callback fn, void* context, std::size_t capacity)
    : fn_(fn), context_(context), staging_(capacity == 0 ? 1 : capacity) {}

stream_sink::stream_sink(int fd, std::size_t capacity)
    : stream_sink(&write_fd, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)), capacity) {}

stream_sink::stream_sink(std::FILE* file, std::size_t capacity)
    : stream_sink(&write_file, file, capacity) {}

stream_sink::stream_sink(std::ostream& os, std::size_t capacity)
    : stream_sink(&write_ostream, &os, capacity) {}

stream_sink::~stream_sink() {
  flush();
}

bool stream_sink::emit(std::span<const std::byte> bytes) noexcept {
  if (failure_ != errc::ok) return false;
  if (bytes.empty()) return true;
  bool ok = false;
  try {
    ok = fn_(context_, bytes);
  } catch (...) {
    ok = false;
  }
  if (!ok) {
    failure_ = errc::io_error;
    return false;
  }
  flushed_ += bytes.size();
  return true;
}

errc stream_sink::flush() noexcept {
  if (failure_ != errc::ok) return failure_;
  // Held bytes (see hold()) stay, moved to the front.
  const std::size_t keep = held_from_ == not_held ? 0 : total_size() - held_from_;
  const std::size_t out = staging_.size() - keep;
  if (!emit(staging_.bytes().first(out))) return failure_;
  if (keep != 0 && out != 0) std::memmove(staging_.data(), staging_.data() + out, keep);
  staging_.truncate(keep);
  return errc::ok;
}

std::byte* stream_sink::make_room_held(std::size_t n) noexcept {
  if (flush() != errc::ok) return nullptr;  // hands on what precedes the held bytes
  const std::size_t held = staging_.size();
  if (staging_.capacity() - held >= n) return staging_.data() + held;
  if (n > hold_limit_ || held > hold_limit_ - n) return nullptr;  // failure(): limit_exceeded
  // Geometric growth (up to the limit), so that a large container is not copied per write.
  const std::size_t doubled =
      staging_.capacity() > hold_limit_ / 2 ? hold_limit_ : 2 * staging_.capacity();
  if (!staging_.reserve(held + n > doubled ? held + n : doubled)) {
    failure_ = errc::out_of_memory;
    return nullptr;
  }
  return staging_.data() + held;
}

std::byte* stream_sink::make_room(std::size_t n) noexcept {
  if (held_from_ != not_held) return make_room_held(n);
  if (flush() != errc::ok) return nullptr;
  // A single prepare() larger than the staging area (a caller's big header-plus-payload)
  // grows it; append() sends big payloads straight to the target instead.
  if (staging_.capacity() < n && !staging_.reserve(n)) {
    failure_ = errc::out_of_memory;
    return nullptr;
  }
  return staging_.data();
}

bool stream_sink::append(const std::byte* p, std::size_t n) noexcept {
  if (failure_ != errc::ok) return false;
  if (staging_.capacity() - staging_.size() >= n) {
    if (n != 0) std::memcpy(staging_.data() + staging_.size(), p, n);
    staging_.commit(n);
    return true;
  }
  if (held_from_ != not_held) {  // held bytes are never handed on directly
    std::byte* out = make_room_held(n);
    if (out == nullptr) return false;
    std::memcpy(out, p, n);
    staging_.commit(n);
    return true;
  }
  if (flush() != errc::ok) return false;
  if (n >= staging_.capacity()) return emit({p, n});
  std::memcpy(staging_.data(), p, n);
  staging_.commit(n);
  return true;
}

}  // namespace mpk::inline v0
