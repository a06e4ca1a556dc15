// Input, output and progress for the mpk tool.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpk/buffer.hpp>
#include <mpk/ext/records.hpp>
#include <mpk/stream.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

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

void report_failure(const mpk::error& e) {
  if (e.code == mpk::errc::io_error)
    std::fprintf(stderr, "mpk: cannot write standard output: %s\n", std::strerror(errno));
  else
    report(e);
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

std::size_t read_size() {
  static const std::size_t size = [] {
    if (const char* env = std::getenv("MPK_READ_CHUNK"); env != nullptr && *env != '\0') {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(env, &end, 10);
      if (*end == '\0' && v != 0 && v < read_chunk) return static_cast<std::size_t>(v);
    }
    return read_chunk;
  }();
  return size;
}

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

// --- input_file --------------------------------------------------------------------------

input_file::~input_file() {
  if (own_) ::close(fd_);
}

bool input_file::open(const std::string& path, bool unbuffered) {
  if (path.empty() || path == "-") {
    fd_ = STDIN_FILENO;
    name_ = "standard input";
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      std::fprintf(stderr, "mpk: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
      return false;
    }
    own_ = true;
    name_ = path;
  }
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) size_ = static_cast<std::size_t>(st.st_size);
  struct stat out {};
  live_ = unbuffered || ::fstat(STDOUT_FILENO, &out) != 0 || !S_ISREG(out.st_mode);
  return true;
}

long input_file::read(std::span<std::byte> out) {
  ssize_t n;
  do {
    n = ::read(fd_, out.data(), std::min(out.size(), read_size()));
  } while (n < 0 && errno == EINTR);
  if (n < 0) std::fprintf(stderr, "mpk: cannot read %s: %s\n", name_.c_str(), std::strerror(errno));
  return static_cast<long>(n);
}

// --- input_stream ------------------------------------------------------------------------

namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);

/// The offset in `run` (complete values back to back) of the first value over `max` bytes;
/// npos when there is none.
std::size_t first_too_large(std::span<const std::byte> run, std::uint64_t max) {
  mpk::reader r(run, {.limits = mpk::limits::trusted()});  // checked by the decoder already
  while (!r.at_end()) {
    const std::size_t at = r.position();
    r.skip();
    if (r.position() - at > max) return at;
  }
  return npos;
}

}  // namespace

struct input_stream::impl {
  impl(const input_args& a, const mpk::limits& lim)
      : dec({.read = {.limits = lim},
             // The decoder holds the value being received plus one read; the exact bound
             // (--max-message-size) is checked here, with a clearer message than its own.
             .max_buffer_size = a.max_message != 0 && a.max_message < (std::uint64_t{1} << 62)
                                    ? static_cast<std::size_t>(a.max_message) + read_chunk
                                    : static_cast<std::size_t>(-1)}) {}

  mpk::stream_decoder dec;
  input_file file;
  bool eof = false;
  bool done = false;  // the unfinished value was handed over, or the error reported
  std::optional<progress> bar;

  // The error to report once the values before it are handed over: a code and offset, or a
  // text (read errors, --max-message-size).
  bool failed = false;
  bool reported = false;    // the error is printed already
  bool bad = false;         // the decoder found a value malformed (its sticky error)
  bool need_whole = false;  // next_at_hand(): the first value held has not fully arrived
  bool at_hand = false;     // the last run was next_at_hand()'s bytes at hand
  mpk::error err;
  std::string why;

  // --records: expansion of each value into plain MessagePack.
  std::optional<mpk::shared_structures> shared;
  std::optional<mpk::records_decoder> records;
  mpk::buffer expanded;
  std::size_t expanded_offset = 0;

  void too_large(std::size_t at, std::uint64_t max) {
    failed = true;
    why = "offset " + std::to_string(at) + ": value larger than --max-message-size (" +
          std::to_string(max) + " bytes)";
  }

  /// --records: expands the complete values at the front of the bytes at hand into
  /// `expanded`. msgpackr's records are not self-delimiting MessagePack (a definition's
  /// values follow the ext), so the decoder's boundaries do not apply: each value is expanded
  /// from the bytes at hand, and one that does not end in them is expanded again once more
  /// have come (once they have doubled, so that the work stays linear). Returns the raw
  /// bytes taken (0: none complete); an error other than a cut is recorded.
  std::size_t expand_at_hand(input_run& run) {
    const std::span<const std::byte> held = dec.pending();
    expanded.clear();
    std::size_t at = 0, count = 0;
    while (at < held.size()) {
      const std::size_t before = expanded.size();
      const auto end = records->expand(held, at, expanded);
      if (!end) {
        expanded.truncate(before);  // the values before the error only
        if (end.error().code == mpk::errc::truncated && !eof) {
          if (count == 0) retry_at = 2 * held.size();
          break;
        }
        failed = true;
        err = {end.error().code, dec.position() + end.error().offset};
        break;
      }
      at = *end;
      ++count;
    }
    if (count != 0) (void)dec.take(at, count);
    run = {expanded.bytes(), expanded_offset, false, {}};
    expanded_offset += expanded.size();
    return at;
  }
  std::size_t retry_at = 0;  // --records: bytes to hold before expanding a cut value again
};

input_stream::input_stream(const input_args& a, const mpk::limits& lim)
    : args_(a), p_(new impl(a, lim)) {}

input_stream::~input_stream() {
  delete p_;
}

