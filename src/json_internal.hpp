// Internal to the JSON layer (src/json*.cpp): pieces shared by to_json and from_json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mpk/buffer.hpp"
#include "mpk/reader.hpp"
#include "mpk/writer.hpp"

namespace mpk::inline v0::detail {

/// Appends `s` as a JSON string (quotes included), escaping '"', '\\' and control characters.
void append_json_string(std::string& out, std::string_view s);
/// Appends the shortest text that reads back as `d`, with a '.' or an exponent (finite only).
void append_double(std::string& out, double d);
/// Appends the shortest text that reads back as `f` (as a float), with '.' or an exponent.
void append_float(std::string& out, float f);

/// Appends the JSON form of the ext -1 value at `at_ext` (a copy of the reader: it is
/// consumed or left in error) - plain: an RFC 3339 UTC string; lossless:
/// {"$timestamp": [seconds, nanoseconds]} - and returns true; returns false, appending
/// nothing, when it is not a valid timestamp, when plain mode's RFC 3339 cannot hold its
/// year (outside 0000..9999), or when lossless mode finds it not in its smallest form (the
/// ext form then keeps its bytes).
bool append_timestamp_json(std::string& out, reader& at_ext, bool lossless, bool pretty);

/// Writes the timestamp `seconds`, `nanoseconds` (< 10^9) in its smallest form; false when
/// it cannot be written.
bool write_timestamp(writer<buffer>& w, std::int64_t seconds, std::uint32_t nanoseconds);

}  // namespace mpk::inline v0::detail
