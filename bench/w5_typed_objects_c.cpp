// bench/w5_typed_objects_c.cpp - W5 typed_objects for msgpack-c (see the header).
#include "w5_typed_objects_c.hpp"

#include <string_view>

#include "support/peers/msgpack_c.hpp"

namespace mpk_bench::msgpack_c_w5 {

namespace mc = peers::msgpack_c;

std::string version() {
  return mc::version();
}

// --- writing ---------------------------------------------------------------------------

struct writer::impl {
  mc::output out{4096};
  std::string keys[4];  // brand, alcohol, brewery, sort: fixstr header and text
};

writer::writer() : p_(std::make_unique<impl>()) {
  const std::string_view names[4] = {"brand", "alcohol", "brewery", "sort"};
  for (int i = 0; i < 4; ++i) {
    p_->keys[i].assign(1, static_cast<char>(0xa0 | names[i].size()));
    p_->keys[i].append(names[i]);
  }
}
writer::~writer() = default;

std::span<const std::byte> writer::bytes() const noexcept {
  return p_->out.bytes();
}

namespace {

int put(msgpack_packer* pk, std::int64_t v) {
  return msgpack_pack_int64(pk, v);
}
int put(msgpack_packer* pk, double v) {
  return msgpack_pack_double(pk, v);
}
int put(msgpack_packer* pk, const std::string& v) {
  return mc::pack_str(pk, v);
}

template <class T>
int put_array(msgpack_packer* pk, const std::vector<T>& v) {
  int r = msgpack_pack_array(pk, v.size());
  for (const T& x : v)
    r |= put(pk, x);
  return r;
}

/// A beer; `keys` null: keys packed as strings (map mode) or none (array mode); else the
/// pre-encoded keys written raw through the packer's callback.
int put_beer(msgpack_packer* pk, const beer& b, bool map_mode, const std::string* keys) {
  auto key = [&](int i, std::string_view name) {
    if (keys != nullptr) return pk->callback(pk->data, keys[i].data(), keys[i].size());
    return map_mode ? mc::pack_str(pk, name) : 0;
  };
  int r = map_mode || keys != nullptr ? msgpack_pack_map(pk, 4) : msgpack_pack_array(pk, 4);
  r |= key(0, "brand");
  r |= mc::pack_str(pk, b.brand);
  r |= key(1, "alcohol");
  r |= msgpack_pack_double(pk, b.alcohol);
  r |= key(2, "brewery");
  r |= mc::pack_str(pk, b.brewery);
  r |= key(3, "sort");
  r |= put_array(pk, b.sort);
  return r;
}

int put_beers(msgpack_packer* pk, const std::vector<beer>& v, bool map_mode,
              const std::string* keys) {
  int r = msgpack_pack_array(pk, v.size());
  for (const beer& b : v)
    r |= put_beer(pk, b, map_mode, keys);
  return r;
}

}  // namespace

std::size_t writer::write(const std::vector<std::int64_t>& v, bool) {
  p_->out.clear();
  return put_array(p_->out.packer(), v) == 0 ? p_->out.size() : 0;
}
std::size_t writer::write(const std::vector<double>& v, bool) {
  p_->out.clear();
  return put_array(p_->out.packer(), v) == 0 ? p_->out.size() : 0;
}
std::size_t writer::write(const std::vector<std::string>& v, bool) {
  p_->out.clear();
  return put_array(p_->out.packer(), v) == 0 ? p_->out.size() : 0;
}
std::size_t writer::write(const std::string& v, bool) {
  p_->out.clear();
  return put(p_->out.packer(), v) == 0 ? p_->out.size() : 0;
}
std::size_t writer::write(const beer& b, bool map_mode) {
  p_->out.clear();
  return put_beer(p_->out.packer(), b, map_mode, nullptr) == 0 ? p_->out.size() : 0;
}
std::size_t writer::write(const std::vector<beer>& v, bool map_mode) {
  p_->out.clear();
  return put_beers(p_->out.packer(), v, map_mode, nullptr) == 0 ? p_->out.size() : 0;
}
std::size_t writer::write_prekeys(const beer& b) {
  p_->out.clear();
  return put_beer(p_->out.packer(), b, true, p_->keys) == 0 ? p_->out.size() : 0;
}
std::size_t writer::write_prekeys(const std::vector<beer>& v) {
  p_->out.clear();
  return put_beers(p_->out.packer(), v, true, p_->keys) == 0 ? p_->out.size() : 0;
}

// --- reading ---------------------------------------------------------------------------

struct reader::impl {
  mc::unpacker in;
};

reader::reader() : p_(std::make_unique<impl>()) {}
reader::~reader() = default;

namespace {

bool get(const msgpack_object& o, std::int64_t& v) {
  if (o.type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
    if (o.via.u64 > static_cast<std::uint64_t>(INT64_MAX)) return false;
    v = static_cast<std::int64_t>(o.via.u64);
    return true;
  }
  if (o.type != MSGPACK_OBJECT_NEGATIVE_INTEGER) return false;
  v = o.via.i64;
  return true;
}

bool get(const msgpack_object& o, double& v) {
  switch (o.type) {
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
      v = o.via.f64;
      return true;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
      v = static_cast<double>(o.via.u64);
      return true;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
      v = static_cast<double>(o.via.i64);
      return true;
    default:
      return false;
  }
}

bool get(const msgpack_object& o, std::string& v) {
  if (o.type != MSGPACK_OBJECT_STR) return false;
  v.assign(o.via.str.ptr, o.via.str.size);
  return true;
}

template <class T>
bool get(const msgpack_object& o, std::vector<T>& v) {
  if (o.type != MSGPACK_OBJECT_ARRAY) return false;
  v.resize(o.via.array.size);
  for (std::uint32_t i = 0; i < o.via.array.size; ++i)
    if (!get(o.via.array.ptr[i], v[i])) return false;
  return true;
}

bool get_beer(const msgpack_object& o, beer& b, bool map_mode) {
  if (!map_mode) {
    if (o.type != MSGPACK_OBJECT_ARRAY || o.via.array.size != 4) return false;
    const msgpack_object* e = o.via.array.ptr;
    return get(e[0], b.brand) && get(e[1], b.alcohol) && get(e[2], b.brewery) && get(e[3], b.sort);
  }
  if (o.type != MSGPACK_OBJECT_MAP) return false;
  for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
    const msgpack_object_kv& kv = o.via.map.ptr[i];
    const std::string_view k = mc::str(kv.key);
    bool ok = true;
    if (k == "brand")
      ok = get(kv.val, b.brand);
    else if (k == "alcohol")
      ok = get(kv.val, b.alcohol);
    else if (k == "brewery")
      ok = get(kv.val, b.brewery);
    else if (k == "sort")
      ok = get(kv.val, b.sort);
    if (!ok) return false;
  }
  return true;
}

const msgpack_object* whole(mc::unpacker& u, std::span<const std::byte> in) {
  std::size_t off = 0;
  const msgpack_object* o = u.next(in, off);
  return o != nullptr && off == in.size() ? o : nullptr;
}

}  // namespace

