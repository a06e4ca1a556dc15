// JSON -> MessagePack (from_json): simdjson's DOM parser, then an iterative walk of the DOM
// with an explicit stack.
#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "json_internal.hpp"
#include "mpk/json.hpp"
#include "mpk/writer.hpp"

namespace mpk::inline v0 {

namespace {

namespace dom = simdjson::dom;

enum class pframe_kind : std::uint8_t {
  array,   // elements of a JSON array
  object,  // members of a JSON object: key, then value
  pairs,   // lossless {"$map": [[k, v], ...]}: each element is a [key, value] array
  flat,    // one [key, value] pair of a $map: its two elements, without a header
};

struct pframe {
  pframe_kind kind;
  dom::array::iterator ai{}, aend{};
  dom::object::iterator oi{}, oend{};
};

struct failure {
  errc code;
  const char* why;
};

errc code_of(simdjson::error_code e) noexcept {
  switch (e) {
    case simdjson::NUMBER_ERROR:
      return errc::out_of_range;
    case simdjson::UTF8_ERROR:
      return errc::invalid_utf8;
    case simdjson::DEPTH_ERROR:
      return errc::depth_exceeded;
    case simdjson::MEMALLOC:
      return errc::out_of_memory;
    default:
      return errc::invalid_argument;
  }
}

/// Reads "nan", "-nan", "inf", "-inf" or "nan:<hex bits>" (the lossless text of a float that
/// JSON cannot hold) into the bits of F.
template <class F, class Bits>
bool parse_special(std::string_view s, F& out) noexcept {
  const Bits quiet = std::bit_cast<Bits>(std::numeric_limits<F>::quiet_NaN());
  const Bits sign = Bits(1) << (sizeof(Bits) * 8 - 1);
  if (s == "nan") {
    out = std::bit_cast<F>(quiet);
  } else if (s == "-nan") {
    out = std::bit_cast<F>(Bits(quiet | sign));
  } else if (s == "inf") {
    out = std::numeric_limits<F>::infinity();
  } else if (s == "-inf") {
    out = -std::numeric_limits<F>::infinity();
  } else if (s.starts_with("nan:")) {
    Bits bits{};
    const char* b = s.data() + 4;
    const char* e = s.data() + s.size();
    const auto r = std::from_chars(b, e, bits, 16);
    if (r.ec != std::errc() || r.ptr != e || b == e) return false;
    out = std::bit_cast<F>(bits);
    if (!std::isnan(out)) return false;
  } else {
    return false;
  }
  return true;
}

class builder {
 public:
  builder(buffer& out, const from_json_options& o) : w_(out), o_(o) {}

  /// Writes one document. On failure returns its code and reason.
  failure run(dom::element root) {
    stack_.clear();
    depth_ = 0;
    if (auto f = element(root); f.code != errc::ok) return f;
    while (!stack_.empty()) {
      pframe& top = stack_.back();
      dom::element next;
      switch (top.kind) {
        case pframe_kind::array:
        case pframe_kind::flat:
          if (top.ai == top.aend) {
            pop();
            continue;
          }
          next = *top.ai;
          ++top.ai;
          break;
        case pframe_kind::object: {
          if (top.oi == top.oend) {
            pop();
            continue;
          }
          const dom::key_value_pair kv = *top.oi;
          ++top.oi;
          w_.write_str(kv.key);
          next = kv.value;
          break;
        }
        case pframe_kind::pairs: {
          if (top.ai == top.aend) {
            pop();
            continue;
          }
          const dom::element pair = *top.ai;
          ++top.ai;
          dom::array kv;
          if (pair.get_array().get(kv) != simdjson::SUCCESS || kv.size() != 2)
            return {errc::invalid_argument, "a $map entry is not a [key, value] array"};
          stack_.push_back({pframe_kind::flat, kv.begin(), kv.end()});
          continue;
        }
      }
      if (auto f = element(next); f.code != errc::ok) return f;
    }
    if (!w_.ok()) return {w_.error().code, nullptr};
    return {errc::ok, nullptr};
  }

 private:
  void pop() {
    if (stack_.back().kind != pframe_kind::flat) --depth_;
    stack_.pop_back();
  }

  failure open() {
    if (depth_ >= o_.max_depth) return {errc::depth_exceeded, "nesting deeper than max_depth"};
    ++depth_;
    return {errc::ok, nullptr};
  }

