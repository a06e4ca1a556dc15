// Internal: shortest decimal text of a float64 / float32, the same characters as
// std::to_chars(first, last, v) (no format argument), but faster. Not a public API: the JSON
// layer (src/json.cpp) uses it. Implementation: src/float_format.cpp (Schubfach).
#pragma once

#include <cstddef>

namespace mpk::inline v0::detail {

/// Room that format_shortest / format_json_float need at `first`: the text is at most 26
/// characters ("-2.2250738585072014e-308" is 24, plus ".0"), but they copy in fixed-size
/// blocks and may write scratch bytes up to first + float_text_room, after the text's end.
inline constexpr std::size_t float_text_room = 48;

/// Writes the shortest decimal text that reads back as the finite `v`, exactly as
/// std::to_chars(first, first + float_text_room, v) does (fixed or scientific, whichever is
/// shorter, fixed on a tie; ties between digits as to_chars breaks them), at `first`; returns
/// the end. The caller owns `first`, which must have float_text_room bytes (those after
/// the returned end hold scratch); `v` must be
/// finite (NaN and infinities are not handled). Example: 0.1 -> "0.1", 1e300 -> "1e+300".
char* format_shortest(char* first, double v) noexcept;
char* format_shortest(char* first, float v) noexcept;

/// format_shortest, then ".0" when the text has neither '.' nor an exponent, so that a JSON
/// reader sees a float, not an integer: 1.0 -> "1.0", 2.5 -> "2.5", 1e22 -> "1e+22".
char* format_json_float(char* first, double v) noexcept;
char* format_json_float(char* first, float v) noexcept;

}  // namespace mpk::inline v0::detail
