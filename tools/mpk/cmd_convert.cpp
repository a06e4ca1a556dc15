// mpk to-json / mpk from-json.
#include <mpk/buffer.hpp>
#include <mpk/json.hpp>

#include "tool.hpp"

namespace mpk_tool {

int run_to_json(const to_json_args& a) {
  std::vector<std::byte> in;
  mpk::error records_error;  // --records: an error after the values expanded before it
  if (!load_input(a.file, a.records, in, records_error)) return exit_bad_input;
  mpk::reader r(std::span<const std::byte>(in.data(), in.size()));
  const mpk::to_json_options options{.lossless = a.lossless, .pretty = a.pretty};
  progress bar(in.size());
  std::string out;
  while (!r.at_end()) {
    // About 1 MiB of JSON Lines at a time.
    const auto res = mpk::to_json_lines(r, out, options, std::size_t{1} << 20);
    if (!res) {
      // What converted before the error is written, then the error.
      if (!write_out(out)) return exit_bad_input;
      std::fflush(stdout);
      report(res.error());
      return exit_bad_input;
    }
    if (!write_out(out)) return exit_bad_input;
    out.clear();
    bar.update(r.position());
  }
  if (records_error) {
    if (write_out(out)) std::fflush(stdout);
    report(records_error);
    return exit_bad_input;
  }
  return write_out(out) && std::fflush(stdout) == 0 ? exit_ok : exit_bad_input;
}

int run_from_json(const from_json_args& a) {
  std::vector<std::byte> in;
  std::string why;
  if (!read_input(a.file, in, why)) {
    std::fprintf(stderr, "mpk: %s\n", why.c_str());
    return exit_bad_input;
  }
  // simdjson parses the whole input at once: the line shows 0% until the end.
  progress bar(in.size());
  bar.update(0);
  mpk::buffer out;
  const auto res =
      mpk::from_json(std::string_view(reinterpret_cast<const char*>(in.data()), in.size()), out,
                     {.lossless = a.lossless}, &why);
  if (!write_out(std::string_view(reinterpret_cast<const char*>(out.data()), out.size())))
    return exit_bad_input;
  std::fflush(stdout);
  if (!res) {
    std::fprintf(stderr, "offset %zu: %s\n", res.error().offset, why.c_str());
    return exit_bad_input;
  }
  return exit_ok;
}

}  // namespace mpk_tool