bool input_stream::open() {
  impl& p = *p_;
  if (!p.file.open(args_.file, args_.unbuffered)) return false;
  p.bar.emplace(p.file.size());

  const records_args& r = args_.records;
  if (!r.records && r.structures.empty()) return true;
  if (!r.structures.empty()) {
    std::vector<std::byte> bytes;
    std::string why;
    if (!read_input(r.structures, bytes, why)) {
      std::fprintf(stderr, "mpk: %s\n", why.c_str());
      return false;
    }
    auto loaded = mpk::shared_structures::load(bytes);
    if (!loaded) {
      std::fprintf(stderr,
                   "mpk: %s: %s (expected msgpackr's pack(structures): an array of arrays of "
                   "str)\n",
                   r.structures.c_str(), loaded.error().to_string().c_str());
      return false;
    }
    p.shared = std::move(*loaded);
  }
  p.records.emplace(mpk::records_options{.mode = mpk::records_mode::sequential,
                                         .shared = p.shared ? &*p.shared : nullptr});
  return true;
}

input_stream::status input_stream::next(input_run& out) {
  impl& p = *p_;
  const std::uint64_t max = args_.max_message;
  if (p.records) {
    for (;;) {
      if (p.failed) return status::failed;
      if (p.dec.buffered() != 0 && (p.eof || p.dec.buffered() >= p.retry_at)) {
        p.retry_at = 0;
        if (p.expand_at_hand(out) != 0) return status::run;  // an error comes next call
        if (p.failed) return status::failed;
      }
      if (p.eof) return status::end;
      if (!read_more()) return status::failed;
    }
  }
  for (;;) {
    if (p.failed || p.done) return p.failed ? status::failed : status::end;
    // Every complete value at hand, as one run (they are back to back in the buffer).
    const std::byte* first = nullptr;
    std::size_t size = 0;
    std::size_t offset = 0;
    for (;;) {
      const auto msg = args_.per_message ? p.dec.next() : p.dec.next_all();
      if (!msg) {
        p.bad = true;
        break;
      }
      if (msg->empty()) break;
      const std::size_t at = p.dec.position() - msg->size();
      // A run: check its values one by one (rare: --max-message-size below the run's size).
      if (max != 0 && msg->size() > max && !args_.per_message) {
        if (const std::size_t big = first_too_large(*msg, max); big != npos) {
          if (big != 0) {  // the values before it first
            out = {msg->first(big), at, false, {}};
            p.too_large(at + big, max);
            return status::run;
          }
          p.too_large(at, max);
          break;
        }
      } else if (max != 0 && msg->size() > max) {
        p.too_large(at, max);
        break;
      }
      if (first == nullptr) {
        first = msg->data();
        offset = at;
      }
      size += msg->size();
      if (args_.per_message) break;
    }
    if (first != nullptr) {
      out = {std::span<const std::byte>(first, size), offset, false, {}};
      return status::run;
    }
    if (p.failed) return status::failed;
    if (p.bad) {
      // A malformed value: the bytes before the error (all there), then the error.
      p.done = true;
      const mpk::error e = p.dec.error();
      const std::span<const std::byte> held = p.dec.pending();
      const std::size_t at = p.dec.position();
      // The cut keeps the offending byte (it has arrived), so that a reader meets the same
      // error there.
      const std::size_t cut = e.offset >= at ? std::min(held.size(), e.offset - at + 1) : 0;
      out = {held.first(cut), at, true, e};
      return status::run;
    }
    if (p.eof) {
      if (p.dec.buffered() == 0) return status::end;
      // The input ends inside a value: the command reads it and reports where.
      p.done = true;
      out = {p.dec.pending(), p.dec.position(), true, {}};
      return status::run;
    }
    if (!read_more()) return status::failed;
  }
}

bool input_stream::read_more() {
  impl& p = *p_;
  const std::uint64_t max = args_.max_message;
  {
    if (max != 0 && p.dec.buffered() > max) {
      p.too_large(p.dec.position(), max);
      return false;
    }
    // Everything complete has been handed over: what the command wrote goes out before
    // waiting for more input (a pipe, a socket, `tail -f`).
    if (p.file.live() && std::fflush(stdout) != 0) {
      p.failed = true;
      p.why = std::string("mpk: cannot write standard output: ") + std::strerror(errno);
      return false;
    }
    const std::span<std::byte> room = p.dec.prepare(read_size());
    if (room.empty()) {
      p.failed = true;
      p.err = p.dec.error();
      return false;
    }
    const long n = p.file.read(room);
    if (n < 0) {
      p.failed = true;
      p.reported = true;  // by input_file::read
      p.dec.commit(0);
      return false;
    }
    p.dec.commit(static_cast<std::size_t>(n));
    if (n == 0) p.eof = true;
  }
  return true;
}

input_stream::status input_stream::next_at_hand(input_run& out) {
  impl& p = *p_;
  for (;;) {
    if (p.failed || p.done) return p.failed ? status::failed : status::end;
    if (p.need_whole || p.eof || p.records) {
      // The decoder's scan takes it from here (one value; or the end).
      p.need_whole = false;
      p.at_hand = false;  // taken by the decoder already
      return next(out);
    }
    if (p.dec.buffered() != 0) {
      out = {p.dec.pending(), p.dec.position(), false, {}};
      p.at_hand = true;
      return status::run;
    }
    if (!read_more()) return status::failed;
  }
}

void input_stream::took(std::size_t n, std::size_t count) {
  if (!p_->at_hand) return;  // a value from next(): the decoder took it
  p_->at_hand = false;
  if (count == 0 || !p_->dec.take(n, count)) p_->need_whole = true;
}

void input_stream::report_error() const {
  if (p_->reported) return;
  if (!p_->why.empty())
    std::fprintf(stderr, "%s\n", p_->why.c_str());
  else
    report(p_->err);
}

void input_stream::written() {
  p_->bar->update(p_->dec.position());
}

}  // namespace mpk_tool
