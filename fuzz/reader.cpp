// fuzz/reader.cpp - reads every value of the input generically through mpk::reader.
//
// Properties, for every top-level value, with the default limits and with limits::trusted():
// - the walk (peek, typed read, container headers; fuzz_support.hpp) never crashes;
// - it accepts exactly when field_size() accepts, and then consumes exactly field_size()
//   bytes; when both reject, they report the same errc at the same offset;
// - an error is sticky: afterwards the reader is at its end and reads return defaults;
// - memory allocated through operator new while field_size() runs stays within
//   24 bytes per input byte + 8 KiB (its stack of counts; see docs/security.md).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "alloc_count.hpp"
#include "fuzz_support.hpp"

namespace {

void check_with(std::span<const std::byte> input, const mpk::limits& lim) {
  std::vector<std::uint64_t> stack;
  stack.reserve(64);
  mpk::reader r(input, {.limits = lim});
  while (!r.at_end()) {
    const std::size_t start = r.position();
    mpk::reader sizer = r;  // a copy: field_size() consumes nothing, but keep r untouched
    std::size_t expected;
    {
      mpk_fuzz::alloc_scope scope;
      expected = sizer.field_size();
      MPK_FUZZ_CHECK(scope.peak() <= 24 * input.size() + 8192);
    }
    std::size_t tokens = 0;
    const mpk::error e =
        mpk_fuzz::walk_value(r, lim.max_depth, stack, [&](const auto&) { ++tokens; });
    if (e) {
      MPK_FUZZ_CHECK(!sizer.ok());
      MPK_FUZZ_CHECK(sizer.error() == e);
      MPK_FUZZ_CHECK(e.offset >= start && e.offset < input.size() + 1);
      // Sticky error (the walk's depth error is its own, not the reader's).
      if (e.code != mpk::errc::depth_exceeded) {
        MPK_FUZZ_CHECK(r.at_end() && r.remaining() == 0);
        MPK_FUZZ_CHECK(r.read<std::uint64_t>() == 0);
        MPK_FUZZ_CHECK(r.read_string_view().empty());
        MPK_FUZZ_CHECK(r.error() == e);
      }
      return;
    }
    MPK_FUZZ_CHECK(sizer.ok());
    MPK_FUZZ_CHECK(tokens >= 1);
    MPK_FUZZ_CHECK(r.position() - start == expected);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk::as_bytes(std::span(data, size));
  mpk_fuzz::current_input = input;
  check_with(input, mpk::limits{});
  check_with(input, mpk::limits::trusted());
  // Small limits, so that the fuzzer reaches every limit with short inputs.
  check_with(input, mpk_fuzz::tiny_limits);
  return 0;
}
