// mpk/codec/mpk_types.hpp - codecs of mpk's own types and of time: mpk::timestamp and
// std::chrono::system_clock time points as the timestamp extension (-1), mpk::value for
// "any" members.
#pragma once

#include <chrono>
#include <cstddef>

#include "mpk/codec/core.hpp"
#include "mpk/ext/timestamp.hpp"
#include "mpk/value.hpp"

namespace mpk::inline v0 {

/// mpk::timestamp: the timestamp extension in its smallest form (32, 64 or 96 bits).
/// Errors: errc::invalid_timestamp (nanoseconds >= 10^9, on write in the writer, on read in
/// the reader), errc::type_mismatch (not a timestamp extension).
template <>
struct codec<timestamp> {
  template <class S>
  static void write(writer<S>& w, const timestamp& v) noexcept {
    write_timestamp(w, v);
  }
  static void read(reader& r, timestamp& out) noexcept { out = read_timestamp(r); }
  static constexpr wire_types wire = wire_of(mpk::type::ext);
};

/// std::chrono::system_clock time points (any duration that to_timestamp accepts): the
/// timestamp extension. Sub-unit nanoseconds are truncated toward the past on read.
/// Errors: those of mpk::timestamp, errc::out_of_range (seconds beyond the duration).
template <class Duration>
struct codec<std::chrono::time_point<std::chrono::system_clock, Duration>> {
  using type = std::chrono::time_point<std::chrono::system_clock, Duration>;
  template <class S>
  static void write(writer<S>& w, const type& v) noexcept {
    write_timestamp(w, v);
  }
  static void read(reader& r, type& out) noexcept { out = read_time_point<Duration>(r); }
  static constexpr wire_types wire = wire_of(mpk::type::ext);
};

/// mpk::value: any MessagePack value, for members whose type is not fixed. Reading it counts
/// the struct's depth: a value nested d containers deep may nest max_depth - d more.
/// Errors: those of reader::raw_value() and document::parse (errc::depth_exceeded,
/// errc::out_of_memory, ...), and the writer's.
template <>
struct codec<value> {
  template <class S>
  static void write(writer<S>& w, const value& v) noexcept {
    mpk::write(w, v);
  }
  static void read(reader& r, value& out, read_context& ctx) {
    const std::size_t at = r.position();
    const std::span<const std::byte> bytes = r.raw_value();
    if (!r.ok()) return;
    limits lim = r.options().limits;
    lim.max_depth -= ctx.depth();  // enter() keeps depth() <= max_depth
    auto doc = document::parse(bytes, {.read = {.limits = lim}});
    if (!doc) return ctx.fail(r, doc.error().code, at + doc.error().offset);
    result<value> v = detail::make_value(doc->root());
    if (!v) return ctx.fail(r, errc::out_of_memory, at);
    out = std::move(*v);
  }
};

}  // namespace mpk::inline v0
