// bench/w1_small_fields.cpp - workload W1 small_fields for mpk and msgpack-cxx.
//
// Every encode and decode routine below is written once, as a template over what it does
// with each value (the "consumer"): the timed loops add every value into a checksum (one
// add per value, the same for every implementation), and the verification before timing
// runs the very same routines with a consumer that compares every value with the data.
#include <mpk/reader.hpp>
#include <mpk/writer.hpp>

#include <msgpack.hpp>

#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/small_fields.hpp"
#include "support/digest.hpp"
#include "support/suite.hpp"
#include "workloads.hpp"

namespace mpk_bench {
namespace {

using small_fields::record;
using bytes_view = std::span<const std::byte>;

// --- consumers -------------------------------------------------------------------------

/// What the timed loops do with a value: add it to a checksum. One add per value, so the
/// loop carries a dependency of one cycle per value; doubles are added as their bits, a
/// string as its length plus its last byte (so its bytes are really touched).
struct value_sum {
  std::uint64_t acc = 0;
  void u(std::uint64_t v) noexcept { acc += v; }
  void s(std::int64_t v) noexcept { acc += static_cast<std::uint64_t>(v); }
  void f(double v) noexcept { acc += std::bit_cast<std::uint64_t>(v); }
  void str(std::string_view v) noexcept {
    acc += v.size();
    if (!v.empty()) acc += static_cast<unsigned char>(v.back());
  }
  void b(bool v) noexcept { acc += v ? 1 : 0; }
  void nil() noexcept {}
  void bin(std::size_t n) noexcept { acc += n; }
  void other() noexcept {}
};

/// What a value of W1 must decode to: its family ('u' non-negative integer, 'i' negative
/// integer, 'f' float64, 's' string), its bits, its text.
struct expected_value {
  char kind = '?';
  std::uint64_t bits = 0;
  std::string_view text;
};

expected_value expect(const record& r, std::size_t field) {
  switch (field) {
    case 0:
      return {'u', r.f0, {}};
    case 1:
      return {'i', static_cast<std::uint64_t>(std::int64_t{r.f1}), {}};
    case 2:
      return {'u', r.f2, {}};
    case 3:
      return {'i', static_cast<std::uint64_t>(std::int64_t{r.f3}), {}};
    case 4:
      return {'u', r.f4, {}};
    case 5:
      return {'f', std::bit_cast<std::uint64_t>(r.f5), {}};
    case 6:
      return {'f', std::bit_cast<std::uint64_t>(r.f6), {}};
    default:
      return {'s', 0, r.f7()};
  }
}

std::string describe(char kind, std::uint64_t bits, std::string_view text) {
  char out[96];
  switch (kind) {
    case 'u':
      std::snprintf(out, sizeof out, "uint %" PRIu64, bits);
      break;
    case 'i':
      std::snprintf(out, sizeof out, "int %" PRId64, static_cast<std::int64_t>(bits));
      break;
    case 'f':
      std::snprintf(out, sizeof out, "float64 %.17g", std::bit_cast<double>(bits));
      break;
    case 's':
      std::snprintf(out, sizeof out, "str \"%.*s\"",
                    static_cast<int>(text.size() > 40 ? 40 : text.size()), text.data());
      break;
    case 'b':
      std::snprintf(out, sizeof out, "bool %s", bits != 0 ? "true" : "false");
      break;
    case 'n':
      std::snprintf(out, sizeof out, "nil");
      break;
    case 'y':
      std::snprintf(out, sizeof out, "bin of %" PRIu64 " bytes", bits);
      break;
    default:
      std::snprintf(out, sizeof out, "another type");
      break;
  }
  return out;
}

/// What the verification does with a value: compare it with the data, keep the first
/// difference.
struct value_checker {
  std::span<const record> records;
  std::size_t count = 0;
  std::string first_error;

  void put(char kind, std::uint64_t bits, std::string_view text) {
    const std::size_t k = count++;
    if (!first_error.empty()) return;
    if (k >= records.size() * small_fields::fields_per_record) {
      first_error = "more values than were written";
      return;
    }
    const std::size_t field = k % small_fields::fields_per_record;
    const expected_value e = expect(records[k / small_fields::fields_per_record], field);
    if (e.kind != kind || e.bits != bits || e.text != text) {
      first_error = "value " + std::to_string(k) + " (record " +
                    std::to_string(k / small_fields::fields_per_record) + ", f" +
                    std::to_string(field) + "): expected " + describe(e.kind, e.bits, e.text) +
                    ", got " + describe(kind, bits, text);
    }
  }
  void u(std::uint64_t v) { put('u', v, {}); }
  void s(std::int64_t v) { put('i', static_cast<std::uint64_t>(v), {}); }
  void f(double v) { put('f', std::bit_cast<std::uint64_t>(v), {}); }
  void str(std::string_view v) { put('s', 0, v); }
  void b(bool v) { put('b', v ? 1 : 0, {}); }
  void nil() { put('n', 0, {}); }
  void bin(std::size_t n) { put('y', n, {}); }
  void other() { put('?', 0, {}); }

