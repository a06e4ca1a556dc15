// mpk to-json / mpk from-json.
#include <mpk/buffer.hpp>
#include <mpk/json.hpp>

#include <cerrno>
#include <cstring>

#include "tool.hpp"

namespace mpk_tool {

namespace {

/// to-json over the bytes at hand (input_stream::next_at_hand), which may end inside a value:
/// the conversion finds where the values end, instead of the decoder's scan before it (a
/// second pass over the input: 13% of to-json's instructions on W1, docs/cli.md "Speed").
/// The values are converted in steps of about `step` bytes of JSON; a step that meets the
/// end of the bytes at hand is converted again value by value, up to the value that has not
/// fully arrived: at most `step` bytes of JSON converted twice per read. That value comes
/// whole from the decoder next (which scans only the rest of it: `in` reads per message).
int to_json_at_hand(input_stream& in, const mpk::to_json_options& options) {
  constexpr std::size_t step = std::size_t{16} << 10;
  constexpr std::size_t write_at = std::size_t{1} << 20;  // write about 1 MiB at a time
  std::string out;
  input_run run;
  for (;;) {
    const input_stream::status s = in.next_at_hand(run);
    if (s == input_stream::status::end) break;
    if (s == input_stream::status::failed) {
      std::fflush(stdout);
      in.report_error();
      return exit_bad_input;
    }
    mpk::reader r(run.bytes);
    std::size_t done = 0, count = 0;  // bytes and values of the run converted
    mpk::error e{};
    out.clear();
    while (!r.at_end()) {
      const std::size_t mark = out.size();
      const auto res = mpk::to_json_lines(r, out, options, step);
      if (!res) {
        if (res.error().code == mpk::errc::truncated && !run.unfinished) {
          // Not all there: the step again, one value at a time, up to the one cut.
          out.resize(mark);
          r = mpk::reader(run.bytes.subspan(done));
          while (!r.at_end()) {
            const std::size_t before = out.size();
            const auto one = mpk::to_json_lines(r, out, options, 1);
            if (!one) {
              out.resize(before);
              break;
            }
            done += r.position();
            r = mpk::reader(run.bytes.subspan(done));
            count += *one;
          }
        } else {
          e = {res.error().code, run.offset + res.error().offset};
        }
        break;
      }
      done = r.position();
      count += *res;
      if (out.size() >= write_at) {
        if (!write_out(out)) e = {mpk::errc::io_error, 0};
        out.clear();
        if (e) break;
      }
    }
    // What converted before an error is written, then the error (as for_each_run says it).
    if (!write_out(out) && !e) e = {mpk::errc::io_error, 0};
    e = run_error(run, e);
    if (e) {
      std::fflush(stdout);
      report_failure(e);
      return exit_bad_input;
    }
    in.took(done, count);
    in.written();
  }
  return std::fflush(stdout) == 0 ? exit_ok : exit_bad_input;
}

}  // namespace

int run_to_json(const to_json_args& a) {
  const mpk::to_json_options options{.lossless = a.lossless, .pretty = a.pretty};
  // --max-message-size checks each value against the bound, and --unbuffered flushes after
  // each: both take the decoder's values as they come.
  if (a.in.max_message == 0 && !a.in.unbuffered && !a.in.records.records &&
      a.in.records.structures.empty()) {
    input_args ia = a.in;
    ia.per_message = true;  // the decoder's values one at a time (to_json_at_hand)
    input_stream in(ia, mpk::limits{});
    if (!in.open()) return exit_bad_input;
    return to_json_at_hand(in, options);
  }
  input_stream in(a.in, mpk::limits{});
  if (!in.open()) return exit_bad_input;
  // About 1 MiB of JSON Lines at a time; one value at a time with --unbuffered.
  const std::size_t stop_after = in.per_value() ? 1 : std::size_t{1} << 20;
  std::string out;
  return for_each_run(in, [&](const input_run& run) -> mpk::error {
    mpk::reader r(run.bytes);
    while (!r.at_end()) {
      out.clear();
      const auto res = mpk::to_json_lines(r, out, options, stop_after);
      // What converted before an error is written, then the error.
      if (!write_out(out)) return {mpk::errc::io_error, 0};
      if (!res) return {res.error().code, run.offset + res.error().offset};
      if (in.per_value() && std::fflush(stdout) != 0) return {mpk::errc::io_error, 0};
    }
    return {};
  });
}

namespace {

/// Finds where complete JSON texts end in a growing text, resuming where it stopped: the
/// texts of JSON Lines, or of JSON texts one after another. Only the structure is followed
/// (brackets, strings and their escapes, bare tokens at the top level); whether a text is
/// valid JSON is simdjson's business, later. A bare top-level token (a number, true, ...)
/// ends at the first byte that cannot be part of it, so "12" then "3" in the next read is
/// one number; at the end of the input everything held is complete.
class json_splitter {
 public:
  /// `max`: the largest text allowed (0: no bound); see too_large().
  explicit json_splitter(std::uint64_t max) : max_(max) {}

