// mpk/json.hpp - MessagePack to JSON and back, in a plain and a lossless mapping.
//
//     std::string text;
//     mpk::reader r(bytes);
//     while (!r.at_end())
//       if (auto res = mpk::to_json(r, text); !res) return res.error();   // "offset 7: ..."
//
//     mpk::buffer packed;
//     auto n = mpk::from_json(R"({"id": 1, "tags": ["a"]})", packed);    // 1 value written
//
// Plain mode is for people and for JSON tools: nil, booleans, integers (exact, all 64 bits),
// floats (shortest text that reads back to the same value, always with '.' or an exponent),
// strings; binaries as base64 strings; timestamps as RFC 3339 strings; other extensions as
// {"type": T, "data": base64}; map keys that are not strings as their JSON text.
//
// Lossless mode is exact both ways: from_json(to_json(x)) gives back x, and the same bytes
// when x used the smallest forms. Values JSON cannot hold become one-member objects whose
// key starts with '$' ({"$float32": 1.5}, {"$bin": "AQI="}, {"$map": [[1, "one"]]}, ...);
// docs/json.md has the whole table.
//
// Both directions are iterative: nesting is bounded by an explicit stack and by a depth
// limit, never by the call stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mpk/buffer.hpp"
#include "mpk/config.hpp"
#include "mpk/error.hpp"
#include "mpk/reader.hpp"

namespace mpk::inline v0 {

/// Options of to_json(): the read options and the output format.
///
///     mpk::to_json(r, out, {.lossless = true});
struct to_json_options {
  /// How the input is read by to_json(bytes); the overloads taking a reader use the
  /// reader's options instead. `allow_trailing` plays no part: every value is converted.
  read_options read{};
  /// The lossless mapping ($float32, $bin, $ext, $timestamp, $str, $map); plain otherwise.
  bool lossless = false;
  /// Indent nested values by two spaces, one member or element a line; compact otherwise.
  bool pretty = false;
};

/// Options of from_json().
struct from_json_options {
  /// Read the lossless mapping back: one-member objects with a known '$' key become the
  /// value they stand for. Off: every object is a map.
  bool lossless = false;
  /// Deepest nesting of arrays and objects accepted (a top-level array is depth 1).
  std::uint32_t max_depth = 512;
};

/// Converts the next MessagePack value of `r` to one JSON text, appended to `out` (no
/// newline after it). The reader's limits apply (lengths, counts, max_depth); `out` is the
/// caller's and keeps what was appended before an error.
///
///     mpk::reader r(bytes);  std::string json;
///     if (auto res = mpk::to_json(r, json); !res) std::puts(res.error().to_string().c_str());
///
/// Errors (the offset is that of the offending value; the reader keeps the error too):
/// errc::truncated, errc::invalid_marker, errc::limit_exceeded, errc::depth_exceeded (the
/// reader's errors); errc::invalid_utf8 (plain mode: a string, or a map key, that is not
/// valid UTF-8 - lossless mode writes it as {"$str": base64} instead); errc::out_of_range
/// (plain mode: NaN or an infinity, which JSON cannot hold); errc::out_of_memory.
MPK_API result<void> to_json(reader& r, std::string& out, const to_json_options& options = {});

/// Converts the values left in `r` to JSON Lines appended to `out`: each value's JSON text
/// followed by '\n'. Stops at the end of the input, or after the value that brings what it
/// appended to `stop_after` bytes or more (so that a caller can write `out` out and call it
/// again). Faster than to_json() per value: one conversion state for all of them. Returns
/// the number of values converted.
///
///     mpk::reader r(bytes);  std::string text;
///     while (!r.at_end()) {
///       auto n = mpk::to_json_lines(r, text, {}, 1 << 20);   // about 1 MiB at a time
///       if (!n) return n.error();
///       write(text);  text.clear();
///     }
///
/// Errors: those of to_json(reader&, ...); `out` then holds the values converted before the
/// error (each with its '\n') and part of the wrong one.
MPK_API result<std::size_t> to_json_lines(reader& r, std::string& out,
                                          const to_json_options& options = {},
                                          std::size_t stop_after = static_cast<std::size_t>(-1));

namespace detail {
MPK_API result<std::string> to_json_bytes(std::span<const std::byte> msgpack,
                                          const to_json_options& options);
}  // namespace detail

/// Converts every value of `msgpack` (any mpk::byte_input: one value, or several one after
/// another) to JSON: one text per value, each followed by '\n' (JSON Lines), read with
/// `options.read`.
///
///     auto text = mpk::to_json(bytes, {.pretty = true});   // result<std::string>
///
/// Errors: those of to_json(reader&, ...).
template <byte_input B>
result<std::string> to_json(const B& msgpack, const to_json_options& options = {}) {
  return detail::to_json_bytes(mpk::as_bytes(msgpack), options);
}

/// Converts JSON text to MessagePack appended to `out`, in the smallest forms: integers
/// that fit int64 or uint64 stay integers, every other number (integers beyond 64 bits
/// included) becomes the nearest float64, object members keep their order. `json` may hold
/// several texts separated by whitespace (JSON Lines); each becomes one top-level value.
/// Returns the number of values written. The simdjson parser is kept per thread for the
/// next call while the largest text parsed at once is at most 1 MiB (it then holds about
/// 14 bytes per byte of that text); JSON Lines are parsed in batches of about 256 KiB.
///
///     mpk::buffer out;  auto n = mpk::from_json("1\n[2, 3]\n", out);   // *n == 2
///
/// Errors: errc::invalid_argument (not JSON, or not the lossless mapping where a '$'
/// object promised it; the offset is where the offending JSON text starts, and `why`, when
/// given, receives a readable reason), errc::invalid_utf8 (the JSON text is not UTF-8),
/// errc::depth_exceeded (deeper than `options.max_depth`), errc::out_of_range (a number
/// beyond float64's range, such as 1e999), errc::out_of_memory. `out` keeps the values
/// written before the error.
MPK_API result<std::size_t> from_json(std::string_view json, buffer& out,
                                      const from_json_options& options = {},
                                      std::string* why = nullptr);

/// Appends the standard base64 (RFC 4648, alphabet A-Z a-z 0-9 + /, '=' padding) of `bytes`
/// to `out`.
MPK_API void append_base64(std::string& out, std::span<const std::byte> bytes);

/// Decodes standard base64 with padding, appending the bytes to `out`. Returns false (and
/// leaves `out` in an unspecified state) when `text` is not canonical padded base64.
MPK_API bool decode_base64(std::string_view text, std::string& out);

}  // namespace mpk::inline v0
