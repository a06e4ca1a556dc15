// mpk stats: what a MessagePack input holds, in numbers.
#include <mpk/format.hpp>

#include <array>

#include "tool.hpp"

namespace mpk_tool {

namespace {

struct largest {
  std::uint64_t size = 0;
  std::size_t offset = 0;
  bool seen = false;
  void note(std::uint64_t n, std::size_t at) {
    if (!seen || n > size) {
      size = n;
      offset = at;
      seen = true;
    }
  }
};

void line(std::string& out, const char* what, const largest& l, const char* unit) {
  char buf[128];
  if (l.seen)
    std::snprintf(buf, sizeof buf, "largest %-6s %llu %s at offset %zu\n", what,
                  static_cast<unsigned long long>(l.size), unit, l.offset);
  else
    std::snprintf(buf, sizeof buf, "largest %-6s none\n", what);
  out += buf;
}

}  // namespace

int run_stats(const input_args& a) {
  input_stream in(a, mpk::limits{});
  if (!in.open()) return exit_bad_input;
  std::array<std::uint64_t, 256> by_marker{};
  std::uint64_t top = 0, all = 0;
  std::size_t bytes = 0;
  std::uint32_t max_depth = 0;  // containers nested (a top-level array is depth 1)
  largest str, bin, ext, array, map;
  const int status = for_each_run(in, [&](const input_run& run) -> mpk::error {
    const auto count = [&](const mpk::visit_event& e, std::size_t at) -> mpk::error {
      if (e.kind == mpk::visit_kind::array_end || e.kind == mpk::visit_kind::map_end) return {};
      ++by_marker[std::to_integer<std::uint8_t>(e.bytes[0])];
      ++all;
      const std::size_t offset = at + e.offset;
      switch (e.kind) {
        case mpk::visit_kind::str:
          str.note(e.str.size(), offset);
          break;
        case mpk::visit_kind::bin:
          bin.note(e.bin.size(), offset);
          break;
        case mpk::visit_kind::ext:
          ext.note(e.ext.data.size(), offset);
          break;
        case mpk::visit_kind::array_begin:
        case mpk::visit_kind::map_begin:
          (e.kind == mpk::visit_kind::map_begin ? map : array).note(e.count, offset);
          if (e.depth + 1 > max_depth) max_depth = e.depth + 1;
          break;
        default:
          break;
      }
      return {};
    };
    const mpk::error e =
        visit_values(run.bytes, run.offset, mpk::limits{}, count, [&]() -> mpk::error {
          ++top;
          return {};
        });
    if (e) return e;
    bytes = run.offset + run.bytes.size();
    return {};
  });
  if (status != exit_ok) return status;

  std::string out;
  char buf[128];
  std::snprintf(buf, sizeof buf, "values         %llu top-level, %llu in all\n",
                static_cast<unsigned long long>(top), static_cast<unsigned long long>(all));
  out += buf;
  std::snprintf(buf, sizeof buf, "bytes          %zu\n", bytes);
  out += buf;
  std::snprintf(buf, sizeof buf, "max depth      %u\n", max_depth);
  out += buf;
  line(out, "str", str, "bytes");
  line(out, "bin", bin, "bytes");
  line(out, "ext", ext, "bytes");
  line(out, "array", array, "elements");
  line(out, "map", map, "entries");
  out += "formats\n";
  // One line per format name, in marker order (fixmap covers 0x80..0x8f, and so on).
  for (unsigned m = 0; m < 256; ++m) {
    const std::string_view name = mpk::marker_table[m].format_name;
    if (m != 0 && mpk::marker_table[m - 1].format_name == name) continue;
    std::uint64_t n = 0;
    for (unsigned k = m; k < 256 && mpk::marker_table[k].format_name == name; ++k)
      n += by_marker[k];
    if (n == 0) continue;
    std::snprintf(buf, sizeof buf, "  %-16s %llu\n", std::string(name).c_str(),
                  static_cast<unsigned long long>(n));
    out += buf;
  }
  return write_out(out) && std::fflush(stdout) == 0 ? exit_ok : exit_bad_input;
}

}  // namespace mpk_tool
