// fuzz/unicode.cpp - UTF-8 validation and UTF-16 transcoding against references.
//
// The input is taken both as UTF-8 bytes and as UTF-16 code units (pairs of bytes). The
// references are the library's scalar validator (detail::is_valid_utf8_scalar) and a
// deliberately plain decoder written here from RFC 3629 / Unicode ch. 3 (table 3-7).
// Properties:
// - is_valid_utf8 (simdjson when built with it) == the scalar validator == the reference;
// - utf16_length / to_utf16 / utf8_to_utf16 accept exactly valid UTF-8, report the offset
//   of the first bad sequence as the reference finds it, and round-trip through to_utf8;
// - utf8_length / to_utf8 accept exactly UTF-16 without lone surrogates (offset: the
//   surrogate's index), and round-trip through to_utf16;
// - transcoding into caller memory never writes past the span it is given: too small is
//   errc::buffer_full (sanitizers watch the exact-size buffers).
#include <mpk/unicode.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"

namespace {

/// The offset of the first ill-formed sequence of `s`, or s.size() when it is valid UTF-8.
std::size_t first_bad_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    std::size_t len;
    unsigned lo = 0x80, hi = 0xbf;  // the range of the second byte
    if (b0 < 0x80) {
      ++i;
      continue;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      len = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      len = 3;
      if (b0 == 0xe0) lo = 0xa0;  // no overlong forms
      if (b0 == 0xed) hi = 0x9f;  // no surrogates
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      len = 4;
      if (b0 == 0xf0) lo = 0x90;  // no overlong forms
      if (b0 == 0xf4) hi = 0x8f;  // nothing above U+10FFFF
    } else {
      return i;  // 0x80..0xc1, 0xf5..0xff
    }
    if (s.size() - i < len) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf)) return i;
    }
    i += len;
  }
  return s.size();
}

/// The index of the first lone surrogate of `s`, or s.size() when there is none.
std::size_t first_lone_surrogate(std::u16string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char16_t c = s[i];
    if (c >= 0xd800 && c <= 0xdbff) {
      if (i + 1 < s.size() && s[i + 1] >= 0xdc00 && s[i + 1] <= 0xdfff) {
        ++i;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return s.size();
}

void check_utf8(std::string_view s) {
  const std::size_t bad = first_bad_utf8(s);
  const bool valid = bad == s.size();
  MPK_FUZZ_CHECK(mpk::detail::is_valid_utf8_scalar(s.data(), s.size()) == valid);
  MPK_FUZZ_CHECK(mpk::is_valid_utf8(s) == valid);

  const mpk::result<std::size_t> units = mpk::utf16_length(s);
  const mpk::result<std::u16string> wide = mpk::to_utf16(s);
  MPK_FUZZ_CHECK(units.has_value() == valid && wide.has_value() == valid);
  if (!valid) {
    const mpk::error e{mpk::errc::invalid_utf8, bad};
    MPK_FUZZ_CHECK(units.error() == e && wide.error() == e);
    std::vector<char16_t> room(s.size());
    MPK_FUZZ_CHECK(mpk::utf8_to_utf16(s, room).error() == e);
    return;
  }
  MPK_FUZZ_CHECK(*units == wide->size());
  const mpk::result<std::string> back = mpk::to_utf8(*wide);
  MPK_FUZZ_CHECK(back.has_value() && *back == s);
  // Into caller memory: exactly enough, and one unit short.
  std::vector<char16_t> exact(*units);
  const mpk::result<std::size_t> n = mpk::utf8_to_utf16(s, exact);
  MPK_FUZZ_CHECK(n.has_value() && *n == *units);
  MPK_FUZZ_CHECK(*units == 0 || std::memcmp(exact.data(), wide->data(), *units * 2) == 0);
  if (*units > 0) {
    std::vector<char16_t> short_room(*units - 1);
    MPK_FUZZ_CHECK(mpk::utf8_to_utf16(s, short_room).error().code == mpk::errc::buffer_full);
  }
}

void check_utf16(std::u16string_view s) {
  const std::size_t bad = first_lone_surrogate(s);
  const bool valid = bad == s.size();
  const mpk::result<std::size_t> bytes = mpk::utf8_length(s);
  const mpk::result<std::string> narrow = mpk::to_utf8(s);
  MPK_FUZZ_CHECK(bytes.has_value() == valid && narrow.has_value() == valid);
  if (!valid) {
    const mpk::error e{mpk::errc::invalid_utf16, bad};
    MPK_FUZZ_CHECK(bytes.error() == e && narrow.error() == e);
    std::vector<char> room(3 * s.size());
    MPK_FUZZ_CHECK(mpk::utf16_to_utf8(s, room).error() == e);
    return;
  }
  MPK_FUZZ_CHECK(*bytes == narrow->size());
  MPK_FUZZ_CHECK(first_bad_utf8(*narrow) == narrow->size());  // the output is valid UTF-8
  const mpk::result<std::u16string> back = mpk::to_utf16(*narrow);
  MPK_FUZZ_CHECK(back.has_value() && *back == s);
  std::vector<char> exact(*bytes);
  const mpk::result<std::size_t> n = mpk::utf16_to_utf8(s, exact);
  MPK_FUZZ_CHECK(n.has_value() && *n == *bytes);
  MPK_FUZZ_CHECK(std::string_view(exact.data(), exact.size()) == *narrow);
  if (*bytes > 0) {
    std::vector<char> short_room(*bytes - 1);
    MPK_FUZZ_CHECK(mpk::utf16_to_utf8(s, short_room).error().code == mpk::errc::buffer_full);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mpk_fuzz::current_input = mpk::as_bytes(std::span(data, size));
  // Copies in their own allocations, so that a read past the end is caught.
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_utf8(text);
  std::u16string units(size / 2, u'\0');
  if (!units.empty()) std::memcpy(units.data(), data, units.size() * 2);
  check_utf16(units);
  return 0;
}
