// The mpk tool's commands and the pieces they share (input, output, progress).
#pragma once

#include <mpk/error.hpp>
#include <mpk/reader.hpp>
#include <mpk/visit.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpk_tool {

/// Exit statuses: 0 success, 1 bad input (or an I/O error), 2 usage error (CLI11).
inline constexpr int exit_ok = 0;
inline constexpr int exit_bad_input = 1;
inline constexpr int exit_usage = 2;

/// The whole content of `path` ("-" or empty: standard input, read in binary), or an
/// explanation in `why`. For small side inputs (--structures); the commands stream.
bool read_input(const std::string& path, std::vector<std::byte>& out, std::string& why);

/// Writes `text` to standard output; false on an I/O error.
bool write_out(std::string_view text);

/// Prints "offset N: <what is wrong>" on standard error.
void report(const mpk::error& e);

/// report(), except for errc::io_error, which stands for a failed write of standard output
/// ("mpk: cannot write standard output: ..." from errno).
void report_failure(const mpk::error& e);

/// A progress line on standard error for inputs over 64 MiB, when standard error is a
/// terminal; otherwise it does nothing.
class progress {
 public:
  explicit progress(std::size_t total);
  ~progress();
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;
  /// Reports that `done` bytes of the input have been handled (cheap: prints when the
  /// percentage changes).
  void update(std::size_t done) {
    if (active_ && done >= next_) show(done);
  }

 private:
  void show(std::size_t done);
  std::size_t total_;
  std::size_t next_ = 0;
  bool active_;
};

/// --records / --structures FILE (to-json, dump, stats): msgpackr records in the input.
struct records_args {
  bool records = false;
  std::string structures;  // msgpackr's pack(structures); implies records
};

/// What every streaming command reads: the input and how it is read.
struct input_args {
  std::string file;               // "-" or empty: standard input
  std::uint64_t max_message = 0;  // --max-message-size: largest top-level value; 0: no bound
  bool unbuffered = false;        // --unbuffered: flush after every value
  records_args records;
  bool per_message = false;  // hand over one value per run (not an option: mpk get)
};

/// Bytes read from the input at a time (the fixed part of the memory bound).
inline constexpr std::size_t read_chunk = std::size_t{256} << 10;

/// read_chunk, or fewer bytes when the environment variable MPK_READ_CHUNK says so (for the
/// tool's tests: MPK_READ_CHUNK=1 splits the input at every byte; docs/cli.md).
std::size_t read_size();

/// The input file descriptor of a command (standard input for "-" or an empty name), and
/// what the commands need to know about it and about standard output.
class input_file {
 public:
  input_file() = default;
  ~input_file();
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;
  /// Opens `path` and looks at standard output (`unbuffered`: --unbuffered). False after
  /// printing why on stderr ("mpk: cannot open ...").
  bool open(const std::string& path, bool unbuffered);
  /// Reads at most `out.size()` bytes (read_size() at most), retrying on EINTR: the count,
  /// 0 at the end, -1 after printing why ("mpk: cannot read ...") on stderr.
  long read(std::span<std::byte> out);
  /// The size of a regular file (for the progress line); 0 for a pipe or a terminal.
  std::size_t size() const noexcept { return size_; }
  /// Whether standard output is to be flushed before each wait for input: it is not a
  /// regular file, or --unbuffered.
  bool live() const noexcept { return live_; }

 private:
  int fd_ = -1;
  bool own_ = false;
  std::string name_;
  std::size_t size_ = 0;
  bool live_ = false;
};

/// A run of the input handed to a command: complete top-level values back to back, or, once
/// the input has ended inside a value, that unfinished value (the command reads it as it
/// reads any other, so it reports exactly where and why it ends).
struct input_run {
  std::span<const std::byte> bytes;  // valid until the next input_stream::next()
  std::size_t offset = 0;  // stream offset of bytes[0] (of the expanded stream with --records)
  /// The bytes are the start of a value that does not end: the input ends inside it, or
  /// they are cut where the decoder found the value malformed (`error`). Reading them, the
  /// command writes what it can of the value and meets its own error; a truncation stands
  /// for `error` when there is one.
  bool unfinished = false;
  mpk::error error;
};

/// The input of a streaming command, read incrementally through an mpk::stream_decoder:
/// memory is the largest top-level value plus read_chunk bytes, whatever the input's size,
/// and each value is handed over as soon as its last byte has been read.
class input_stream {
 public:
  /// `lim`: the limits of every value (validate's flags; mpk's defaults otherwise).
  input_stream(const input_args& a, const mpk::limits& lim);
  ~input_stream();
  input_stream(const input_stream&) = delete;
  input_stream& operator=(const input_stream&) = delete;

  /// Opens the input (and the --structures file). False after printing why on stderr.
  bool open();

