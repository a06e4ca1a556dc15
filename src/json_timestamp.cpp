// Timestamps (ext -1) in JSON: RFC 3339 text in plain mode, [seconds, nanoseconds] in
// lossless mode. Decoding and encoding are ext/timestamp.hpp's.
#include <chrono>
#include <cstdio>

#include "json_internal.hpp"
#include "mpk/ext/timestamp.hpp"

namespace mpk::inline v0::detail {

namespace {

/// True when `size` bytes is the smallest form of `ts` (what write_timestamp writes).
bool smallest_form(const timestamp& ts, std::size_t size) {
  const auto s = static_cast<std::uint64_t>(ts.seconds);
  const bool fits34 = ts.seconds >= 0 && s >> 34 == 0;
  const bool fits32 = ts.nanoseconds == 0 && ts.seconds >= 0 && s >> 32 == 0;
  switch (size) {
    case 4:
      return true;
    case 8:
      return !fits32;
    default:
      return !fits34;
  }
}

}  // namespace

bool append_timestamp_json(std::string& out, reader& at_ext, bool lossless, bool pretty) {
  const std::size_t size = [&] {
    reader look = at_ext;
    return look.read_ext().data.size();
  }();
  const timestamp ts = read_timestamp(at_ext);
  if (!at_ext.ok()) return false;
  if (lossless) {
    if (!smallest_form(ts, size)) return false;
    char buf[64];
    std::snprintf(buf, sizeof buf,
                  pretty ? "{\"$timestamp\": [%lld, %u]}" : "{\"$timestamp\":[%lld,%u]}",
                  static_cast<long long>(ts.seconds), static_cast<unsigned>(ts.nanoseconds));
    out += buf;
    return true;
  }
  // RFC 3339 holds the years 0000..9999 only: 253402300800 is 10000-01-01T00:00:00Z and
  // -62167219200 is 0000-01-01T00:00:00Z. Other timestamps keep the extension form.
  if (ts.seconds < -62167219200LL || ts.seconds >= 253402300800LL) return false;
  using namespace std::chrono;
  std::int64_t days = ts.seconds / 86400;
  std::int64_t rem = ts.seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "\"%04d-%02u-%02uT%02d:%02d:%02d", int{ymd.year()},
                        unsigned{ymd.month()}, unsigned{ymd.day()}, static_cast<int>(rem / 3600),
                        static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60));
  // Fractions in groups of three digits (milli, micro, nano), trailing groups of zeros cut.
  if (ts.nanoseconds != 0) {
    std::uint32_t ns = ts.nanoseconds;
    int digits = 9;
    while (ns % 1000 == 0) {
      ns /= 1000;
      digits -= 3;
    }
    n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ".%0*u", digits,
                       static_cast<unsigned>(ns));
  }
  std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), "Z\"");
  out += buf;
  return true;
}

bool write_timestamp(writer<buffer>& w, std::int64_t seconds, std::uint32_t nanoseconds) {
  mpk::write_timestamp(w, timestamp{seconds, nanoseconds});
  return w.ok();
}

}  // namespace mpk::inline v0::detail
