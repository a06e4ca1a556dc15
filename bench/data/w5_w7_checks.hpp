// bench/data/w5_w7_checks.hpp - what the verifications of W5, W6 and W7 share beyond
// support/peers/verify.hpp: wording a byte difference by the wire formats each side chose, and
// registering a cell of one operation per iteration.
#pragma once

#include <mpk/format.hpp>
#include <mpk/reader.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "support/digest.hpp"
#include "support/peers/verify.hpp"
#include "support/suite.hpp"

namespace mpk_bench::checks {

using bytes_view = std::span<const std::byte>;

inline bytes_view view(const void* data, std::size_t size) noexcept {
  return {static_cast<const std::byte*>(data), size};
}

/// Where two encodings first differ: the byte offset, and the wire format each side chose for
/// the value (or container header) that starts there. Both encodings are equal before that
/// offset, so the value holding it starts at the same offset in both.
inline std::string first_difference(bytes_view a, std::string_view a_name, bytes_view b,
                                    std::string_view b_name) {
  std::size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at])
    ++at;
  // Walk a header by header (into containers) to the item that holds byte `at`.
  mpk::reader r(a, {.limits = mpk::limits::trusted()});
  std::size_t start = at;
  while (r.ok() && !r.at_end()) {
    const std::size_t here = r.position();
    switch (r.peek()) {
      case mpk::type::array:
        (void)r.read_array_header();
        break;
      case mpk::type::map:
        (void)r.read_map_header();
        break;
      default:
        r.skip();
        break;
    }
    if (r.position() > at) {
      start = here;
      break;
    }
  }
  auto format_at = [start](bytes_view x) -> std::string {
    if (start >= x.size()) return "nothing (ends)";
    return std::string(mpk::marker_table[std::to_integer<std::uint8_t>(x[start])].format_name);
  };
  const std::string fa = format_at(a), fb = format_at(b);
  std::string out = "first difference at byte " + std::to_string(at) + ": ";
  if (fa == fb)
    out += "both write a " + fa + ", with other contents";
  else
    out += std::string(a_name) + " writes " + fa + ", " + std::string(b_name) + " writes " + fb;
  return out + "; sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
         " bytes";
}

/// "same bytes as mpk (fnv1a64 ...)" or "different bytes: <first difference>[; reason]".
inline std::string byte_verdict(bytes_view mpk_bytes, bytes_view peer, std::string_view peer_name,
                                std::string_view reason = {}) {
  if (mpk_bytes.size() == peer.size() && fnv1a64(mpk_bytes) == fnv1a64(peer))
    return "same bytes as mpk (fnv1a64 " + hex64(fnv1a64(peer)) + ")";
  std::string out = "different bytes: " + first_difference(mpk_bytes, "mpk", peer, peer_name);
  if (!reason.empty()) out += " (" + std::string(reason) + ")";
  return out;
}

using verify::report;
using verify::with_commas;

/// Registers a cell that times one operation per iteration (unit "op"): `op()` returns
/// something to keep alive, `check(last)` says what was wrong with the last one (empty: right).
template <class Op, class Check>
void add_op(workload_table& t, const std::string& case_name, const std::string& impl,
            std::string verification, std::string note, Op op, Check check) {
  t.add(case_name, impl, std::move(verification), std::move(note),
        [op = std::move(op), check = std::move(check)](benchmark::State& st) mutable {
          time_passes(st, 1, "op", op, check);
        });
}

}  // namespace mpk_bench::checks
