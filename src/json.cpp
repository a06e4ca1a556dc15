// MessagePack -> JSON (to_json) and base64. JSON -> MessagePack is in json_parse.cpp.
#include "mpk/json.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "json_internal.hpp"
#include "mpk/detail/float_format.hpp"
#include "mpk/unicode.hpp"

namespace mpk::inline v0 {

namespace {

constexpr char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

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
    *o++ = base64_alphabet[v >> 18];
    *o++ = base64_alphabet[(v >> 12) & 63];
    *o++ = base64_alphabet[(v >> 6) & 63];
    *o++ = base64_alphabet[v & 63];
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

template <class T>
void append_int(std::string& out, T v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<std::size_t>(r.ptr - buf));
}

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
class text_out {
 public:
  explicit text_out(std::string& s) noexcept : s_(s) {}
  ~text_out() = default;  // the owner calls flushed() at the end (it may throw bad_alloc)
  text_out(const text_out&) = delete;
  text_out& operator=(const text_out&) = delete;

  /// Room for `n` (<= capacity) bytes at the end; write them, then advance() past them.
  char* room(std::size_t n) {
    if (n > static_cast<std::size_t>(end_ - p_)) flush();
    return p_;
  }
  void advance(char* q) noexcept { p_ = q; }
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
  /// The size of the caller's string, with what is staged.
  std::size_t size() const noexcept { return s_.size() + static_cast<std::size_t>(p_ - buf_); }
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
  /// The '\n' after a value of JSON Lines.
  void end_line() { out_ += '\n'; }
  /// The size of the caller's string, with what is staged.
  std::size_t size() const noexcept { return out_.size(); }

  result<void> run() {
    for (;;) {
      if (auto e = before_item()) return e;
      const std::size_t at = r_.position();
      const type t = r_.peek();
      switch (t) {
        case type::nil:
          r_.read_nil();
          out_ += "null";
          break;
        case type::boolean:
          out_ += r_.read<bool>() ? "true" : "false";
          break;
        case type::uint:
          put_int(r_.read<std::uint64_t>());
          break;
        case type::sint:
          put_int(r_.read<std::int64_t>());
          break;
        case type::float32:
          if (auto e = write_float32(r_.read<float>(), at)) return e;
          break;
        case type::float64:
          if (auto e = write_float64(r_.read<double>(), at)) return e;
          break;
        case type::str:
          if (auto e = write_str(r_.read_str(), at)) return e;
          break;
        case type::bin:
          write_bin(r_.read_bin());
          break;
        case type::ext: {
          reader at_ext = r_;  // for the timestamp decoder, which reads the value again
          const ext_view x = r_.read_ext();
          if (r_.ok() && x.type == -1 &&
              detail::append_timestamp_json(out_.flushed(), at_ext, o_.lossless, pretty()))
            break;
          write_ext(x);
          break;
        }
        case type::array: {
          const std::uint32_t n = r_.read_array_header();
          if (!r_.ok()) return r_.error();
          if (depth_ >= r_.get_limits().max_depth) return error{errc::depth_exceeded, at};
          if (n == 0) {
            out_ += "[]";
            break;
          }
          out_ += '[';
          stack_.push_back({frame_kind::array, n});
          ++depth_;
          continue;
        }
        case type::map: {
          const std::uint32_t n = r_.read_map_header();
          if (!r_.ok()) return r_.error();
          if (depth_ >= r_.get_limits().max_depth) return error{errc::depth_exceeded, at};
          const bool pairs = o_.lossless && !keys_are_plain(n);
          if (!r_.ok()) return r_.error();
          if (pairs) {
            out_ += "{\"$map\":";
            if (pretty()) out_ += ' ';
            if (n == 0) {
              out_ += "[]}";
              break;
            }
            out_ += '[';
          } else {
            if (n == 0) {
              out_ += "{}";
              break;
            }
            out_ += '{';
          }
          stack_.push_back({pairs ? frame_kind::pairs : frame_kind::object, std::uint64_t{n} * 2});
          ++depth_;
          continue;
        }
        case type::invalid:
          break;
      }
      if (!r_.ok()) return r_.error();
      if (finish_item()) return {};
    }
  }

