// bench/support/peers/nlohmann.hpp - nlohmann::json's MessagePack functions (Debian
// nlohmann-json3-dev) for the benchmarks: writing into a reused byte vector, reading one
// value or a stream of top-level values without exceptions.
//
// nlohmann::json is a DOM: every read builds a json tree (strings and binaries copied into
// it), every write goes through one. Its bytes differ from mpk's where the spec leaves a
// choice: a double that float32 holds exactly is written as float32 (mpk writes float64).
// It does not check UTF-8 when it reads MessagePack.
//
//     std::vector<std::uint8_t> out;
//     mpk_bench::peers::nlohmann_msgpack::write({{"a", 1}}, out);   // out: 81 a1 61 01
//     nlohmann::json j;
//     bool ok = mpk_bench::peers::nlohmann_msgpack::read(bytes_of(out), j);
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

namespace mpk_bench::peers::nlohmann_msgpack {

using json = nlohmann::json;

/// "nlohmann::json 3.11.2".
inline std::string version() {
  return "nlohmann::json " + std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
         std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
         std::to_string(NLOHMANN_JSON_VERSION_PATCH);
}

/// Replaces the contents of `out` with the MessagePack of `j` (json::to_msgpack appends
/// through push_back; the vector keeps its capacity across calls). Throws only
/// std::bad_alloc.
inline void write(const json& j, std::vector<std::uint8_t>& out) {
  out.clear();
  json::to_msgpack(j, out);
}

/// Appends the MessagePack of `j` to `out` (for streams of top-level values).
inline void append(const json& j, std::vector<std::uint8_t>& out) {
  json::to_msgpack(j, out);
}

/// Reads `in` as exactly one value into `out`. Returns false (and `out` is discarded) when
/// the bytes are not one valid value with nothing after it. No exceptions but bad_alloc.
inline bool read(std::span<const std::byte> in, json& out) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(in.data());
  out = json::from_msgpack(p, p + in.size(), /*strict=*/true, /*allow_exceptions=*/false);
  return !out.is_discarded();
}

/// An input iterator over bytes that counts how many were read: from_msgpack() reads one
/// value and does not say where it ended, so a stream of top-level values is read through
/// this. The count lives outside the iterator (the library copies iterators).
struct counting_iterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = std::uint8_t;
  using difference_type = std::ptrdiff_t;
  using pointer = const std::uint8_t*;
  using reference = const std::uint8_t&;

  const std::uint8_t* p = nullptr;
  std::size_t* consumed = nullptr;

  reference operator*() const noexcept { return *p; }
  counting_iterator& operator++() noexcept {
    ++p;
    ++*consumed;
    return *this;
  }
  counting_iterator operator++(int) noexcept {
    counting_iterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const counting_iterator& o) const noexcept { return p == o.p; }
  bool operator!=(const counting_iterator& o) const noexcept { return p != o.p; }
};

/// Reads the value at `offset` in `in` into `out` and advances `offset` past it. Returns
/// false (and `out` is discarded) when the bytes there are not one complete valid value.
inline bool read_next(std::span<const std::byte> in, std::size_t& offset, json& out) {
  const auto* base = reinterpret_cast<const std::uint8_t*>(in.data());
  std::size_t consumed = 0;
  counting_iterator first{base + offset, &consumed};
  counting_iterator last{base + in.size(), &consumed};
  out = json::from_msgpack(first, last, /*strict=*/false, /*allow_exceptions=*/false);
  if (out.is_discarded()) return false;
  offset += consumed;
  return true;
}

/// Runs json::sax_parse (MessagePack) on the value at `offset` in `in`, with `sax` (a class
/// with the callbacks of nlohmann::json_sax<json>), and advances `offset` past it. Returns
/// false when the bytes are invalid or truncated or a callback returned false.
template <class Sax>
bool sax_next(std::span<const std::byte> in, std::size_t& offset, Sax& sax) {
  const auto* base = reinterpret_cast<const std::uint8_t*>(in.data());
  std::size_t consumed = 0;
  counting_iterator first{base + offset, &consumed};
  counting_iterator last{base + in.size(), &consumed};
  if (!json::sax_parse(first, last, &sax, json::input_format_t::msgpack, /*strict=*/false))
    return false;
  offset += consumed;
  return true;
}

}  // namespace mpk_bench::peers::nlohmann_msgpack
