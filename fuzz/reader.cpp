// fuzz/reader.cpp - reads every value of the input through mpk::visit, and each value it
// reports again through mpk::reader's typed reads.
//
// Properties, for every top-level value, with the default limits, limits::trusted() and
// small limits:
// - the walk never crashes; it accepts exactly when field_size() accepts, and then takes
//   exactly field_size() bytes; when both reject, they report the same errc at the same
//   offset;
// - each event agrees with the reader at its offset: peek() gives its family, the typed read
//   of that family (read<bool>, read<std::uint64_t>, read<std::int64_t>, read<float>,
//   read<double>, read_str, read_bin, read_ext, read_array_header, read_map_header) gives
//   its value (views at the same address) and consumes exactly the event's bytes;
// - an error is sticky: afterwards the reader is at its end and reads return defaults;
// - memory allocated through operator new while field_size() runs stays within
//   24 bytes per input byte + 8 KiB (its stack of counts; see docs/security.md).
#include <bit>
#include <cstddef>
#include <cstdint>

#include "alloc_count.hpp"
#include "fuzz_support.hpp"

namespace {

/// The event `e`, read again by a reader over `at` (the input from the event's offset).
void check_typed_read(std::span<const std::byte> at, const mpk::visit_event& e,
                      const mpk::limits& lim) {
  if (e.kind == mpk::visit_kind::array_end || e.kind == mpk::visit_kind::map_end) return;
  mpk::reader r(at, {.limits = lim});
  const mpk::type family = r.peek();
  switch (e.kind) {
    case mpk::visit_kind::nil:
      MPK_FUZZ_CHECK(family == mpk::type::nil);
      r.read_nil();
      break;
    case mpk::visit_kind::boolean:
      MPK_FUZZ_CHECK(family == mpk::type::boolean && r.read<bool>() == e.boolean);
      break;
    case mpk::visit_kind::uint:
      MPK_FUZZ_CHECK(family == mpk::type::uint && r.read<std::uint64_t>() == e.u);
      break;
    case mpk::visit_kind::sint:
      MPK_FUZZ_CHECK(family == mpk::type::sint && r.read<std::int64_t>() == e.i);
      break;
    case mpk::visit_kind::float32:
      MPK_FUZZ_CHECK(family == mpk::type::float32);
      MPK_FUZZ_CHECK(std::bit_cast<std::uint32_t>(r.read<float>()) ==
                     std::bit_cast<std::uint32_t>(e.f32));
      break;
    case mpk::visit_kind::float64:
      MPK_FUZZ_CHECK(family == mpk::type::float64);
      MPK_FUZZ_CHECK(std::bit_cast<std::uint64_t>(r.read<double>()) ==
                     std::bit_cast<std::uint64_t>(e.f64));
      break;
    case mpk::visit_kind::str: {
      MPK_FUZZ_CHECK(family == mpk::type::str);
      const std::string_view s = r.read_string_view();
      MPK_FUZZ_CHECK(s.data() == e.str.data() && s.size() == e.str.size());
      break;
    }
    case mpk::visit_kind::bin: {
      MPK_FUZZ_CHECK(family == mpk::type::bin);
      const std::span<const std::byte> b = r.read_bin();
      MPK_FUZZ_CHECK(b.data() == e.bin.data() && b.size() == e.bin.size());
      break;
    }
    case mpk::visit_kind::ext: {
      MPK_FUZZ_CHECK(family == mpk::type::ext);
      const mpk::ext_view x = r.read_ext();
      MPK_FUZZ_CHECK(x.type == e.ext.type && x.data.data() == e.ext.data.data() &&
                     x.data.size() == e.ext.data.size());
      break;
    }
    case mpk::visit_kind::array_begin:
      MPK_FUZZ_CHECK(family == mpk::type::array && r.read_array_header() == e.count);
      break;
    case mpk::visit_kind::map_begin:
      MPK_FUZZ_CHECK(family == mpk::type::map && r.read_map_header() == e.count);
      break;
    case mpk::visit_kind::array_end:
    case mpk::visit_kind::map_end:
      break;
  }
  MPK_FUZZ_CHECK(r.ok());
  MPK_FUZZ_CHECK(r.position() == e.bytes.size());
  MPK_FUZZ_CHECK(e.bytes.data() == at.data());
}

void check_with(std::span<const std::byte> input, const mpk::limits& lim) {
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
    const std::span<const std::byte> rest = input.subspan(start);
    std::size_t events = 0;
    const mpk::result<std::size_t> walked =
        mpk::visit(rest,
                   [&](const mpk::visit_event& e) {
                     ++events;
                     MPK_FUZZ_CHECK(e.offset <= rest.size());
                     check_typed_read(rest.subspan(e.offset), e, lim);
                   },
                   {.limits = lim});
    if (!walked) {
      const mpk::error e{walked.error().code, start + walked.error().offset};
      MPK_FUZZ_CHECK(!sizer.ok());
      MPK_FUZZ_CHECK(sizer.error() == e);
      MPK_FUZZ_CHECK(e.offset >= start && e.offset < input.size() + 1);
      // Sticky error.
      MPK_FUZZ_CHECK(sizer.at_end() && sizer.remaining() == 0);
      MPK_FUZZ_CHECK(sizer.read<std::uint64_t>() == 0);
      MPK_FUZZ_CHECK(sizer.read_string_view().empty());
      MPK_FUZZ_CHECK(sizer.error() == e);
      return;
    }
    MPK_FUZZ_CHECK(sizer.ok());
    MPK_FUZZ_CHECK(events >= 1);
    MPK_FUZZ_CHECK(*walked == expected);
    r.skip();
    MPK_FUZZ_CHECK(r.ok() && r.position() == start + expected);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk::as_bytes(std::span(data, size));
  mpk_fuzz::current_input = input;
  mpk_fuzz::check_under_each_limits(input, check_with);
  return 0;
}