 private:
  bool pretty() const noexcept { return o_.pretty && compact_ == 0; }

  void newline() {
    out_.flushed().append(1, '\n').append(2 * (stack_.size() - static_cast<std::size_t>(compact_)),
                                          ' ');
  }

  /// Separators and the key of an object member, before the next item of the top frame.
  error before_item() {
    if (stack_.empty()) return {};
    frame& f = stack_.back();
    switch (f.kind) {
      case frame_kind::array:
        if (f.done != 0) out_ += ',';
        if (pretty()) newline();
        return {};
      case frame_kind::object:
        if (f.done % 2 == 0) {
          if (f.done != 0) out_ += ',';
          if (pretty()) newline();
          // A string key (the usual case) is written here; any other key goes through a
          // key_text frame.
          if (r_.remaining() != 0 && r_.peek() == type::str) {
            const std::size_t at = r_.position();
            const std::string_view k = r_.read_str();
            if (auto e = write_str(k, at)) return e;
            ++f.done;
            out_ += pretty() ? ": " : ":";
            return {};
          }
          // Each key nested in a non-string key is escaped once more, which doubles its
          // quotes and backslashes: unbounded, 81 input bytes could ask for 2^40 bytes of
          // JSON. Plain mode stops at a few levels; lossless mode ($map) has no such limit.
          if (compact_ >= max_key_nesting) return {errc::limit_exceeded, r_.position()};
          stack_.push_back({frame_kind::key_text, 1, 0, out_.flushed().size()});
          ++compact_;  // the key's JSON text is compact, whatever the options
        } else {
          out_ += pretty() ? ": " : ":";
        }
        return {};
      case frame_kind::pairs:
        if (f.done % 2 == 0) {
          if (f.done != 0) out_ += ',';
          if (pretty()) newline();
          out_ += '[';
        } else {
          out_ += ',';
          if (pretty()) out_ += ' ';
        }
        return {};
      case frame_kind::key_text:
        return {};
    }
    return {};
  }

  /// Counts the item just written in its frame and closes every frame that is complete.
  /// Returns true when the top-level value is complete.
  bool finish_item() {
    for (;;) {
      if (stack_.empty()) return true;
      frame& f = stack_.back();
      ++f.done;
      if (f.kind == frame_kind::pairs && f.done % 2 == 0) out_ += ']';
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
          if (pretty()) newline();
          out_ += ']';
          break;
        case frame_kind::object:
          if (pretty()) newline();
          out_ += '}';
          break;
        case frame_kind::pairs:
          if (pretty()) newline();
          out_ += "]}";
          break;
        case frame_kind::key_text: {
          --compact_;
          // A key whose JSON form is a string (a binary, a timestamp) is used as it is;
          // any other key becomes its JSON text, as a string.
          std::string& o = out_.flushed();
          if (o[closed.start] != '"') {
            const std::string text = o.substr(closed.start);
            o.resize(closed.start);
            append_json_string(o, text);
          }
          // The object's key is done: continue with the object frame (loop), which counts it.
          break;
        }
      }
    }
  }

  template <class T>
  void put_int(T v) {
    char* q = out_.room(24);
    out_.advance(std::to_chars(q, q + 24, v).ptr);
  }

  /// The shortest text that reads back as `d` (std::to_chars' text, written by
  /// detail::format_json_float), with ".0" after an integral one, so that it reads back as a
  /// float, not an integer.
  void put_double(double d) {
    char* const q = out_.room(detail::float_text_room);
    out_.advance(detail::format_json_float(q, d));
  }

