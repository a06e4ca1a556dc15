// bench/visit_cost.cpp - mpk_visit_cost: the instructions mpk::visit costs per value, next to
// reader::skip(), for callgrind (docs/reader.md#what-a-visit-costs).
//
//     mpk_visit_cost MODE SHAPE
//
// MODE: none (builds the input only: the baseline to subtract), skip (reader::skip() per
// top-level value), visit (mpk::visit per top-level value, a
// handler counting events), visit_sum (a handler adding up every value: what a real handler
// reads), read (reader::peek() and the typed read of the family per value: W1 only).
// SHAPE: w1 (W1's 100,000 top-level scalars, bench/data/small_fields.hpp), maps (the same
// values as 12,500 maps of 8 entries with str keys, in one array).
// The cost of a mode is its instructions minus those of `none`, over the values walked:
//
//     valgrind --tool=callgrind --callgrind-out-file=cg.visit mpk_visit_cost visit w1
//     valgrind --tool=callgrind --callgrind-out-file=cg.none mpk_visit_cost none w1
//     # (summary of cg.visit - summary of cg.none) / values
//
// It prints the values walked (scalars and containers; for maps, keys included) and a
// checksum, so that the work cannot be optimised away.
#include <mpk/buffer.hpp>
#include <mpk/reader.hpp>
#include <mpk/visit.hpp>
#include <mpk/writer.hpp>

#include <bit>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "data/small_fields.hpp"

namespace {

namespace w1 = mpk_bench::small_fields;
constexpr std::size_t records = w1::quick_values / w1::fields_per_record;

mpk::buffer encode(bool maps, std::size_t& values) {
  mpk::buffer buf;
  mpk::writer w(buf);
  values = 0;
  if (maps) {
    w.begin_array(records);
    ++values;
  }
  for (const w1::record& r : w1::generate(w1::quick_values)) {
    if (maps) {
      w.begin_map(w1::fields_per_record);
      values += 1 + w1::fields_per_record;  // the map and its keys
    }
    const auto key = [&](const char* k) {
      if (maps) w.write(std::string_view(k));
    };
    key("f0");
    w.write(r.f0);
    key("f1");
    w.write(r.f1);
    key("f2");
    w.write(r.f2);
    key("f3");
    w.write(r.f3);
    key("f4");
    w.write(r.f4);
    key("f5");
    w.write(r.f5);
    key("f6");
    w.write(r.f6);
    key("f7");
    w.write(r.f7());
    values += w1::fields_per_record;
  }
  return buf;
}

[[gnu::noinline]] std::size_t run_skip(std::span<const std::byte> in) {
  mpk::reader r(in);
  std::size_t n = 0;
  while (!r.at_end()) {
    r.skip();
    ++n;
  }
  return r.ok() ? n : 0;
}

[[gnu::noinline]] std::size_t run_visit(std::span<const std::byte> in) {
  std::size_t events = 0, at = 0;
  while (at < in.size()) {
    const auto r = mpk::visit(in.subspan(at), [&](const mpk::visit_event&) { ++events; });
    if (!r) return 0;
    at += *r;
  }
  return events;
}

[[gnu::noinline]] std::size_t run_visit_sum(std::span<const std::byte> in) {
  std::uint64_t sum = 0;
  std::size_t at = 0;
  while (at < in.size()) {
    const auto r = mpk::visit(in.subspan(at), [&](const mpk::visit_event& e) {
      switch (e.kind) {
        case mpk::visit_kind::uint:
          sum += e.u;
          break;
        case mpk::visit_kind::sint:
          sum += static_cast<std::uint64_t>(e.i);
          break;
        case mpk::visit_kind::float64:
          sum += std::bit_cast<std::uint64_t>(e.f64);
          break;
        case mpk::visit_kind::str:
          sum += e.str.size();
          break;
        default:
          ++sum;
          break;
      }
    });
    if (!r) return 0;
    at += *r;
  }
  return static_cast<std::size_t>(sum);
}

[[gnu::noinline]] std::size_t run_read(std::span<const std::byte> in) {
  mpk::reader r(in);
  std::uint64_t sum = 0;
  while (!r.at_end()) {
    switch (r.peek()) {
      case mpk::type::uint:
        sum += r.read<std::uint64_t>();
        break;
      case mpk::type::sint:
        sum += static_cast<std::uint64_t>(r.read<std::int64_t>());
        break;
      case mpk::type::float64:
        sum += std::bit_cast<std::uint64_t>(r.read<double>());
        break;
      case mpk::type::str:
        sum += r.read_string_view().size();
        break;
      default:
        r.skip();
        ++sum;
        break;
    }
  }
  return r.ok() ? static_cast<std::size_t>(sum) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[2], "w1") != 0 && std::strcmp(argv[2], "maps") != 0)) {
    std::fprintf(stderr, "usage: mpk_visit_cost none|skip|visit|visit_sum|read w1|maps\n");
    return 2;
  }
  std::size_t values = 0;
  const mpk::buffer buf = encode(std::strcmp(argv[2], "maps") == 0, values);
  const std::string_view mode = argv[1];
  std::size_t got;
  if (mode == "none")
    got = values;
  else if (mode == "skip")
    got = run_skip(buf);
  else if (mode == "visit")
    got = run_visit(buf);
  else if (mode == "visit_sum")
    got = run_visit_sum(buf);
  else if (mode == "read")
    got = run_read(buf);
  else
    return 2;
  std::printf("%zu values, %zu bytes, result %zu\n", values, buf.size(), got);
  return got != 0 ? 0 : 1;
}