  /// Empty when every value of `records` arrived, right.
  std::string verdict() const {
    if (!first_error.empty()) return first_error;
    const std::size_t want = records.size() * small_fields::fields_per_record;
    if (count != want)
      return "decoded " + std::to_string(count) + " values, " + std::to_string(want) + " written";
    return {};
  }
};

/// The checksum value_sum must reach over all of `records`.
std::uint64_t expected_sum(std::span<const record> records) {
  value_sum sum;
  for (const record& r : records) {
    sum.u(r.f0);
    sum.s(r.f1);
    sum.u(r.f2);
    sum.s(r.f3);
    sum.u(r.f4);
    sum.f(r.f5);
    sum.f(r.f6);
    sum.str(r.f7());
  }
  return sum.acc;
}

// --- mpk -------------------------------------------------------------------------------

/// Implicit typing: the writer picks the smallest form of each value.
template <class Sink>
bool mpk_write_implicit(Sink& out, std::span<const record> records) {
  mpk::writer w(out);
  for (const record& r : records) {
    w.write(r.f0);
    w.write(r.f1);
    w.write(r.f2);
    w.write(r.f3);
    w.write(r.f4);
    w.write(r.f5);
    w.write(r.f6);
    w.write(r.f7());
  }
  return w.ok();
}

/// Explicit typing: f0 uint8, f1 int16, f2 uint16, f3 int32, f4 uint64, f5/f6 float64, f7 str8.
template <class Sink>
bool mpk_write_explicit(Sink& out, std::span<const record> records) {
  mpk::writer w(out);
  for (const record& r : records) {
    w.write_uint8(r.f0);
    w.write_int16(r.f1);
    w.write_uint16(r.f2);
    w.write_int32(r.f3);
    w.write_uint64(r.f4);
    w.write_float64(r.f5);
    w.write_float64(r.f6);
    w.write_str8(r.f7());
  }
  return w.ok();
}

/// Typed reads: the reader knows the schema. Reader is mpk::reader or mpk::unchecked_reader.
template <class Reader, class C>
bool mpk_read_typed(bytes_view in, std::size_t records, C& c) {
  Reader r(in);
  for (std::size_t k = 0; k < records; ++k) {
    c.u(r.template read<std::uint8_t>());
    c.s(r.template read<std::int16_t>());
    c.u(r.template read<std::uint16_t>());
    c.s(r.template read<std::int32_t>());
    c.u(r.template read<std::uint64_t>());
    c.f(r.template read<double>());
    c.f(r.template read<double>());
    c.str(r.template read<std::string_view>());
  }
  return r.ok() && r.at_end();
}

/// Generic reads: peek the family of each value, then read a value of that family.
template <class C>
bool mpk_read_generic(bytes_view in, std::size_t values, C& c) {
  mpk::reader r(in);
  for (std::size_t k = 0; k < values; ++k) {
    switch (r.peek()) {
      case mpk::type::uint:
        c.u(r.read<std::uint64_t>());
        break;
      case mpk::type::sint:
        c.s(r.read<std::int64_t>());
        break;
      case mpk::type::float32:
      case mpk::type::float64:
        c.f(r.read<double>());
        break;
      case mpk::type::str:
        c.str(r.read<std::string_view>());
        break;
      case mpk::type::boolean:
        c.b(r.read<bool>());
        break;
      case mpk::type::nil:
        r.read_nil();
        c.nil();
        break;
      case mpk::type::bin:
        c.bin(r.read<std::span<const std::byte>>().size());
        break;
      default:  // array, map, ext: not in W1; invalid: the reader holds the error
        r.skip();
        c.other();
        break;
    }
  }
  return r.ok() && r.at_end();
}

/// Skips `values` values; returns the offset reached (the input size when all is well).
std::size_t mpk_skip(bytes_view in, std::size_t values) {
  mpk::reader r(in);
  for (std::size_t k = 0; k < values; ++k)
    r.skip();
  return r.ok() ? r.position() : 0;
}

// --- msgpack-cxx -----------------------------------------------------------------------

const char* chars(bytes_view in) {
  return reinterpret_cast<const char*>(in.data());
}

/// Implicit typing through msgpack::packer::pack (smallest form of each integer; a double
/// goes through pack_double, which writes integral doubles as integers: W1 has none).
template <class Stream>
void cxx_write_implicit(Stream& out, std::span<const record> records) {
  msgpack::packer<Stream> pk(out);
  for (const record& r : records) {
    pk.pack(r.f0);
    pk.pack(r.f1);
    pk.pack(r.f2);
    pk.pack(r.f3);
    pk.pack(r.f4);
    pk.pack(r.f5);
    pk.pack(r.f6);
    pk.pack(r.f7());
  }
}

/// Explicit typing through pack_fix_*; pack_double for float64 (msgpack-cxx has no forced
/// float64); msgpack-cxx has no forced str8 either, so its two header bytes go to the
/// stream directly, then pack_str_body.
void cxx_write_explicit(msgpack::sbuffer& out, std::span<const record> records) {
  msgpack::packer<msgpack::sbuffer> pk(out);
  for (const record& r : records) {
    pk.pack_fix_uint8(r.f0);
    pk.pack_fix_int16(r.f1);
    pk.pack_fix_uint16(r.f2);
    pk.pack_fix_int32(r.f3);
    pk.pack_fix_uint64(r.f4);
    pk.pack_double(r.f5);
    pk.pack_double(r.f6);
    const std::string_view s = r.f7();
    const char header[2] = {static_cast<char>(0xd9), static_cast<char>(s.size())};
    out.write(header, 2);
    pk.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
  }
}

/// The common way: msgpack::unpack of each value into an object_handle (a zone per value,
/// strings copied into it), then as<T>(). Errors are exceptions.
template <class C>
bool cxx_read_typed(bytes_view in, std::size_t records, C& c) {
  const char* data = chars(in);
  const std::size_t size = in.size();
  std::size_t off = 0;
  try {
    for (std::size_t k = 0; k < records; ++k) {
      c.u(msgpack::unpack(data, size, off).get().as<std::uint8_t>());
      c.s(msgpack::unpack(data, size, off).get().as<std::int16_t>());
      c.u(msgpack::unpack(data, size, off).get().as<std::uint16_t>());
      c.s(msgpack::unpack(data, size, off).get().as<std::int32_t>());
      c.u(msgpack::unpack(data, size, off).get().as<std::uint64_t>());
      c.f(msgpack::unpack(data, size, off).get().as<double>());
      c.f(msgpack::unpack(data, size, off).get().as<double>());
      c.str(msgpack::unpack(data, size, off).get().as<std::string_view>());
    }
  } catch (const std::exception&) {
    return false;
  }
  return off == size;
}

/// Generic: unpack each value to a msgpack::object, switch on its type.
template <class C>
bool cxx_read_generic(bytes_view in, std::size_t values, C& c) {
  const char* data = chars(in);
  const std::size_t size = in.size();
  std::size_t off = 0;
  try {
    for (std::size_t k = 0; k < values; ++k) {
      msgpack::object_handle oh = msgpack::unpack(data, size, off);
      const msgpack::object& o = oh.get();
      switch (o.type) {
        case msgpack::type::POSITIVE_INTEGER:
          c.u(o.via.u64);
          break;
        case msgpack::type::NEGATIVE_INTEGER:
          c.s(o.via.i64);
          break;
        case msgpack::type::FLOAT32:
        case msgpack::type::FLOAT64:
          c.f(o.via.f64);
          break;
        case msgpack::type::STR:
          c.str(std::string_view(o.via.str.ptr, o.via.str.size));
          break;
        case msgpack::type::BOOLEAN:
          c.b(o.via.boolean);
          break;
        case msgpack::type::NIL:
          c.nil();
          break;
        case msgpack::type::BIN:
          c.bin(o.via.bin.size);
          break;
        default:
          c.other();
          break;
      }
    }
  } catch (const std::exception&) {
    return false;
  }
  return off == size;
}

/// A visitor for msgpack::parse that refuses everything; the typed visitors below accept
/// what converts to their type (a refusal stops the parse: parse() returns false).
struct refuse_all {
  bool visit_nil() { return false; }
  bool visit_boolean(bool) { return false; }
  bool visit_positive_integer(std::uint64_t) { return false; }
  bool visit_negative_integer(std::int64_t) { return false; }
  bool visit_float32(float) { return false; }
  bool visit_float64(double) { return false; }
  bool visit_str(const char*, std::uint32_t) { return false; }
  bool visit_bin(const char*, std::uint32_t) { return false; }
  bool visit_ext(const char*, std::uint32_t) { return false; }
  bool start_array(std::uint32_t) { return false; }
  bool start_array_item() { return false; }
  bool end_array_item() { return false; }
  bool end_array() { return false; }
  bool start_map(std::uint32_t) { return false; }
  bool start_map_key() { return false; }
  bool end_map_key() { return false; }
  bool start_map_value() { return false; }
  bool end_map_value() { return false; }
  bool end_map() { return false; }
  void parse_error(std::size_t, std::size_t) {}
  void insufficient_bytes(std::size_t, std::size_t) {}
  bool referenced() const { return false; }
  void set_referenced(bool) {}
};

/// An integer of type T, range-checked as as<T>() does.
template <class T>
struct int_visitor : refuse_all {
  T value{};
  bool visit_positive_integer(std::uint64_t v) {
    if (!std::in_range<T>(v)) return false;
    value = static_cast<T>(v);
    return true;
  }
  bool visit_negative_integer(std::int64_t v) {
    if (!std::in_range<T>(v)) return false;
    value = static_cast<T>(v);
    return true;
  }
};

/// A double from float32, float64 or an integer, as as<double>() accepts.
struct double_visitor : refuse_all {
  double value = 0;
  bool visit_float32(float v) {
    value = v;
    return true;
  }
  bool visit_float64(double v) {
    value = v;
    return true;
  }
  bool visit_positive_integer(std::uint64_t v) {
    value = static_cast<double>(v);
    return true;
  }
  bool visit_negative_integer(std::int64_t v) {
    value = static_cast<double>(v);
    return true;
  }
};

/// A string as a view into the input (zero-copy: parse() hands out pointers into it).
struct str_visitor : refuse_all {
  std::string_view value;
  bool visit_str(const char* p, std::uint32_t n) {
    value = std::string_view(p, n);
    return true;
  }
};

/// Parses one value with visitor V and returns what it kept; a failure throws.
struct parse_failed {};
template <class V>
auto parse_one(const char* data, std::size_t size, std::size_t& off) {
  V v;
  if (!msgpack::parse(data, size, off, v)) throw parse_failed{};
  return v.value;
}

/// msgpack-cxx's fastest honest typed read: msgpack::parse of each value with a visitor per
/// target type (range-checked, strings zero-copy), no object, no zone.
template <class C>
bool cxx_parse_typed(bytes_view in, std::size_t records, C& c) {
  const char* data = chars(in);
  const std::size_t size = in.size();
  std::size_t off = 0;
  try {
    for (std::size_t k = 0; k < records; ++k) {
      c.u(parse_one<int_visitor<std::uint8_t>>(data, size, off));
      c.s(parse_one<int_visitor<std::int16_t>>(data, size, off));
      c.u(parse_one<int_visitor<std::uint16_t>>(data, size, off));
      c.s(parse_one<int_visitor<std::int32_t>>(data, size, off));
      c.u(parse_one<int_visitor<std::uint64_t>>(data, size, off));
      c.f(parse_one<double_visitor>(data, size, off));
      c.f(parse_one<double_visitor>(data, size, off));
      c.str(parse_one<str_visitor>(data, size, off));
    }
  } catch (const parse_failed&) {
    return false;
  }
  return off == size;
}

/// A visitor that hands every scalar to the consumer by its type: msgpack-cxx's generic
/// read without building an object.
template <class C>
struct forward_visitor : msgpack::null_visitor {
  C* c = nullptr;
  bool visit_nil() {
    c->nil();
    return true;
  }
  bool visit_boolean(bool v) {
    c->b(v);
    return true;
  }
  bool visit_positive_integer(std::uint64_t v) {
    c->u(v);
    return true;
  }
  bool visit_negative_integer(std::int64_t v) {
    c->s(v);
    return true;
  }
  bool visit_float32(float v) {
    c->f(v);
    return true;
  }
  bool visit_float64(double v) {
    c->f(v);
    return true;
  }
  bool visit_str(const char* p, std::uint32_t n) {
    c->str(std::string_view(p, n));
    return true;
  }
  bool visit_bin(const char*, std::uint32_t n) {
    c->bin(n);
    return true;
  }
  bool visit_ext(const char*, std::uint32_t) {
    c->other();
    return true;
  }
};

template <class C>
bool cxx_parse_generic(bytes_view in, std::size_t values, C& c) {
  const char* data = chars(in);
  const std::size_t size = in.size();
  std::size_t off = 0;
  forward_visitor<C> v;
  v.c = &c;
  for (std::size_t k = 0; k < values; ++k)
    if (!msgpack::parse(data, size, off, v)) return false;
  return off == size;
}

/// Skips `values` values with msgpack::parse and a null_visitor; returns the offset reached.
std::size_t cxx_skip(bytes_view in, std::size_t values) {
  const char* data = chars(in);
  const std::size_t size = in.size();
  std::size_t off = 0;
  msgpack::null_visitor v;
  for (std::size_t k = 0; k < values; ++k)
    if (!msgpack::parse(data, size, off, v)) return 0;
  return off;
}

// --- verification ----------------------------------------------------------------------

/// Where two encodings of W1 first differ, in words (value, field, the formats of each).
std::string first_difference(bytes_view a, const char* a_name, bytes_view b, const char* b_name) {
  std::size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at])
    ++at;
  // Find the value of `a` that contains byte `at`.
  mpk::reader r(a);
  std::size_t index = 0;
  std::size_t start = 0;
  while (!r.at_end()) {
    const std::size_t here = r.position();
    r.skip();
    if (!r.ok()) break;
    if (r.position() > at) {
      start = here;
      break;
    }
    ++index;
  }
  std::string out = "first difference at byte " + std::to_string(at) + ", value " +
                    std::to_string(index) + " (f" +
                    std::to_string(index % small_fields::fields_per_record) + " of record " +
                    std::to_string(index / small_fields::fields_per_record) + "): ";
  auto format_at = [&](bytes_view x) -> std::string {
    if (start >= x.size()) return "(ends)";
    const auto m = std::to_integer<std::uint8_t>(x[start]);
    return std::string(mpk::marker_table[m].format_name);
  };
  out +=
      std::string(a_name) + " writes " + format_at(a) + ", " + b_name + " writes " + format_at(b);
  out += "; sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " bytes";
  return out;
}

