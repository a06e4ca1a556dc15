// bench/support/peers/msgpack_c.hpp - msgpack-c (the C library, Debian libmsgpack-dev) for
// the benchmarks: an owning output buffer with its packer, a reusable unpacker, and helpers.
//
// msgpack-c writes every integer in its smallest form (msgpack_pack_int64 / _uint64) and
// every double as float64 (msgpack_pack_double), as mpk's writer does, and it reads strings
// and binaries as pointers into the input (zero-copy). Errors are return codes, never
// exceptions. Link with the `msgpack-c` library (bench/CMakeLists.txt finds it).
//
//     mpk_bench::peers::msgpack_c::output out(1 << 20);
//     msgpack_pack_array(out.packer(), 2);
//     msgpack_pack_int64(out.packer(), -1);
//     pack_str(out.packer(), "hi");
//     mpk_bench::peers::msgpack_c::unpacker in;
//     std::size_t off = 0;
//     const msgpack_object* o = in.next(out.bytes(), off);   // nullptr: invalid or truncated
#pragma once

// msgpack.h includes msgpack/version.h, whose extern "C" msgpack_version() & co. clash with
// the C++ inline functions of the same names in msgpack-cxx's msgpack.hpp (an error when
// msgpack.hpp comes first; when it comes second, the C++ definitions silently take over the
// C names). Its guard is defined here so that it is skipped: version() below asks the C
// library from a file of its own (msgpack_c.cpp).
#ifndef MSGPACK_VERSION_H
#define MSGPACK_VERSION_H
#define MPK_BENCH_SKIPPED_MSGPACK_VERSION_H
#endif
#include <msgpack.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

namespace mpk_bench::peers::msgpack_c {

/// "msgpack-c 4.0.0": the version of the library linked in, as msgpack_version() of the C
/// library says (defined in msgpack_c.cpp, which includes no msgpack-cxx header).
std::string version();

/// A msgpack_sbuffer with its msgpack_packer. The sbuffer grows by doubling (its only
/// policy); reserve() preallocates. Owns its memory; not copyable nor movable (the packer
/// points at the sbuffer).
class output {
 public:
  output() noexcept {
    msgpack_sbuffer_init(&sb_);
    msgpack_packer_init(&pk_, &sb_, msgpack_sbuffer_write);
  }
  /// An output with room for `capacity` bytes. On allocation failure it starts empty (the
  /// writes then allocate, and fail as msgpack-c fails: msgpack_sbuffer_write returns -1).
  explicit output(std::size_t capacity) noexcept : output() { reserve(capacity); }
  output(const output&) = delete;
  output& operator=(const output&) = delete;
  ~output() { msgpack_sbuffer_destroy(&sb_); }

  /// Grows the sbuffer to `capacity` bytes at least (msgpack_sbuffer has no reserve of its
  /// own; its fields data/size/alloc are public). Returns false when realloc failed.
  bool reserve(std::size_t capacity) noexcept {
    if (capacity <= sb_.alloc) return true;
    void* p = std::realloc(sb_.data, capacity);
    if (p == nullptr) return false;
    sb_.data = static_cast<char*>(p);
    sb_.alloc = capacity;
    return true;
  }
  /// Forgets what was written; keeps the memory.
  void clear() noexcept { msgpack_sbuffer_clear(&sb_); }

  msgpack_packer* packer() noexcept { return &pk_; }
  std::span<const std::byte> bytes() const noexcept {
    return {reinterpret_cast<const std::byte*>(sb_.data), sb_.size};
  }
  const char* data() const noexcept { return sb_.data; }
  std::size_t size() const noexcept { return sb_.size; }

 private:
  msgpack_sbuffer sb_;
  msgpack_packer pk_;
};

/// A str: header (smallest form) then body. Returns msgpack-c's status (0 on success).
inline int pack_str(msgpack_packer* pk, std::string_view s) noexcept {
  const int r = msgpack_pack_str(pk, s.size());
  return r != 0 ? r : msgpack_pack_str_body(pk, s.data(), s.size());
}

/// A bin: header (smallest form) then body. Returns msgpack-c's status (0 on success).
inline int pack_bin(msgpack_packer* pk, std::span<const std::byte> b) noexcept {
  const int r = msgpack_pack_bin(pk, b.size());
  return r != 0 ? r : msgpack_pack_bin_body(pk, b.data(), b.size());
}

/// Decodes one value at a time into a msgpack_object whose strings and binaries point into
/// the input. Uses msgpack_unpack() with one zone that is cleared before each value (so the
/// zone's memory is reused; msgpack-c marks that function "obsolete", but its replacement
/// msgpack_unpack_next allocates a new zone for every value). The object returned lives
/// until the next call.
class unpacker {
 public:
  unpacker() noexcept { ok_ = msgpack_zone_init(&zone_, MSGPACK_ZONE_CHUNK_SIZE); }
  unpacker(const unpacker&) = delete;
  unpacker& operator=(const unpacker&) = delete;
  ~unpacker() {
    if (ok_) msgpack_zone_destroy(&zone_);
  }

  /// The value at `offset` in `in`; advances `offset` past it. Returns nullptr when the
  /// bytes there are not one complete valid value (truncated, 0xc1, out of memory).
  const msgpack_object* next(std::span<const std::byte> in, std::size_t& offset) noexcept {
    if (!ok_) return nullptr;
    msgpack_zone_clear(&zone_);
    const msgpack_unpack_return r =
        msgpack_unpack(reinterpret_cast<const char*>(in.data()), in.size(), &offset, &zone_, &obj_);
    return r == MSGPACK_UNPACK_SUCCESS || r == MSGPACK_UNPACK_EXTRA_BYTES ? &obj_ : nullptr;
  }

 private:
  msgpack_zone zone_{};
  msgpack_object obj_{};
  bool ok_ = false;
};

/// The text of a str object (a view into the input); empty for another type.
inline std::string_view str(const msgpack_object& o) noexcept {
  if (o.type != MSGPACK_OBJECT_STR) return {};
  return {o.via.str.ptr, o.via.str.size};
}

/// The bytes of a bin object (a view into the input); empty for another type.
inline std::span<const std::byte> bin(const msgpack_object& o) noexcept {
  if (o.type != MSGPACK_OBJECT_BIN) return {};
  return {reinterpret_cast<const std::byte*>(o.via.bin.ptr), o.via.bin.size};
}

}  // namespace mpk_bench::peers::msgpack_c