  /// Writes a short string of printable ASCII without '"' or '\\' as it is (copying while
  /// checking); false, writing nothing, for any other string.
  bool put_plain_string(std::string_view s) {
    if (s.size() > 256) return false;
    char* const q = out_.room(s.size() + 2);
    char* o = q;
    *o++ = '"';
    bool plain = true;
    for (const char c : s) {
      plain &= plain_ascii[static_cast<unsigned char>(c)];
      *o++ = c;
    }
    *o++ = '"';
    if (plain) out_.advance(o);
    return plain;
  }

  error write_float64(double d, std::size_t at) {
    if (!r_.ok()) return r_.error();
    if (std::isfinite(d)) {
      put_double(d);
      return {};
    }
    if (!o_.lossless) return {errc::out_of_range, at};
    out_ += pretty() ? "{\"$float64\": " : "{\"$float64\":";
    append_special<double, std::uint64_t>(out_.flushed(), d);
    out_ += '}';
    return {};
  }

  error write_float32(float f, std::size_t at) {
    if (!r_.ok()) return r_.error();
    if (!o_.lossless) {
      if (!std::isfinite(f)) return {errc::out_of_range, at};
      detail::append_float(out_.flushed(), f);
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

  error write_str(std::string_view s, std::size_t at) {
    if (!r_.ok()) return r_.error();
    if (put_plain_string(s)) return {};
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

  void write_bin(std::span<const std::byte> b) {
    if (!r_.ok()) return;
    if (o_.lossless) out_ += pretty() ? "{\"$bin\": " : "{\"$bin\":";
    out_ += '"';
    append_base64(out_.flushed(), b);
    out_ += '"';
    if (o_.lossless) out_ += '}';
  }

  void write_ext(const ext_view& x) {
    if (!r_.ok()) return;
    if (o_.lossless) {
      out_ += pretty() ? "{\"$ext\": [" : "{\"$ext\":[";
      put_int(int{x.type});
      out_ += pretty() ? ", \"" : ",\"";
      append_base64(out_.flushed(), x.data);
      out_ += "\"]}";
    } else {
      out_ += pretty() ? "{\"type\": " : "{\"type\":";
      put_int(int{x.type});
      out_ += pretty() ? ", \"data\": \"" : ",\"data\":\"";
      append_base64(out_.flushed(), x.data);
      out_ += "\"}";
    }
  }

  /// Lossless mode: true when the `n` entries ahead are all valid UTF-8 strings that do not
  /// start with '$', so that the map can be a plain JSON object. Looks ahead on a copy of
  /// the reader; each value is skipped (iteratively). This costs one extra pass over a map's
  /// contents per map level, bounded by max_depth passes over the input.
  bool keys_are_plain(std::uint32_t n) {
    reader look = r_;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (look.peek() != type::str) return false;
      const std::string_view k = look.read_str();
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
};

}  // namespace

result<void> to_json(reader& r, std::string& out, const to_json_options& options) {
  converter c(r, out, options);
  result<void> res = c.run();
  c.finish();
  return res;
}

result<std::size_t> to_json_lines(reader& r, std::string& out, const to_json_options& options,
                                  std::size_t stop_after) {
  // One converter (and one staging area) for every value.
  const std::size_t start = out.size();
  std::size_t values = 0;
  converter c(r, out, options);
  while (!r.at_end()) {
    if (auto res = c.run(); !res) {
      c.finish();
      return res.error();
    }
    c.end_line();
    ++values;
    if (c.size() - start >= stop_after) break;
  }
  c.finish();
  return values;
}

result<std::string> to_json(std::span<const std::byte> msgpack, const to_json_options& options,
                            const limits& lim) {
  reader r(msgpack, lim);
  std::string out;
  out.reserve(msgpack.size() * 2);
  if (auto res = to_json_lines(r, out, options); !res) return res.error();
  return out;
}

}  // namespace mpk::inline v0
