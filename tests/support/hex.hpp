// Test helpers: bytes from hex text and back, shared by the unit tests.
#pragma once

#include <cstddef>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mpk_test {

/// "cd 01 00" -> {0xcd, 0x01, 0x00}. Spaces are ignored.
inline std::vector<std::byte> hex(std::string_view text) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::invalid_argument("not a hex digit");
  };
  std::vector<std::byte> out;
  int high = -1;
  for (char c : text) {
    if (c == ' ') continue;
    if (high < 0) {
      high = digit(c);
    } else {
      out.push_back(static_cast<std::byte>(high * 16 + digit(c)));
      high = -1;
    }
  }
  if (high >= 0) throw std::invalid_argument("odd number of hex digits");
  return out;
}

/// {0xcd, 0x01, 0x00} -> "cd 01 00".
inline std::string to_hex(std::span<const std::byte> bytes) {
  std::string out;
  char cell[4];
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::snprintf(cell, sizeof cell, i == 0 ? "%02x" : " %02x", static_cast<unsigned>(bytes[i]));
    out += cell;
  }
  return out;
}

/// Bytes of a string, for building inputs.
inline std::vector<std::byte> bytes_of(std::string_view s) {
  std::vector<std::byte> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    out[i] = static_cast<std::byte>(s[i]);
  return out;
}

}  // namespace mpk_test
