// bench/support/peers/verify.hpp - small helpers the workloads share to verify their cells
// before timing (docs/workloads.md rule 2) and to check the last pass of a timed loop.
//
//     bool ok = verify::report(same, "msgpack-c writes W3", detail);   // "  [ ok ] ..."
//     std::string verdict = verify::bytes_verdict(mine, reference);  // "same bytes as mpk (...)"
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "support/digest.hpp"
#include "support/suite.hpp"

namespace mpk_bench::verify {

using bytes_view = std::span<const std::byte>;

/// Prints "  [ ok ] what" or "  [FAIL] what: detail"; returns `ok`.
inline bool report(bool ok, const std::string& what, const std::string& detail = {}) {
  std::printf("  [%s] %s%s%s\n", ok ? " ok " : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
              detail.c_str());
  return ok;
}

/// 1234567 -> "1,234,567".
inline std::string with_commas(std::size_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

/// The offset of the first byte where `a` and `b` differ (the shorter size when one is a
/// prefix of the other; equal sizes and no difference: the size).
inline std::size_t first_difference(bytes_view a, bytes_view b) noexcept {
  std::size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at])
    ++at;
  return at;
}

/// "same bytes as mpk (fnv1a64 ...)" or "different bytes: <reason>; first difference at byte N
/// (mpk xx, peer yy), sizes A and B". `reason` says why the peer writes other bytes, when known.
inline std::string bytes_verdict(bytes_view peer, bytes_view mpk, const std::string& reason = {}) {
  if (peer.size() == mpk.size() && fnv1a64(peer) == fnv1a64(mpk))
    return "same bytes as mpk (fnv1a64 " + hex64(fnv1a64(peer)) + ")";
  const std::size_t at = first_difference(peer, mpk);
  char where[128];
  std::snprintf(
      where, sizeof where, "first difference at byte %zu (mpk %s, peer %s)", at,
      at < mpk.size() ? hex64(std::to_integer<std::uint64_t>(mpk[at])).substr(14).c_str() : "end",
      at < peer.size() ? hex64(std::to_integer<std::uint64_t>(peer[at])).substr(14).c_str()
                       : "end");
  return "different bytes: " + (reason.empty() ? std::string() : reason + "; ") + where +
         ", sizes " + std::to_string(mpk.size()) + " (mpk) and " + std::to_string(peer.size());
}

/// Empty when `bytes` has the digest `want`; else what the timed loop wrote instead.
inline std::string check_digest(bytes_view bytes, std::uint64_t want) {
  const std::uint64_t got = fnv1a64(bytes);
  if (got == want) return {};
  return "timed loop wrote other bytes (fnv1a64 " + hex64(got) + ", expected " + hex64(want) + ")";
}

/// Empty when the checksum of the timed loop's last pass is `want`.
inline std::string check_sum(std::uint64_t got, std::uint64_t want) {
  if (got == want) return {};
  return "timed loop read wrong values (checksum " + hex64(got) + ", expected " + hex64(want) + ")";
}

/// The median of the repetitions of a cell (0 when there are none).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/// A function that registers a cell like workload_table::add and, with --quick, shortens
/// its minimum time to 0.01 s (workloads with many cells stay a smoke test).
inline auto quick_adder(workload_table& t, const run_config& cfg) {
  return [&t, quick = cfg.quick](auto&&... a) {
    cell& c = t.add(std::forward<decltype(a)>(a)...);
    if (quick) c.min_time = 0.01;
  };
}

}  // namespace mpk_bench::verify
