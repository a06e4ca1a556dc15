// MessagePack -> JSON (to_json) and base64. JSON -> MessagePack is in json_parse.cpp.
#include "mpk/json.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "json_internal.hpp"
#include "mpk/config.hpp"
#include "mpk/detail/float_format.hpp"
#include "mpk/unicode.hpp"

namespace mpk::inline v0 {

namespace {

constexpr char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The two characters of each 12-bit group (8 KiB): two loads per 3 bytes instead of four.
constexpr auto base64_pairs = [] {
  std::array<char, 2 * 4096> t{};
  for (std::size_t i = 0; i < 4096; ++i) {
    t[2 * i] = base64_alphabet[i >> 6];
    t[2 * i + 1] = base64_alphabet[i & 63];
  }
  return t;
}();

constexpr std::uint64_t ones = 0x0101010101010101;
constexpr std::uint64_t high_bits = ones * 0x80;

/// The high bit of each byte of `w` below n (n <= 0x80), and maybe of bytes after such a
/// byte (a borrow): nonzero if and only if one of the 8 bytes is below n, since a borrow
/// only starts at a byte that is flagged rightly. Callers load `w` in native byte order and
/// test the result for zero only, which does not depend on that order.
constexpr std::uint64_t bytes_below(std::uint64_t w, std::uint64_t n) noexcept {
  return (w - ones * n) & ~w & high_bits;
}

/// Nonzero when one of the 8 bytes of `w` needs an escape in a JSON string: '"', '\\' or a
/// control character below 0x20.
constexpr std::uint64_t needs_escape(std::uint64_t w) noexcept {
  return bytes_below(w, 0x20) | bytes_below(w ^ (ones * '"'), 1) |
         bytes_below(w ^ (ones * '\\'), 1);
}

/// Nonzero when one of the 8 bytes of `w` is not printable ASCII without an escape: what
/// needs_escape finds, or a byte from 0x80 (its high bit).
constexpr std::uint64_t not_plain_ascii(std::uint64_t w) noexcept {
  return needs_escape(w) | (w & high_bits);
}

}  // namespace

void append_base64(std::string& out, std::span<const std::byte> bytes) {
  const std::size_t n = bytes.size();
  const std::size_t start = out.size();
  out.resize(start + (n + 2) / 3 * 4);
  char* o = out.data() + start;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const std::uint32_t v = std::uint32_t(p[i]) << 16 | std::uint32_t(p[i + 1]) << 8 | p[i + 2];
    std::memcpy(o, &base64_pairs[2 * (v >> 12)], 2);
    std::memcpy(o + 2, &base64_pairs[2 * (v & 0xfff)], 2);
    o += 4;
  }
  if (n - i == 1) {
    const std::uint32_t v = std::uint32_t(p[i]) << 16;
    *o++ = base64_alphabet[v >> 18];
    *o++ = base64_alphabet[(v >> 12) & 63];
    *o++ = '=';
    *o++ = '=';
  } else if (n - i == 2) {
    const std::uint32_t v = std::uint32_t(p[i]) << 16 | std::uint32_t(p[i + 1]) << 8;
    *o++ = base64_alphabet[v >> 18];
    *o++ = base64_alphabet[(v >> 12) & 63];
    *o++ = base64_alphabet[(v >> 6) & 63];
    *o++ = '=';
  }
}

