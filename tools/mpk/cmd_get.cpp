// mpk get PATH: what a jq-style path selects in each top-level value.
//
// The path is followed with the reader: at each level only the header of a container and
// its keys are read, every value off the path is skipped by its length (never decoded nor
// converted), and once a single-valued path has found its value the rest of the message is
// left alone. Only the selected values are converted to JSON (or copied, with --raw): their
// bytes are gathered and converted together, once per read (see flush()).
#include <mpk/json.hpp>

#include <algorithm>
#include <charconv>

#include "get_path.hpp"
#include "tool.hpp"

namespace mpk_tool {

namespace {

class selector {
 public:
  selector(const get_args& a, const std::vector<path_step>& steps, std::string& out)
      : a_(a), steps_(steps), out_(out), options_{.lossless = a.lossless, .pretty = a.pretty} {}

  /// How much has been selected so far, for undo().
  struct mark_t {
    std::size_t out, batch, where;
  };
  mark_t mark() const noexcept { return {out_.size(), batch_.size(), where_.size()}; }
  /// Drops what was selected since `m` (a value that has not fully arrived yet).
  void undo(const mark_t& m) {
    out_.resize(m.out);
    batch_.resize(m.batch);
    where_.resize(m.where);
  }

  /// Converts the values selected since the last call to JSON Lines appended to the output.
  /// One conversion for all of them: a conversion per value costs more than many a selection
  /// (its state and stack; json/cli_select_w7_medium). On a value that does not convert, the
  /// output holds the values before it and part of that one, as to_json_lines leaves it (and
  /// as a conversion of that value alone would), and the error has its offset in the input.
  mpk::error flush() {
    if (batch_.empty()) return {};
    mpk::reader r(std::span<const std::byte>(batch_.data(), batch_.size()), limits_);
    const auto res = mpk::to_json_lines(r, out_, options_);
    mpk::error e{};
    if (!res) {
      // The value the error is in, by its start in the batch.
      const std::size_t off = res.error().offset;
      const auto it = std::upper_bound(where_.begin(), where_.end(), off,
                                       [](std::size_t v, const origin& o) { return v < o.batch; });
      const origin& o = *(it - 1);  // where_[0].batch is 0
      e = {res.error().code, o.input + (off - o.batch)};
    }
    batch_.clear();
    where_.clear();
    return e;
  }

  /// Selects the steps from `i` in the value at `r` (whose input starts at stream offset
  /// `base`) and appends what they select. `consume`: leave `r` just past the value (needed
  /// inside a `[]`); otherwise `r` may stop anywhere in it once the selection is done.
  mpk::error select(mpk::reader& r, std::size_t base, std::size_t i, bool consume) {
    if (i == steps_.size()) return emit(r, base);
    const path_step& s = steps_[i];
    const mpk::type t = r.peek();
    if (!r.ok()) return at(r, base);
    switch (s.kind) {
      case path_step::kind_t::key: {
        if (t != mpk::type::map) return miss(r, base, consume);
        const std::uint32_t n = r.read_map_header();
        for (std::uint32_t k = 0; k < n; ++k) {
          bool match = false;
          if (r.peek() == mpk::type::str)
            match = r.read_str() == s.name;
          else
            r.skip();  // a key of another type never matches
          if (!r.ok()) return at(r, base);
          if (match) {
            if (auto e = select(r, base, i + 1, consume)) return e;
            if (consume) return skip(r, base, std::uint64_t{n - k - 1} * 2);
            return {};
          }
          r.skip();  // the value
        }
        if (!r.ok()) return at(r, base);
        return missing();
      }
      case path_step::kind_t::index: {
        if (t != mpk::type::array) return miss(r, base, consume);
        const std::uint32_t n = r.read_array_header();
        if (!r.ok()) return at(r, base);
        const std::int64_t want = s.index < 0 ? s.index + std::int64_t{n} : s.index;
        if (want < 0 || want >= std::int64_t{n}) {
          if (consume)
            if (auto e = skip(r, base, n)) return e;
          return missing();
        }
        if (auto e = skip(r, base, static_cast<std::uint64_t>(want))) return e;
        if (auto e = select(r, base, i + 1, consume)) return e;
        if (consume) return skip(r, base, n - static_cast<std::uint64_t>(want) - 1);
        return {};
      }
      case path_step::kind_t::each: {
        if (t == mpk::type::array) {
          const std::uint32_t n = r.read_array_header();
          for (std::uint32_t k = 0; k < n && r.ok(); ++k)
            if (auto e = select(r, base, i + 1, true)) return e;
        } else if (t == mpk::type::map) {
          const std::uint32_t n = r.read_map_header();
          for (std::uint32_t k = 0; k < n && r.ok(); ++k) {
            r.skip();  // the key
            if (!r.ok()) break;
            if (auto e = select(r, base, i + 1, true)) return e;
          }
        } else {
          return miss(r, base, consume);
        }
        if (!r.ok()) return at(r, base);
        return {};
      }
    }
    return {};
  }

