// fuzz/encode.cpp - the encoding side: random writer call sequences into the three sinks.
//
// The input is a program: writer options, then one top-level array of random items, each
// written with a randomly chosen call (implicit or forced width, header + raw pieces, UTF-16,
// timestamps, ...), sometimes a call that must fail (too_large, invalid_utf16,
// invalid_timestamp). Payload lengths are drawn near every size-class boundary, up to 2^16+1.
// Containers are sometimes of unknown size (begin_array() ... end_array()): their bytes must
// equal those of the same program with counted containers.
// The calls run three times: into an mpk::buffer (the reference), a span_sink over a heap
// block of a size drawn around what they need (exactly `new std::byte[n]`, so AddressSanitizer
// sees a store past it), and a stream_sink with a staging area of 1..64 bytes. Properties:
// - span_sink: the reference bytes, or errc::buffer_full (or the reference's own error) with a
//   prefix of them committed and the error's offset at that size; never a byte past the block;
// - stream_sink: exactly the reference bytes, the same error (with containers of unknown
//   size and an error, or a staging limit reached: a prefix of them, never a byte of an open
//   container);
// - buffer: when no call failed, the output is one value that decodes (mpk::reader, generic
//   walk; mpk::document) to the values written, item for item; when one failed, the
//   writer's error is the expected one.
// (JSON text -> MessagePack -> JSON round trips are the json target's part.)
#include <mpk/buffer.hpp>
#include <mpk/ext/timestamp.hpp>
#include <mpk/unicode.hpp>
#include <mpk/value/document.hpp>
#include <mpk/writer.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

namespace {

using mpk_fuzz::token;

/// Reads the fuzz input as a stream of choices; zeros once it is used up.
class choices {
 public:
  explicit choices(std::span<const std::byte> in) : in_(in) {}
  std::uint8_t byte() { return at_ < in_.size() ? static_cast<std::uint8_t>(in_[at_++]) : 0; }
  std::uint64_t bits(unsigned n) {  // n <= 64
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; i += 8)
      v = v << 8 | byte();
    return n == 64 ? v : v & ((std::uint64_t{1} << n) - 1);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(bits(32) % n); }
  bool done() const { return at_ >= in_.size(); }

