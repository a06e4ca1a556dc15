// fuzz/fuzz_support.hpp - what the fuzz targets share: a failing check that prints the
// input, and a generic, non-recursive walk of one MessagePack value through mpk::reader.
#pragma once

#include <mpk/reader.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>
#include <vector>

namespace mpk_fuzz {

/// The input of the current run, printed (hex, up to 256 bytes) when a check fails.
inline std::span<const std::byte> current_input;

[[noreturn]] inline void check_failed(const char* file, int line, const char* what) {
  std::fprintf(stderr, "%s:%d: check failed: %s\ninput (%zu bytes):", file, line, what,
               current_input.size());
  for (std::size_t i = 0; i < current_input.size() && i < 256; ++i)
    std::fprintf(stderr, " %02x", static_cast<unsigned>(current_input[i]));
  std::fprintf(stderr, "%s\n", current_input.size() > 256 ? " ..." : "");
  std::abort();  // libFuzzer saves the input as a crash; the replay test fails
}

/// Limits so small that short inputs reach every one of them; the targets check each input
/// under these as well as under the defaults (and most under limits::trusted()).
inline const mpk::limits tiny_limits{.max_depth = 3,
                                     .max_str_len = 4,
                                     .max_bin_len = 4,
                                     .max_ext_len = 4,
                                     .max_array_len = 4,
                                     .max_map_len = 4};

}  // namespace mpk_fuzz

/// A property of a fuzz target: aborts, printing the input, when `cond` is false. Active in
/// every build type (not an assert()).
#define MPK_FUZZ_CHECK(cond) \
  ((cond) ? void(0) : ::mpk_fuzz::check_failed(__FILE__, __LINE__, #cond))

namespace mpk_fuzz {

/// One step of a generic walk: a scalar, or a container header (its items follow).
struct token {
  mpk::type family = mpk::type::nil;
  bool boolean = false;
  bool negative = false;         ///< integers: the value is below zero (then `i` holds it)
  std::uint64_t u = 0;           ///< integers >= 0
  std::int64_t i = 0;            ///< integers < 0
  std::uint64_t float_bits = 0;  ///< float32: the float's bits; float64: the double's bits
  std::int8_t ext_type = 0;
  std::string_view bytes;   ///< str, bin, ext data (a view into the input)
  std::uint32_t count = 0;  ///< array elements, map entries

  friend bool operator==(const token&, const token&) = default;
};

/// Reads the next complete value of `r` generically (peek, then the typed read of its
/// family; containers through their headers), calling `on(token)` for each scalar and
/// header in document order. No recursion: `stack` (caller-owned, to reuse its memory)
/// keeps the items still owed per open container. Containers nested deeper than
/// `max_depth` (a top-level container is depth 1) stop the walk with errc::depth_exceeded
/// at the offset of the container, as the reader's skip() does.
///
/// Returns the first error: the reader's (code and offset), or the depth error.
template <class F>
mpk::error walk_value(mpk::reader& r, std::uint32_t max_depth, std::vector<std::uint64_t>& stack,
                      F&& on) {
  stack.clear();
  for (;;) {
    const std::size_t at = r.position();
    token t;
    t.family = r.peek();
    switch (t.family) {
      case mpk::type::nil:
        r.read_nil();
        break;
      case mpk::type::boolean:
        t.boolean = r.read<bool>();
        break;
      case mpk::type::uint:
        t.u = r.read<std::uint64_t>();
        break;
      case mpk::type::sint:
        t.i = r.read<std::int64_t>();
        t.negative = t.i < 0;
        if (!t.negative) t.u = static_cast<std::uint64_t>(t.i), t.i = 0;
        break;
      case mpk::type::float32:
        t.float_bits = std::bit_cast<std::uint32_t>(r.read<float>());
        break;
      case mpk::type::float64:
        t.float_bits = std::bit_cast<std::uint64_t>(r.read<double>());
        break;
      case mpk::type::str:
        t.bytes = r.read_string_view();
        break;
      case mpk::type::bin: {
        const auto b = r.read_bin();
        t.bytes = {reinterpret_cast<const char*>(b.data()), b.size()};
        break;
      }
      case mpk::type::ext: {
        const auto e = r.read_ext();
        t.ext_type = e.type;
        t.bytes = {reinterpret_cast<const char*>(e.data.data()), e.data.size()};
        break;
      }
      case mpk::type::array:
      case mpk::type::map:
        t.count = t.family == mpk::type::array ? r.read_array_header() : r.read_map_header();
        // After the header, like skip(): a bad header is reported before the depth.
        if (r.ok() && stack.size() >= max_depth) return {mpk::errc::depth_exceeded, at};
        break;
      case mpk::type::invalid:
        break;
    }
    if (!r.ok()) return r.error();
    on(t);
    if (mpk::is_container(t.family)) {
      stack.push_back(t.family == mpk::type::map ? std::uint64_t{t.count} * 2 : t.count);
    } else if (stack.empty()) {
      return {};
    } else {
      --stack.back();
    }
    // Close every container whose items are all read; closing one completes an item of
    // its parent.
    while (!stack.empty() && stack.back() == 0) {
      stack.pop_back();
      if (stack.empty()) return {};
      --stack.back();
    }
  }
}

}  // namespace mpk_fuzz
