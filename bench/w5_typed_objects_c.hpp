// bench/w5_typed_objects_c.hpp - W5 typed_objects (and W6 lua_bench's arrays and strings) for
// msgpack-c (the C library), compiled in a
// translation unit of its own: msgpack-c's msgpack.h and msgpack-cxx's msgpack.hpp declare
// functions of the same names and cannot meet in one translation unit.
//
// C has no struct mapping: objects are written with msgpack_pack_* and read from a
// msgpack_object by hand, into the plain types of bench/data/w5_typed_objects.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "data/w5_typed_objects.hpp"

namespace mpk_bench::msgpack_c_w5 {

using typed_objects::beer;

/// "msgpack-c 4.0.0" (the C library's own msgpack_version()).
std::string version();

/// A reused msgpack_sbuffer and its packer. Each write clears it first and returns the number
/// of bytes written (0 when msgpack-c reported an error).
class writer {
 public:
  writer();
  ~writer();
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;

  std::size_t write(const std::vector<std::int64_t>& v, bool map_mode);
  std::size_t write(const std::vector<double>& v, bool map_mode);
  std::size_t write(const beer& b, bool map_mode);
  std::size_t write(const std::vector<beer>& v, bool map_mode);
  /// W6 lua_bench's arrays of strings and single strings (map_mode unused).
  std::size_t write(const std::vector<std::string>& v, bool map_mode);
  std::size_t write(const std::string& v, bool map_mode);
  /// Map mode with each key's bytes encoded once and written raw.
  std::size_t write_prekeys(const beer& b);
  std::size_t write_prekeys(const std::vector<beer>& v);
  /// What the last write wrote.
  std::span<const std::byte> bytes() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

/// A reused zone: msgpack_unpack into a msgpack_object, then the object into the plain type.
/// Each read returns false when the bytes are not one valid value of the expected shape.
class reader {
 public:
  reader();
  ~reader();
  reader(const reader&) = delete;
  reader& operator=(const reader&) = delete;

  bool read(std::span<const std::byte> in, std::vector<std::int64_t>& out, bool map_mode);
  bool read(std::span<const std::byte> in, std::vector<double>& out, bool map_mode);
  bool read(std::span<const std::byte> in, std::vector<std::string>& out, bool map_mode);
  bool read(std::span<const std::byte> in, std::string& out, bool map_mode);
  bool read(std::span<const std::byte> in, beer& out, bool map_mode);
  bool read(std::span<const std::byte> in, std::vector<beer>& out, bool map_mode);

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

}  // namespace mpk_bench::msgpack_c_w5
