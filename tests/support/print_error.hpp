// gtest prints an mpk::error as "offset 3: <message> (errc 1)" (found by argument-dependent
// lookup). Include it in one translation unit per test binary.
#pragma once

#include <mpk/error.hpp>

#include <ostream>

namespace mpk::inline v0 {
inline void PrintTo(const error& e, std::ostream* os) {
  *os << e.to_string() << " (errc " << static_cast<int>(e.code) << ")";
}
}  // namespace mpk::inline v0