bool decode_base64(std::string_view text, std::string& out) {
  static constexpr auto table = [] {
    std::array<std::int8_t, 256> t{};
    for (auto& x : t)
      x = -1;
    for (int i = 0; i < 64; ++i)
      t[static_cast<unsigned char>(base64_alphabet[i])] = static_cast<std::int8_t>(i);
    return t;
  }();
  if (text.size() % 4 != 0) return false;
  std::size_t pad = 0;
  if (!text.empty() && text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
  const std::size_t body = text.size() - pad;
  out.reserve(out.size() + text.size() / 4 * 3);
  std::uint32_t acc = 0;
  for (std::size_t i = 0; i < body; ++i) {
    const std::int8_t d = table[static_cast<unsigned char>(text[i])];
    if (d < 0) return false;
    acc = acc << 6 | static_cast<std::uint32_t>(d);
    if (i % 4 == 3) {
      out += static_cast<char>(acc >> 16);
      out += static_cast<char>((acc >> 8) & 0xff);
      out += static_cast<char>(acc & 0xff);
      acc = 0;
    }
  }
  // Canonical form only: the bits that padding drops must be zero, so that every byte
  // string has exactly one text (and a lossless round trip cannot hide data in them).
  if (pad == 1) {
    if ((acc & 0x3) != 0) return false;
    out += static_cast<char>(acc >> 10);
    out += static_cast<char>((acc >> 2) & 0xff);
  } else if (pad == 2) {
    if ((acc & 0xf) != 0) return false;
    out += static_cast<char>(acc >> 4);
  }
  return true;
}

namespace detail {

void append_json_string(std::string& out, std::string_view s) {
  // Bytes that need no escape are copied in runs; '"', '\\' and the control characters
  // below 0x20 are escaped (the control characters as \u00XX, RFC 8259 section 7).
  static constexpr auto plain = [] {
    std::array<bool, 256> t{};
    for (unsigned c = 0; c < 256; ++c)
      t[c] = c >= 0x20 && c != '"' && c != '\\';
    return t;
  }();
  constexpr char hex[] = "0123456789abcdef";
  out += '"';
  const char* p = s.data();
  const char* const end = p + s.size();
  while (p != end) {
    const char* run = p;
    // Whole words with nothing to escape, then byte by byte up to the next escape.
    for (std::uint64_t w = 0; end - p >= 8; p += 8) {
      std::memcpy(&w, p, 8);
      if (needs_escape(w) != 0) break;
    }
    while (p != end && plain[static_cast<unsigned char>(*p)])
      ++p;
    out.append(run, static_cast<std::size_t>(p - run));
    if (p == end) break;
    const auto c = static_cast<unsigned char>(*p++);
    if (c == '"' || c == '\\') {
      const char esc[2] = {'\\', static_cast<char>(c)};
      out.append(esc, 2);
    } else {
      const char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      out.append(esc, 6);
    }
  }
  out += '"';
}

void append_double(std::string& out, double d) {
  char buf[float_text_room];
  out.append(buf, format_json_float(buf, d));
}

void append_float(std::string& out, float f) {
  char buf[float_text_room];
  out.append(buf, format_json_float(buf, f));
}

}  // namespace detail

namespace {

using detail::append_json_string;

/// "nan", "-nan", "inf", "-inf", or "nan:<hex bits>" for a NaN with another sign or payload
/// than the default quiet NaN: lossless mode keeps every bit.
template <class F, class Bits>
void append_special(std::string& out, F v) {
  const Bits bits = std::bit_cast<Bits>(v);
  const Bits quiet = std::bit_cast<Bits>(std::numeric_limits<F>::quiet_NaN());
  const Bits sign = Bits(1) << (sizeof(Bits) * 8 - 1);
  if (std::isinf(v)) {
    out += v < 0 ? "\"-inf\"" : "\"inf\"";
  } else if (bits == quiet) {
    out += "\"nan\"";
  } else if (bits == (quiet | sign)) {
    out += "\"-nan\"";
  } else {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, bits, 16);
    out += "\"nan:";
    out.append(buf, static_cast<std::size_t>(r.ptr - buf));
    out += '"';
  }
}

/// The converter's output: a staging area on the stack, appended to the caller's string in
/// blocks, so that each small piece of JSON is a few stores rather than a call.
///
/// The converter's hot loop writes through a cursor in a local variable (`char* o`, taken
/// with cursor() and handed back with set_cursor() before any other member is used): a
/// store through a char pointer may alias any object in memory, so a cursor kept in a
/// member would be reloaded after every byte written, while a local whose address never
/// escapes stays in a register. Before writing n bytes at `o`, the loop checks that
/// `stop() - o >= n` and otherwise calls flush_at(o), which empties the staging area: every
/// token written that way is at most capacity bytes (the largest is a short string: 258).
class text_out {
 public:
  explicit text_out(std::string& s) noexcept : s_(s) {}
  ~text_out() = default;  // the owner calls flushed() at the end (it may throw bad_alloc)
  text_out(const text_out&) = delete;
  text_out& operator=(const text_out&) = delete;

  /// Where the next byte goes.
  char* cursor() const noexcept { return p_; }
  /// Moves the cursor to `o`, a position in the staging area (up to stop()).
  void set_cursor(char* o) noexcept { p_ = o; }
  /// The end of the staging area (it never moves).
  const char* stop() const noexcept { return end_; }
  /// Moves what is staged before `o` to the caller's string; returns the new cursor, which
  /// has `capacity` bytes of room.
  MPK_NOINLINE char* flush_at(char* o) {
    p_ = o;
    flush();
    return p_;
  }
  /// The size of the caller's string with what is staged before `o`.
  std::size_t size_at(const char* o) const noexcept {
    return s_.size() + static_cast<std::size_t>(o - buf_);
  }

  void put(char c) {
    if (p_ == end_) flush();
    *p_++ = c;
  }
  void put(std::string_view v) {
    if (v.size() > static_cast<std::size_t>(end_ - p_)) {
      flush();
      if (v.size() > capacity / 2) {
        s_.append(v);
        return;
      }
    }
    std::memcpy(p_, v.data(), v.size());
    p_ += v.size();
  }
  text_out& operator+=(char c) {
    put(c);
    return *this;
  }
  text_out& operator+=(std::string_view v) {
    put(v);
    return *this;
  }
  /// The caller's string with everything written so far, for code that appends to it.
  std::string& flushed() {
    flush();
    return s_;
  }
  static constexpr std::size_t capacity = 4096;

 private:
  void flush() {
    s_.append(buf_, static_cast<std::size_t>(p_ - buf_));
    p_ = buf_;
  }
  std::string& s_;
  char buf_[capacity];
  char* p_ = buf_;
  char* const end_ = buf_ + capacity;
};

/// Bytes that a JSON string holds as they are, when every byte of a string is one of them:
/// printable ASCII but '"' and '\\'.
constexpr auto plain_ascii = [] {
  std::array<bool, 256> t{};
  for (unsigned c = 0x20; c < 0x80; ++c)
    t[c] = c != '"' && c != '\\';
  return t;
}();

enum class frame_kind : std::uint8_t {
  array,     // a JSON array
  object,    // a map as a JSON object: items alternate key, value
  pairs,     // a map as {"$map": [[key, value], ...]}
  key_text,  // one map key that is not a string, written as JSON then turned into a string
};

struct frame {
  frame_kind kind;
  std::uint64_t items;  // items in all (a map entry counts two)
  std::uint64_t done = 0;
  std::size_t start = 0;  // key_text: where the key's JSON text starts in `out`
};

class converter {
 public:
  converter(reader& r, std::string& out, const to_json_options& o) : r_(r), out_(out), o_(o) {}

  /// Moves what is staged to the caller's string: call it last.
  void finish() { out_.flushed(); }
  /// Values converted by run<true>.
  std::size_t values() const noexcept { return values_; }

  /// Lines false: converts the next value. Lines true: converts values, each followed by
  /// '\n', until the input ends or the caller's string has grown by `stop_after` bytes or
  /// more since `start` (its size when the conversion began); call it when input remains.
  template <bool Lines>
  error run(std::size_t start = 0, std::size_t stop_after = 0) {
    // The reader and the output cursor are locals while converting (see text_out): r_ and
    // out_ are brought up to date around the few calls that use them, and at the end.
    reader r = r_;
    char* o = out_.cursor();
    std::size_t values = 0;
    const error e = convert<Lines>(r, o, values, start, stop_after);
    r_ = r;
    out_.set_cursor(o);
    values_ += values;
    return e;
  }

 private:
  bool pretty() const noexcept { return o_.pretty && compact_ == 0; }

  /// Makes room for n (<= text_out::capacity) bytes at the cursor `o`.
  MPK_ALWAYS_INLINE void need(char*& o, std::size_t n) {
    if (n > static_cast<std::size_t>(out_.stop() - o)) [[unlikely]]
      o = out_.flush_at(o);
  }
  /// Writes `text` (at most a few dozen bytes) at the cursor.
  MPK_ALWAYS_INLINE void put(char*& o, std::string_view text) {
    need(o, text.size());
    std::memcpy(o, text.data(), text.size());
    o += text.size();
  }
  MPK_ALWAYS_INLINE void put(char*& o, char c) {
    need(o, 1);
    *o++ = c;
  }

  template <bool Lines>
  MPK_ALWAYS_INLINE error convert(reader& r, char*& o, std::size_t& values, std::size_t start,
                                  std::size_t stop_after) {
    constexpr std::size_t no_stop = static_cast<std::size_t>(-1);  // to_json_lines' default
    for (;;) {
      if (!stack_.empty()) {
        if (auto e = before_item(r, o)) return e;
      }
      const std::size_t at = r.position();
      switch (r.peek()) {
        case type::nil:
          r.read_nil();
          put(o, "null");
          break;
        case type::boolean:
          put(o, r.read<bool>() ? std::string_view("true") : std::string_view("false"));
          break;
        case type::uint:
          need(o, detail::decimal_text_room);
          o = detail::format_decimal(o, r.read<std::uint64_t>());
          break;
        case type::sint:
          need(o, detail::decimal_text_room);
          o = detail::format_decimal(o, r.read<std::int64_t>());
          break;
        case type::float32: {
          const float f = r.read<float>();
          if (!r.ok()) return r.error();
          out_.set_cursor(o);
          const error e = write_float32(f, at);
          o = out_.cursor();
          if (e) return e;
          break;
        }
        case type::float64: {
          const double d = r.read<double>();
          if (!r.ok()) return r.error();
          if (std::isfinite(d)) [[likely]] {
            // The shortest text that reads back as `d`, with ".0" after an integral one, so
            // that it reads back as a float, not an integer.
            need(o, detail::float_text_room);
            o = detail::format_json_float(o, d);
            break;
          }
          out_.set_cursor(o);
          const error e = write_float64_special(d, at);
          o = out_.cursor();
          if (e) return e;
          break;
        }
        case type::str: {
          const std::string_view s = r.read_string_view();
          if (!r.ok()) return r.error();
          if (auto e = write_str(o, s, at)) return e;
          break;
        }
        case type::bin: {
          const std::span<const std::byte> b = r.read_bin();
          if (!r.ok()) return r.error();
          out_.set_cursor(o);
          write_bin(b);
          o = out_.cursor();
          break;
        }
        case type::ext: {
          reader at_ext = r;  // for the timestamp decoder, which reads the value again
          const ext_view x = r.read_ext();
          if (!r.ok()) return r.error();
          out_.set_cursor(o);
          if (x.type != -1 ||
              !detail::append_timestamp_json(out_.flushed(), at_ext, o_.lossless, pretty()))
            write_ext(x);
          o = out_.cursor();
          break;
        }
        case type::array: {
          const std::uint32_t n = r.read_array_header();
          if (!r.ok()) return r.error();
          if (depth_ >= r.options().limits.max_depth) return error{errc::depth_exceeded, at};
          if (n == 0) {
            put(o, "[]");
            break;
          }
          put(o, '[');
          stack_.push_back({frame_kind::array, n});
          ++depth_;
          continue;
        }
        case type::map: {
          const std::uint32_t n = r.read_map_header();
          if (!r.ok()) return r.error();
          if (depth_ >= r.options().limits.max_depth) return error{errc::depth_exceeded, at};
          const bool pairs = o_.lossless && !keys_are_plain(r, n);
          if (pairs) {
            put(o, "{\"$map\":");
            if (pretty()) put(o, ' ');
            if (n == 0) {
              put(o, "[]}");
              break;
            }
            put(o, '[');
          } else {
            if (n == 0) {
              put(o, "{}");
              break;
            }
            put(o, '{');
          }
          stack_.push_back({pairs ? frame_kind::pairs : frame_kind::object, std::uint64_t{n} * 2});
          ++depth_;
          continue;
        }
        case type::invalid:
          break;
      }
      if (!r.ok()) return r.error();
      if (!stack_.empty() && !finish_item(o)) continue;
      // A top-level value is complete.
      if constexpr (!Lines) {
        return {};
      } else {
        put(o, '\n');
        ++values;
        if (r.at_end()) return {};
        if (stop_after != no_stop && out_.size_at(o) - start >= stop_after) return {};
      }
    }
  }

  /// The '\n' and indentation of pretty mode before an item or a closing bracket.
  MPK_COLD void newline(char*& o) {
    out_.set_cursor(o);
    out_.flushed().append(1, '\n').append(2 * (stack_.size() - static_cast<std::size_t>(compact_)),
                                          ' ');
    o = out_.cursor();
  }

  /// Separators and the key of an object member, before the next item of the top frame.
  MPK_ALWAYS_INLINE error before_item(reader& r, char*& o) {
    frame& f = stack_.back();
    switch (f.kind) {
      case frame_kind::array:
        if (f.done != 0) put(o, ',');
        if (pretty()) newline(o);
        return {};
      case frame_kind::object:
        if (f.done % 2 == 0) {
          if (f.done != 0) put(o, ',');
          if (pretty()) newline(o);
          // A string key (the usual case) is written here; any other key goes through a
          // key_text frame.
          if (r.remaining() != 0 && r.peek() == type::str) {
            const std::size_t at = r.position();
            const std::string_view k = r.read_string_view();
            if (!r.ok()) return r.error();
            if (auto e = write_str(o, k, at)) return e;
            ++f.done;
            put(o, pretty() ? std::string_view(": ") : std::string_view(":"));
            return {};
          }
          // Each key nested in a non-string key is escaped once more, which doubles its
          // quotes and backslashes: unbounded, 81 input bytes could ask for 2^40 bytes of
          // JSON. Plain mode stops at a few levels; lossless mode ($map) has no such limit.
          if (compact_ >= max_key_nesting) return {errc::limit_exceeded, r.position()};
          out_.set_cursor(o);
          stack_.push_back({frame_kind::key_text, 1, 0, out_.flushed().size()});
          o = out_.cursor();
          ++compact_;  // the key's JSON text is compact, whatever the options
        } else {
          put(o, pretty() ? std::string_view(": ") : std::string_view(":"));
        }
        return {};
      case frame_kind::pairs:
        if (f.done % 2 == 0) {
          if (f.done != 0) put(o, ',');
          if (pretty()) newline(o);
          put(o, '[');
        } else {
          put(o, ',');
          if (pretty()) put(o, ' ');
        }
        return {};
      case frame_kind::key_text:
        return {};
    }
    return {};
  }

  /// Counts the item just written in its frame (there is one) and closes every frame that
  /// is complete. Returns true when the top-level value is complete.
  MPK_ALWAYS_INLINE bool finish_item(char*& o) {
    for (;;) {
      if (stack_.empty()) return true;
      frame& f = stack_.back();
      ++f.done;
      if (f.kind == frame_kind::pairs && f.done % 2 == 0) put(o, ']');
      if (f.kind == frame_kind::object && f.done % 2 == 1) {
        // A key was completed by a key_text frame: the value comes next.
        return false;
      }
      if (f.done < f.items) return false;
      const frame closed = f;
      stack_.pop_back();
      if (closed.kind != frame_kind::key_text) --depth_;
      switch (closed.kind) {
        case frame_kind::array:
          if (pretty()) newline(o);
          put(o, ']');
          break;
        case frame_kind::object:
          if (pretty()) newline(o);
          put(o, '}');
          break;
        case frame_kind::pairs:
          if (pretty()) newline(o);
          put(o, "]}");
          break;
        case frame_kind::key_text:
          --compact_;
          out_.set_cursor(o);
          close_key_text(closed.start);
          o = out_.cursor();
          // The object's key is done: continue with the object frame (loop), which counts it.
          break;
      }
    }
  }

  /// A key whose JSON form is a string (a binary, a timestamp) is used as it is; any other
  /// key becomes its JSON text (from `start` in the caller's string), as a string.
  MPK_COLD void close_key_text(std::size_t start) {
    std::string& o = out_.flushed();
    if (o[start] != '"') {
      const std::string text = o.substr(start);
      o.resize(start);
      append_json_string(o, text);
    }
  }

  /// Writes a string of printable ASCII without '"' or '\\' (up to 256 bytes) as it is,
  /// copying while checking; false, with `o` unchanged, for any other string.
  MPK_ALWAYS_INLINE bool put_plain_string(char*& o, std::string_view s) {
    const std::size_t n = s.size();
    if (n > 256) return false;
    need(o, n + 2);
    char* const q = o + 1;
    const char* const p = s.data();
    if (n >= 8) {
      // Whole words, the last one overlapping the one before when n is not a multiple of 8.
      std::uint64_t bad = 0;
      std::uint64_t w = 0;
      std::size_t i = 0;
      for (; i + 8 < n; i += 8) {
        std::memcpy(&w, p + i, 8);
        bad |= not_plain_ascii(w);
        std::memcpy(q + i, &w, 8);
      }
      std::memcpy(&w, p + n - 8, 8);
      bad |= not_plain_ascii(w);
      std::memcpy(q + n - 8, &w, 8);
      if (bad != 0) return false;
    } else {
      bool plain = true;
      for (std::size_t i = 0; i < n; ++i) {
        plain &= plain_ascii[static_cast<unsigned char>(p[i])];
        q[i] = p[i];
      }
      if (!plain) return false;
    }
    o[0] = '"';
    q[n] = '"';
    o = q + n + 1;
    return true;
  }

  MPK_ALWAYS_INLINE error write_str(char*& o, std::string_view s, std::size_t at) {
    if (put_plain_string(o, s)) return {};
    out_.set_cursor(o);
    const error e = write_other_str(s, at);
    o = out_.cursor();
    return e;
  }

  /// A string that is not short printable ASCII: escaped when it is valid UTF-8.
  MPK_COLD error write_other_str(std::string_view s, std::size_t at) {
    if (is_valid_utf8(s)) {
      append_json_string(out_.flushed(), s);
      return {};
    }
    if (!o_.lossless) return {errc::invalid_utf8, at};
    out_ += pretty() ? "{\"$str\": \"" : "{\"$str\":\"";
    append_base64(out_.flushed(), std::as_bytes(std::span(s.data(), s.size())));
    out_ += "\"}";
    return {};
  }

  /// NaN or an infinity: an error in plain mode, {"$float64": "nan"} (...) in lossless mode.
  MPK_COLD error write_float64_special(double d, std::size_t at) {
    if (!o_.lossless) return {errc::out_of_range, at};
    out_ += pretty() ? "{\"$float64\": " : "{\"$float64\":";
    append_special<double, std::uint64_t>(out_.flushed(), d);
    out_ += '}';
    return {};
  }

  MPK_COLD error write_float32(float f, std::size_t at) {
    if (!o_.lossless) {
      if (!std::isfinite(f)) return {errc::out_of_range, at};
      // Every JSON reader reads a number as a double: the text is that of the double the
      // float is exactly (2^48 reads back as 281474976710656, not as 2.8147498e+14, whose
      // nearest double is another number). The float's own shortest text is lossless
      // mode's ($float32, read back as a float).
      detail::append_double(out_.flushed(), static_cast<double>(f));
      return {};
    }
    out_ += pretty() ? "{\"$float32\": " : "{\"$float32\":";
    if (std::isfinite(f))
      detail::append_float(out_.flushed(), f);
    else
      append_special<float, std::uint32_t>(out_.flushed(), f);
    out_ += '}';
    return {};
  }

  MPK_COLD void write_bin(std::span<const std::byte> b) {
    if (o_.lossless) out_ += pretty() ? "{\"$bin\": " : "{\"$bin\":";
    out_ += '"';
    append_base64(out_.flushed(), b);
    out_ += '"';
    if (o_.lossless) out_ += '}';
  }

  MPK_COLD void write_ext(const ext_view& x) {
    char type_text[detail::decimal_text_room];
    const std::string_view type(
        type_text, static_cast<std::size_t>(
                       detail::format_decimal(type_text, std::int64_t{x.type}) - type_text));
    if (o_.lossless) {
      out_ += pretty() ? "{\"$ext\": [" : "{\"$ext\":[";
      out_ += type;
      out_ += pretty() ? ", \"" : ",\"";
      append_base64(out_.flushed(), x.data);
      out_ += "\"]}";
    } else {
      out_ += pretty() ? "{\"type\": " : "{\"type\":";
      out_ += type;
      out_ += pretty() ? ", \"data\": \"" : ",\"data\":\"";
      append_base64(out_.flushed(), x.data);
      out_ += "\"}";
    }
  }

  /// Lossless mode: true when the `n` entries ahead are all valid UTF-8 strings that do not
  /// start with '$', so that the map can be a plain JSON object. Looks ahead on a copy of
  /// the reader (taken by value: the caller's reader stays in registers); each value is
  /// skipped (iteratively). This costs one extra pass over a map's contents per map level,
  /// bounded by max_depth passes over the input.
  MPK_COLD static bool keys_are_plain(reader look, std::uint32_t n) {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (look.peek() != type::str) return false;
      const std::string_view k = look.read_string_view();
      if (!look.ok()) return false;  // the main pass reports the error
      if ((!k.empty() && k[0] == '$') || !is_valid_utf8(k)) return false;
      look.skip();
      if (!look.ok()) return false;
    }
    return true;
  }

  reader& r_;
  text_out out_;
  const to_json_options& o_;
  std::vector<frame> stack_;
  int compact_ = 0;  // key_text frames open: keys that are not strings, nested
  static constexpr int max_key_nesting = 4;
  std::uint32_t depth_ = 0;  // arrays and maps open (key_text frames do not count)
  std::size_t values_ = 0;
};

}  // namespace

