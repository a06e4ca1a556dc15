// Must not compile: an untagged variant of two integers (the bytes cannot tell them apart).
#include <mpk/codec.hpp>

#include <cstdint>

int main() {
  mpk::untagged<std::int32_t, std::int64_t> v = std::int32_t{1};
  return mpk::pack(v) ? 0 : 1;
}