 private:
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

/// One writer call (or a few: a header and its raw pieces).
struct op {
  enum kind : std::uint8_t {
    nil,
    boolean,
    uint_value,
    sint_value,
    float32,
    float64,
    str,
    str_u16,
    bin,
    ext,
    timestamp,
    array,
    map,
    fail_too_large,
    fail_utf16,
    fail_timestamp,
    array_unsized,  // begin_array() without a count (`count` items follow, then end_array)
    map_unsized,
    end_array,
    end_map,
  } what = nil;
  std::uint8_t form = 0;  // which call of the family
  std::uint64_t u = 0;
  std::int64_t i = 0;
  double d = 0;
  float f = 0;  // float32 (not through a double: that would quiet a signaling NaN)
  std::int8_t ext_type = 0;
  std::string bytes;     // str, bin, ext payload
  std::u16string units;  // str_u16
  std::uint32_t count = 0;
  std::vector<std::size_t> cuts;  // header + raw: where the payload is split
  mpk::timestamp ts{};
};

/// Runs `o` on `w`. Forms that force a width are only drawn when the value fits it.
template <class S>
void apply(mpk::writer<S>& w, const op& o) {
  auto raw_pieces = [&](const std::string& s) {
    std::size_t at = 0;
    for (std::size_t cut : o.cuts) {
      w.write_raw(mpk::as_bytes(s).subspan(at, cut - at));
      at = cut;
    }
    w.write_raw(mpk::as_bytes(s).subspan(at));
  };
  switch (o.what) {
    case op::nil:
      return o.form % 2 ? w.write(nullptr) : w.write_nil();
    case op::boolean:
      return o.form % 2 ? w.write(o.u != 0) : w.write_bool(o.u != 0);
    case op::uint_value:
      switch (o.form % 6) {
        case 0:
          return w.write(o.u);
        case 1:
          return w.write_unsigned(o.u);
        case 2:
          return o.u <= 0xff ? w.write_uint8(static_cast<std::uint8_t>(o.u)) : w.write_uint64(o.u);
        case 3:
          return o.u <= 0xffff ? w.write_uint16(static_cast<std::uint16_t>(o.u))
                               : w.write_uint64(o.u);
        case 4:
          return o.u <= 0xffffffff ? w.write_uint32(static_cast<std::uint32_t>(o.u))
                                   : w.write_uint64(o.u);
        default:
          return o.u <= 0xffffffff ? w.write(static_cast<std::uint32_t>(o.u)) : w.write_uint64(o.u);
      }
    case op::sint_value:
      switch (o.form % 6) {
        case 0:
          return w.write(o.i);
        case 1:
          return w.write_signed(o.i);
        case 2:
          return o.i >= INT8_MIN && o.i <= INT8_MAX ? w.write_int8(static_cast<std::int8_t>(o.i))
                                                    : w.write_int64(o.i);
        case 3:
          return o.i >= INT16_MIN && o.i <= INT16_MAX
                     ? w.write_int16(static_cast<std::int16_t>(o.i))
                     : w.write_int64(o.i);
        case 4:
          return o.i >= INT32_MIN && o.i <= INT32_MAX
                     ? w.write_int32(static_cast<std::int32_t>(o.i))
                     : w.write_int64(o.i);
        default:
          return o.i >= INT32_MIN && o.i <= INT32_MAX ? w.write(static_cast<int>(o.i))
                                                      : w.write(static_cast<long long>(o.i));
      }
    case op::float32:
      return o.form % 2 ? w.write(o.f) : w.write_float32(o.f);
    case op::float64:
      return o.form % 2 ? w.write(o.d) : w.write_float64(o.d);
    case op::str: {
      const std::string& s = o.bytes;
      switch (o.form % 6) {
        case 0:
          return w.write(std::string_view(s));
        case 1:
          return w.write(std::u8string_view(reinterpret_cast<const char8_t*>(s.data()), s.size()));
        case 2:  // the smallest forced width that holds it (str8 is not in old-spec mode)
          if (s.size() <= 0xff && !w.options().old_spec) return w.write_str8(s);
          return s.size() <= 0xffff ? w.write_str16(s) : w.write_str32(s);
        case 3:
          return w.write_str32(s);
        default:
          w.write_str_header(s.size());
          return raw_pieces(s);
      }
    }
    case op::str_u16:
    case op::fail_utf16:
      return o.form % 2 ? w.write(std::u16string_view(o.units))
                        : w.write_str(std::u16string_view(o.units));
    case op::bin: {
      const std::string& s = o.bytes;
      switch (o.form % 5) {
        case 0:
          return w.write(mpk::as_bytes(s));
        case 1:
          return w.write_bin(mpk::as_bytes(s));
        case 2:
          if (w.options().old_spec) return w.write_bin(mpk::as_bytes(s));  // no bin8/16/32 then
          if (s.size() <= 0xff) return w.write_bin8(mpk::as_bytes(s));
          return s.size() <= 0xffff ? w.write_bin16(mpk::as_bytes(s))
                                    : w.write_bin32(mpk::as_bytes(s));
        default:
          w.write_bin_header(s.size());
          return raw_pieces(s);
      }
    }
    case op::ext:
      if (o.form % 2) return w.write_ext(o.ext_type, mpk::as_bytes(o.bytes));
      w.write_ext_header(o.ext_type, o.bytes.size());
      return raw_pieces(o.bytes);
    case op::timestamp:
    case op::fail_timestamp:
      if (o.form % 2 && o.ts.nanoseconds < 1'000'000'000 && o.ts.seconds > -1'000'000'000 &&
          o.ts.seconds < 1'000'000'000)
        return mpk::write_timestamp(
            w, std::chrono::sys_time<std::chrono::nanoseconds>(
                   std::chrono::nanoseconds(o.ts.seconds * 1'000'000'000 + o.ts.nanoseconds)));
      return mpk::write_timestamp(w, o.ts);
    case op::array:
      return w.begin_array(o.count);
    case op::map:
      return w.begin_map(o.count);
    case op::array_unsized:
      return w.begin_array();
    case op::map_unsized:
      return w.begin_map();
    case op::end_array:
      return w.end_array();
    case op::end_map:
      return w.end_map();
    case op::fail_too_large: {
      // 2^32 items or bytes: no header carries it. A 32-bit size_t cannot say it, and every
      // value it can say fits a header, so there the str8 case stands in for the others.
      constexpr bool wide = sizeof(std::size_t) > 4;
      const auto huge = static_cast<std::size_t>(std::uint64_t{1} << 32);
      switch (wide ? o.form % 4 : 2) {
        case 0:
          return w.write_str_header(huge);
        case 1:
          return w.begin_map(huge);
        case 2:
          return w.write_str8(std::string(256 + o.u % 8, 'x'));
        default:
          return w.write_ext_header(1, huge);
      }
    }
  }
}

/// A payload length near a size-class boundary, or a small random one.
std::size_t draw_length(choices& in) {
  static constexpr std::size_t edges[] = {0,  1,  2,  4,   8,   15,    16,
                                          17, 31, 32, 255, 256, 65535, 65536};
  const std::uint8_t pick = in.byte();
  if (pick < 160) return pick % 40;
  if (pick < 250) return std::max(edges[pick % std::size(edges)] + in.below(3), std::size_t{1}) - 1;
  return in.below(65538);
}

std::string draw_bytes(choices& in, std::size_t n) {
  std::string s(n, '\0');
  const std::uint8_t seed = in.byte();
  for (std::size_t k = 0; k < n; ++k)
    s[k] = static_cast<char>(k < 16 ? in.byte() : seed + k * 31);
  return s;
}

std::vector<std::size_t> draw_cuts(choices& in, std::size_t n) {
  std::vector<std::size_t> cuts;
  for (std::size_t k = in.below(3); k > 0; --k)
    cuts.push_back(in.below(n + 1));
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

/// The expected token(s) of a successful op, as the generic walk reports them: integers by
/// value (a non-negative int is uint), bin as str in old-spec mode, a double as float32 when
/// the lossless policy finds it exact.
struct expectation {
  token t;
  std::string payload;  // t.bytes views into this
};

bool float32_is_exact(double d, float& f) {
  constexpr double max = std::numeric_limits<float>::max();
  if (std::isfinite(d) && std::fabs(d) > max) return false;
  f = static_cast<float>(d);
  return std::bit_cast<std::uint64_t>(static_cast<double>(f)) == std::bit_cast<std::uint64_t>(d);
}

/// The 4, 8 or 12 bytes of a timestamp (the specification's three forms).
std::string timestamp_data(mpk::timestamp ts) {
  unsigned char b[12];
  auto put = [&](std::size_t at, std::size_t n, std::uint64_t v) {
    for (std::size_t k = 0; k < n; ++k)
      b[at + k] = static_cast<unsigned char>(v >> 8 * (n - 1 - k));
  };
  const auto s = static_cast<std::uint64_t>(ts.seconds);
  if (ts.seconds >= 0 && s >> 34 == 0) {
    if (ts.nanoseconds == 0 && s >> 32 == 0) {
      put(0, 4, s);
      return {reinterpret_cast<char*>(b), 4};
    }
    put(0, 8, std::uint64_t{ts.nanoseconds} << 34 | s);
    return {reinterpret_cast<char*>(b), 8};
  }
  put(0, 4, ts.nanoseconds);
  put(4, 8, s);
  return {reinterpret_cast<char*>(b), 12};
}

struct program {
  mpk::writer_options options;
  std::vector<op> ops;
  std::vector<expectation> expected;  // when no op fails
  mpk::errc failure = mpk::errc::ok;  // the error of the first failing op, if any
  std::size_t items_left = 4000;      // ops per input: keeps each run short
  bool unsized = false;               // some containers are of unknown size
  unsigned unsized_depth = 0;         // the most open at once
  void fail_with(mpk::errc code) {
    if (failure == mpk::errc::ok) failure = code;
  }
};

/// Draws one item (and, for a container, its items) into `p`.
void draw_item(choices& in, program& p, unsigned depth, std::size_t& budget,
               unsigned unsized_depth = 0) {
  if (p.items_left != 0) --p.items_left;
  op o;
  expectation e;
  // Once the item budget is spent (a container always gets all its items), only nil.
  const std::uint8_t kind = p.items_left == 0 ? 0 : in.byte();
  o.form = in.byte();
  switch (kind % 16) {
    case 0:
      o.what = op::nil;
      e.t.family = mpk::type::nil;
      break;
    case 1:
      o.what = op::boolean;
      o.u = in.byte() & 1;
      e.t.family = mpk::type::boolean;
      e.t.boolean = o.u != 0;
      break;
    case 2:
      o.what = op::uint_value;
      o.u = in.bits(64) >> in.below(64);
      e.t.family = mpk::type::uint;
      e.t.u = o.u;
      break;
    case 3:
      o.what = op::sint_value;
      o.i = static_cast<std::int64_t>(in.bits(64)) >> in.below(64);
      e.t.family = o.i < 0 ? mpk::type::sint : mpk::type::uint;
      if (o.i < 0)
        e.t.negative = true, e.t.i = o.i;
      else
        e.t.u = static_cast<std::uint64_t>(o.i);
      break;
    case 4:
      o.what = op::float32;
      e.t.float_bits = in.bits(32);
      o.f = std::bit_cast<float>(static_cast<std::uint32_t>(e.t.float_bits));
      e.t.family = mpk::type::float32;
      break;
    case 5: {
      o.what = op::float64;
      o.d = std::bit_cast<double>(in.bits(64));
      float f;
      const bool narrow = (o.form % 2) && p.options.float32 == mpk::float32_policy::lossless &&
                          float32_is_exact(o.d, f);
      e.t.family = narrow ? mpk::type::float32 : mpk::type::float64;
      e.t.float_bits = narrow ? std::bit_cast<std::uint32_t>(f) : std::bit_cast<std::uint64_t>(o.d);
      break;
    }
    case 6:
    case 7:
      o.what = kind % 16 == 6 ? op::str : op::bin;
      o.bytes = draw_bytes(in, std::min(draw_length(in), budget));
      o.cuts = draw_cuts(in, o.bytes.size());
      budget -= o.bytes.size();
      e.t.family = o.what == op::bin && !p.options.old_spec ? mpk::type::bin : mpk::type::str;
      e.payload = o.bytes;
      break;
    case 8: {
      o.what = op::str_u16;
      const std::size_t n = std::min(draw_length(in), budget / 3);
      const std::uint16_t base = static_cast<std::uint16_t>(in.bits(16));
      for (std::size_t k = 0; k < n; ++k)  // ASCII, 2- and 3-byte forms, pairs, maybe lone halves
        o.units.push_back(static_cast<char16_t>(k < 8 ? in.bits(16) : base + k % 3));
      budget -= 3 * n;
      const mpk::result<std::string> utf8 = mpk::to_utf8(o.units);
      if (!utf8) {
        o.what = op::fail_utf16;
        p.fail_with(mpk::errc::invalid_utf16);
        break;
      }
      e.t.family = mpk::type::str;
      e.payload = *utf8;
      break;
    }
    case 9:
      o.what = op::ext;
      o.ext_type = static_cast<std::int8_t>(in.byte());
      o.bytes = draw_bytes(in, std::min(draw_length(in), budget));
      o.cuts = draw_cuts(in, o.bytes.size());
      budget -= o.bytes.size();
      e.t.family = mpk::type::ext;
      e.t.ext_type = o.ext_type;
      e.payload = o.bytes;
      break;
    case 10:
      o.what = op::timestamp;
      o.ts.seconds = static_cast<std::int64_t>(in.bits(64)) >> in.below(64);
      o.ts.nanoseconds = static_cast<std::uint32_t>(in.bits(32));
      o.ts.nanoseconds = in.byte() < 128 ? 0 : o.ts.nanoseconds % 1'000'000'000;
      e.t.family = mpk::type::ext;
      e.t.ext_type = -1;
      e.payload = timestamp_data(o.ts);
      break;
    case 11:
    case 12:
      if (depth < 6 && budget > 16 && p.items_left > 20 * 2) {
        const bool is_map = kind % 16 == 12;
        const bool unsized = o.form & 0x40;
        o.what = unsized ? (is_map ? op::map_unsized : op::array_unsized)
                         : (is_map ? op::map : op::array);
        o.count = static_cast<std::uint32_t>(in.byte() < 240 ? in.below(6) : in.below(20));
        e.t.family = is_map ? mpk::type::map : mpk::type::array;
        e.t.count = o.count;
        p.ops.push_back(o);
        p.expected.push_back(std::move(e));
        if (unsized) {
          p.unsized = true;
          p.unsized_depth = std::max(p.unsized_depth, unsized_depth + 1);
        }
        for (std::size_t k = 0; k < o.count * (is_map ? 2u : 1u); ++k)
          draw_item(in, p, depth + 1, budget, unsized_depth + unsized);
        if (unsized) {
          op end;
          end.what = is_map ? op::end_map : op::end_array;
          p.ops.push_back(end);  // no expectation: it writes no value of its own
        }
        return;
      }
      o.what = op::nil;
      e.t.family = mpk::type::nil;
      break;
    case 13:
      if (in.byte() < 32) {  // a call that must fail
        o.what = op::fail_too_large;
        o.u = in.byte();
        p.fail_with(mpk::errc::too_large);
        break;
      }
      [[fallthrough]];
    case 14:
      if (kind % 16 == 14 && in.byte() < 32) {
        o.what = op::fail_timestamp;
        o.ts = {static_cast<std::int64_t>(in.bits(32)), 1'000'000'000u + in.byte()};
        p.fail_with(mpk::errc::invalid_timestamp);
        break;
      }
      [[fallthrough]];
    default:
      o.what = op::uint_value;
      o.u = in.byte();
      e.t.family = mpk::type::uint;
      e.t.u = o.u;
      break;
  }
  p.ops.push_back(std::move(o));
  p.expected.push_back(std::move(e));
}

program draw_program(choices& in) {
  program p;
  const std::uint8_t opts = in.byte();
  p.options.old_spec = opts & 1;
  p.options.float32 = opts & 2 ? mpk::float32_policy::lossless : mpk::float32_policy::never;
  if (opts & 4)  // a small staging limit for containers of unknown size in the stream_sink
    p.options.unsized_staging_limit = static_cast<std::uint32_t>(in.below(4096));
  std::size_t budget = 200'000;  // payload bytes per input: keeps each run short
  op top;
  top.what = op::array;
  top.count = static_cast<std::uint32_t>(in.below(24));
  p.ops.push_back(top);
  p.expected.push_back({});
  p.expected.back().t.family = mpk::type::array;
  p.expected.back().t.count = top.count;
  for (std::size_t k = 0; k < top.count && !in.done(); ++k)
    draw_item(in, p, 1, budget);
  // Fewer items than announced when the input ran out: announce what there is.
  std::size_t items = 0;
  {
    // Count the top-level items: walk the expectations with a stack of items owed.
    std::vector<std::uint64_t> owed;
    for (std::size_t k = 1; k < p.expected.size(); ++k) {
      const token& t = p.expected[k].t;
      if (owed.empty()) ++items;
      if (!owed.empty()) --owed.back();
      if (t.family == mpk::type::array || t.family == mpk::type::map)
        owed.push_back(t.family == mpk::type::map ? 2 * std::uint64_t{t.count} : t.count);
      while (!owed.empty() && owed.back() == 0)
        owed.pop_back();
    }
  }
  p.ops[0].count = static_cast<std::uint32_t>(items);
  p.expected[0].t.count = p.ops[0].count;
  return p;
}

/// Runs the program; `counted`: with every container of unknown size written as a counted one.
template <class S>
mpk::error run(const program& p, S& sink, bool counted = false) {
  mpk::writer w(sink, p.options);
  for (const op& o : p.ops) {
    if (!counted) {
      apply(w, o);
    } else if (o.what == op::array_unsized || o.what == op::map_unsized) {
      op c = o;
      c.what = o.what == op::map_unsized ? op::map : op::array;
      apply(w, c);
    } else if (o.what != op::end_array && o.what != op::end_map) {
      apply(w, o);
    }
  }
  return w.finish();
}

bool collect(void* context, std::span<const std::byte> chunk) {
  auto* out = static_cast<std::vector<std::byte>*>(context);
  out->insert(out->end(), chunk.begin(), chunk.end());
  return true;
}

bool is_prefix(std::span<const std::byte> part, std::span<const std::byte> whole) {
  return part.size() <= whole.size() &&
         (part.empty() || std::memcmp(part.data(), whole.data(), part.size()) == 0);
}

void check_decodes(const program& p, std::span<const std::byte> out) {
  std::vector<token> got;
  mpk::limits lim = mpk::limits::trusted();
  lim.max_depth = 64;
  mpk_fuzz::cursor r{out};
  MPK_FUZZ_CHECK(!mpk_fuzz::walk_value(r, lim, [&](const token& t) {
    token v = t;
    if (v.family == mpk::type::sint && !v.negative) v.family = mpk::type::uint;
    got.push_back(v);
  }));
  MPK_FUZZ_CHECK(r.at_end());
  MPK_FUZZ_CHECK(got.size() == p.expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    token want = p.expected[k].t;
    want.bytes = p.expected[k].payload;
    MPK_FUZZ_CHECK(got[k].bytes == want.bytes);
    got[k].bytes = want.bytes = {};
    MPK_FUZZ_CHECK(got[k] == want);
  }
  const mpk::result<mpk::document> doc =
      mpk::document::parse(out, {.read = {.limits = mpk::limits::trusted()}});
  MPK_FUZZ_CHECK(doc.has_value());
  MPK_FUZZ_CHECK(doc->root().size() == p.expected[0].t.count);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk::as_bytes(std::span(data, size));
  mpk_fuzz::current_input = input;
  choices in(input);
  const program p = draw_program(in);

  mpk::buffer reference;
  const mpk::error ref_error = run(p, reference);
  MPK_FUZZ_CHECK(ref_error.code == p.failure);
  if (!ref_error) check_decodes(p, reference.bytes());
  if (p.unsized && !ref_error) {  // the bytes of the same containers written counted
    mpk::buffer counted;
    MPK_FUZZ_CHECK(!run(p, counted, true));
    MPK_FUZZ_CHECK(counted.size() == reference.size() &&
                   is_prefix(counted.bytes(), reference.bytes()));
  }

  // span_sink over exactly `n` heap bytes, n drawn around the size needed.
  const std::size_t needed = reference.size();
  const std::uint8_t pick = in.byte();
  const std::size_t n = pick < 64    ? needed
                        : pick < 128 ? needed - std::min(needed, in.below(17))
                        : pick < 160 ? needed + 1 + pick % 2
                                     : in.below(needed + 3);
  const std::unique_ptr<std::byte[]> memory(new std::byte[n]);
  mpk::span_sink span(std::span<std::byte>(memory.get(), n));
  const mpk::error span_error = run(p, span);
  MPK_FUZZ_CHECK(span.size() <= n);
  // An open container of unknown size takes 26 bytes for its header (25 more than it may
  // need), and its committed bytes are not yet those of the reference.
  const std::size_t slack = 25 * std::size_t{p.unsized_depth};
  if (!p.unsized) MPK_FUZZ_CHECK(is_prefix(span.bytes(), reference.bytes()));
  if (n >= needed + slack) {  // room for it all: what the buffer got, the same error (if any)
    MPK_FUZZ_CHECK(span_error == ref_error && span.size() == needed);
    MPK_FUZZ_CHECK(is_prefix(span.bytes(), reference.bytes()));
  } else if (span_error.code == mpk::errc::buffer_full) {  // clean, where the room ran out
    MPK_FUZZ_CHECK(span_error.offset == span.size());
  } else {  // only the room an open container needs was short of: the reference's result
    MPK_FUZZ_CHECK(n >= needed && span_error == ref_error && span.size() == needed);
    MPK_FUZZ_CHECK(is_prefix(span.bytes(), reference.bytes()));
  }

  // stream_sink with a tiny staging area: the same bytes, the same error.
  std::vector<std::byte> collected;
  bool whole = true;  // the target got all of the reference
  {
    mpk::stream_sink stream(&collect, &collected, 1 + in.below(64));
    const mpk::error stream_error = run(p, stream);
    if (stream_error.code == mpk::errc::limit_exceeded) {
      MPK_FUZZ_CHECK(p.unsized);  // a staging limit: only containers of unknown size have one
      whole = false;
    } else {
      MPK_FUZZ_CHECK(stream_error == ref_error);
      // After an error inside an open container of unknown size, none of it is sent.
      whole = !(p.unsized && ref_error);
    }
    MPK_FUZZ_CHECK(stream.flush() == mpk::errc::ok);
  }
  MPK_FUZZ_CHECK(is_prefix(collected, reference.bytes()));
  if (whole) MPK_FUZZ_CHECK(collected.size() == needed);
  return 0;
}
