// mpk validate: the reader's skip() with the limits of the flags; --utf8 walks the values to
// check every string.
#include <mpk/unicode.hpp>

#include "tool.hpp"

namespace mpk_tool {

int run_validate(const validate_args& a) {
  std::vector<std::byte> in;
  std::string why;
  if (!read_input(a.file, in, why)) {
    std::fprintf(stderr, "mpk: %s\n", why.c_str());
    return exit_bad_input;
  }
  mpk::limits lim;
  lim.max_depth = a.max_depth;
  if (a.max_len >= 0) {
    const auto n = static_cast<std::uint32_t>(a.max_len);
    lim.max_str_len = lim.max_bin_len = lim.max_ext_len = n;
    lim.max_array_len = lim.max_map_len = n;
  }
  const std::span<const std::byte> input(in.data(), in.size());
  mpk::reader r(input, lim);
  progress bar(in.size());
  while (!r.at_end()) {
    if (a.utf8) {
      const mpk::error e = walk(r, input, [](const item& it) -> mpk::error {
        if (it.family == mpk::type::str && !mpk::is_valid_utf8(it.str))
          return {mpk::errc::invalid_utf8, it.offset};
        return {};
      });
      if (e) {
        report(e);
        return exit_bad_input;
      }
    } else {
      r.skip();
      if (!r.ok()) {
        report(r.error());
        return exit_bad_input;
      }
    }
    bar.update(r.position());
  }
  return exit_ok;
}

}  // namespace mpk_tool
