// bench/data/strings_binary.hpp - the data of workload W2 strings_binary
// (docs/workloads.md).
//
// ASCII strings of 8 B, 1 KiB, 64 KiB: the 62-character alphabet A-Z a-z 0-9 repeated and
// cut to length. UTF-8 strings of 1 KiB: "héllo wörld ✓ " repeated and cut at the last whole
// character at or below 1024 bytes. UTF-16 (C++ only): the same text as the 1 KiB UTF-8
// case in a std::u16string. Binaries of 1 KiB and 1 MiB: byte k is (k * 31 + 7) & 0xff.
// Each case writes, then reads, enough values to total ~32 MB (~1 MB in quick mode).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mpk_bench::strings_binary {

constexpr std::size_t full_total = 32u << 20;  // bytes of payload per case
constexpr std::size_t quick_total = 1u << 20;
constexpr std::size_t min_values = 4;

/// How many values of `size` bytes make about `total` bytes (at least min_values).
constexpr std::size_t value_count(std::size_t size, std::size_t total) noexcept {
  const std::size_t n = size == 0 ? total : total / size;
  return n < min_values ? min_values : n;
}

/// The alphabet repeated and cut to `n` bytes.
inline std::string ascii(std::size_t n) {
  static constexpr std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  s.reserve(n);
  for (std::size_t k = 0; k < n; ++k)
    s += alphabet[k % alphabet.size()];
  return s;
}

/// "héllo wörld ✓ " repeated, cut at the last whole character at or below `n` bytes.
inline std::string utf8(std::size_t n) {
  static constexpr std::string_view unit = "h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93 ";
  std::string s;
  for (std::size_t k = 0;; ++k) {
    const char c = unit[k % unit.size()];
    // The length of the character starting here (a lead byte or ASCII).
    std::size_t len = 1;
    const auto lead = static_cast<unsigned char>(c);
    if (lead >= 0xf0)
      len = 4;
    else if (lead >= 0xe0)
      len = 3;
    else if (lead >= 0xc0)
      len = 2;
    if (s.size() + len > n) break;
    for (std::size_t b = 0; b < len; ++b)
      s += unit[(k + b) % unit.size()];
    k += len - 1;
  }
  return s;
}

/// The same characters as utf8(n), as UTF-16 (every one is in the BMP).
inline std::u16string utf16(std::size_t n) {
  const std::string s = utf8(n);
  std::u16string out;
  for (std::size_t k = 0; k < s.size();) {
    const auto b0 = static_cast<unsigned char>(s[k]);
    if (b0 < 0x80) {
      out += static_cast<char16_t>(b0);
      k += 1;
    } else if (b0 < 0xe0) {
      out += static_cast<char16_t>(((b0 & 0x1fu) << 6) |
                                   (static_cast<unsigned char>(s[k + 1]) & 0x3fu));
      k += 2;
    } else {
      out += static_cast<char16_t>(((b0 & 0x0fu) << 12) |
                                   ((static_cast<unsigned char>(s[k + 1]) & 0x3fu) << 6) |
                                   (static_cast<unsigned char>(s[k + 2]) & 0x3fu));
      k += 3;
    }
  }
  return out;
}

/// `n` bytes, byte k = (k * 31 + 7) & 0xff (as a std::string of raw bytes).
inline std::string binary(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t k = 0; k < n; ++k)
    s[k] = static_cast<char>(static_cast<unsigned char>((k * 31 + 7) & 0xff));
  return s;
}

}  // namespace mpk_bench::strings_binary
