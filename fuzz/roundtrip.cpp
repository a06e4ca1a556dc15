// fuzz/roundtrip.cpp - decode -> encode with mpk::writer -> decode -> encode.
//
// The values of the input that the reader accepts (up to the first error) are decoded
// generically, encoded again with mpk::writer (smallest forms; float32 stays float32), and
// the result decoded and encoded once more. Properties:
// - the encoding decodes, with the same limits, to the same values (integers compared by
//   value: the writer puts a non-negative int8..int64 into the uint family);
// - the second encoding equals the first, byte for byte (encoding is stable);
// - the encoding is never longer than the input it came from (smallest forms);
// - the writer's buffer holds at most twice its size + 64 bytes (geometric growth).
#include <mpk/buffer.hpp>
#include <mpk/writer.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_support.hpp"

namespace {

using mpk_fuzz::token;

/// Decodes every value up to the first error (or the end); returns the bytes consumed.
std::size_t decode_all(std::span<const std::byte> input, const mpk::limits& lim,
                       std::vector<token>& out) {
  mpk_fuzz::cursor r{input};
  std::size_t good = 0;
  while (!r.at_end()) {
    const std::size_t before = out.size();
    if (mpk_fuzz::walk_value(r, lim, [&](const token& t) { out.push_back(t); })) {
      out.resize(before);  // drop the value that failed half way
      break;
    }
    good = r.position();
  }
  return good;
}

void encode(const std::vector<token>& tokens, mpk::buffer& buf) {
  mpk::writer w(buf);
  for (const token& t : tokens) {
    switch (t.family) {
      case mpk::type::nil:
        w.write_nil();
        break;
      case mpk::type::boolean:
        w.write_bool(t.boolean);
        break;
      case mpk::type::uint:
      case mpk::type::sint:
        if (t.negative)
          w.write_signed(t.i);
        else
          w.write_unsigned(t.u);
        break;
      case mpk::type::float32:
        w.write_float32(std::bit_cast<float>(static_cast<std::uint32_t>(t.float_bits)));
        break;
      case mpk::type::float64:
        w.write_float64(std::bit_cast<double>(t.float_bits));
        break;
      case mpk::type::str:
        w.write_str(t.bytes);
        break;
      case mpk::type::bin:
        w.write_bin({reinterpret_cast<const std::byte*>(t.bytes.data()), t.bytes.size()});
        break;
      case mpk::type::ext:
        w.write_ext(t.ext_type,
                    {reinterpret_cast<const std::byte*>(t.bytes.data()), t.bytes.size()});
        break;
      case mpk::type::array:
        w.begin_array(t.count);
        break;
      case mpk::type::map:
        w.begin_map(t.count);
        break;
      case mpk::type::invalid:
        MPK_FUZZ_CHECK(false);
    }
  }
  MPK_FUZZ_CHECK(w.ok());
  MPK_FUZZ_CHECK(buf.capacity() <= 2 * buf.size() + 64);
}

/// Equal values: the same tokens once integers are compared by value, not by family.
bool same_values(const std::vector<token>& a, const std::vector<token>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    token x = a[k], y = b[k];
    if (x.family == mpk::type::sint) x.family = x.negative ? mpk::type::sint : mpk::type::uint;
    if (y.family == mpk::type::sint) y.family = y.negative ? mpk::type::sint : mpk::type::uint;
    // Compare payload bytes by content: the views point into different buffers.
    const std::string_view xb = x.bytes, yb = y.bytes;
    x.bytes = y.bytes = {};
    if (!(x == y) || xb != yb) return false;
  }
  return true;
}

void check_with(std::span<const std::byte> input, const mpk::limits& lim) {
  std::vector<token> first;
  const std::size_t consumed = decode_all(input, lim, first);

  mpk::buffer enc1;
  encode(first, enc1);
  MPK_FUZZ_CHECK(enc1.size() <= consumed);

  std::vector<token> second;
  MPK_FUZZ_CHECK(decode_all(enc1.bytes(), lim, second) == enc1.size());
  MPK_FUZZ_CHECK(same_values(first, second));

  mpk::buffer enc2;
  encode(second, enc2);
  MPK_FUZZ_CHECK(enc2.size() == enc1.size());
  MPK_FUZZ_CHECK(enc1.size() == 0 || std::memcmp(enc1.data(), enc2.data(), enc1.size()) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk::as_bytes(std::span(data, size));
  mpk_fuzz::current_input = input;
  check_with(input, mpk::limits{});
  check_with(input, mpk_fuzz::tiny_limits);
  return 0;
}
