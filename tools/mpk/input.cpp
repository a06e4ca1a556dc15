// Input, output and progress for the mpk tool.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tool.hpp"

namespace mpk_tool {

bool read_input(const std::string& path, std::vector<std::byte>& out, std::string& why) {
  const bool use_stdin = path.empty() || path == "-";
  std::FILE* f = use_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    why = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  out.clear();
  // Read in growing chunks: standard input has no size to ask for.
  std::size_t size = 0;
  std::size_t chunk = 1 << 16;
  for (;;) {
    out.resize(size + chunk);
    const std::size_t n = std::fread(out.data() + size, 1, chunk, f);
    size += n;
    if (n < chunk) break;
    if (chunk < (std::size_t{1} << 26)) chunk *= 2;
  }
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  if (!use_stdin) std::fclose(f);
  out.resize(size);
  if (failed) {
    why = "cannot read " + (use_stdin ? std::string("standard input") : path) + ": " +
          std::strerror(err);
    return false;
  }
  return true;
}

bool write_out(std::string_view text) {
  if (text.empty()) return true;  // an empty view may hold a null pointer: fwrite refuses it
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
}

void report(const mpk::error& e) {
  std::fprintf(stderr, "%s\n", e.to_string().c_str());
}

namespace {

/// Inputs larger than this get a progress line: 64 MiB, or MPK_PROGRESS_THRESHOLD bytes when
/// that environment variable holds a number (for the tool's tests, which need the line on
/// small inputs; docs/cli.md).
std::size_t progress_threshold() {
  if (const char* env = std::getenv("MPK_PROGRESS_THRESHOLD"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (*end == '\0') return static_cast<std::size_t>(v);
  }
  return std::size_t{64} << 20;
}

}  // namespace

progress::progress(std::size_t total)
    : total_(total), active_(total > progress_threshold() && isatty(STDERR_FILENO) == 1) {}

progress::~progress() {
  if (active_) std::fputs("\r\033[K", stderr);  // clear the line
}

void progress::show(std::size_t done) {
  const unsigned percent = static_cast<unsigned>(done * 100 / total_);
  std::fprintf(stderr, "\rmpk: %u%% (%zu of %zu MiB)", percent, done >> 20, total_ >> 20);
  std::fflush(stderr);
  next_ = total_ * (percent + 1) / 100;
}

}  // namespace mpk_tool
