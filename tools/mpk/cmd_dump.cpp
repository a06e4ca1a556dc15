// mpk dump: an annotated listing of every value.
//
//     000000  82                         fixmap(2)
//     000001  a3 66 6f 6f                  fixstr(3) "foo"
//     000005  01                           positive fixint 1
//
// Offsets are decimal, like the offsets of every mpk error message. At most 8 raw bytes
// are shown ("…" marks a cut); strings show at most 32 bytes of text, binaries and
// extensions 16 bytes of hex, the byte count being in the format column.
#include <mpk/format.hpp>
#include <mpk/json.hpp>
#include <mpk/unicode.hpp>

#include <charconv>
#include <cmath>
#include <cstring>

#include "tool.hpp"

namespace mpk_tool {

namespace {

constexpr std::size_t max_raw_bytes = 8;
constexpr std::size_t max_text_bytes = 32;
constexpr std::size_t max_hex_bytes = 16;
constexpr std::size_t raw_column = max_raw_bytes * 3 + 3;  // "xx " x 8, then " …"

void append_hex(std::string& out, std::span<const std::byte> b, std::size_t max) {
  constexpr char digits[] = "0123456789abcdef";
  const std::size_t n = b.size() < max ? b.size() : max;
  for (std::size_t k = 0; k < n; ++k) {
    if (k != 0) out += ' ';
    const auto v = std::to_integer<unsigned>(b[k]);
    out += digits[v >> 4];
    out += digits[v & 15];
  }
  if (b.size() > max) out += " …";
}

template <class F>
void append_number(std::string& out, F v) {
  if (std::isnan(v)) {
    out += std::signbit(v) ? "-nan" : "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
  const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

/// A string's text in quotes: printable ASCII and valid UTF-8 as they are, '"' and '\\'
/// escaped, other bytes as \xHH; cut after 32 bytes (at a character boundary) with "…".
void append_text(std::string& out, std::string_view s) {
  std::size_t n = s.size();
  const bool cut = n > max_text_bytes;
  if (cut) {
    n = max_text_bytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80)
      --n;  // do not split a UTF-8 sequence
  }
  const std::string_view shown = s.substr(0, n);
  const bool utf8 = mpk::is_valid_utf8(shown);
  out += '"';
  for (char ch : shown) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if ((c >= 0x20 && c < 0x7f) || (c >= 0x80 && utf8)) {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  out += cut ? "…\"" : "\"";
}

/// Display width of `s` (UTF-8: continuation bytes take no column).
std::size_t columns(std::string_view s) {
  std::size_t w = 0;
  for (char c : s)
    w += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return w;
}

void describe(std::string& out, const mpk::visit_event& e) {
  const mpk::marker_info& m = mpk::marker_table[std::to_integer<std::uint8_t>(e.bytes[0])];
  out += m.format_name;
  switch (e.kind) {
    case mpk::visit_kind::nil:
    case mpk::visit_kind::boolean:  // the format name says it: "true", "false"
    case mpk::visit_kind::array_end:
    case mpk::visit_kind::map_end:
      return;
    case mpk::visit_kind::uint:
      out += ' ';
      out += std::to_string(e.u);
      return;
    case mpk::visit_kind::sint:
      out += ' ';
      out += std::to_string(e.i);
      return;
    case mpk::visit_kind::float32:
      out += ' ';
      append_number(out, e.f32);
      return;
    case mpk::visit_kind::float64:
      out += ' ';
      append_number(out, e.f64);
      return;
    case mpk::visit_kind::array_begin:
    case mpk::visit_kind::map_begin:
      out += '(' + std::to_string(e.count) + ')';
      return;
    case mpk::visit_kind::str:
      out += '(' + std::to_string(e.str.size()) + ") ";
      append_text(out, e.str);
      return;
    case mpk::visit_kind::bin:
      out += '(' + std::to_string(e.bin.size()) + ')';
      if (!e.bin.empty()) out += ' ';
      append_hex(out, e.bin, max_hex_bytes);
      return;
    case mpk::visit_kind::ext:
      out += '(' + std::to_string(e.ext.data.size()) + ") ext " + std::to_string(int{e.ext.type});
      if (e.ext.type == -1) {
        out += " timestamp";
        // The library's plain JSON form of a valid timestamp is its RFC 3339 text.
        mpk::reader one(e.bytes);
        std::string json;
        if (mpk::to_json(one, json) && json.size() > 2 && json.front() == '"') {
          out += ' ';
          out.append(json, 1, json.size() - 2);
          return;
        }
        out += " (invalid)";
      }
      if (!e.ext.data.empty()) out += ' ';
      append_hex(out, e.ext.data, max_hex_bytes);
      return;
  }
}

}  // namespace

int run_dump(const input_args& a) {
  input_stream in(a, mpk::limits{});
  if (!in.open()) return exit_bad_input;
  std::string out;
  std::string raw;
  const auto line = [&](const mpk::visit_event& e, std::size_t at) -> mpk::error {
    if (e.kind == mpk::visit_kind::array_end || e.kind == mpk::visit_kind::map_end) return {};
    char offset[24];
    std::snprintf(offset, sizeof offset, "%06zu  ", at + e.offset);
    out += offset;
    raw.clear();
    append_hex(raw, e.bytes, max_raw_bytes);
    out += raw;
    out.append(raw_column - columns(raw) + 2 * std::size_t{e.depth}, ' ');
    describe(out, e);
    out += '\n';
    if (out.size() >= (1u << 20)) {
      if (!write_out(out)) return {mpk::errc::io_error, at + e.offset};
      out.clear();
    }
    return {};
  };
  const auto after_value = [&]() -> mpk::error {
    if (in.per_value()) {
      if (!write_out(out) || std::fflush(stdout) != 0) return {mpk::errc::io_error, 0};
      out.clear();
    }
    return {};
  };
  return for_each_run(in, [&](const input_run& run) -> mpk::error {
    const mpk::error e = visit_values(run.bytes, run.offset, mpk::limits{}, line, after_value);
    if (!write_out(out)) return {mpk::errc::io_error, 0};
    out.clear();
    return e;
  });
}

}  // namespace mpk_tool
