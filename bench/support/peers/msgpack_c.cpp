// bench/support/peers/msgpack_c.cpp - the version of msgpack-c, asked of the C library itself
// (this file must not include msgpack.hpp: see version() in msgpack_c.hpp).
// msgpack.h first, with its msgpack/version.h (msgpack_c.hpp skips that header: see there).
#include <msgpack.h>

#include "msgpack_c.hpp"

namespace mpk_bench::peers::msgpack_c {

std::string version() {
  return std::string("msgpack-c ") + msgpack_version();
}

}  // namespace mpk_bench::peers::msgpack_c
