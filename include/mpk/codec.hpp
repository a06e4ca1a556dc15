// mpk/codec.hpp - typed mapping between your C++ types and MessagePack.
//
//     struct point { int x = 0; int y = 0; };   // a plain aggregate: no description needed
//
//     mpk::result<mpk::buffer> bytes = mpk::pack(point{1, 2});      // {"x": 1, "y": 2}
//     mpk::result<point> p = mpk::unpack<point>(*bytes);
//
// The parts (see docs/codec.md):
//   codec/core.hpp       codec<T>, pack, unpack, read_context, scalars
//   codec/std_types.hpp  strings, bin, containers, pair, tuple, optional, variant, enums
//   codec/mpk_types.hpp  mpk::timestamp, system_clock time points, mpk::value
//   codec/describe.hpp   MPK_MAP, MPK_ARRAY, MPK_CLASS_MAP, MPK_FIELD, MPK_ENUM
//   codec/reflect.hpp    plain aggregates and enums by name without a description
#pragma once

// clang-format off: core first, the rest build on it.
#include "mpk/codec/core.hpp"
#include "mpk/codec/describe.hpp"
#include "mpk/codec/mpk_types.hpp"
#include "mpk/codec/reflect.hpp"
#include "mpk/codec/std_types.hpp"
// clang-format on
