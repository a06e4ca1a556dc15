// Parsing the paths of `mpk get` (get_path.hpp).
#include "get_path.hpp"

#include <charconv>

namespace mpk_tool {

namespace {

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}

}  // namespace

bool parse_path(std::string_view text, std::vector<path_step>& steps, std::string& why) {
  steps.clear();
  std::size_t i = 0;
  auto fail = [&](const std::string& what) {
    why = "bad path '" + std::string(text) + "' at character " + std::to_string(i + 1) + ": " +
          what + " (expected .key, .\"key\", [n], [-n] or [], e.g. .items[].sku)";
    return false;
  };
  if (text.empty() || text[0] != '.') return fail("a path starts with '.'");
  if (text == ".") return true;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '[') {
      ++i;
      path_step s;
      if (i < text.size() && text[i] == ']') {
        s.kind = path_step::kind_t::each;
        ++i;
      } else {
        std::size_t end = text.find(']', i);
        if (end == std::string_view::npos) return fail("no ']'");
        const std::string_view num = text.substr(i, end - i);
        const auto r = std::from_chars(num.data(), num.data() + num.size(), s.index);
        if (num.empty() || r.ec != std::errc{} || r.ptr != num.data() + num.size())
          return fail("not an integer index");
        s.kind = path_step::kind_t::index;
        i = end + 1;
      }
      steps.push_back(std::move(s));
      continue;
    }
    if (c != '.') return fail("'.' or '[' expected");
    ++i;
    if (i < text.size() && text[i] == '[') continue;  // .[0], .[]: the same as [0], []
    path_step s;
    if (i < text.size() && text[i] == '"') {
      ++i;
      for (;;) {
        if (i >= text.size()) return fail("unterminated quoted key");
        const char k = text[i++];
        if (k == '"') break;
        if (k != '\\') {
          s.name += k;
          continue;
        }
        if (i >= text.size()) return fail("unterminated quoted key");
        switch (const char e = text[i++]) {
          case '"':
          case '\\':
          case '/':
            s.name += e;
            break;
          case 'b':
            s.name += '\b';
            break;
          case 'f':
            s.name += '\f';
            break;
          case 'n':
            s.name += '\n';
            break;
          case 'r':
            s.name += '\r';
            break;
          case 't':
            s.name += '\t';
            break;
          default:
            --i;
            return fail("unknown escape");
        }
      }
    } else {
      if (i >= text.size() || !ident_start(text[i]))
        return fail("a key name (letters, digits, '_'; quote others)");
      const std::size_t from = i;
      while (i < text.size() && ident_char(text[i]))
        ++i;
      s.name = std::string(text.substr(from, i - from));
    }
    steps.push_back(std::move(s));
  }
  return true;
}

}  // namespace mpk_tool
