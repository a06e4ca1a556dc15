// mpk validate: the stream decoder's structural check (the reader's skip()) with the limits
// of the flags; unless --no-utf8, a walk of each value checks every string.
#include <mpk/unicode.hpp>

#include "tool.hpp"

namespace mpk_tool {

int run_validate(const validate_args& a) {
  mpk::limits lim;
  lim.max_depth = a.max_depth;
  if (a.max_len >= 0) {
    const auto n = static_cast<std::uint32_t>(a.max_len);
    lim.max_str_len = lim.max_bin_len = lim.max_ext_len = n;
    lim.max_array_len = lim.max_map_len = n;
  }
  input_stream in(a.in, lim);
  if (!in.open()) return exit_bad_input;
  return for_each_run(in, [&](const input_run& run) -> mpk::error {
    mpk::reader r(run.bytes, {.limits = lim});
    if (!a.utf8) {
      // The decoder has checked complete values already; an unfinished one is read here.
      if (!run.unfinished) return {};
      while (!r.at_end() && r.ok())
        r.skip();
      return r.ok() ? mpk::error{} : mpk::error{r.error().code, run.offset + r.error().offset};
    }
    return visit_values(
        run.bytes, run.offset, lim,
        [](const mpk::visit_event& e, std::size_t at) -> mpk::error {
          if (e.kind == mpk::visit_kind::str && !mpk::is_valid_utf8(e.str))
            return {mpk::errc::invalid_utf8, at + e.offset};
          return {};
        },
        []() -> mpk::error { return {}; });
  });
}

}  // namespace mpk_tool