  /// Writes a scalar, or the header of a container and pushes a frame for its contents.
  failure element(dom::element e) {
    switch (e.type()) {
      case dom::element_type::NULL_VALUE:
        w_.write_nil();
        break;
      case dom::element_type::BOOL:
        w_.write(e.get_bool().value_unsafe());
        break;
      case dom::element_type::INT64:
        w_.write_signed(e.get_int64().value_unsafe());
        break;
      case dom::element_type::UINT64:
        w_.write_unsigned(e.get_uint64().value_unsafe());
        break;
      case dom::element_type::DOUBLE:
        w_.write_float64(e.get_double().value_unsafe());
        break;
      case dom::element_type::STRING:
        w_.write_str(e.get_string().value_unsafe());
        break;
      case dom::element_type::ARRAY: {
        const dom::array a = e.get_array().value_unsafe();
        if (auto f = open(); f.code != errc::ok) return f;
        w_.begin_array(a.size());
        stack_.push_back({pframe_kind::array, a.begin(), a.end()});
        break;
      }
      case dom::element_type::OBJECT: {
        const dom::object obj = e.get_object().value_unsafe();
        if (o_.lossless && obj.size() == 1) {
          const dom::key_value_pair kv = *obj.begin();
          if (!kv.key.empty() && kv.key[0] == '$') {
            bool handled = false;
            if (auto f = tagged(kv.key, kv.value, handled); f.code != errc::ok || handled) return f;
          }
        }
        if (auto f = open(); f.code != errc::ok) return f;
        w_.begin_map(obj.size());
        pframe fr{pframe_kind::object};
        fr.oi = obj.begin();
        fr.oend = obj.end();
        stack_.push_back(fr);
        break;
      }
    }
    return {errc::ok, nullptr};
  }

  /// The lossless mapping's one-member objects. `handled` is false for a '$' key that is
  /// not one of ours: the object is then an ordinary map.
  failure tagged(std::string_view tag, dom::element v, bool& handled) {
    handled = true;
    if (tag == "$float64") {
      double d;
      std::string_view s;
      if (v.get_string().get(s) == simdjson::SUCCESS) {
        if (!parse_special<double, std::uint64_t>(s, d))
          return {errc::invalid_argument, "$float64 text is not nan, inf, -inf or nan:<hex>"};
      } else if (v.get_double().get(d) != simdjson::SUCCESS) {
        return {errc::invalid_argument, "$float64 holds neither a number nor a string"};
      }
      w_.write_float64(d);
      return {errc::ok, nullptr};
    }
    if (tag == "$float32") {
      float f;
      std::string_view s;
      double d;
      if (v.get_string().get(s) == simdjson::SUCCESS) {
        if (!parse_special<float, std::uint32_t>(s, f))
          return {errc::invalid_argument, "$float32 text is not nan, inf, -inf or nan:<hex>"};
      } else if (v.get_double().get(d) == simdjson::SUCCESS) {
        // The text is the shortest one that reads back as this float32; read as a double
        // and rounded to float it gives the same float (json_test checks a stride of all
        // float32 values; an exhaustive run passed). Near float's largest value that text
        // ("3.4028235e+38") is a little beyond it: round as IEEE does, within half an ulp
        // (2^103) to the largest float; further out it is no float32.
        constexpr double max = std::numeric_limits<float>::max();
        const double a = std::fabs(d);
        if (a > max) {
          if (a >= max + 0x1p103)
            return {errc::invalid_argument, "$float32 value is beyond float's range"};
          f = std::copysign(std::numeric_limits<float>::max(), static_cast<float>(d > 0 ? 1 : -1));
        } else {
          f = static_cast<float>(d);
        }
      } else {
        return {errc::invalid_argument, "$float32 holds neither a number nor a string"};
      }
      w_.write_float32(f);
      return {errc::ok, nullptr};
    }
    if (tag == "$bin" || tag == "$str") {
      std::string_view s;
      if (v.get_string().get(s) != simdjson::SUCCESS || !decode_into_scratch(s))
        return {errc::invalid_argument, tag == "$bin" ? "$bin does not hold base64 text"
                                                      : "$str does not hold base64 text"};
      if (tag == "$bin")
        w_.write_bin(mpk::as_bytes(scratch_));
      else
        w_.write_str(scratch_);
      return {errc::ok, nullptr};
    }
    if (tag == "$ext") {
      dom::array a;
      std::int64_t t;
      std::string_view s;
      if (v.get_array().get(a) != simdjson::SUCCESS || a.size() != 2 ||
          a.at(0).get_int64().get(t) != simdjson::SUCCESS || t < -128 || t > 127 ||
          a.at(1).get_string().get(s) != simdjson::SUCCESS || !decode_into_scratch(s))
        return {errc::invalid_argument, "$ext is not [type -128..127, base64 text]"};
      w_.write_ext(static_cast<std::int8_t>(t), mpk::as_bytes(scratch_));
      return {errc::ok, nullptr};
    }
    if (tag == "$timestamp") {
      dom::array a;
      std::int64_t sec;
      std::uint64_t ns;
      if (v.get_array().get(a) != simdjson::SUCCESS || a.size() != 2 ||
          a.at(0).get_int64().get(sec) != simdjson::SUCCESS ||
          a.at(1).get_uint64().get(ns) != simdjson::SUCCESS || ns >= 1000000000u)
        return {errc::invalid_argument, "$timestamp is not [seconds, nanoseconds 0..999999999]"};
      if (!detail::write_timestamp(w_, sec, static_cast<std::uint32_t>(ns)))
        return {errc::invalid_timestamp, "$timestamp cannot be written"};
      return {errc::ok, nullptr};
    }
    if (tag == "$map") {
      dom::array a;
      if (v.get_array().get(a) != simdjson::SUCCESS)
        return {errc::invalid_argument, "$map does not hold an array of [key, value] arrays"};
      if (auto f = open(); f.code != errc::ok) return f;
      w_.begin_map(a.size());
      stack_.push_back({pframe_kind::pairs, a.begin(), a.end()});
      return {errc::ok, nullptr};
    }
    handled = false;
    return {errc::ok, nullptr};
  }