  /// Scans `text` from where the last call stopped; returns the offset just past the last
  /// complete text (0 when none is complete yet). Stops at a text longer than the bound.
  std::size_t scan(std::string_view text) {
    for (; pos_ < text.size() && !too_large_; ++pos_) {
      if (start_ != npos && max_ != 0 && pos_ - start_ >= max_) {
        too_large_ = true;
        break;
      }
      const char c = text[pos_];
      if (start_ == npos && c != ' ' && c != '\t' && c != '\n' && c != '\r') start_ = pos_;
      if (in_string_) {
        if (escape_) {
          escape_ = false;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == '"') {
          in_string_ = false;
          if (depth_ == 0) end_text(pos_ + 1);
        }
        continue;
      }
      if (in_token_) {
        if (!ends_token(c)) continue;
        in_token_ = false;
        end_text(pos_);
      }
      switch (c) {
        case ' ':
        case '\t':
        case '\n':
        case '\r':
          break;
        case '"':
          in_string_ = true;
          break;
        case '[':
        case '{':
          ++depth_;
          break;
        case ']':
        case '}':
          if (depth_ > 0) --depth_;
          if (depth_ == 0) end_text(pos_ + 1);  // a stray one too: simdjson says why
          break;
        default:
          if (depth_ == 0) in_token_ = true;
          break;
      }
    }
    return complete_;
  }
  /// The first `n` bytes (complete texts) were taken from the front of the text.
  void taken(std::size_t n) {
    pos_ -= n;
    complete_ -= n;
    if (start_ != npos) start_ -= n;
  }
  /// Whether scan() met a text longer than the bound; it starts at text_start().
  bool too_large() const noexcept { return too_large_; }
  std::size_t text_start() const noexcept { return start_; }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  void end_text(std::size_t end) {
    complete_ = end;
    start_ = npos;
  }
  static bool ends_token(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '[' || c == '{' ||
           c == ']' || c == '}' || c == ',' || c == ':';
  }
  std::uint64_t max_;
  bool too_large_ = false;
  std::size_t start_ = npos;  // where the text being scanned starts
  std::size_t pos_ = 0;
  std::size_t complete_ = 0;
  std::size_t depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool in_token_ = false;
};

}  // namespace

int run_from_json(const from_json_args& a) {
  input_file file;
  if (!file.open(a.in.file, a.in.unbuffered)) return exit_bad_input;
  const bool live = file.live();
  progress bar(file.size());
  bar.update(0);

  const mpk::from_json_options options{.lossless = a.lossless};
  std::string text;      // from the start of the first text not yet converted
  std::size_t base = 0;  // its offset in the input
  json_splitter split(a.in.max_message);
  mpk::buffer out;
  std::string why;
  int status = exit_ok;
  // Converts the complete texts at the front of `text` (`n` bytes). False after an error.
  auto convert = [&](std::size_t n) {
    out.clear();
    const auto res = mpk::from_json(std::string_view(text.data(), n), out, options, &why);
    if (!res) {
      // Every text before the wrong one is written (they are valid: convert them alone).
      const std::size_t at = res.error().offset;
      out.clear();
      if (at != 0) (void)mpk::from_json(std::string_view(text.data(), at), out, options);
    }
    if (!write_out(std::string_view(reinterpret_cast<const char*>(out.data()), out.size()))) {
      std::fprintf(stderr, "mpk: cannot write standard output: %s\n", std::strerror(errno));
      status = exit_bad_input;
      return false;
    }
    if (!res) {
      std::fflush(stdout);
      std::fprintf(stderr, "offset %zu: %s\n", base + res.error().offset, why.c_str());
      status = exit_bad_input;
      return false;
    }
    text.erase(0, n);
    split.taken(n);
    base += n;
    if (live && std::fflush(stdout) != 0) {
      status = exit_bad_input;
      return false;
    }
    bar.update(base);
    return true;
  };
  for (;;) {
    const std::size_t held = text.size();
    text.resize(held + read_size());
    const long n =
        file.read(std::as_writable_bytes(std::span<char>(text.data() + held, read_size())));
    if (n < 0) {
      status = exit_bad_input;
      break;
    }
    text.resize(held + static_cast<std::size_t>(n));
    // At the end, whatever is held is complete (or wrong, which simdjson says).
    std::size_t complete = split.scan(text);  // the bound applies to the last text too
    if (n == 0 && !split.too_large()) complete = text.size();
    if (split.too_large()) {
      // The texts before it, then the error at its start.
      const std::size_t start = split.text_start();
      if (complete != 0 && !convert(complete)) break;
      std::fflush(stdout);
      std::fprintf(stderr, "offset %zu: value larger than --max-message-size (%llu bytes)\n",
                   base + start - complete, static_cast<unsigned long long>(a.in.max_message));
      status = exit_bad_input;
      break;
    }
    if (n == 0) {
      if (text.find_first_not_of(" \t\r\n") != std::string::npos) (void)convert(text.size());
      break;
    }
    if (complete != 0 && !convert(complete)) break;
  }
  if (std::fflush(stdout) != 0 && status == exit_ok) status = exit_bad_input;
  return status;
}

}  // namespace mpk_tool