namespace {
/// Runs `convert()` (a conversion into the caller's std::string): a std::bad_alloc from the
/// text's growth becomes errc::out_of_memory at the reader's position, in the reader too.
template <class R, class F>
result<R> catching_bad_alloc(reader& r, F&& convert) {
#if __cpp_exceptions
  try {
#endif
    return convert();
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    r.set_error({errc::out_of_memory, r.position()});
    return r.error();
  }
#endif
}
}  // namespace

result<void> to_json(reader& r, std::string& out, const to_json_options& options) {
  return catching_bad_alloc<void>(r, [&]() -> result<void> {
    converter c(r, out, options);
    const error e = c.run<false>();
    c.finish();
    if (e) return e;
    return {};
  });
}

result<std::size_t> to_json_lines(reader& r, std::string& out, const to_json_options& options,
                                  std::size_t stop_after) {
  return catching_bad_alloc<std::size_t>(r, [&]() -> result<std::size_t> {
    // One converter (and one staging area) for every value.
    converter c(r, out, options);
    if (!r.at_end()) {
      const error e = c.run<true>(out.size(), stop_after);
      c.finish();
      if (e) return e;
    }
    return c.values();
  });
}

result<std::string> detail::to_json_bytes(std::span<const std::byte> msgpack,
                                          const to_json_options& options) {
  reader r(msgpack, options.read);
  return catching_bad_alloc<std::string>(r, [&]() -> result<std::string> {
    std::string out;
    out.reserve(msgpack.size() * 2);
    if (auto res = to_json_lines(r, out, options); !res) return res.error();
    return out;
  });
}

}  // namespace mpk::inline v0