bool reader::read(std::span<const std::byte> in, std::vector<std::int64_t>& out, bool) {
  const msgpack_object* o = whole(p_->in, in);
  return o != nullptr && get(*o, out);
}
bool reader::read(std::span<const std::byte> in, std::vector<double>& out, bool) {
  const msgpack_object* o = whole(p_->in, in);
  return o != nullptr && get(*o, out);
}
bool reader::read(std::span<const std::byte> in, std::vector<std::string>& out, bool) {
  const msgpack_object* o = whole(p_->in, in);
  return o != nullptr && get(*o, out);
}
bool reader::read(std::span<const std::byte> in, std::string& out, bool) {
  const msgpack_object* o = whole(p_->in, in);
  return o != nullptr && get(*o, out);
}
bool reader::read(std::span<const std::byte> in, beer& out, bool map_mode) {
  const msgpack_object* o = whole(p_->in, in);
  return o != nullptr && get_beer(*o, out, map_mode);
}
bool reader::read(std::span<const std::byte> in, std::vector<beer>& out, bool map_mode) {
  const msgpack_object* o = whole(p_->in, in);
  if (o == nullptr || o->type != MSGPACK_OBJECT_ARRAY) return false;
  out.resize(o->via.array.size);
  for (std::uint32_t i = 0; i < o->via.array.size; ++i)
    if (!get_beer(o->via.array.ptr[i], out[i], map_mode)) return false;
  return true;
}

}  // namespace mpk_bench::msgpack_c_w5
