// msgpackr's record extension: shared structures, the definition table, expansion of records
// into plain MessagePack, and the encoder of dynamic values (see mpk/ext/records/core.hpp).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "mpk/codec/describe.hpp"
#include "mpk/detail/endian.hpp"
#include "mpk/detail/header.hpp"
#include "mpk/detail/level_stack.hpp"
#include "mpk/ext/records/core.hpp"

namespace mpk::inline v0 {
namespace detail {
namespace {

/// A minimal str header for `n` bytes (at most 5 bytes) into `out`; returns its size.
std::size_t str_header(std::byte* out, std::size_t n) noexcept {
  return static_cast<std::size_t>(put_str_header(out, n) - out);
}
std::size_t map_header(std::byte* out, std::size_t n) noexcept {
  return static_cast<std::size_t>(put_container_header<true>(out, n) - out);
}

/// The extent of the value at p, on the fast or the short path.
extent extent_at(const std::byte* p, const std::byte* end, const limits& lim) noexcept {
  const auto avail = static_cast<std::size_t>(end - p);
  return avail >= 9 ? value_extent<true>(p, avail, lim) : extent_short(p, end, lim);
}

/// The str at p, on the fast or the short path.
decoded<std::string_view> str_at(const std::byte* p, const std::byte* end,
                                 const limits& lim) noexcept {
  const auto avail = static_cast<std::size_t>(end - p);
  return avail >= 9 ? str_decoder::run<true>(p, p, avail, lim)
                    : decode_short<str_decoder>(p, end, lim);
}

}  // namespace

std::size_t next_record_type_index() noexcept {
  static std::atomic<std::size_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

errc record_def::add_key(std::string_view key) {
  std::byte head[5];
  const std::size_t h = str_header(head, key.size());
  const std::size_t begin = encoded.size();
  if (key.size() > std::numeric_limits<std::uint32_t>::max() - 5 - begin)
    return errc::limit_exceeded;
#if __cpp_exceptions
  try {
#endif
    encoded.append(reinterpret_cast<const char*>(head), h);
    encoded.append(key);
    keys.push_back({static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(h),
                    static_cast<std::uint32_t>(encoded.size())});
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    return errc::out_of_memory;
  }
#endif
  return errc::ok;
}

// --- the definition table ------------------------------------------------------------------

record_table::record_table(const shared_structures* shared)
    : table_(64, nullptr), own_(64), is_touched_(64, 0) {
  const std::size_t n = shared ? shared->size() : 0;
  shared_defs_.resize(n);
  if (n > table_.size()) {
    table_.resize(n, nullptr);
    own_.resize(n);
    is_touched_.resize(n, 0);
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (const std::string& k : (*shared)[i])
      (void)shared_defs_[i].add_key(k);  // out of memory: the structure is short of keys
    table_[i] = &shared_defs_[i];
  }
  for (std::size_t k = 0; k < 32; ++k)
    shared_wide_[k] = n > 32 + k;
  wide_ = shared_wide_;
}

record_ref record_table::lookup_wide(const std::byte* p, const std::byte* end) const noexcept {
  if (end - p < 2) return {nullptr, 0, errc::truncated};
  const std::size_t index = (u8(p) & 0x3fu) + 32u * u8(p + 1);
  record_def* d = index < table_.size() ? table_[index] : nullptr;
  if (d == nullptr) return {nullptr, 0, errc::out_of_range};
  return {d, 2, errc::ok};
}

record_def* record_table::slot_for(std::size_t index) {
  if (index >= table_.size()) {
    table_.resize(index + 1, nullptr);
    own_.resize(index + 1);
    is_touched_.resize(index + 1, 0);
  }
  std::unique_ptr<record_def>& o = own_[index];
  if (o && o->busy != 0) retired_.push_back(std::move(o));  // an instance still reads it
  if (!o) o = std::make_unique<record_def>();
  if (!is_touched_[index]) {
    is_touched_[index] = 1;
    touched_.push_back(static_cast<std::uint32_t>(index));
  }
  return o.get();
}

record_ref record_table::define(const std::byte* p, const std::byte* end, const limits& lim,
                                const std::byte*& at) {
  at = p;
  const auto avail = static_cast<std::size_t>(end - p);
  std::size_t index;
  std::size_t head;
  int wide = -1;  // the first byte's slot whose width this definition sets
  if (u8(p) == marker::fixext1) {
    if (avail < 3) return {nullptr, 0, errc::truncated};
    const std::uint8_t id = u8(p + 2);
    if (id < 0x40 || id > 0x7f) return {nullptr, 0, errc::out_of_range};
    index = id & 0x3fu;
    head = 3;
    if (index >= 32) wide = 0;
  } else {
    if (avail < 4) return {nullptr, 0, errc::truncated};
    const std::uint8_t lo = u8(p + 2);
    if (lo < 0x60 || lo > 0x7f) return {nullptr, 0, errc::out_of_range};
    index = (lo & 0x3fu) + 32u * u8(p + 3);
    head = 4;
    wide = 1;
  }
  // The keys: an array of str, parsed aside so that a failure leaves the table as it was.
  const std::byte* q = p + head;
  at = q;
  const extent x = extent_at(q, end, lim);
  if (x.ec != errc::ok) return {nullptr, 0, x.ec};
  const std::uint8_t m = u8(q);
  if (!x.container ||
      !((m & 0xf0u) == marker::fixarray || m == marker::array16 || m == marker::array32))
    return {nullptr, 0, errc::type_mismatch};
  if (x.owed > lim.max_map_len) return {nullptr, 0, errc::limit_exceeded};
  q += x.size;
  // The keys of the definition this id holds already (each message of per-message records
  // repeats its definitions): when the bytes are those it stored, they parse to the same
  // keys, so they are compared whole instead of parsed. (An id whose definition an instance
  // is still reading takes the other path, where slot_for retires that definition.)
  bool same = false;
  if (index < own_.size() && own_[index] && own_[index]->busy == 0) {
    const record_def& o = *own_[index];
    if (o.keys.size() == x.owed && o.encoded.size() <= static_cast<std::size_t>(end - q) &&
        std::memcmp(q, o.encoded.data(), o.encoded.size()) == 0)
      same = true;
  }
  record_def& d = pending_;
  if (same) {
    q += own_[index]->encoded.size();
  } else {
    d.clear();
    for (std::size_t i = 0; i < x.owed; ++i) {
      at = q;
      const decoded<std::string_view> s = str_at(q, end, lim);
      if (s.ec != errc::ok) return {nullptr, 0, s.ec};
      if (const errc e = d.add_key(s.value); e != errc::ok) return {nullptr, 0, e};
      q += s.size;
    }
  }
  at = p;
  record_def* slot;
#if __cpp_exceptions
  try {
#endif
    slot = slot_for(index);  // when `same`: that definition (not busy, so not retired)
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    return {nullptr, 0, errc::out_of_memory};
  }
#endif
  if (!same && (slot->encoded != d.encoded || slot->keys.size() != d.keys.size())) {
    std::swap(slot->encoded, d.encoded);
    std::swap(slot->keys, d.keys);
    slot->forget_typed();
  }  // else the same shape again (each message of per-message records): keep its typed maps
  table_[index] = slot;
  if (wide >= 0) wide_[index >= 32 ? (index - 32) % 32 : 0] = wide == 1;
  return {slot, static_cast<std::uint32_t>(q - p), errc::ok};
}

void record_table::reset() noexcept {
  for (const std::uint32_t i : touched_) {
    table_[i] = i < shared_defs_.size() ? &shared_defs_[i] : nullptr;
    is_touched_[i] = 0;
  }
  touched_.clear();
  retired_.clear();
  wide_ = shared_wide_;
}

// --- expansion -----------------------------------------------------------------------------

mpk::error expand_value(record_table& table, std::span<const std::byte> in, std::size_t& pos,
                        buffer* out, const limits& lim, std::size_t max_out, bool* saw_records) {
  struct frame {
    std::uint64_t owed;  // items still owed (values of a record, 2 per map entry)
    record_def* def;     // the record being read, or nullptr for an array or map
    std::uint32_t next_key;
  };
  std::vector<frame> stack;
  const std::byte* const base = in.data();
  const std::byte* const end = base + in.size();
  const std::byte* p = base + pos;
  const std::size_t out_start = out ? out->size() : 0;

  auto fail = [&](const std::byte* where, errc ec) {
    for (frame& f : stack)
      if (f.def) --f.def->busy;
    return mpk::error{ec, static_cast<std::size_t>(where - base)};
  };
  // Opens a container or record; false when memory ran out. Its record counts as busy only
  // once it is on the stack, so that fail() releases exactly the records it holds.
  auto push = [&](frame f) noexcept {
#if __cpp_exceptions
    try {
#endif
      stack.push_back(f);
#if __cpp_exceptions
    } catch (const std::bad_alloc&) {
      return false;
    }
#endif
    if (f.def) ++f.def->busy;
    return true;
  };
  // Appends n bytes; false when out of memory or beyond the expansion bound.
  auto emit = [&](const void* b, std::size_t n, errc& ec) {
    if (out == nullptr) return true;
    if (out->size() - out_start + n > max_out) {
      ec = errc::limit_exceeded;
      return false;
    }
    if (!out->append(static_cast<const std::byte*>(b), n)) {
      ec = errc::out_of_memory;
      return false;
    }
    return true;
  };

  for (;;) {
    errc ec = errc::ok;
    if (!stack.empty() && stack.back().def != nullptr) {
      frame& f = stack.back();
      const auto key = f.def->encoded_key(f.next_key++);
      if (!emit(key.data(), key.size(), ec)) return fail(p, ec);
    }
    if (p == end) return fail(p, errc::truncated);
    const std::uint8_t m = u8(p);
    record_ref r{nullptr, 0, errc::ok};
    if (m >= 0x40 && m <= 0x7f) {
      r = table.lookup(p, end);
      if (r.ec != errc::ok) return fail(p, r.ec);
    } else if ((m == marker::fixext1 || m == marker::fixext2) && end - p >= 2 &&
               static_cast<std::int8_t>(u8(p + 1)) == record_ext_type) {
      const std::byte* at = p;
      r = table.define(p, end, lim, at);
      if (r.ec != errc::ok) return fail(at, r.ec);
    }
    bool done = true;
    if (r.def != nullptr) {
      if (saw_records) *saw_records = true;
      if (stack.size() >= lim.max_depth) return fail(p, errc::depth_exceeded);
      const std::uint32_t n = r.def->count();
      if (n > lim.max_map_len) return fail(p, errc::limit_exceeded);
      if (n > static_cast<std::size_t>(end - p) - r.size) return fail(p, errc::truncated);
      std::byte head[5];
      if (!emit(head, map_header(head, n), ec)) return fail(p, ec);
      if (n != 0) {
        if (!push({n, r.def, 0})) return fail(p, errc::out_of_memory);
        done = false;
      }
      p += r.size;
    } else {
      const extent x = extent_at(p, end, lim);
      if (x.ec != errc::ok) return fail(p, x.ec);
      if (x.container && stack.size() >= lim.max_depth) return fail(p, errc::depth_exceeded);
      if (!emit(p, x.size, ec)) return fail(p, ec);
      if (x.container && x.owed != 0) {
        if (!push({x.owed, nullptr, 0})) return fail(p, errc::out_of_memory);
        done = false;
      }
      p += x.size;
    }
    if (!done) continue;
    // A value is complete: close the containers it completes.
    while (!stack.empty()) {
      frame& f = stack.back();
      if (--f.owed != 0) break;
      if (f.def) --f.def->busy;
      stack.pop_back();
    }
    if (stack.empty()) {
      pos = static_cast<std::size_t>(p - base);
      return {};
    }
  }
}

}  // namespace detail

// --- shared structures -----------------------------------------------------------------------

result<std::size_t> shared_structures::add(keys_type keys) {
  if (list_.size() >= max_shared_structures) return errc::limit_exceeded;
#if __cpp_exceptions
  try {
#endif
    list_.push_back(std::move(keys));
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    return errc::out_of_memory;
  }
#endif
  return list_.size() - 1;
}

std::size_t shared_structures::find(std::span<const std::string> keys) const noexcept {
  for (std::size_t i = 0; i < list_.size(); ++i)
    if (std::equal(list_[i].begin(), list_[i].end(), keys.begin(), keys.end())) return i;
  return list_.size();
}

result<shared_structures> shared_structures::load_bytes(std::span<const std::byte> bytes,
                                                        const read_options& options) {
#if __cpp_exceptions
  try {
#endif
    return load_keys(bytes, options);
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    return mpk::error{errc::out_of_memory, 0};
  }
#endif
}

result<shared_structures> shared_structures::load_keys(std::span<const std::byte> bytes,
                                                       const read_options& options) {
  reader r(bytes, options);
  shared_structures out;
  const std::size_t at = r.position();
  const std::uint32_t n = r.read_array_header();
  if (!r.ok()) return r.error();
  if (n > max_shared_structures) return mpk::error{errc::limit_exceeded, at};
  if (options.limits.max_depth < 2) return mpk::error{errc::depth_exceeded, at};
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t k = r.read_array_header();
    if (!r.ok()) return r.error();
    keys_type keys;
    for (std::uint32_t j = 0; j < k; ++j) {
      std::string key = r.read_string();
      if (!r.ok()) return r.error();
      keys.push_back(std::move(key));
    }
    auto added = out.add(std::move(keys));
    if (!added) return mpk::error{added.error().code, r.position()};
  }
  if (!options.allow_trailing && !r.at_end()) return mpk::error{errc::trailing_bytes, r.position()};
  return out;
}

result<buffer> shared_structures::save() const {
  buffer out;
  writer<buffer> w(out);
  w.begin_array(list_.size());
  for (const keys_type& keys : list_) {
    w.begin_array(keys.size());
    for (const std::string& k : keys)
      w.write_str(k);
  }
  if (!w.ok()) return w.error();
  return out;
}

// --- decoder ---------------------------------------------------------------------------------

result<std::size_t> records_decoder::expand_bytes(std::span<const std::byte> bytes,
                                                  std::size_t offset, buffer& out) {
  start_message();
  std::size_t pos = offset;
  const std::size_t in = bytes.size() - std::min(offset, bytes.size());
  const std::size_t bound = in > (std::numeric_limits<std::size_t>::max() - 4096) /
                                        std::max<std::size_t>(options_.max_expansion, 1)
                                ? std::numeric_limits<std::size_t>::max()
                                : in * options_.max_expansion + 4096;
  const mpk::error e =
      detail::expand_value(table_, bytes, pos, &out, options_.read.limits, bound, nullptr);
  table_.release_retired();
  if (e) return e;
  return pos;
}

result<document> records_decoder::parse_bytes(std::span<const std::byte> bytes) {
  scratch_.clear();
  auto end = expand(bytes, 0, scratch_);
  if (!end) return end.error();
  if (*end != bytes.size() && !options_.read.allow_trailing)
    return mpk::error{errc::trailing_bytes, *end};
  return document::parse(scratch_.bytes(), {.read = options_.read, .copy = true});
}

result<value> records_decoder::read_value_bytes(std::span<const std::byte> bytes) {
  auto doc = parse(bytes);
  if (!doc) return doc.error();
  return detail::make_value(doc->root());
}

// --- encoder ---------------------------------------------------------------------------------

records_encoder::records_encoder(records_options options) : options_(options) {
  const std::size_t shared = options.shared ? options.shared->size() : 0;
  if (shared <= 32) {
    own_first_ = shared;
    own_count_ = 64 - shared;
  } else {
    own_first_ = shared;
    own_count_ = std::min<std::size_t>(64, record_index_count - shared);
  }
  slots_.resize(own_first_ + own_count_);
  for (std::size_t i = 0; i < shared; ++i) {
    detail::record_def d;
    for (const std::string& k : (*options.shared)[i])
      (void)d.add_key(k);
    slots_[i].shape = std::move(d.encoded);
    slots_[i].generation = generation_++;
    ids_.emplace(slots_[i].shape, static_cast<std::uint32_t>(i));  // the first one wins
  }
}

void records_encoder::reset() noexcept {
  for (std::size_t k = 0; k < own_count_; ++k) {
    slot& s = slots_[own_first_ + k];
    if (s.generation == 0) continue;
    auto it = ids_.find(s.shape);
    if (it != ids_.end() && it->second == own_first_ + k) ids_.erase(it);
    s.shape.clear();
    s.generation = 0;
  }
  own_next_ = 0;
}

void records_encoder::write_id(writer<buffer>& w, std::size_t index) {
  const std::size_t shared = options_.shared ? options_.shared->size() : 0;
  if (index >= 32 && shared > 32) {
    const std::byte id[2] = {static_cast<std::byte>(0x60 + ((index - 32) & 0x1f)),
                             static_cast<std::byte>((index - 32) >> 5)};
    w.write_raw(id);
  } else {
    const std::byte id[1] = {static_cast<std::byte>(0x40 + index)};
    w.write_raw(id);
  }
}

bool records_encoder::write_cached(writer<buffer>& w, const type_slot& s) {
  if (s.generation == 0 || s.index >= slots_.size() || slots_[s.index].generation != s.generation)
    return false;
  write_id(w, s.index);
  return true;
}

void records_encoder::write_record_head(writer<buffer>& w, std::string_view shape,
                                        std::size_t count) {
  if (auto it = ids_.find(shape); it != ids_.end()) {
    write_id(w, it->second);
    last_ = {it->second, slots_[it->second].generation};
    return;
  }
  const std::size_t index = own_first_ + own_next_;
  own_next_ = (own_next_ + 1) % own_count_;
  slot& s = slots_[index];
  if (s.generation != 0) {
    auto it = ids_.find(s.shape);
    if (it != ids_.end() && it->second == index) ids_.erase(it);
  }
  s.shape.assign(shape);
  s.generation = generation_++;
  ids_[s.shape] = static_cast<std::uint32_t>(index);
  last_ = {static_cast<std::uint32_t>(index), s.generation};
  const std::size_t shared = options_.shared ? options_.shared->size() : 0;
  if (index >= 32 && shared > 32) {
    const std::byte head[4] = {std::byte{marker::fixext2}, std::byte{0x72},
                               static_cast<std::byte>(0x60 + ((index - 32) & 0x1f)),
                               static_cast<std::byte>((index - 32) >> 5)};
    w.write_raw(head);
  } else {
    const std::byte head[3] = {std::byte{marker::fixext1}, std::byte{0x72},
                               static_cast<std::byte>(0x40 + index)};
    w.write_raw(head);
  }
  w.begin_array(count);
  w.write_raw({reinterpret_cast<const std::byte*>(shape.data()), shape.size()});
}

namespace {

/// Writes an integer, with 64..255 as uint8 (0xcc) so that it never reads as a record id
/// (whatever family it was read from: int8 0x54 is 84 too).
template <class S>
void write_record_int(writer<S>& w, element x) {
  if (x.type() == type::uint) {
    const std::uint64_t u = x.as<std::uint64_t>().value_or(0);
    if (u >= 64 && u <= 255)
      w.write_uint8(static_cast<std::uint8_t>(u));
    else
      w.write_unsigned(u);
  } else {
    const std::int64_t i = x.as<std::int64_t>().value_or(0);
    if (i >= 64 && i <= 255)
      w.write_uint8(static_cast<std::uint8_t>(i));
    else
      w.write_signed(i);
  }
}

}  // namespace

result<void> records_encoder::encode(element v, buffer& out) {
  start_message();
  const std::size_t before = out.size();
  writer<buffer> w(out);
  result<void> r;
#if __cpp_exceptions
  try {
#endif
    r = write_value(w, v);
    if (r && !w.ok()) r = w.error();
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    r = mpk::error{errc::out_of_memory, out.size() - before};
  }
#endif
  if (!r) fail_message(out, before);
  return r;
}

void records_encoder::fail_message(buffer& out, std::size_t size) noexcept {
  out.truncate(size);
  reset();
}

result<void> records_encoder::write_value(writer<buffer>& w, element v) {
  // Containers being written, with where they are: arrays by element, maps by entry (key
  // then value, or only the value for a record).
  struct frame {
    element_iterator element;
    entry_iterator entry;
    std::uint32_t left;  // items still to write
    bool is_map;
    bool record;
    bool key_written;
  };
  detail::basic_owed_stack<frame> stack;  // 64 levels inline: no allocation for most values
  element x = v;
  for (;;) {
    switch (x.type()) {
      case type::uint:
      case type::sint:
        write_record_int(w, x);
        break;
      case type::array: {
        if (stack.size() >= options_.read.limits.max_depth)
          return mpk::error{errc::depth_exceeded, w.sink().size()};
        const auto n = static_cast<std::uint32_t>(x.size());
        w.begin_array(n);
        if (n != 0 && !stack.push({x.elements().begin(), {}, n, false, false, false}))
          return mpk::error{errc::out_of_memory, w.sink().size()};
        break;
      }
      case type::map: {
        if (stack.size() >= options_.read.limits.max_depth)
          return mpk::error{errc::depth_exceeded, w.sink().size()};
        bool all_str = true;
        key_scratch_.clear();
        for (auto [k, item] : x.entries()) {
          if (!k.is_str()) {
            all_str = false;
            break;
          }
          const std::string_view s = k.as<std::string_view>().value_or("");
          std::byte head[5];
          key_scratch_.append(reinterpret_cast<const char*>(head),
                              detail::str_header(head, s.size()));
          key_scratch_.append(s);
        }
        const auto n = static_cast<std::uint32_t>(x.size());
        if (all_str)
          write_record_head(w, key_scratch_, n);
        else
          w.begin_map(n);
        if (n != 0 && !stack.push({{}, x.entries().begin(), n, true, all_str, false}))
          return mpk::error{errc::out_of_memory, w.sink().size()};
        break;
      }
      default:
        if (x.exists()) w.write_raw(x.raw());
        break;
    }
    if (!w.ok()) return w.error();
    while (!stack.empty() && stack.top().left == 0)
      stack.pop();
    if (stack.empty()) return {};
    frame& f = stack.top();
    if (!f.is_map) {
      x = *f.element;
      ++f.element;
      --f.left;
    } else if (f.record || f.key_written) {
      x = (*f.entry).value;
      ++f.entry;
      --f.left;
      f.key_written = false;
    } else {
      x = (*f.entry).key;
      f.key_written = true;
    }
  }
}

result<void> records_encoder::encode(const value& v, buffer& out) {
  buffer plain;
  writer<buffer> w(plain);
  write(w, v);
  if (!w.ok()) return w.error();
  auto doc = document::parse(plain.bytes(), {.read = {.limits = limits::trusted()}});
  if (!doc) return doc.error();
  return encode(doc->root(), out);
}

result<buffer> records_encoder::encode(element v) {
  buffer out;
  if (auto r = encode(v, out); !r) return r.error();
  return out;
}

result<buffer> records_encoder::encode(const value& v) {
  buffer out;
  if (auto r = encode(v, out); !r) return r.error();
  return out;
}

}  // namespace mpk::inline v0
