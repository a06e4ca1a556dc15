// fuzz/fuzz_support.hpp - what the fuzz targets share: a failing check that prints the
// input, and the tokens of a walk of one MessagePack value through mpk::visit.
#pragma once

#include <mpk/reader.hpp>
#include <mpk/visit.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>
#include <utility>
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

/// Runs `check(input, limits)` under the default limits, limits::trusted() and tiny_limits
/// (small, so that the fuzzer reaches every limit with short inputs).
template <class Check>
void check_under_each_limits(std::span<const std::byte> input, Check&& check) {
  check(input, mpk::limits{});
  check(input, mpk::limits::trusted());
  check(input, tiny_limits);
}

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

/// Where the next value of a fuzz input starts, for walk_value().
struct cursor {
  std::span<const std::byte> input;
  std::size_t pos = 0;

  bool at_end() const { return pos == input.size(); }
  std::size_t position() const { return pos; }
};

/// Walks the next complete value at `c` with mpk::visit under `lim`, calling `on(token)` for
/// each scalar and container header in document order, and moves `c` past the value.
///
/// Returns visit's error (its offset in the whole input), `c` unmoved; or none.
template <class F>
mpk::error walk_value(cursor& c, const mpk::limits& lim, F&& on) {
  const mpk::result<std::size_t> r = mpk::visit(
      c.input.subspan(c.pos),
      [&](const mpk::visit_event& e) {
        token t;
        switch (e.kind) {
          case mpk::visit_kind::array_end:
          case mpk::visit_kind::map_end:
            return;
          case mpk::visit_kind::nil:
            t.family = mpk::type::nil;
            break;
          case mpk::visit_kind::boolean:
            t.family = mpk::type::boolean;
            t.boolean = e.boolean;
            break;
          case mpk::visit_kind::uint:
            t.family = mpk::type::uint;
            t.u = e.u;
            break;
          case mpk::visit_kind::sint:
            t.family = mpk::type::sint;
            t.negative = e.i < 0;
            if (t.negative)
              t.i = e.i;
            else
              t.u = static_cast<std::uint64_t>(e.i);
            break;
          case mpk::visit_kind::float32:
            t.family = mpk::type::float32;
            t.float_bits = std::bit_cast<std::uint32_t>(e.f32);
            break;
          case mpk::visit_kind::float64:
            t.family = mpk::type::float64;
            t.float_bits = std::bit_cast<std::uint64_t>(e.f64);
            break;
          case mpk::visit_kind::str:
            t.family = mpk::type::str;
            t.bytes = e.str;
            break;
          case mpk::visit_kind::bin:
            t.family = mpk::type::bin;
            t.bytes = {reinterpret_cast<const char*>(e.bin.data()), e.bin.size()};
            break;
          case mpk::visit_kind::ext:
            t.family = mpk::type::ext;
            t.ext_type = e.ext.type;
            t.bytes = {reinterpret_cast<const char*>(e.ext.data.data()), e.ext.data.size()};
            break;
          case mpk::visit_kind::array_begin:
          case mpk::visit_kind::map_begin:
            t.family = e.kind == mpk::visit_kind::map_begin ? mpk::type::map : mpk::type::array;
            t.count = e.count;
            break;
        }
        on(std::as_const(t));
      },
      {.limits = lim});
  if (!r) return {r.error().code, c.pos + r.error().offset};
  c.pos += *r;
  return {};
}

}  // namespace mpk_fuzz
