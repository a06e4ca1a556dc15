// mpk/ext/timestamp.hpp - the timestamp extension (type -1) of the MessagePack spec.
//
// A timestamp is seconds since 1970-01-01T00:00:00Z (negative before) plus nanoseconds
// (0..999999999), in one of three forms; the writer picks the smallest the spec allows:
//   timestamp 32  d6 ff + uint32 seconds                   nanoseconds 0, 0 <= seconds < 2^32
//   timestamp 64  d7 ff + uint64 (nanoseconds << 34 | seconds)             0 <= seconds < 2^34
//   timestamp 96  c7 0c ff + uint32 nanoseconds + int64 seconds            everything else
//
// Built on writer.hpp and reader.hpp (they know nothing of it). Other extension types stay
// available as `mpk::ext_view` (type and bytes) through reader::read_ext().
#pragma once

#include <chrono>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ratio>
#include <type_traits>
#include <utility>

#include "mpk/detail/endian.hpp"
#include "mpk/error.hpp"
#include "mpk/reader.hpp"
#include "mpk/writer.hpp"

namespace mpk::inline v0 {

/// The extension type of timestamps.
inline constexpr std::int8_t timestamp_ext_type = -1;

/// A point in time as MessagePack stores it. Valid when nanoseconds < 10^9; comparisons
/// order valid timestamps chronologically.
///
///     mpk::timestamp t{.seconds = 1700000000, .nanoseconds = 500};
struct timestamp {
  std::int64_t seconds = 0;       ///< since the Unix epoch; negative before it
  std::uint32_t nanoseconds = 0;  ///< 0..999999999, always forward in time from `seconds`

