// mpk::stream_source: reading from a file descriptor or a FILE* (mpk/stream/io.hpp).
#include "mpk/stream/io.hpp"

#include <unistd.h>

#include <cerrno>

namespace mpk::inline v0 {

result<std::size_t> stream_source::read(std::span<std::byte> out) noexcept {
  if (out.empty()) return std::size_t{0};
  if (file_ != nullptr) {
    const std::size_t n = std::fread(out.data(), 1, out.size(), file_);
    if (n == 0 && std::ferror(file_)) return mpk::error{errc::io_error, 0};
    return n;
  }
  for (;;) {
    const ssize_t n = ::read(fd_, out.data(), out.size());
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) return mpk::error{errc::io_error, 0};
  }
}

}  // namespace mpk::inline v0
