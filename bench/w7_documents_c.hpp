// bench/w7_documents_c.hpp - W7 documents for msgpack-c (the C library), in a translation unit
// of its own (msgpack.h and msgpack-cxx's msgpack.hpp cannot meet in one).
//
// A document is a msgpack_object tree: decoded from MessagePack by msgpack_unpack into a
// reused zone (strings and binaries point into the input: zero-copy), encoded by
// msgpack_pack_object into a reused msgpack_sbuffer.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace mpk_bench::msgpack_c_w7 {

/// "msgpack-c 4.0.0" (the C library's own msgpack_version()).
std::string version();

/// One document: its object tree (decoded once from `bytes`, which must outlive this), an
/// output buffer and a reader for the timed operations.
class document {
 public:
  /// Decodes `bytes` into the object tree that encode() writes. ok() says whether it worked.
  explicit document(std::span<const std::byte> bytes);
  ~document();
  document(const document&) = delete;
  document& operator=(const document&) = delete;

  bool ok() const noexcept;
  /// msgpack_pack_object of the tree into the reused buffer; bytes written (0 on error).
  std::size_t encode();
  /// What the last encode() wrote.
  std::span<const std::byte> encoded() const noexcept;
  /// msgpack_unpack of `in` (one whole value) into the reused zone; the number of items in the
  /// top-level container (0 on error or for a scalar).
  std::size_t decode(std::span<const std::byte> in);
  /// Decodes `in`, then encodes the object decoded: equal to `in` when msgpack-c read every
  /// value right (it writes every value in its smallest form, as mpk does). Empty on error.
  std::span<const std::byte> decode_and_encode(std::span<const std::byte> in);

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

}  // namespace mpk_bench::msgpack_c_w7
