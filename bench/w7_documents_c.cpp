// bench/w7_documents_c.cpp - W7 documents for msgpack-c (see the header).
#include "w7_documents_c.hpp"

#include "support/peers/msgpack_c.hpp"

namespace mpk_bench::msgpack_c_w7 {

namespace mc = peers::msgpack_c;

std::string version() {
  return mc::version();
}

struct document::impl {
  mc::unpacker tree;  // holds the object tree encode() writes
  mc::unpacker in;    // reused by decode()
  mc::output out{1 << 16};
  const msgpack_object* root = nullptr;
};

document::document(std::span<const std::byte> bytes) : p_(std::make_unique<impl>()) {
  std::size_t off = 0;
  p_->root = p_->tree.next(bytes, off);
  if (off != bytes.size()) p_->root = nullptr;
}
document::~document() = default;

bool document::ok() const noexcept {
  return p_->root != nullptr;
}

std::size_t document::encode() {
  p_->out.clear();
  if (p_->root == nullptr || msgpack_pack_object(p_->out.packer(), *p_->root) != 0) return 0;
  return p_->out.size();
}

std::span<const std::byte> document::encoded() const noexcept {
  return p_->out.bytes();
}

std::size_t document::decode(std::span<const std::byte> in) {
  std::size_t off = 0;
  const msgpack_object* o = p_->in.next(in, off);
  if (o == nullptr || off != in.size()) return 0;
  if (o->type == MSGPACK_OBJECT_MAP) return o->via.map.size;
  return o->type == MSGPACK_OBJECT_ARRAY ? o->via.array.size : 0;
}

std::span<const std::byte> document::decode_and_encode(std::span<const std::byte> in) {
  std::size_t off = 0;
  const msgpack_object* o = p_->in.next(in, off);
  p_->out.clear();
  if (o == nullptr || off != in.size() || msgpack_pack_object(p_->out.packer(), *o) != 0) return {};
  return p_->out.bytes();
}

}  // namespace mpk_bench::msgpack_c_w7
