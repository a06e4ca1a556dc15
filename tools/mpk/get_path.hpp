// The paths of `mpk get`: a small jq-style subset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mpk_tool {

/// One step of a path: `.key` / `."key"`, `[n]` (negative: from the end), `[]` (every element
/// of an array, every value of a map).
struct path_step {
  enum class kind_t { key, index, each } kind = kind_t::key;
  std::string name;        // kind_t::key
  std::int64_t index = 0;  // kind_t::index
};

/// Parses `text` (".", or steps one after another: `.items[0].sku`, `."a b"[-1]`, `.[]`)
/// into `steps` (empty for "."). False, with `why` ("at character N: ..."), when it is not
/// such a path. A quoted key takes the escapes of a JSON string except \u (\" \\ \/ \b \f \n
/// \r \t).
bool parse_path(std::string_view text, std::vector<path_step>& steps, std::string& why);

}  // namespace mpk_tool