  bool decode_into_scratch(std::string_view s) {
    scratch_.clear();
    return decode_base64(s, scratch_);
  }

  writer<buffer> w_;
  const from_json_options& o_;
  std::vector<pframe> stack_;
  std::uint32_t depth_ = 0;
  std::string scratch_;
};

constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// Finds the top-level JSON texts of `s`, calling `text(from, to)` for each: a scan of
/// brackets and strings only (no validation: simdjson does that). A text that never ends
/// runs to the end of the input, where simdjson reports it.
template <class Text>
void split_texts(std::string_view s, Text&& text) {
  const std::size_t n = s.size();
  const char* const d = s.data();
  std::size_t i = 0;
  for (;;) {
    while (i < n && is_space(d[i]))
      ++i;
    if (i == n) return;
    const std::size_t start = i;
    std::size_t depth = 0;
    do {
      const char c = d[i];
      if (c == '"') {
        // To the closing quote, past escapes.
        for (++i; i < n && d[i] != '"'; ++i)
          if (d[i] == '\\') ++i;
        if (i < n) ++i;
      } else if (c == '[' || c == '{') {
        ++depth;
        ++i;
      } else if (c == ']' || c == '}') {
        if (depth != 0) --depth;
        ++i;
      } else if (depth == 0) {
        // A scalar: up to whitespace or the next text.
        while (i < n && !is_space(d[i]) && d[i] != '[' && d[i] != '{' && d[i] != '"')
          ++i;
      } else {
        ++i;
      }
    } while (depth != 0 && i < n);
    if (i > n) i = n;
    text(start, i);
  }
}

/// Where the `k`-th text of `s` starts (for error messages).
std::size_t text_start(std::string_view s, std::size_t k) {
  std::size_t at = 0;
  std::size_t seen = 0;
  split_texts(s, [&](std::size_t from, std::size_t) {
    if (seen++ == k) at = from;
  });
  return at;
}

constexpr bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

/// True when the integer literal `digits` (no sign, no leading zero) with sign `negative`
/// is beyond int64 (negative) or uint64 (otherwise).
bool beyond_64_bits(std::string_view digits, bool negative) noexcept {
  const std::string_view limit = negative ? "9223372036854775808" : "18446744073709551615";
  if (digits.size() > 1 && digits[0] == '0') return false;  // not JSON: simdjson says so
  if (digits.size() != limit.size()) return digits.size() > limit.size();
  return digits > limit;
}

/// Copies `json` to `out`, appending ".0" to every integer literal beyond 64 bits (outside
/// strings), so that simdjson reads it as the float64 nearest to it. `inserted` receives
/// where each ".0" went, in `out`'s offsets. Returns false when there is no such integer.
bool widen_big_integers(std::string_view json, std::string& out,
                        std::vector<std::size_t>& inserted) {
  const std::size_t n = json.size();
  const char* const d = json.data();
  std::size_t copied = 0;  // json[0, copied) is in `out`
  for (std::size_t i = 0; i < n;) {
    const char c = d[i];
    if (c == '"') {
      for (++i; i < n && d[i] != '"'; ++i)
        if (d[i] == '\\') ++i;
      ++i;
      continue;
    }
    if (c != '-' && !is_digit(c)) {
      ++i;
      continue;
    }
    const bool negative = c == '-';
    const std::size_t first = i + (negative ? 1 : 0);
    std::size_t j = first;
    while (j < n && is_digit(d[j]))
      ++j;
    if (j < n && (d[j] == '.' || d[j] == 'e' || d[j] == 'E')) {
      while (j < n && (is_digit(d[j]) || d[j] == '.' || d[j] == 'e' || d[j] == 'E' || d[j] == '+' ||
                       d[j] == '-'))
        ++j;
    } else if (beyond_64_bits(json.substr(first, j - first), negative)) {
      out.append(d + copied, j - copied);
      inserted.push_back(out.size());
      out += ".0";
      copied = j;
    }
    i = j;
  }
  if (inserted.empty()) return false;
  out.append(d + copied, n - copied);
  return true;
}

errc code_and_reason(simdjson::error_code e, const char*& why) noexcept {
  if (e == simdjson::NUMBER_ERROR) {
    why = "a number is beyond float64's range";
    return errc::out_of_range;
  }
  why = simdjson::error_message(e);
  return code_of(e);
}

/// What from_json keeps between calls on one thread: simdjson's parser (its capacity) and
/// the padded copy of the input. Kept only while the largest text parsed at once is at most
/// `keep_limit` bytes: the parser holds about 14 bytes per byte of it.
struct scratch {
  dom::parser parser;
  std::string text;  // the input (or a batch of texts joined in one array), then padding
  std::vector<std::pair<std::size_t, std::size_t>> batch;  // texts of the next batch
};
constexpr std::size_t keep_limit = std::size_t{1} << 20;
constexpr std::size_t batch_size = std::size_t{256} << 10;

/// Copies [p, p + n) into `text`, with simdjson's padding after it (readable, not part of it).
void padded_copy(std::string& text, const char* p, std::size_t n) {
  text.reserve(n + simdjson::SIMDJSON_PADDING);
  text.assign(p, n);
}

/// from_json on one thread's scratch space.
result<std::size_t> convert(std::string_view json, buffer& out, const from_json_options& options,
                            std::string* why, scratch& s) {
  dom::parser& parser = s.parser;
  builder b(out, options);
  auto fail = [&](errc code, std::size_t at, const char* why_not) -> result<std::size_t> {
    if (why != nullptr) *why = why_not != nullptr ? why_not : message(code);
    return error{code, at};
  };
  // One text that is an array or an object (the usual case): one parse of a padded copy.
  // Anything else (JSON Lines, scalars) goes through one array of all the texts.
  std::size_t first = 0;
  while (first < json.size() && is_space(json[first]))
    ++first;
  if (first < json.size() && (json[first] == '[' || json[first] == '{')) {
    padded_copy(s.text, json.data(), json.size());
    dom::element root;
    if (parser.parse(s.text.data(), s.text.size(), false).get(root) == simdjson::SUCCESS) {
      if (const failure f = b.run(root); f.code != errc::ok)
        return fail(f.code, text_start(json, 0), f.why);
      return std::size_t{1};
    }
  }
  // Several texts (JSON Lines). simdjson 3.0's parse_many copies the rest of its batch for
  // every top-level number, which is quadratic on a stream of numbers; instead the texts
  // are joined in arrays of about `batch_size` bytes, one parse each, so that the parser's
  // memory does not grow with the input. When a batch fails, its texts are parsed one by one
  // to find which one is wrong, and where.
  std::vector<std::pair<std::size_t, std::size_t>>& batch = s.batch;
  std::size_t count = 0;
  const char* reason = nullptr;  // set by code_and_reason
  error first_error{};
  auto run_batch = [&]() {
    if (batch.empty() || first_error) return;
    std::string& joined = s.text;
    joined.clear();
    joined.reserve(batch.back().second - batch.front().first + batch.size() + 2 +
                   simdjson::SIMDJSON_PADDING);
    joined += '[';
    for (const auto& [from, to] : batch) {
      joined.append(json.data() + from, to - from);
      joined += ',';
    }
    joined.back() = ']';
    // A text such as `1,2` is one text to the split and two elements to the array: the
    // counts must agree.
    dom::array all;
    if (parser.parse(joined.data(), joined.size(), false).get_array().get(all) ==
            simdjson::SUCCESS &&
        all.size() == batch.size()) {
      std::size_t k = 0;
      for (dom::element e : all) {
        if (const failure f = b.run(e); f.code != errc::ok) {
          first_error = {f.code, batch[k].first};
          reason = f.why;
          return;
        }
        ++k;
      }
      count += k;
      batch.clear();
      return;
    }
    // A text of the batch is wrong: parse them one by one, on a padded copy of the input,
    // to find which one and where.
    std::string& copy = s.text;
    const std::size_t base = batch.front().first;
    padded_copy(copy, json.data() + base, batch.back().second - base);
    for (const auto& [from, to] : batch) {
      if (first_error) break;
      dom::element root;
      if (auto e = parser.parse(copy.data() + (from - base), to - from, false).get(root)) {
        first_error = {code_and_reason(e, reason), from};
      } else if (const failure f = b.run(root); f.code != errc::ok) {
        first_error = {f.code, from};
        reason = f.why;
      } else {
        ++count;
      }
    }
    batch.clear();
  };
  batch.clear();
  std::size_t batched = 0;
  split_texts(json, [&](std::size_t from, std::size_t to) {
    if (first_error) return;
    batch.emplace_back(from, to);
    batched += to - from;
    if (batched >= batch_size) {
      run_batch();
      batched = 0;
    }
  });
  run_batch();
  if (first_error) return fail(first_error.code, first_error.offset, reason);
  return count;
}

result<std::size_t> convert(std::string_view json, buffer& out, const from_json_options& options,
                            std::string* why) {
  thread_local scratch kept;
  result<std::size_t> res = convert(json, out, options, why, kept);
  // Memory for a large text is not kept for the next call.
  if (kept.parser.capacity() > keep_limit) kept.parser = dom::parser{};
  if (kept.text.capacity() > keep_limit + simdjson::SIMDJSON_PADDING) std::string().swap(kept.text);
  if (kept.batch.capacity() > keep_limit / 16) decltype(kept.batch)().swap(kept.batch);
  return res;
}

}  // namespace

namespace {
/// from_json without the catch: convert(), then again with integers beyond 64 bits widened.
result<std::size_t> convert_widening(std::string_view json, buffer& out,
                                     const from_json_options& options, std::string* why);
}  // namespace

result<std::size_t> from_json(std::string_view json, buffer& out, const from_json_options& options,
                              std::string* why) {
#if __cpp_exceptions
  try {
#endif
    return convert_widening(json, out, options, why);
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    // The text's padded copy, a batch of texts, `why`: what simdjson does not report itself.
    return error{errc::out_of_memory, 0};
  }
#endif
}

namespace {

result<std::size_t> convert_widening(std::string_view json, buffer& out,
                                     const from_json_options& options, std::string* why) {
  const std::size_t start = out.size();
  result<std::size_t> res = convert(json, out, options, why);
  if (res || res.error().code != errc::out_of_range) return res;
  // An integer beyond 64 bits, which simdjson 3.0 refuses, becomes the nearest float64: it
  // is read again as a float literal (its text with ".0"). Rare: only after such an error.
  std::string widened;
  std::vector<std::size_t> inserted;
  if (!widen_big_integers(json, widened, inserted)) return res;
  out.truncate(start);
  res = convert(widened, out, options, why);
  if (res) return res;
  // The error's offset back in `json`: less the ".0"s inserted before it.
  const std::size_t at = res.error().offset;
  const auto before = static_cast<std::size_t>(
      std::lower_bound(inserted.begin(), inserted.end(), at) - inserted.begin());
  return error{res.error().code, at - 2 * before};
}

}  // namespace

}  // namespace mpk::inline v0