bool report(bool ok, const std::string& what, const std::string& detail) {
  std::printf("  [%s] %s%s%s\n", ok ? " ok " : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
              detail.c_str());
  return ok;
}

template <class Run>
bool check_values(const std::string& what, std::span<const record> records, Run&& run) {
  value_checker checker;
  checker.records = records;
  const bool ok = run(checker);
  std::string verdict = checker.verdict();
  if (!ok && verdict.empty()) verdict = "the decoder reported an error";
  return report(verdict.empty(), what, verdict);
}

/// Everything W1 needs, shared by its benchmarks.
struct w1_context {
  std::vector<record> records;
  std::size_t values = 0;
  mpk::buffer implicit;  // mpk's implicit encoding: the input of every read case
  mpk::buffer explicit_;
  std::uint64_t implicit_digest = 0;
  std::uint64_t explicit_digest = 0;
  std::uint64_t cxx_implicit_digest = 0;  // msgpack-cxx's own encodings (equal to mpk's
  std::uint64_t cxx_explicit_digest = 0;  // when the verdict says "same bytes")
  std::uint64_t sum = 0;                  // what value_sum reaches over all values
};

std::string check_digest(bytes_view bytes, std::uint64_t want) {
  const std::uint64_t got = fnv1a64(bytes);
  if (got == want) return {};
  return "wrote other bytes (fnv1a64 " + hex64(got) + ", expected " + hex64(want) + ")";
}

