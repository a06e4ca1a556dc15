// mpk/detail/coerce.hpp - the one rule for turning a number into the type a typed read asks
// for. The reader's decoders apply it to the numbers they decode (so reader::read<T>(),
// element::as<T>() and the codec agree), mpk::value::as<T>() to the numbers a value holds.
// Not a public API.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "mpk/config.hpp"

namespace mpk::inline v0 {
namespace detail {

/// True when the integer `v` converts to the floating-point type F without rounding.
template <class F, class Src>
MPK_ALWAYS_INLINE constexpr bool exact_in(Src v) noexcept {
  if constexpr (std::numeric_limits<Src>::digits <= std::numeric_limits<F>::digits) {
    return true;
  } else {
    // Exact when the significant bits, from the highest set one to the lowest, fit F's
    // mantissa. The magnitude of INT64_MIN is 2^63: one significant bit.
    std::uint64_t mag = static_cast<std::uint64_t>(v);
    if constexpr (std::is_signed_v<Src>) {
      if (v < 0) mag = 0 - mag;
    }
    if (mag == 0) return true;
    return std::bit_width(mag) - static_cast<unsigned>(std::countr_zero(mag)) <=
           static_cast<unsigned>(std::numeric_limits<F>::digits);
  }
}

/// True when the number `x` (an integer of any width, a float or a double) may not be read
/// as T (an integer type, float or double): errc::out_of_range. The rule:
/// - an integer into an integer type: out of range unless T holds its value;
/// - an integer into float or double: out of range unless the conversion is exact;
/// - a float or double into float or double: out of range only for a finite double beyond
///   float's range (infinities and NaN pass; narrowing a finite double may round, as a
///   float32 would).
/// A float or double is never read as an integer type (errc::type_mismatch, decided by the
/// caller, which knows the family): asking is a compile-time error.
template <class T, class Src>
MPK_ALWAYS_INLINE constexpr bool out_of_range_for(Src x) noexcept {
  if constexpr (std::is_integral_v<Src>) {
    if constexpr (std::is_integral_v<T>)
      return !std::in_range<T>(x);
    else
      return !exact_in<T>(x);
  } else {
    static_assert(std::is_floating_point_v<T>, "a float is never read as an integer");
    if constexpr (sizeof(T) >= sizeof(Src)) {
      return false;
    } else {
      // The hint here, not only at the caller's `if`: with it the decoders' float64 path
      // compiles to the same code as when this test was written inside them (GCC 12 -O2).
      const double a = std::fabs(x);
      if (a > static_cast<double>(std::numeric_limits<T>::max()) &&
          a != std::numeric_limits<double>::infinity()) [[unlikely]]
        return true;
      return false;
    }
  }
}

}  // namespace detail
}  // namespace mpk::inline v0