 private:
  static mpk::error at(const mpk::reader& r, std::size_t base) {
    return {r.error().code, base + r.error().offset};
  }
  mpk::error skip(mpk::reader& r, std::size_t base, std::uint64_t n) {
    for (std::uint64_t k = 0; k < n && r.ok(); ++k)
      r.skip();
    return r.ok() ? mpk::error{} : at(r, base);
  }
  /// The value at `r` has no such key, index or elements.
  mpk::error miss(mpk::reader& r, std::size_t base, bool consume) {
    if (consume)
      if (auto e = skip(r, base, 1)) return e;
    return missing();
  }
  mpk::error missing() {
    if (!a_.null) return {};
    if (a_.raw) {
      out_ += '\xc0';
    } else {
      where_.push_back({batch_.size(), 0});  // a nil converts, always
      batch_.push_back(std::byte{0xc0});
    }
    return {};
  }
  mpk::error emit(mpk::reader& r, std::size_t base) {
    const std::size_t start = r.position();
    const std::span<const std::byte> value = r.raw_value();
    if (!r.ok()) return at(r, base);
    if (a_.raw) {
      out_.append(reinterpret_cast<const char*>(value.data()), value.size());
      return {};
    }
    limits_ = r.get_limits();  // every value's reader has the same
    where_.push_back({batch_.size(), base + start});
    batch_.insert(batch_.end(), value.begin(), value.end());
    return {};
  }

  const get_args& a_;
  const std::vector<path_step>& steps_;
  std::string& out_;
  mpk::to_json_options options_;
  // The selected values not converted yet, back to back, and where each starts in the batch
  // and in the input.
  struct origin {
    std::size_t batch, input;
  };
  std::vector<std::byte> batch_;
  std::vector<origin> where_;
  mpk::limits limits_{};
};

}  // namespace

int run_get(const get_args& a) {
  std::vector<path_step> steps;
  std::string why;
  if (!parse_path(a.path, steps, why)) {
    std::fprintf(stderr, "mpk get: %s\n", why.c_str());
    return exit_usage;
  }
  input_args ia = a.in;
  ia.per_message = true;  // next(): one value at a time
  input_stream in(ia, mpk::limits{});
  if (!in.open()) return exit_bad_input;
  std::string out;
  selector sel(a, steps, out);
  auto fail = [&](mpk::error e) {
    if (const mpk::error before = sel.flush())
      e = before;  // the values before e, or an error in one
    (void)write_out(out);
    std::fflush(stdout);
    report_failure(e);
    return exit_bad_input;
  };
  input_run run;
  for (;;) {
    const input_stream::status s = in.next_at_hand(run);
    if (s == input_stream::status::end) break;
    if (s == input_stream::status::failed) {
      if (const mpk::error e = sel.flush()) return fail(e);
      (void)write_out(out);
      std::fflush(stdout);
      in.report_error();
      return exit_bad_input;
    }
    // The values at hand, each walked once: the selection reads up to what it selects and
    // skips the rest of the value (`consume`), which finds where the next one starts. A
    // value that does not end in the bytes at hand is left for the decoder (took()).
    const bool whole = run.unfinished || in.per_value() ? true : false;
    std::size_t at = 0, count = 0;
    while (at < run.bytes.size()) {
      const selector::mark_t mark = sel.mark();
      mpk::reader r(run.bytes.subspan(at));
      mpk::error e = sel.select(r, run.offset + at, 0, true);
      if (e.code == mpk::errc::truncated && !run.unfinished) {
        sel.undo(mark);  // not there yet: again once it is whole
        break;
      }
      if (!e && a.in.max_message != 0 && r.position() > a.in.max_message) {
        sel.undo(mark);
        if (const mpk::error before = sel.flush()) return fail(before);
        (void)write_out(out);  // the values before it
        std::fflush(stdout);
        std::fprintf(stderr, "offset %zu: value larger than --max-message-size (%llu bytes)\n",
                     run.offset + at, static_cast<unsigned long long>(a.in.max_message));
        return exit_bad_input;
      }
      e = run_error(run, e);
      if (e) return fail(e);
      at += r.position();
      ++count;
      if (whole && in.per_value()) {
        if (const mpk::error before = sel.flush()) return fail(before);
        if (!write_out(out) || std::fflush(stdout) != 0) return fail({mpk::errc::io_error, 0});
        out.clear();
      }
    }
    // Into stdio's buffer, which input_stream flushes before it waits for input.
    if (const mpk::error e = sel.flush()) return fail(e);
    if (!write_out(out)) return fail({mpk::errc::io_error, 0});
    out.clear();
    in.took(at, count);
    in.written();
  }
  return std::fflush(stdout) == 0 ? exit_ok : exit_bad_input;
}

}  // namespace mpk_tool