  friend constexpr bool operator==(const timestamp&, const timestamp&) noexcept = default;
  friend constexpr auto operator<=>(const timestamp&, const timestamp&) noexcept = default;
};

namespace detail {

inline constexpr std::uint32_t nanos_per_second = 1'000'000'000;

/// Durations a timestamp converts exactly to (seconds and finer, dividing 10^9: s, ms, us,
/// ns, ...) or from (also coarser whole seconds: minutes, hours, days).
template <class Duration>
inline constexpr bool timestamp_duration = std::is_integral_v<typename Duration::rep> &&
                                           sizeof(typename Duration::rep) <= 8 &&
                                           ((Duration::period::num == 1 &&
                                             nanos_per_second % Duration::period::den == 0) ||
                                            Duration::period::den == 1);

}  // namespace detail

/// The timestamp of a time point of the system clock (or any `std::chrono::sys_time` with an
/// integer count of seconds, milliseconds, ..., nanoseconds, or of whole minutes, hours, days).
///
///     mpk::result<mpk::timestamp> t = mpk::to_timestamp(std::chrono::system_clock::now());
///
/// Errors: errc::out_of_range (a count beyond int64, or a coarse duration, e.g. days, whose
/// seconds overflow int64).
template <class Duration>
[[nodiscard]] result<timestamp> to_timestamp(std::chrono::sys_time<Duration> tp) noexcept {
  static_assert(detail::timestamp_duration<Duration>,
                "mpk::to_timestamp: the duration must count whole units of seconds or of a "
                "decimal fraction of a second (ms, us, ns), or of whole seconds multiples");
  using period = typename Duration::period;
  if (!std::in_range<std::int64_t>(tp.time_since_epoch().count()))  // an unsigned rep
    return mpk::error{errc::out_of_range, 0};
  const auto count = static_cast<std::int64_t>(tp.time_since_epoch().count());
  if constexpr (period::den == 1) {
    std::int64_t s;
    if (__builtin_mul_overflow(count, static_cast<std::int64_t>(period::num), &s))
      return mpk::error{errc::out_of_range, 0};
    return timestamp{s, 0};
  } else {
    constexpr auto den = static_cast<std::int64_t>(period::den);
    // Floor division: the nanoseconds always count forward from `seconds`.
    std::int64_t s = count / den;
    std::int64_t rem = count % den;
    if (rem < 0) {
      rem += den;
      --s;
    }
    return timestamp{s, static_cast<std::uint32_t>(rem * (detail::nanos_per_second / den))};
  }
}

/// The time point of `ts`, as a `std::chrono::sys_time<Duration>` (the system clock's own
/// duration unless given). Sub-unit nanoseconds are truncated toward the past (floor).
///
///     auto tp = mpk::to_time_point(ts);   // result<std::chrono::system_clock::time_point>
///
/// Errors: errc::invalid_timestamp (nanoseconds >= 10^9), errc::out_of_range (`ts` is beyond
/// what Duration holds: about ±292 years around 1970 for nanoseconds).
template <class Duration = std::chrono::system_clock::duration>
[[nodiscard]] result<std::chrono::sys_time<Duration>> to_time_point(timestamp ts) noexcept {
  static_assert(detail::timestamp_duration<Duration>,
                "mpk::to_time_point: the duration must count whole units of seconds or of a "
                "decimal fraction of a second (ms, us, ns), or of whole seconds multiples");
  using rep = typename Duration::rep;
  using period = typename Duration::period;
  if (ts.nanoseconds >= detail::nanos_per_second) return mpk::error{errc::invalid_timestamp, 0};
  std::int64_t ticks;
  if constexpr (period::den == 1) {
    // Whole multiples of seconds (minutes, days): floor the seconds to the unit.
    constexpr auto num = static_cast<std::int64_t>(period::num);
    ticks = ts.seconds / num;
    if (ts.seconds % num < 0) --ticks;
  } else {
    constexpr auto den = static_cast<std::int64_t>(period::den);
    const std::int64_t sub = ts.nanoseconds / (detail::nanos_per_second / den);
    if (__builtin_mul_overflow(ts.seconds, den, &ticks) ||
        __builtin_add_overflow(ticks, sub, &ticks))
      return mpk::error{errc::out_of_range, 0};
  }
  if (!std::in_range<rep>(ticks)) return mpk::error{errc::out_of_range, 0};
  return std::chrono::sys_time<Duration>(Duration(static_cast<rep>(ticks)));
}

/// Writes `ts` as a timestamp extension in the smallest of its three forms.
///
///     mpk::write_timestamp(w, {.seconds = 1, .nanoseconds = 0});   // d6 ff 00 00 00 01
///
/// Errors (sticky in the writer): errc::invalid_timestamp (nanoseconds >= 10^9; nothing is
/// written), and the sink's errors.
template <class Sink>
void write_timestamp(writer<Sink>& w, timestamp ts) noexcept {
  if (ts.nanoseconds >= detail::nanos_per_second) [[unlikely]]
    return w.set_error(errc::invalid_timestamp);
  std::byte data[12];
  const auto s = static_cast<std::uint64_t>(ts.seconds);
  if (ts.seconds >= 0 && s >> 34 == 0) {
    if (ts.nanoseconds == 0 && s >> 32 == 0) {
      detail::store_be32(data, static_cast<std::uint32_t>(s));
      return w.write_ext(timestamp_ext_type, {data, 4});
    }
    detail::store_be64(data, std::uint64_t{ts.nanoseconds} << 34 | s);
    return w.write_ext(timestamp_ext_type, {data, 8});
  }
  detail::store_be32(data, ts.nanoseconds);
  detail::store_be64(data + 4, s);
  w.write_ext(timestamp_ext_type, {data, 12});
}

/// Writes a time point of the system clock (or any sys_time to_timestamp accepts) as a
/// timestamp extension.
/// Errors: those of to_timestamp (errc::out_of_range) and of write_timestamp.
template <class Sink, class Duration>
void write_timestamp(writer<Sink>& w, std::chrono::sys_time<Duration> tp) noexcept {
  const result<timestamp> ts = to_timestamp(tp);
  if (!ts) return w.set_error(ts.error().code);
  write_timestamp(w, *ts);
}

/// Reads a timestamp extension in any of its three forms.
///
///     mpk::timestamp t = mpk::read_timestamp(r);
///
/// Errors (sticky in the reader, returning {} and consuming nothing; the offset is the
/// value's): those of reader::read_ext(), errc::type_mismatch (not an extension, or an
/// extension of another type than -1), errc::invalid_timestamp (data of another length than
/// 4, 8 or 12 bytes, or nanoseconds >= 10^9).
template <class Policy>
[[nodiscard]] timestamp read_timestamp(basic_reader<Policy>& r) noexcept {
  const std::size_t at = r.position();
  const ext_view e = r.read_ext();
  if (!r.ok()) return {};
  if (e.type != timestamp_ext_type) {
    r.set_error({errc::type_mismatch, at});
    return {};
  }
  timestamp ts;
  switch (e.data.size()) {
    case 4:
      ts.seconds = detail::load_be32(e.data.data());
      return ts;
    case 8: {
      const std::uint64_t v = detail::load_be64(e.data.data());
      ts.seconds = static_cast<std::int64_t>(v & ((std::uint64_t{1} << 34) - 1));
      ts.nanoseconds = static_cast<std::uint32_t>(v >> 34);
      break;
    }
    case 12:
      ts.nanoseconds = detail::load_be32(e.data.data());
      ts.seconds = static_cast<std::int64_t>(detail::load_be64(e.data.data() + 4));
      break;
    default:
      r.set_error({errc::invalid_timestamp, at});
      return {};
  }
  if (ts.nanoseconds >= detail::nanos_per_second) {
    r.set_error({errc::invalid_timestamp, at});
    return {};
  }
  return ts;
}

/// Reads a timestamp extension as a `std::chrono::sys_time<Duration>` (the system clock's
/// time_point unless given).
///
///     auto when = mpk::read_time_point(r);   // std::chrono::system_clock::time_point
///
/// Errors: those of read_timestamp, errc::out_of_range (the seconds do not fit Duration).
template <class Duration = std::chrono::system_clock::duration, class Policy>
[[nodiscard]] std::chrono::sys_time<Duration> read_time_point(basic_reader<Policy>& r) noexcept {
  const std::size_t at = r.position();
  const timestamp ts = read_timestamp(r);
  if (!r.ok()) return {};
  const result<std::chrono::sys_time<Duration>> tp = to_time_point<Duration>(ts);
  if (!tp) {
    r.set_error({tp.error().code, at});
    return {};
  }
  return *tp;
}

}  // namespace mpk::inline v0