  enum class status { run, end, failed };
  /// The next run of values (status::run), the end of the input (status::end), or an error
  /// of the input itself (status::failed: a malformed value found by the decoder's scan, a
  /// value over --max-message-size, a read error, a records error): report_error() prints
  /// it. The values before an error are always handed over first.
  status next(input_run& out);
  /// For a command that finds where values end as it reads them (mpk get: one pass instead
  /// of the decoder's and its own): the bytes at hand as a run that may end inside a value,
  /// reading first when none are held. The command then says with took() how many bytes of
  /// complete values it has handled. When it could handle none (the first value has not
  /// fully arrived), the next call waits for that value whole and hands it over alone.
  /// Unfinished and malformed values, and the end, come as from next().
  status next_at_hand(input_run& out);
  /// `n` bytes, `count` values, of the last next_at_hand() run are handled.
  void took(std::size_t n, std::size_t count);
  /// Prints the error of status::failed on stderr.
  void report_error() const;

  /// Says that the output of the last run is written (updates the progress line). Standard
  /// output is flushed by next() before it waits for more input, when it is live (not a
  /// regular file, or --unbuffered).
  void written();
  /// Whether standard output is flushed after every value (--unbuffered).
  bool per_value() const noexcept { return args_.unbuffered; }

 private:
  /// Reads once into the decoder (flushing live output first); false on an error (recorded).
  bool read_more();
  struct impl;
  const input_args& args_;
  impl* p_;
};

/// The error that a command's reading of `run` (`e`, none when it read it all) ends with.
/// A cut value's truncation is not the value's fault: the decoder's error is (the command read
/// the bytes before it without finding another); without one, the input ended there.
inline mpk::error run_error(const input_run& run, mpk::error e) {
  if (run.unfinished && (!e || e.code == mpk::errc::truncated)) {
    if (run.error) e = run.error;
    if (!e) e = {mpk::errc::truncated, run.offset};
  }
  return e;
}

/// Reads every run of `in` and hands it to `on_run(const input_run&)`, which returns an
/// mpk::error to stop (already offset in the stream). Returns the exit status: after an
/// error, what was written before it is flushed and the error printed.
template <class OnRun>
int for_each_run(input_stream& in, OnRun&& on_run) {
  input_run run;
  for (;;) {
    const input_stream::status s = in.next(run);
    if (s == input_stream::status::end) break;
    if (s == input_stream::status::failed) {
      std::fflush(stdout);
      in.report_error();
      return exit_bad_input;
    }
    const mpk::error e = run_error(run, on_run(std::as_const(run)));
    if (e) {
      std::fflush(stdout);
      report_failure(e);
      return exit_bad_input;
    }
    in.written();
  }
  return std::fflush(stdout) == 0 ? exit_ok : exit_bad_input;
}

struct to_json_args {
  input_args in;
  bool pretty = false;
  bool lossless = false;
};
struct from_json_args {
  input_args in;  // records: unused
  bool lossless = false;
};
struct validate_args {
  input_args in;  // records: unused
  std::uint32_t max_depth = mpk::limits{}.max_depth;
  std::int64_t max_len = -1;  // -1: the default limits
  bool utf8 = true;           // --no-utf8 clears it
};
struct get_args {
  input_args in;
  std::string path;
  bool raw = false;       // MessagePack out instead of JSON
  bool null = false;      // print null for a path that selects nothing
  bool lossless = false;  // JSON in the lossless mapping
  bool pretty = false;
};

int run_to_json(const to_json_args& a);
int run_from_json(const from_json_args& a);
int run_dump(const input_args& a);
int run_validate(const validate_args& a);
int run_stats(const input_args& a);
int run_get(const get_args& a);

// --- walking values --------------------------------------------------------------------

/// Visits the top-level values of `bytes` (which start at stream offset `base`) one after
/// the other with mpk::visit under `lim`: `on_event(const mpk::visit_event&, std::size_t at)`
/// gets each event, `at` being the stream offset of the event's offsets, and returns an
/// mpk::error to stop (returned as it is); `after_value()` runs after each complete value and
/// returns one too. Returns the first error; those of the walk are offset in the stream.
template <class OnEvent, class AfterValue>
mpk::error visit_values(std::span<const std::byte> bytes, std::size_t base, const mpk::limits& lim,
                        OnEvent&& on_event, AfterValue&& after_value) {
  const mpk::read_options options{.limits = lim};  // once, not per value
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const std::size_t at = base + pos;
    mpk::error failed;
    const mpk::result<std::size_t> r = mpk::visit(
        bytes.subspan(pos),
        [&](const mpk::visit_event& e) {
          failed = on_event(e, at);
          return !failed;
        },
        options);
    if (failed) return failed;
    if (!r) return {r.error().code, at + r.error().offset};
    pos += *r;
    if (mpk::error e = after_value()) return e;
  }
  return {};
}

}  // namespace mpk_tool
