// bench/support/digest.hpp - FNV-1a 64 of a byte sequence, to compare encodings cheaply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace mpk_bench {

/// FNV-1a, 64-bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
inline std::uint64_t fnv1a64(std::span<const std::byte> bytes) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::byte b : bytes) {
    h ^= std::to_integer<std::uint64_t>(b);
    h *= 0x100000001b3ull;
  }
  return h;
}

inline std::uint64_t fnv1a64(const void* data, std::size_t size) noexcept {
  return fnv1a64(std::span<const std::byte>(static_cast<const std::byte*>(data), size));
}

/// 16 lower-case hex digits.
inline std::string hex64(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace mpk_bench