std::string check_sum(std::uint64_t got, std::uint64_t want) {
  if (got == want) return {};
  return "timed loop read wrong values (checksum " + hex64(got) + ", expected " + hex64(want) + ")";
}

std::string with_commas(std::size_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

/// Every decoder reads every encoding (its own and the other's) back to the same values, and
/// every buffer policy writes the same bytes. Prints a verdict per check.
bool verify_decoders(const w1_context& ctxr, bytes_view A, bytes_view B, bytes_view C, bytes_view D,
                     std::uint64_t dB) {
  const w1_context* ctx = &ctxr;
  const std::span<const record> recs = ctx->records;
  const std::size_t nrec = recs.size();
  const std::size_t values = ctx->values;
  bool ok = true;
  struct input {
    const char* name;
    bytes_view bytes;
  };
  const input inputs[] = {{"mpk implicit", A},
                          {"msgpack-cxx implicit", B},
                          {"mpk explicit", C},
                          {"msgpack-cxx explicit", D}};
  for (const input& in : inputs) {
    const std::string of = std::string(" reads ") + in.name + " bytes";
    ok &= check_values("mpk read typed" + of, recs,
                       [&](auto& c) { return mpk_read_typed<mpk::reader>(in.bytes, nrec, c); });
    ok &= check_values("mpk unchecked read" + of, recs, [&](auto& c) {
      return mpk_read_typed<mpk::unchecked_reader>(in.bytes, nrec, c);
    });
    ok &= check_values("mpk read generic" + of, recs,
                       [&](auto& c) { return mpk_read_generic(in.bytes, values, c); });
    ok &= check_values("msgpack-cxx unpack+as<T>" + of, recs,
                       [&](auto& c) { return cxx_read_typed(in.bytes, nrec, c); });
    ok &= check_values("msgpack-cxx unpack generic" + of, recs,
                       [&](auto& c) { return cxx_read_generic(in.bytes, values, c); });
    ok &= check_values("msgpack-cxx parse typed visitors" + of, recs,
                       [&](auto& c) { return cxx_parse_typed(in.bytes, nrec, c); });
    ok &= check_values("msgpack-cxx parse generic visitor" + of, recs,
                       [&](auto& c) { return cxx_parse_generic(in.bytes, values, c); });
    const std::string to_end = std::string(" skips ") + in.name + " bytes to their exact end";
    ok &= report(mpk_skip(in.bytes, values) == in.bytes.size(), "mpk" + to_end, "");
    ok &= report(cxx_skip(in.bytes, values) == in.bytes.size(),
                 "msgpack-cxx parse+null_visitor" + to_end, "");
  }

  // The buffer policies write the same bytes.
  auto same_as_implicit = [&](const char* what, bytes_view b, std::uint64_t want) {
    const std::string e = check_digest(b, want);
    return report(e.empty(), what, e);
  };
  using mpk::growth;
  using mpk::growth_policy;
  {
    mpk::buffer b(64, growth_policy{growth::geometric});
    ok &= mpk_write_implicit(b, recs) &&
          same_as_implicit("mpk buffer 64 B geometric", b.bytes(), ctx->implicit_digest);
  }
  {
    mpk::buffer b(64, growth_policy{growth::fixed_increment, 64 * 1024});
    ok &= mpk_write_implicit(b, recs) &&
          same_as_implicit("mpk buffer 64 B +64 KiB", b.bytes(), ctx->implicit_digest);
  }
  {
    mpk::buffer b(64, growth_policy{growth::exact});
    ok &= mpk_write_implicit(b, recs) &&
          same_as_implicit("mpk buffer 64 B exact", b.bytes(), ctx->implicit_digest);
  }
  {
    msgpack::sbuffer b(64);
    cxx_write_implicit(b, recs);
    ok &= same_as_implicit("msgpack-cxx sbuffer(64) writes what msgpack-cxx wrote above",
                           mpk::as_bytes(b), dB);
  }
  return ok;
}

}  // namespace

