// mpk/detail/endian.hpp - big-endian loads and stores on unaligned bytes.
//
// MessagePack is big-endian. memcpy plus a byte swap compiles to one mov + bswap (or movbe)
// and is free of alignment and aliasing undefined behaviour.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mpk::inline v0::detail {

template <class U>
constexpr U byteswap_if_little(U v) noexcept {
  if constexpr (std::endian::native == std::endian::big || sizeof(U) == 1) {
    return v;
  } else if constexpr (sizeof(U) == 2) {
    return static_cast<U>(__builtin_bswap16(v));
  } else if constexpr (sizeof(U) == 4) {
    return static_cast<U>(__builtin_bswap32(v));
  } else {
    static_assert(sizeof(U) == 8);
    return static_cast<U>(__builtin_bswap64(v));
  }
}

/// Loads an unsigned big-endian integer of sizeof(U) bytes from `p` (any alignment).
template <class U>
inline U load_be(const std::byte* p) noexcept {
  U v;
  std::memcpy(&v, p, sizeof(U));
  return byteswap_if_little(v);
}

inline std::uint16_t load_be16(const std::byte* p) noexcept {
  return load_be<std::uint16_t>(p);
}
inline std::uint32_t load_be32(const std::byte* p) noexcept {
  return load_be<std::uint32_t>(p);
}
inline std::uint64_t load_be64(const std::byte* p) noexcept {
  return load_be<std::uint64_t>(p);
}

/// Stores `v` big-endian into sizeof(U) bytes at `p` (any alignment).
template <class U>
inline void store_be(std::byte* p, U v) noexcept {
  v = byteswap_if_little(v);
  std::memcpy(p, &v, sizeof(U));
}

inline void store_be16(std::byte* p, std::uint16_t v) noexcept {
  store_be(p, v);
}
inline void store_be32(std::byte* p, std::uint32_t v) noexcept {
  store_be(p, v);
}
inline void store_be64(std::byte* p, std::uint64_t v) noexcept {
  store_be(p, v);
}

}  // namespace mpk::inline v0::detail
