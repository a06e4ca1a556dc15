// --records / --structures FILE: msgpackr records in the input, expanded to plain MessagePack
// before a command reads it.
#include <mpk/ext/records.hpp>

#include <optional>

#include "tool.hpp"

namespace mpk_tool {

bool expand_records(const records_args& a, std::vector<std::byte>& in, mpk::error& pending,
                    std::string& why) {
  if (!a.records && a.structures.empty()) return true;
  std::optional<mpk::shared_structures> shared;
  if (!a.structures.empty()) {
    std::vector<std::byte> bytes;
    if (!read_input(a.structures, bytes, why)) return false;
    auto loaded =
        mpk::shared_structures::load(std::span<const std::byte>(bytes.data(), bytes.size()));
    if (!loaded) {
      why = a.structures + ": " + loaded.error().to_string() +
            " (expected msgpackr's pack(structures): an array of arrays of str)";
      return false;
    }
    shared = std::move(*loaded);
  }
  mpk::records_decoder dec(
      {.mode = mpk::records_mode::sequential, .shared = shared ? &*shared : nullptr});
  const std::span<const std::byte> input(in.data(), in.size());
  mpk::buffer out;
  std::size_t at = 0;
  while (at < input.size()) {
    const std::size_t before = out.size();
    auto end = dec.expand(input, at, out);
    if (!end) {
      pending = end.error();
      out.truncate(before);  // the values before the error only
      break;
    }
    at = *end;
  }
  in.assign(out.data(), out.data() + out.size());
  return true;
}

bool load_input(const std::string& file, const records_args& records, std::vector<std::byte>& in,
                mpk::error& records_error) {
  std::string why;
  if (read_input(file, in, why) && expand_records(records, in, records_error, why)) return true;
  std::fprintf(stderr, "mpk: %s\n", why.c_str());
  return false;
}

}  // namespace mpk_tool