bool register_small_fields(suite& s, const run_config& cfg) {
  using mpk::growth;
  auto ctx = std::make_shared<w1_context>();
  // Instruction counts (callgrind, ~50x slower) need a smaller stream still: 12,500 values.
  std::size_t values = cfg.values != 0    ? cfg.values
                       : cfg.instructions ? small_fields::quick_values / 8
                       : cfg.quick        ? small_fields::quick_values
                                          : small_fields::full_values;
  values -= values % small_fields::fields_per_record;
  if (values == 0) values = small_fields::fields_per_record;
  ctx->records = small_fields::generate(values);
  ctx->values = values;
  const std::span<const record> recs = ctx->records;
  const std::size_t nrec = recs.size();

  const bool say = !cfg.list_only;  // listing the benchmarks prints only their names
  if (say) {
    std::printf("W1 small_fields: %s values (%s records of 8)\n", with_commas(values).c_str(),
                with_commas(nrec).c_str());
    std::printf("verification (docs/workloads.md rule 2):\n");
  }
  bool ok = true;

  // Encodings.
  ok &= mpk_write_implicit(ctx->implicit, recs);
  if (say) report(ok, "mpk writes W1 (implicit)", "");
  const bool explicit_ok = mpk_write_explicit(ctx->explicit_, recs);
  if (say) report(explicit_ok, "mpk writes W1 (explicit)", "");
  ok &= explicit_ok;
  msgpack::sbuffer cxx_implicit, cxx_explicit;
  cxx_write_implicit(cxx_implicit, recs);
  cxx_write_explicit(cxx_explicit, recs);
  ctx->implicit_digest = fnv1a64(ctx->implicit.bytes());
  ctx->explicit_digest = fnv1a64(ctx->explicit_.bytes());
  ctx->sum = expected_sum(recs);

  const bytes_view A = ctx->implicit.bytes(), B = mpk::as_bytes(cxx_implicit);
  const bytes_view C = ctx->explicit_.bytes(), D = mpk::as_bytes(cxx_explicit);
  const std::uint64_t dB = fnv1a64(B), dD = fnv1a64(D);
  ctx->cxx_implicit_digest = dB;
  ctx->cxx_explicit_digest = dD;

  std::string implicit_verdict, explicit_verdict;
  if (ctx->implicit_digest == dB && A.size() == B.size()) {
    implicit_verdict = "same bytes as mpk (fnv1a64 " + hex64(dB) + ")";
  } else {
    implicit_verdict = "different bytes: " + first_difference(A, "mpk", B, "msgpack-cxx");
  }
  if (ctx->explicit_digest == dD && C.size() == D.size()) {
    explicit_verdict = "same bytes as mpk (fnv1a64 " + hex64(dD) + ")";
  } else {
    explicit_verdict = "different bytes: " + first_difference(C, "mpk", D, "msgpack-cxx");
  }
  if (say) {
    std::printf("  mpk implicit:         %zu bytes, fnv1a64 %s\n", A.size(),
                hex64(ctx->implicit_digest).c_str());
    std::printf("  msgpack-cxx implicit: %zu bytes, fnv1a64 %s -> %s\n", B.size(),
                hex64(dB).c_str(), implicit_verdict.c_str());
    std::printf("  mpk explicit:         %zu bytes, fnv1a64 %s\n", C.size(),
                hex64(ctx->explicit_digest).c_str());
    std::printf("  msgpack-cxx explicit: %zu bytes, fnv1a64 %s -> %s\n", D.size(),
                hex64(dD).c_str(), explicit_verdict.c_str());
  }

  // Listing the benchmarks (--benchmark_list_tests) decodes nothing.
  if (!cfg.list_only) ok &= verify_decoders(*ctx, A, B, C, D, dB);

  if (!ok) {
    std::printf("W1 verification FAILED: not timing anything.\n");
    return false;
  }

  // --- the table -----------------------------------------------------------------------
  workload_table& t = s.add_workload(
      "w1", "small_fields", "W1 small_fields — " + with_commas(values) + " small values", "field");
  t.add_fact(with_commas(values) + " top-level values in " + with_commas(nrec) +
             " records of 8 (fixint, int8/int16, uint16, int32, uint64, 2 float64, fixstr 8)");
  t.add_fact("implicit encoding: " + with_commas(A.size()) + " bytes, fnv1a64 " +
             hex64(ctx->implicit_digest) + "; msgpack-cxx: " + implicit_verdict);
  t.add_fact("explicit encoding: " + with_commas(C.size()) + " bytes, fnv1a64 " +
             hex64(ctx->explicit_digest) + "; msgpack-cxx: " + explicit_verdict);
  t.add_fact("every read case reads the implicit encoding above");

  t.add_implementation({"mpk", "mpk " MPK_BENCH_MPK_VERSION,
                        "this project: mpk::writer<mpk::buffer>, mpk::reader, "
                        "mpk::unchecked_reader; strings read zero-copy (std::string_view)"});
  const std::string cxx_version = std::to_string(MSGPACK_VERSION_MAJOR) + "." +
                                  std::to_string(MSGPACK_VERSION_MINOR) + "." +
                                  std::to_string(MSGPACK_VERSION_REVISION);
  t.add_implementation({"msgpack-cxx", "msgpack-cxx " + cxx_version,
                        "Debian libmsgpack-cxx-dev, API v3, MSGPACK_NO_BOOST: msgpack::packer "
                        "over msgpack::sbuffer; reads through msgpack::unpack into an "
                        "object_handle (one zone per value, strings copied into it) then "
                        "as<T>() or a switch on the object's type — the common way"});
  t.add_implementation({"msgpack-cxx-parse", "msgpack-cxx " + cxx_version + " parse()",
                        "the same library through msgpack::parse with a hand-written visitor "
                        "(no object, no zone; strings zero-copy): its fastest way to read"});

  t.add_case({"write_implicit", "write implicit (preallocated)",
              "writer picks the smallest form of every value; the output buffer is allocated "
              "once with room for the whole output and cleared before each pass"});
  t.add_case({"write_explicit", "write explicit",
              "fixed formats: f0 uint8, f1 int16, f2 uint16, f3 int32, f4 uint64, f5/f6 "
              "float64, f7 str8; preallocated buffer"});
  t.add_case({"read_typed", "read typed",
              "the reader knows the schema: f0 as uint8_t, f1 int16_t, f2 uint16_t, f3 "
              "int32_t, f4 uint64_t, f5/f6 double, f7 string; every value range-checked"});
  t.add_case({"read_generic", "read generic",
              "the reader does not know the schema: look at the type of each value, then "
              "read a value of that type (uint64, int64, double, string...)"});
  t.add_case({"skip", "skip", "step over every value without decoding it"});
  t.add_case({"read_unchecked", "read typed, checks off",
              "read typed without bounds, limit and range checks (trusted input)"});
  t.add_case({"buffer_geometric", "write implicit, buffer from 64 B, geometric",
              "write implicit into a new buffer of 64 bytes each pass, growing by doubling"});
  t.add_case({"buffer_fixed_64k", "write implicit, buffer from 64 B, +64 KiB",
              "write implicit into a new buffer of 64 bytes each pass, growing by 64 KiB steps"});
  t.add_case({"buffer_exact", "write implicit, buffer from 64 B, exact",
              "write implicit into a new buffer of 64 bytes each pass, growing by exactly what "
              "each write needs (one realloc per value)"});

  const std::string same_values =
      "same values from mpk's and msgpack-cxx's bytes, implicit and explicit";
  const std::string field = "field";

  // Writes.
  auto mpk_write = [ctx, field](bool explicit_typing) {
    return [ctx, field, explicit_typing](benchmark::State& st) {
      const mpk::buffer& ref = explicit_typing ? ctx->explicit_ : ctx->implicit;
      const std::uint64_t want = explicit_typing ? ctx->explicit_digest : ctx->implicit_digest;
      mpk::buffer buf(ref.size());
      const std::span<const record> rows = ctx->records;
      time_passes(
          st, ctx->values, field,
          [&] {
            buf.clear();
            const bool written =
                explicit_typing ? mpk_write_explicit(buf, rows) : mpk_write_implicit(buf, rows);
            return written ? buf.data() : nullptr;
          },
          [&](std::byte* last) {
            if (last == nullptr) return std::string("the writer failed");
            const std::string e = check_digest(buf.bytes(), want);
            return e.empty() ? e : "timed loop " + e;
          });
    };
  };
  auto cxx_write = [ctx, field](bool explicit_typing) {
    return [ctx, field, explicit_typing](benchmark::State& st) {
      const std::size_t size = explicit_typing ? ctx->explicit_.size() : ctx->implicit.size();
      const std::uint64_t want =
          explicit_typing ? ctx->cxx_explicit_digest : ctx->cxx_implicit_digest;
      msgpack::sbuffer buf(size);
      const std::span<const record> rows = ctx->records;
      time_passes(
          st, ctx->values, field,
          [&] {
            buf.clear();
            if (explicit_typing)
              cxx_write_explicit(buf, rows);
            else
              cxx_write_implicit(buf, rows);
            return buf.data();
          },
          [&](char*) {
            const std::string e = check_digest(mpk::as_bytes(buf), want);
            return e.empty() ? e : "timed loop " + e;
          });
    };
  };
  t.add("write_implicit", "mpk", "reference bytes; " + same_values,
        "mpk::buffer reserved to "
        "the output size, clear() each pass; writer.write(x) per value",
        mpk_write(false));
  t.add("write_implicit", "msgpack-cxx", implicit_verdict,
        "msgpack::sbuffer(output size), clear() each pass; packer.pack(x) per value",
        cxx_write(false));
  t.add("write_explicit", "mpk", "reference bytes (explicit); " + same_values,
        "write_uint8, write_int16, write_uint16, write_int32, write_uint64, write_float64, "
        "write_str8",
        mpk_write(true));
  t.add("write_explicit", "msgpack-cxx", explicit_verdict,
        "pack_fix_uint8, pack_fix_int16, pack_fix_uint16, pack_fix_int32, pack_fix_uint64, "
        "pack_double (no forced float64: it tests for integral values first), str8 header "
        "written to the sbuffer + pack_str_body (no forced str8)",
        cxx_write(true));

  // Buffer growth.
  auto mpk_grow = [ctx, field](mpk::growth_policy policy) {
    return [ctx, field, policy](benchmark::State& st) {
      mpk::buffer buf;
      const std::span<const record> rows = ctx->records;
      time_passes(
          st, ctx->values, field,
          [&] {
            buf = mpk::buffer(64, policy);  // frees the previous pass's buffer
            return mpk_write_implicit(buf, rows) ? buf.data() : nullptr;
          },
          [&](std::byte* last) {
            if (last == nullptr) return std::string("the writer failed");
            const std::string e = check_digest(buf.bytes(), ctx->implicit_digest);
            return e.empty() ? e : "timed loop " + e;
          });
    };
  };
  t.add("buffer_geometric", "mpk", "same bytes as write implicit",
        "mpk::buffer(64, {growth::geometric})", mpk_grow({growth::geometric}));
  t.add("buffer_geometric", "msgpack-cxx", "same bytes as its write implicit",
        "msgpack::sbuffer(64): sbuffer always grows by doubling",
        [ctx, field](benchmark::State& st) {
          msgpack::sbuffer buf;
          const std::span<const record> rows = ctx->records;
          time_passes(
              st, ctx->values, field,
              [&] {
                buf = msgpack::sbuffer(64);
                cxx_write_implicit(buf, rows);
                return buf.data();
              },
              [&](char*) {
                const std::string e = check_digest(mpk::as_bytes(buf), ctx->cxx_implicit_digest);
                return e.empty() ? e : "timed loop " + e;
              });
        });
  t.add("buffer_fixed_64k", "mpk", "same bytes as write implicit",
        "mpk::buffer(64, {growth::fixed_increment, 65536}); msgpack-cxx: n/a (sbuffer grows only "
        "by doubling)",
        mpk_grow({growth::fixed_increment, 64 * 1024}));
  t.add("buffer_exact", "mpk", "same bytes as write implicit",
        "mpk::buffer(64, {growth::exact}); msgpack-cxx: n/a (sbuffer grows only by doubling)",
        mpk_grow({growth::exact}));

  // Reads: all of them read mpk's implicit encoding.
  auto read_case = [ctx, field](auto run) {
    return [ctx, field, run](benchmark::State& st) {
      const bytes_view in = ctx->implicit.bytes();
      time_passes(
          st, ctx->values, field,
          [&] {
            value_sum sum;
            return run(in, ctx->records.size(), ctx->values, sum) ? sum.acc : 0;
          },
          [&](std::uint64_t last) { return check_sum(last, ctx->sum); });
    };
  };
  t.add("read_typed", "mpk", same_values, "reader.read<T>() per value, T from the schema",
        read_case([](bytes_view in, std::size_t records, std::size_t, value_sum& c) {
          return mpk_read_typed<mpk::reader>(in, records, c);
        }));
  t.add("read_typed", "msgpack-cxx", same_values,
        "msgpack::unpack(data, size, offset) per value, then .get().as<T>(); strings copied "
        "into the zone, then viewed",
        read_case([](bytes_view in, std::size_t records, std::size_t, value_sum& c) {
          return cxx_read_typed(in, records, c);
        }));
  t.add("read_typed", "msgpack-cxx-parse", same_values,
        "msgpack::parse(data, size, offset, visitor) per value, one visitor type per target "
        "type (range-checked like as<T>(); strings zero-copy)",
        read_case([](bytes_view in, std::size_t records, std::size_t, value_sum& c) {
          return cxx_parse_typed(in, records, c);
        }));
  t.add("read_generic", "mpk", same_values,
        "switch (reader.peek()) then read<uint64_t / int64_t / double / string_view ...>()",
        read_case([](bytes_view in, std::size_t, std::size_t n, value_sum& c) {
          return mpk_read_generic(in, n, c);
        }));
  t.add("read_generic", "msgpack-cxx", same_values,
        "msgpack::unpack per value into an object_handle, switch (obj.type) then obj.via.*",
        read_case([](bytes_view in, std::size_t, std::size_t n, value_sum& c) {
          return cxx_read_generic(in, n, c);
        }));
  t.add("read_generic", "msgpack-cxx-parse", same_values,
        "msgpack::parse per value with one visitor whose visit_* callbacks take each type",
        read_case([](bytes_view in, std::size_t, std::size_t n, value_sum& c) {
          return cxx_parse_generic(in, n, c);
        }));
  t.add("read_unchecked", "mpk", same_values,
        "mpk::unchecked_reader, read<T>() per value; msgpack-cxx has no unchecked mode: n/a",
        read_case([](bytes_view in, std::size_t records, std::size_t, value_sum& c) {
          return mpk_read_typed<mpk::unchecked_reader>(in, records, c);
        }));

  // Skips.
  auto skip_case = [ctx, field](auto run) {
    return [ctx, field, run](benchmark::State& st) {
      const bytes_view in = ctx->implicit.bytes();
      time_passes(
          st, ctx->values, field, [&] { return run(in, ctx->values); },
          [&](std::size_t last) {
            return last == in.size() ? std::string()
                                     : "skipped to offset " + std::to_string(last) +
                                           " instead of the end, " + std::to_string(in.size());
          });
    };
  };
  t.add("skip", "mpk", "reaches the exact end after skipping every value, on all 4 encodings",
        "reader.skip() per value", skip_case(mpk_skip));
  t.add("skip", "msgpack-cxx-parse",
        "reaches the exact end after skipping every value, on all 4 encodings",
        "msgpack::parse(data, size, offset, null_visitor) per value", skip_case(cxx_skip));
  return true;
}

}  // namespace mpk_bench
