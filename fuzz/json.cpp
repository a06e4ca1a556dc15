// fuzz/json.cpp - MessagePack <-> JSON, both ways.
//
// The input is taken as MessagePack (every value, one after another) and as JSON text.
// Properties:
// - MessagePack -> JSON, lossless: accepts exactly what the reader accepts, with the same
//   errc and offset; from_json(lossless) gives back the same values (integers by value), and
//   converting those again gives the same JSON text;
// - MessagePack -> JSON, plain: when it succeeds, the JSON reads back, and converting that
//   gives the same JSON text again (plain mode may lose types, never stability);
// - JSON -> MessagePack (plain and lossless): no crash; when it succeeds, the MessagePack
//   converts to JSON and back to the same bytes.
#include <mpk/buffer.hpp>
#include <mpk/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"

namespace {

using mpk_fuzz::token;

/// Every value of `bytes` through the generic walk, integers filed by value; the first error.
mpk::error tokens_of(std::span<const std::byte> bytes, std::vector<token>& out) {
  mpk_fuzz::cursor r{bytes};
  while (!r.at_end()) {
    if (const mpk::error e = mpk_fuzz::walk_value(r, mpk::limits{}, [&](const token& t) {
          token v = t;
          if (v.family == mpk::type::sint && !v.negative) v.family = mpk::type::uint;
          out.push_back(v);
        }))
      return e;
  }
  return {};
}

bool same_bytes(const mpk::buffer& a, const mpk::buffer& b) {
  return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

void msgpack_to_json(std::span<const std::byte> input) {
  std::vector<token> original;
  const mpk::error reader_error = tokens_of(input, original);

  const mpk::result<std::string> lossless = mpk::to_json(input, {.lossless = true});
  MPK_FUZZ_CHECK(lossless.error() == reader_error);
  if (lossless) {
    mpk::buffer back;
    std::string why;
    const auto n = mpk::from_json(*lossless, back, {.lossless = true}, &why);
    MPK_FUZZ_CHECK(n.has_value());
    std::vector<token> again;
    MPK_FUZZ_CHECK(!tokens_of(back.bytes(), again));
    MPK_FUZZ_CHECK(again == original);
    const mpk::result<std::string> text2 = mpk::to_json(back.bytes(), {.lossless = true});
    MPK_FUZZ_CHECK(text2.has_value() && *text2 == *lossless);
  }

  const mpk::result<std::string> plain = mpk::to_json(input);
  if (reader_error) MPK_FUZZ_CHECK(!plain.has_value());
  if (plain) {
    mpk::buffer back;
    MPK_FUZZ_CHECK(mpk::from_json(*plain, back).has_value());
    const mpk::result<std::string> text2 = mpk::to_json(back.bytes());
    MPK_FUZZ_CHECK(text2.has_value() && *text2 == *plain);
  }
}

void json_to_msgpack(std::string_view text, bool lossless) {
  mpk::buffer out;
  const auto n = mpk::from_json(text, out, {.lossless = lossless});
  if (!n) return;
  const mpk::result<std::string> json = mpk::to_json(out.bytes(), {.lossless = lossless});
  MPK_FUZZ_CHECK(json.has_value());
  mpk::buffer again;
  const auto m = mpk::from_json(*json, again, {.lossless = lossless});
  MPK_FUZZ_CHECK(m.has_value() && *m == *n);
  MPK_FUZZ_CHECK(same_bytes(out, again));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk::as_bytes(std::span(data, size));
  mpk_fuzz::current_input = input;
  msgpack_to_json(input);
  const std::string text(reinterpret_cast<const char*>(data), size);
  json_to_msgpack(text, false);
  json_to_msgpack(text, true);
  return 0;
}
