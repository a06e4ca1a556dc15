// The mpk tool's commands and the pieces they share (input, output, progress).
#pragma once

#include <mpk/error.hpp>
#include <mpk/reader.hpp>

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
/// explanation in `why`.
bool read_input(const std::string& path, std::vector<std::byte>& out, std::string& why);

/// Writes `text` to standard output; false on an I/O error.
bool write_out(std::string_view text);

/// Prints "offset N: <what is wrong>" on standard error.
void report(const mpk::error& e);

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

/// With records on, replaces `in` with its values expanded to plain MessagePack (records
/// become maps; definitions persist across the values). An error in the input leaves the
/// values before it in `in` and the error in `pending`. False (and `why`) when the structures
/// file cannot be read or loaded.
bool expand_records(const records_args& a, std::vector<std::byte>& in, mpk::error& pending,
                    std::string& why);

/// read_input() then expand_records(): what to-json, dump and stats read. False after the
/// reason is printed on stderr (the command then exits with exit_bad_input).
bool load_input(const std::string& file, const records_args& records, std::vector<std::byte>& in,
                mpk::error& records_error);

struct to_json_args {
  std::string file;
  bool pretty = false;
  bool lossless = false;
  records_args records;
};
struct from_json_args {
  std::string file;
  bool lossless = false;
};
struct validate_args {
  std::string file;
  std::uint32_t max_depth = mpk::limits{}.max_depth;
  std::int64_t max_len = -1;  // -1: the default limits
  bool utf8 = false;
};

int run_to_json(const to_json_args& a);
int run_from_json(const from_json_args& a);
int run_dump(const std::string& file, const records_args& records = {});
int run_validate(const validate_args& a);
int run_stats(const std::string& file, const records_args& records = {});

// --- walking values --------------------------------------------------------------------

/// One value met by walk(): a scalar, str, bin or ext as a whole, or a container header.
struct item {
  std::size_t offset = 0;
  std::span<const std::byte> bytes;  // the scalar's bytes, or the container's header
  std::uint8_t marker = 0;
  mpk::type family = mpk::type::invalid;
  std::uint32_t depth = 0;  // containers open around it (a top-level value is at 0)
  std::uint64_t count = 0;  // array elements, map entries, or str/bin/ext payload bytes
  std::uint64_t u = 0;
  std::int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string_view str;
  std::span<const std::byte> bin;
  mpk::ext_view ext;
};

/// Walks the next complete value of `r` (a reader over `input`) without recursion, calling
/// `visit(const item&)` for every value in it (containers before their contents); `visit` returns
/// an mpk::error to stop. Depth is bounded by the reader's limits::max_depth
/// (errc::depth_exceeded).
template <class Visit>
mpk::error walk(mpk::reader& r, std::span<const std::byte> input, Visit&& visit) {
  std::vector<std::uint64_t> owed;  // items still owed by each open container
  const std::uint32_t max_depth = r.get_limits().max_depth;
  do {
    item it;
    it.offset = r.position();
    it.depth = static_cast<std::uint32_t>(owed.size());
    it.family = r.peek();  // errc::truncated at the end, errc::invalid_marker on 0xc1
    if (!r.ok()) return r.error();
    const std::size_t before = r.remaining();
    switch (it.family) {
      case mpk::type::nil:
        r.read_nil();
        break;
      case mpk::type::boolean:
        it.b = r.read<bool>();
        break;
      case mpk::type::uint:
        it.u = r.read<std::uint64_t>();
        break;
      case mpk::type::sint:
        it.i = r.read<std::int64_t>();
        break;
      case mpk::type::float32:
        it.f = static_cast<double>(r.read<float>());
        break;
      case mpk::type::float64:
        it.f = r.read<double>();
        break;
      case mpk::type::str:
        it.str = r.read_str();
        it.count = it.str.size();
        break;
      case mpk::type::bin:
        it.bin = r.read_bin();
        it.count = it.bin.size();
        break;
      case mpk::type::ext:
        it.ext = r.read_ext();
        it.count = it.ext.data.size();
        break;
      case mpk::type::array:
        it.count = r.read_array_header();
        break;
      case mpk::type::map:
        it.count = r.read_map_header();
        break;
      case mpk::type::invalid:
        break;
    }
    if (!r.ok()) return r.error();
    it.bytes = input.subspan(it.offset, before - r.remaining());
    it.marker = std::to_integer<std::uint8_t>(it.bytes[0]);
    const bool container = it.family == mpk::type::array || it.family == mpk::type::map;
    if (container && owed.size() >= max_depth) return {mpk::errc::depth_exceeded, it.offset};
    if (mpk::error e = visit(std::as_const(it))) return e;
    if (!owed.empty()) --owed.back();
    if (container && it.count != 0)
      owed.push_back(it.family == mpk::type::map ? it.count * 2 : it.count);
    while (!owed.empty() && owed.back() == 0)
      owed.pop_back();
  } while (!owed.empty());
  return {};
}

}  // namespace mpk_tool
