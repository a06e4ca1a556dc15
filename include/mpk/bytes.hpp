// mpk/bytes.hpp - what every reading entry point accepts as its input: `mpk::byte_input`,
// any contiguous run of bytes, and `mpk::as_bytes`, its one conversion to a span.
//
//     std::string msg = receive();
//     auto p = mpk::unpack<point>(msg);             // std::string
//     auto doc = mpk::document::parse(buf);         // mpk::buffer
//     mpk::reader r(std::span<const std::uint8_t>(data, size));
#pragma once

#include <cstddef>
#include <iterator>
#include <ranges>
#include <span>
#include <type_traits>

namespace mpk::inline v0 {

namespace detail {
/// The element types whose objects are bytes: char, unsigned char (std::uint8_t), std::byte.
template <class T>
inline constexpr bool is_byte_v =
    std::is_same_v<T, char> || std::is_same_v<T, unsigned char> || std::is_same_v<T, std::byte>;

template <class R>
using byte_input_element =
    std::remove_cv_t<std::remove_pointer_t<decltype(std::ranges::data(std::declval<const R&>()))>>;
}  // namespace detail

/// Bytes in memory that MessagePack can be read from: a type with `data()` (a pointer to
/// char, unsigned char / std::uint8_t or std::byte) and `size()`, or an array of those
/// (std::ranges::data and std::ranges::size). std::string, std::string_view,
/// std::vector<...>, std::array<...>, std::span<...>, mpk::buffer and C arrays of those
/// element types qualify; a range of `int` does not. A char array counts all its
/// elements: a string literal's terminating '\0' is one more byte (pass a
/// std::string_view instead).
template <class R>
concept byte_input = requires(const R& r) {
  std::ranges::data(r);
  { std::ranges::size(r) } -> std::convertible_to<std::size_t>;
}
&&detail::is_byte_v<detail::byte_input_element<R>>;

/// The bytes of `input` as a span: a view, so `input` must outlive it.
template <byte_input R>
[[nodiscard]] inline std::span<const std::byte> as_bytes(const R& input) noexcept {
  if constexpr (std::is_same_v<detail::byte_input_element<R>, std::byte>) {
    return {std::ranges::data(input), static_cast<std::size_t>(std::ranges::size(input))};
  } else {
    // A char or unsigned char object may be viewed as bytes (the aliasing rules allow it).
    return {reinterpret_cast<const std::byte*>(std::ranges::data(input)),
            static_cast<std::size_t>(std::ranges::size(input))};
  }
}

}  // namespace mpk::inline v0
