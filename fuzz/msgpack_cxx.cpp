// fuzz/msgpack_cxx.cpp - differential: mpk::reader against msgpack-cxx (msgpack::unpack).
//
// Both decode the input value after value, with equal limits, until the end or the first
// error. Properties:
// - the same number of values decode, and they are equal (by value: msgpack-cxx files an
//   integer under POSITIVE_INTEGER or NEGATIVE_INTEGER by its sign, whatever its format);
// - both reject at the same value, or neither rejects.
//
// Legitimate differences, handled here and listed in docs/security.md:
// 1. msgpack-cxx's ext limit counts the type byte with the data: it gets max_ext_len + 1.
// 2. msgpack-cxx checks str/bin/ext limits only on values it copies: every value is copied
//    here (the reference function says no), so that it checks them all.
// 3. msgpack-cxx allocates `count * sizeof(object)` for a container before it knows whether
//    the input holds that many items (mpk checks against the bytes left first). The
//    container limits are kept small here (1024) so that its memory stays bounded; memory is
//    not compared.
// 4. The reason for a rejection is not compared: msgpack-cxx reports an exceeded limit only
//    once the whole value is in the input, and reports truncation otherwise, where mpk
//    checks the limit on the header first.
#include <msgpack.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "fuzz_support.hpp"

namespace {

using mpk_fuzz::token;

constexpr mpk::limits lim{.max_depth = 64,
                          .max_str_len = 4096,
                          .max_bin_len = 4096,
                          .max_ext_len = 4096,
                          .max_array_len = 1024,
                          .max_map_len = 1024};

/// Flattens a msgpack-cxx object into tokens, in document order, without recursion.
void flatten(const msgpack::object& root, std::vector<token>& out) {
  std::vector<const msgpack::object*> todo{&root};
  while (!todo.empty()) {
    const msgpack::object& o = *todo.back();
    todo.pop_back();
    token t;
    switch (o.type) {
      case msgpack::type::NIL:
        t.family = mpk::type::nil;
        break;
      case msgpack::type::BOOLEAN:
        t.family = mpk::type::boolean;
        t.boolean = o.via.boolean;
        break;
      case msgpack::type::POSITIVE_INTEGER:
        t.family = mpk::type::uint;
        t.u = o.via.u64;
        break;
      case msgpack::type::NEGATIVE_INTEGER:
        t.family = mpk::type::sint;
        t.negative = true;
        t.i = o.via.i64;
        break;
      case msgpack::type::FLOAT32:
        t.family = mpk::type::float32;  // widened to double by msgpack-cxx
        t.float_bits = std::bit_cast<std::uint64_t>(o.via.f64);
        break;
      case msgpack::type::FLOAT64:
        t.family = mpk::type::float64;
        t.float_bits = std::bit_cast<std::uint64_t>(o.via.f64);
        break;
      case msgpack::type::STR:
        t.family = mpk::type::str;
        t.bytes = {o.via.str.ptr, o.via.str.size};
        break;
      case msgpack::type::BIN:
        t.family = mpk::type::bin;
        t.bytes = {o.via.bin.ptr, o.via.bin.size};
        break;
      case msgpack::type::EXT:
        t.family = mpk::type::ext;
        t.ext_type = o.via.ext.type();
        t.bytes = {o.via.ext.data(), o.via.ext.size};
        break;
      case msgpack::type::ARRAY:
        t.family = mpk::type::array;
        t.count = o.via.array.size;
        for (std::uint32_t k = o.via.array.size; k-- > 0;)
          todo.push_back(&o.via.array.ptr[k]);
        break;
      case msgpack::type::MAP:
        t.family = mpk::type::map;
        t.count = o.via.map.size;
        for (std::uint32_t k = o.via.map.size; k-- > 0;) {
          todo.push_back(&o.via.map.ptr[k].val);
          todo.push_back(&o.via.map.ptr[k].key);
        }
        break;
    }
    out.push_back(t);
  }
}

/// mpk's tokens as msgpack-cxx sees them: integers by sign, float32 widened to double.
token as_peer_sees(token t) {
  if (t.family == mpk::type::sint && !t.negative) t.family = mpk::type::uint;
  if (t.family == mpk::type::float32)
    t.float_bits = std::bit_cast<std::uint64_t>(
        static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(t.float_bits))));
  return t;
}

bool copy_everything(msgpack::type::object_type, std::size_t, void*) {
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mpk::as_bytes(std::span(data, size));
  mpk_fuzz::current_input = input;
  const char* const chars = reinterpret_cast<const char*>(data);

  // mpk: every value up to the first error.
  std::vector<std::vector<token>> mine;
  bool mine_failed = false;
  {
    mpk_fuzz::cursor r{input};
    while (!r.at_end()) {
      std::vector<token> v;
      if (mpk_fuzz::walk_value(r, lim, [&](const token& t) { v.push_back(as_peer_sees(t)); })) {
        mine_failed = true;
        break;
      }
      mine.push_back(std::move(v));
    }
  }

  // msgpack-cxx: the same.
  const msgpack::unpack_limit peer_limit(lim.max_array_len, lim.max_map_len, lim.max_str_len,
                                         lim.max_bin_len, std::size_t{lim.max_ext_len} + 1,
                                         lim.max_depth);
  std::vector<std::vector<token>> theirs;
  bool theirs_failed = false;
  std::vector<msgpack::object_handle> handles;  // keep the zones: tokens view into them
  std::size_t off = 0;
  while (off < size) {
    try {
      bool referenced = false;
      handles.push_back(
          msgpack::unpack(chars, size, off, referenced, copy_everything, nullptr, peer_limit));
    } catch (const msgpack::unpack_error&) {
      theirs_failed = true;
      break;
    } catch (const std::bad_alloc&) {
      const bool peer_ran_out_of_memory_within_the_fuzz_limits = true;
      MPK_FUZZ_CHECK(!peer_ran_out_of_memory_within_the_fuzz_limits);
    }
    std::vector<token> v;
    flatten(handles.back().get(), v);
    theirs.push_back(std::move(v));
  }

  MPK_FUZZ_CHECK(mine.size() == theirs.size());
  MPK_FUZZ_CHECK(mine_failed == theirs_failed);
  for (std::size_t k = 0; k < mine.size(); ++k)
    MPK_FUZZ_CHECK(mine[k] == theirs[k]);
  return 0;
}
