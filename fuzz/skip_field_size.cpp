// fuzz/skip_field_size.cpp - skip(), field_size() and raw_value() against each other and
// against the generic reader.
//
// Properties, value by value over the whole input, with the default, trusted and small
// limits:
// - field_size(), skip() and raw_value() accept or reject together; when they accept, they
//   agree on the size (skip() advances by field_size(), raw_value() is the bytes from the
//   current position, of that size); when they reject, on the errc and the offset;
// - mpk::visit (fuzz_support.hpp's walk) consumes the same bytes, or fails the same way;
// - on an accepted value, unchecked_reader (no checks: only on valid input) agrees;
// - memory allocated through operator new stays within 24 bytes per input byte + 8 KiB.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "alloc_count.hpp"
#include "fuzz_support.hpp"

namespace {

void check_with(std::span<const std::byte> input, const mpk::limits& lim) {
  mpk::reader r(input, {.limits = lim});
  while (!r.at_end()) {
    const std::size_t start = r.position();
    mpk::reader by_size = r, by_skip = r, by_raw = r;
    mpk_fuzz::cursor by_walk{input, start};

    std::size_t size;
    std::span<const std::byte> raw;
    {
      mpk_fuzz::alloc_scope scope;
      size = by_size.field_size();
      by_skip.skip();
      raw = by_raw.raw_value();
      MPK_FUZZ_CHECK(scope.peak() <= 24 * input.size() + 8192);
    }
    const mpk::error walk_error = mpk_fuzz::walk_value(by_walk, lim, [](auto&&) {});

    MPK_FUZZ_CHECK(by_size.ok() == by_skip.ok() && by_skip.ok() == by_raw.ok());
    MPK_FUZZ_CHECK(by_size.ok() == !walk_error);
    if (!by_size.ok()) {
      const mpk::error e = by_size.error();
      MPK_FUZZ_CHECK(size == 0 && raw.empty());
      MPK_FUZZ_CHECK(by_skip.error() == e && by_raw.error() == e && walk_error == e);
      MPK_FUZZ_CHECK(by_size.position() == e.offset && by_skip.at_end());
      return;
    }
    // field_size() consumes nothing; skip() and raw_value() consume exactly that.
    MPK_FUZZ_CHECK(size >= 1 && size <= input.size() - start);
    MPK_FUZZ_CHECK(by_size.position() == start);
    MPK_FUZZ_CHECK(by_skip.position() == start + size);
    MPK_FUZZ_CHECK(by_raw.position() == start + size);
    MPK_FUZZ_CHECK(raw.data() == input.data() + start && raw.size() == size);
    MPK_FUZZ_CHECK(by_walk.position() == start + size);

    // The same value alone, through the unchecked reader: it is valid, so it may.
    mpk::unchecked_reader u(raw, {.limits = lim});
    MPK_FUZZ_CHECK(u.field_size() == size);
    u.skip();
    MPK_FUZZ_CHECK(u.ok() && u.at_end());

    r.skip();
    MPK_FUZZ_CHECK(r.ok() && r.position() == start + size);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk::as_bytes(std::span(data, size));
  mpk_fuzz::current_input = input;
  mpk_fuzz::check_under_each_limits(input, check_with);
  return 0;
}
