// fuzz/visit.cpp - mpk::visit against reader::field_size() and against the shape of its own
// events.
//
// Properties, value by value over the whole input, with the default, trusted and small
// limits:
// - visit accepts exactly when field_size() accepts, and then returns field_size(); when
//   both reject, they report the same errc at the same offset;
// - the events tile the value: each scalar or container start begins where the previous
//   event's bytes end, an end event is at that position, and the error (if any) too;
//   every view lies inside the input;
// - they nest: depths follow the open containers, each end matches its start and comes
//   after exactly `count` items (2 per map entry), map keys and values alternate;
// - a handler that stops at event k sees exactly the first k + 1 events, and visit returns
//   the end of event k's bytes;
// - memory allocated through operator new stays within 24 bytes per input byte + 8 KiB
//   (the stack of open containers, 8 bytes per level beyond 64).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "alloc_count.hpp"
#include "fuzz_support.hpp"

namespace {

struct open_container {
  bool is_map;
  std::uint64_t owed;  // items still to come
};

/// Checks the events of one walk as they come (see the properties above).
struct shape_checker {
  std::span<const std::byte> input;  // what was visited
  std::vector<open_container> open;
  std::size_t pos = 0;  // where the next event must start
  std::size_t events = 0;
  bool done = false;  // the top-level value is complete

  void on(const mpk::visit_event& e) {
    ++events;
    MPK_FUZZ_CHECK(!done);
    MPK_FUZZ_CHECK(e.offset == pos);
    const bool is_end = e.kind == mpk::visit_kind::array_end || e.kind == mpk::visit_kind::map_end;
    if (is_end) {
      MPK_FUZZ_CHECK(!open.empty() && open.back().owed == 0);
      MPK_FUZZ_CHECK(open.back().is_map == (e.kind == mpk::visit_kind::map_end));
      MPK_FUZZ_CHECK(e.bytes.empty() && !e.is_key);
      open.pop_back();
      MPK_FUZZ_CHECK(e.depth == open.size());
      done = open.empty();
      return;
    }
    MPK_FUZZ_CHECK(e.depth == open.size());
    MPK_FUZZ_CHECK(!e.bytes.empty() && e.bytes.data() == input.data() + pos);
    MPK_FUZZ_CHECK(e.bytes.size() <= input.size() - pos);
    if (!open.empty()) {
      open_container& parent = open.back();
      MPK_FUZZ_CHECK(parent.owed > 0);
      MPK_FUZZ_CHECK(e.is_key == (parent.is_map && parent.owed % 2 == 0));
      --parent.owed;
    } else {
      MPK_FUZZ_CHECK(!e.is_key);
    }
    pos += e.bytes.size();
    const auto inside = [&](const std::byte* p, std::size_t n) {
      return p >= e.bytes.data() && n <= e.bytes.size() && p + n == e.bytes.data() + e.bytes.size();
    };
    switch (e.kind) {
      case mpk::visit_kind::str:
        MPK_FUZZ_CHECK(inside(reinterpret_cast<const std::byte*>(e.str.data()), e.str.size()));
        break;
      case mpk::visit_kind::bin:
        MPK_FUZZ_CHECK(inside(e.bin.data(), e.bin.size()));
        break;
      case mpk::visit_kind::ext:
        MPK_FUZZ_CHECK(inside(e.ext.data.data(), e.ext.data.size()));
        break;
      case mpk::visit_kind::array_begin:
      case mpk::visit_kind::map_begin: {
        const bool is_map = e.kind == mpk::visit_kind::map_begin;
        open.push_back({is_map, std::uint64_t{e.count} * (is_map ? 2 : 1)});
        return;  // complete at its end event
      }
      default:
        break;
    }
    done = open.empty();
  }
};

void check_with(std::span<const std::byte> input, const mpk::limits& lim) {
  mpk::reader r(input, {.limits = lim});
  while (!r.at_end()) {
    const std::size_t start = r.position();
    const std::span<const std::byte> rest = input.subspan(start);
    mpk::reader sizer = r;
    const std::size_t size = sizer.field_size();

    std::size_t count_only = 0;
    mpk::result<std::size_t> walked = std::size_t{0};
    {
      mpk_fuzz::alloc_scope scope;
      walked = mpk::visit(rest, [&](const mpk::visit_event&) { ++count_only; }, {.limits = lim});
      MPK_FUZZ_CHECK(scope.peak() <= 24 * input.size() + 8192);
    }

    shape_checker shape;
    shape.input = rest;
    const mpk::result<std::size_t> checked =
        mpk::visit(rest, [&](const mpk::visit_event& e) { shape.on(e); }, {.limits = lim});
    MPK_FUZZ_CHECK(checked.has_value() == walked.has_value());
    MPK_FUZZ_CHECK(shape.events == count_only);

    if (!walked) {
      const mpk::error e = walked.error();
      MPK_FUZZ_CHECK(!sizer.ok());
      MPK_FUZZ_CHECK(sizer.error() == (mpk::error{e.code, start + e.offset}));
      MPK_FUZZ_CHECK(checked.error() == e);
      MPK_FUZZ_CHECK(e.offset == shape.pos && !shape.done);
      return;
    }
    MPK_FUZZ_CHECK(sizer.ok() && *walked == size && *checked == size);
    MPK_FUZZ_CHECK(shape.done && shape.pos == size);

    // Stops at the first event, in the middle and at the last.
    for (const std::size_t stop_at : {std::size_t{0}, count_only / 2, count_only - 1}) {
      std::size_t seen = 0;
      std::size_t end_of_event = 0;
      const mpk::result<std::size_t> stopped = mpk::visit(rest,
                                                          [&](const mpk::visit_event& e) {
                                                            end_of_event =
                                                                e.offset + e.bytes.size();
                                                            return seen++ < stop_at;
                                                          },
                                                          {.limits = lim});
      MPK_FUZZ_CHECK(stopped.has_value() && seen == stop_at + 1);
      MPK_FUZZ_CHECK(*stopped == end_of_event);
    }

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
