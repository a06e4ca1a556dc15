// mpk/ext/records/typed.hpp - msgpackr records straight into your structs, and your structs
// as records.
//
//     struct beer { std::string brand; double alcohol = 0; };
//     MPK_MAP(beer, brand, alcohol);
//     mpk::records_decoder dec;
//     auto list = mpk::unpack_records<std::vector<beer>>(dec, bytes);   // result<vector<beer>>
//     mpk::records_encoder enc;
//     auto out = mpk::pack_records(enc, *list);                          // result<buffer>
//
// Decoding: a map-mode struct (MPK_MAP) reads a record instance, a record definition or a
// plain map. For each definition and struct type the decoder computes once which field each
// record position fills (and whether positions are exactly the fields in declaration order,
// the common case, read then with no lookup at all); instances then cost no key comparison.
// std::vector, std::optional, MPK_ARRAY structs, numbers, bool, strings and binaries are read
// directly too; any other type (std::map, std::tuple, your own codec, ...) has its value
// expanded into plain MessagePack (records become maps) in memory the decoder keeps until its
// next call, and its codec reads that: std::string_view members inside such a value point
// there.
//
// Encoding: a map-mode struct is a record whose shape is known at compile time (its
// definition is written the first time in a message, or never for a shared structure; later
// instances are its id); integers 64..255 are written as `cc xx`; other types as above go
// through their codec and the dynamic encoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "mpk/codec.hpp"
#include "mpk/ext/records/core.hpp"
#include "mpk/unicode.hpp"

namespace mpk::inline v0 {

/// What the typed functions reach inside a records_decoder.
struct records_access {
  static buffer& fallback_buffer(records_decoder& d) {
    d.fallback_.push_back(std::make_unique<buffer>());
    return *d.fallback_.back();
  }
  static void start(records_decoder& d) {
    d.fallback_.clear();
    d.start_message();
  }
};

namespace detail::rec {

/// Where a typed decoding is, and its first error (sticky: after it, p == end).
struct cursor {
  const std::byte* begin;
  const std::byte* p;
  const std::byte* end;
  record_table* table;
  records_decoder* decoder;
  limits lim;
  utf8_check utf8;
  bool strict;
  std::uint32_t depth = 0;
  mpk::error err{};

  MPK_COLD void fail(const std::byte* at, errc ec) noexcept {
    if (err.code == errc::ok) err = {ec, static_cast<std::size_t>(at - begin)};
    p = end;
  }
  bool ok() const noexcept { return err.code == errc::ok; }
  /// Opens a container at `at`; false (and errc::depth_exceeded) beyond the limit.
  bool enter(const std::byte* at) noexcept {
    if (depth >= lim.max_depth) [[unlikely]] {
      fail(at, errc::depth_exceeded);
      return false;
    }
    ++depth;
    return true;
  }
};

/// Runs decoder D at the cursor.
template <class D>
MPK_ALWAYS_INLINE typename D::value_type leaf(cursor& c) noexcept {
  const auto avail = static_cast<std::size_t>(c.end - c.p);
  const decoded<typename D::value_type> d = avail >= 9
                                                ? D::template run<true>(c.p, c.p, avail, c.lim)
                                                : decode_short<D>(c.p, c.end, c.lim);
  if (d.ec != errc::ok) [[unlikely]] {
    c.fail(c.p, d.ec);
    return {};
  }
  c.p += d.size;
  return d.value;
}

/// Skips the value at the cursor (records resolved: definitions inside it still count).
inline void skip(cursor& c) {
  std::size_t pos = static_cast<std::size_t>(c.p - c.begin);
  limits lim = c.lim;
  lim.max_depth -= c.depth;
  const mpk::error e = expand_value(*c.table, {c.begin, static_cast<std::size_t>(c.end - c.begin)},
                                    pos, nullptr, lim, 0, nullptr);
  if (e) return c.fail(c.begin + e.offset, e.code);
  c.p = c.begin + pos;
}

template <class T>
inline constexpr char type_key = 0;

template <class T>
std::size_t type_index() {
  static const std::size_t i = next_record_type_index();
  return i;
}

template <class T>
struct is_vector : std::false_type {};
template <class U, class A>
struct is_vector<std::vector<U, A>>
    : std::bool_constant<!std::is_same_v<U, std::byte> && !std::is_same_v<U, bool>> {};
template <class T>
struct is_optional : std::false_type {};
template <class U>
struct is_optional<std::optional<U>> : std::true_type {};

/// Types read by a reader decoder directly (a plain fixint 0x40..0x7f never starts a record
/// in numbers: a defined id there is a type mismatch).
template <class T>
inline constexpr bool is_number =
    is_read_integer<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T>
inline constexpr bool is_direct_leaf =
    std::is_same_v<T, bool> || std::is_same_v<T, std::nullptr_t> ||
    std::is_same_v<T, std::string_view> || std::is_same_v<T, std::span<const std::byte>>;

template <class T>
void read(cursor& c, T& out);

/// The index in d.typed of struct T's mapping, computed on first use.
template <class T>
std::size_t mapping(record_def& d) {
  using L = layout<T>;
  for (std::size_t i = 0; i < d.typed.size(); ++i)
    if (d.typed[i].type == &type_key<T>) return i;
  record_def::typed_map m{&type_key<T>, d.count() == L::count, {}};
  m.fields.resize(d.count());
  for (std::size_t i = 0; i < d.count(); ++i) {
    const std::size_t f = L::find(d.key(i));
    m.fields[i] = f == L::count ? std::uint16_t{0xffff} : static_cast<std::uint16_t>(f);
    if (f != i) m.in_order = false;
  }
  if (m.in_order) d.ordered = &type_key<T>;
  d.typed.push_back(std::move(m));
  return d.typed.size() - 1;
}

template <class T, std::size_t... I>
MPK_ALWAYS_INLINE void read_fields(cursor& c, T& v, std::index_sequence<I...>) {
  (read(c, layout<T>::template member<I>(v)), ...);
}

template <class T, std::size_t... I>
void read_field(cursor& c, T& v, std::size_t f, std::index_sequence<I...>) {
  (void)((f == I ? (read(c, layout<T>::template member<I>(v)), true) : false) || ...);
}

/// One entry whose key resolved to field f (count: none) of T, with strict-mode checks.
template <class T>
void read_entry(cursor& c, T& v, std::size_t f, field_set<layout<T>::count>& seen,
                const std::byte* key_at) {
  constexpr std::size_t count = layout<T>::count;
  if (f >= count) {
    if (c.strict) return c.fail(key_at, errc::unknown_key);
    return skip(c);
  }
  if (c.strict && seen.test(f)) return c.fail(key_at, errc::duplicate_key);
  seen.set(f);
  read_field(c, v, f, std::make_index_sequence<count>{});
}

/// An instance (at `at`, values after `head` bytes) of a definition whose keys are T's fields
/// in declaration order: the values are read straight-line, with no mapping and no per-field
/// dispatch. Nothing of the definition is read again, so it need not be kept busy.
template <class T>
MPK_ALWAYS_INLINE void read_ordered(cursor& c, T& v, const std::byte* at, std::size_t head) {
  if (!c.enter(at)) return;
  c.p += head;
  read_fields(c, v, std::make_index_sequence<layout<T>::count>{});
  --c.depth;
}

/// An instance of any definition: each position goes to the field mapping<T> found for it
/// (computed once per definition and type).
template <class T>
void read_record(cursor& c, T& v, record_def& d, const std::byte* at, std::size_t id_size) {
  using L = layout<T>;
  const std::uint32_t n = d.count();
  if (n > static_cast<std::size_t>(c.end - c.p) - id_size) return c.fail(at, errc::truncated);
  if (!c.enter(at)) return;
  c.p += id_size;
  // Busy while its instance is read, also when an allocation throws out of it (the table
  // lives on after the error: a definition left busy would never be replaced in place).
  struct busy_guard {
    record_def& d;
    explicit busy_guard(record_def& def) noexcept : d(def) { ++d.busy; }
    ~busy_guard() { --d.busy; }
    busy_guard(const busy_guard&) = delete;
    busy_guard& operator=(const busy_guard&) = delete;
  } busy(d);
  const std::size_t m = mapping<T>(d);
  if (d.typed[m].in_order) {
    read_fields(c, v, std::make_index_sequence<L::count>{});
  } else {
    field_set<L::count> seen;
    for (std::uint32_t i = 0; i < n && c.ok(); ++i)
      read_entry(c, v, d.typed[m].fields[i], seen, at);
    if (c.strict && c.ok() && !seen.all()) c.fail(at, errc::missing_key);
  }
  --c.depth;
}

template <class T>
void read_plain_map(cursor& c, T& v) {
  using L = layout<T>;
  const std::byte* const at = c.p;
  const std::uint32_t n = leaf<header_decoder<true>>(c);
  if (!c.ok() || !c.enter(at)) return;
  field_set<L::count> seen;
  for (std::uint32_t i = 0; i < n && c.ok(); ++i) {
    const std::byte* const key_at = c.p;
    if (c.p != c.end && family_table[u8(c.p)] == type::str) {
      const std::string_view key = leaf<str_decoder>(c);
      if (c.ok()) read_entry(c, v, L::find(key), seen, key_at);
    } else {
      if (c.strict) return c.fail(key_at, errc::unknown_key);
      skip(c);
      if (c.ok()) skip(c);
    }
  }
  if (c.strict && c.ok() && !seen.all()) c.fail(at, errc::missing_key);
  --c.depth;
}

template <class T>
void read_map_struct(cursor& c, T& v) {
  if (c.p == c.end) return c.fail(c.p, errc::truncated);
  const std::byte* const at = c.p;
  const std::uint8_t m = u8(c.p);
  if (m >= 0x40 && m <= 0x7f) {
    const record_ref r = c.table->lookup(c.p, c.end);
    if (r.ec != errc::ok) return c.fail(at, r.ec);
    if (r.def == nullptr) return c.fail(at, errc::type_mismatch);
    if (r.def->ordered == &type_key<T>) [[likely]]
      return read_ordered(c, v, at, r.size);
    return read_record(c, v, *r.def, at, r.size);
  }
  if ((m == marker::fixext1 || m == marker::fixext2) && c.end - c.p >= 2 &&
      static_cast<std::int8_t>(u8(c.p + 1)) == record_ext_type) {
    const std::byte* where = at;
    const record_ref r = c.table->define(c.p, c.end, c.lim, where);
    if (r.ec != errc::ok) return c.fail(where, r.ec);
    if (r.def->ordered == &type_key<T>) return read_ordered(c, v, at, r.size);
    return read_record(c, v, *r.def, at, r.size);
  }
  read_plain_map(c, v);
}

template <class T, std::size_t... I>
void read_positional(cursor& c, T& v, std::uint32_t n, std::index_sequence<I...>) {
  ((I < n ? read(c, layout<T>::template member<I>(v)) : void()), ...);
}

template <class T>
void read_array_struct(cursor& c, T& v) {
  constexpr std::size_t count = layout<T>::count;
  const std::byte* const at = c.p;
  const std::uint32_t n = leaf<header_decoder<false>>(c);
  if (!c.ok() || !c.enter(at)) return;
  read_positional(c, v, n, std::make_index_sequence<count>{});
  if (c.strict && c.ok() && n != count)
    return c.fail(at, n < count ? errc::missing_key : errc::unknown_key);
  for (std::uint32_t i = count; i < n && c.ok(); ++i)
    skip(c);
  --c.depth;
}

/// Any other type: its codec reads the value, expanded to plain MessagePack when it holds
/// records.
template <class T>
void read_fallback(cursor& c, T& out) {
  const std::byte* const at = c.p;
  std::size_t pos = static_cast<std::size_t>(c.p - c.begin);
  limits lim = c.lim;
  lim.max_depth -= c.depth;
  buffer& expanded = records_access::fallback_buffer(*c.decoder);
  bool saw = false;
  const auto left = static_cast<std::size_t>(c.end - c.p);
  const mpk::error e =
      expand_value(*c.table, {c.begin, static_cast<std::size_t>(c.end - c.begin)}, pos, &expanded,
                   lim, left * c.decoder->options().max_expansion + 4096, &saw);
  if (e) return c.fail(c.begin + e.offset, e.code);
  const std::span<const std::byte> bytes =
      saw ? expanded.bytes() : std::span<const std::byte>(at, c.begin + pos - at);
  reader r(bytes, {.limits = lim, .utf8 = c.utf8, .strict = c.strict});
  read_context ctx(r.options());
  detail::unpack_top(r, out, ctx);
  if (const mpk::error re = r.error()) return c.fail(saw ? at : at + re.offset, re.code);
  c.p = c.begin + pos;
}

/// The str at the cursor for a std::string, checked for UTF-8 unless utf8_check::none; ""
/// after an error.
MPK_ALWAYS_INLINE std::string_view read_owned_str(cursor& c) noexcept {
  const std::byte* const at = c.p;
  const std::string_view s = leaf<str_decoder>(c);
  if (c.utf8 != utf8_check::none && !is_ascii_or_valid_utf8(s)) [[unlikely]] {
    c.fail(at, errc::invalid_utf8);
    return {};
  }
  return s;
}

/// A std::vector of n strings: the kept ones overwritten in place (their capacity reused), the
/// new ones constructed from the input's bytes. A function of its own, as the codec's
/// sequence_codec::read is, so that its loop stays compact (emplace_back inlined) whatever
/// struct it is read in.
template <class A>
[[gnu::noinline]] void read_string_list(cursor& c, std::vector<std::string, A>& out,
                                        std::uint32_t n) {
  if (out.size() > n) out.erase(out.begin() + n, out.end());
  std::uint32_t i = 0;
  for (const std::size_t kept = out.size(); i < kept && c.ok(); ++i)
    out[i].assign(read_owned_str(c));
  out.reserve(n);  // n is at most the bytes that remain
  for (; i < n && c.ok(); ++i)
    out.emplace_back(read_owned_str(c));
}

template <class T>
MPK_ALWAYS_INLINE void read(cursor& c, T& out) {
  if constexpr (is_number<T>) {
    if (c.p != c.end && (u8(c.p) & 0xc0u) == 0x40u && c.table->is_record(u8(c.p))) [[unlikely]]
      return c.fail(c.p, errc::type_mismatch);
    out = leaf<decoder_for<T>>(c);
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    const std::byte* const at = c.p;
    out = leaf<str_decoder>(c);
    if (c.utf8 == utf8_check::all && !is_ascii_or_valid_utf8(out)) [[unlikely]]
      return c.fail(at, errc::invalid_utf8);
  } else if constexpr (is_direct_leaf<T>) {
    out = leaf<decoder_for<T>>(c);
  } else if constexpr (std::is_same_v<T, std::vector<std::byte>>) {
    const std::span<const std::byte> b = leaf<bin_decoder>(c);
    out.assign(b.begin(), b.end());
  } else if constexpr (std::is_same_v<T, std::string>) {
    out.assign(read_owned_str(c));
  } else if constexpr (described<T>) {
    if constexpr (layout<T>::map_mode)
      read_map_struct(c, out);
    else
      read_array_struct(c, out);
  } else if constexpr (is_vector<T>::value) {
    const std::byte* const at = c.p;
    const std::uint32_t n = leaf<header_decoder<false>>(c);
    if (!c.ok() || !c.enter(at)) return;
    if constexpr (std::is_same_v<typename T::value_type, std::string>) {
      read_string_list(c, out, n);
    } else {
      out.resize(n);
      for (std::uint32_t i = 0; i < n && c.ok(); ++i)
        read(c, out[i]);
    }
    --c.depth;
  } else if constexpr (is_optional<T>::value) {
    if (c.p != c.end && u8(c.p) == marker::nil) {
      ++c.p;
      out.reset();
      return;
    }
    if (!out) out.emplace();
    read(c, *out);
  } else {
    read_fallback(c, out);
  }
}

// --- encoding ------------------------------------------------------------------------------

template <class T>
void write(records_encoder& enc, writer<buffer>& w, const T& v);

template <class T, std::size_t... I>
MPK_ALWAYS_INLINE void write_fields(records_encoder& enc, writer<buffer>& w, const T& v,
                                    std::index_sequence<I...>) {
  (write(enc, w, layout<T>::template member<I>(v)), ...);
}

/// The keys of map-mode struct T as a record shape: its compile-time encoded keys.
template <class T>
std::string_view shape() noexcept {
  using L = layout<T>;
  constexpr std::size_t head = container_header_size(L::count);
  return {reinterpret_cast<const char*>(L::encoded.first.data()) + head, L::total_size - head};
}

template <class T>
void write(records_encoder& enc, writer<buffer>& w, const T& v) {
  if constexpr (is_read_integer<T>) {
    if (v >= 64 && v <= 255)
      w.write_uint8(static_cast<std::uint8_t>(v));
    else
      w.write(v);
  } else if constexpr (is_direct_leaf<T> || std::is_same_v<T, std::string> ||
                       std::is_same_v<T, std::vector<std::byte>> || std::is_same_v<T, float> ||
                       std::is_same_v<T, double>) {
    pack_value(w, v);
  } else if constexpr (described<T>) {
    using L = layout<T>;
    if constexpr (L::map_mode) {
      auto& cache = enc.type_cache();
      const std::size_t i = type_index<T>();
      if (i >= cache.size()) cache.resize(i + 1);
      if (!enc.write_cached(w, cache[i])) {
        enc.write_record_head(w, shape<T>(), L::count);
        cache[i] = enc.last_slot();
      }
    } else {
      w.begin_array(L::count);
    }
    write_fields(enc, w, v, std::make_index_sequence<L::count>{});
  } else if constexpr (is_vector<T>::value) {
    w.begin_array(v.size());
    for (const auto& x : v)
      write(enc, w, x);
  } else if constexpr (is_optional<T>::value) {
    if (v)
      write(enc, w, *v);
    else
      w.write_nil();
  } else {
    // Through its codec, then the dynamic encoder (maps with str keys become records).
    buffer plain;
    writer<buffer> pw(plain, w.options());
    pack_value(pw, v);
    if (!pw.ok()) return w.set_error(pw.error().code);
    auto doc = document::parse(plain.bytes(), {.read = {.limits = limits::trusted()}});
    if (!doc) return w.set_error(doc.error().code);
    if (auto r = enc.write_value(w, doc->root()); !r) w.set_error(r.error().code);
  }
}

}  // namespace detail::rec

/// Decodes the value at `bytes[offset]` (msgpackr records resolved through `dec`) into `out`
/// and returns the offset just past it. Members the input does not mention keep their value.
/// It is read with `options` (limits, UTF-8 checks, strict mode) when given, else with the
/// decoder's (records_options::read): options given here replace the decoder's for this
/// call, limits included. In per_message mode each call starts from the shared structures
/// only.
///
///     std::size_t at = 0;
///     while (at < bytes.size()) { beer b; auto r = mpk::unpack_records(dec, bytes, at, b);
///                                 if (!r) break; at = *r; }
///
/// Errors (offset in `bytes`): those of records_decoder::expand(), errc::type_mismatch,
/// errc::out_of_range, errc::invalid_utf8, and in strict mode errc::unknown_key,
/// errc::missing_key, errc::duplicate_key; errors of a value decoded by its own codec
/// after expansion carry the offset where that value starts.
template <class T, byte_input B>
result<std::size_t> unpack_records(records_decoder& dec, const B& input, std::size_t offset, T& out,
                                   const read_options& options) {
  const std::span<const std::byte> bytes = mpk::as_bytes(input);
  records_access::start(dec);
  detail::rec::cursor c{bytes.data(),
                        bytes.data() + std::min(offset, bytes.size()),
                        bytes.data() + bytes.size(),
                        &dec.table(),
                        &dec,
                        options.limits,
                        options.utf8,
                        options.strict};
#if __cpp_exceptions
  try {
#endif
    detail::rec::read(c, out);
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    c.fail(c.p, errc::out_of_memory);  // the target's strings or vectors, a definition's map
  }
#endif
  dec.table().release_retired();
  if (!c.ok()) return c.err;
  return static_cast<std::size_t>(c.p - c.begin);
}

/// The same, with the decoder's read options.
template <class T, byte_input B>
result<std::size_t> unpack_records(records_decoder& dec, const B& input, std::size_t offset,
                                   T& out) {
  return unpack_records(dec, input, offset, out, dec.options().read);
}

/// Decodes one whole message into a new T, with `options` (else the decoder's read options,
/// as above). Errors: those above, and errc::trailing_bytes (unless allow_trailing).
///
///     auto beers = mpk::unpack_records<std::vector<beer>>(dec, bytes);
template <class T, byte_input B>
[[nodiscard]] result<T> unpack_records(records_decoder& dec, const B& input,
                                       const read_options& options) {
  const std::span<const std::byte> bytes = mpk::as_bytes(input);
  result<T> out;  // T value-initialized in place: decoded there and returned without a move
  const result<std::size_t> end = unpack_records(dec, bytes, 0, *out, options);
  if (!end)
    out = end.error();
  else if (!options.allow_trailing && *end != bytes.size())
    out = mpk::error{errc::trailing_bytes, *end};
  return out;
}

template <class T, byte_input B>
[[nodiscard]] result<T> unpack_records(records_decoder& dec, const B& input) {
  return unpack_records<T>(dec, input, dec.options().read);
}

/// Encodes `v` as one message appended to `out` (map-mode structs as records, see the top of
/// this file). Errors: errc::out_of_memory, errc::too_large, and for values written through
/// their codec and the dynamic encoder errc::depth_exceeded. On error, as
/// records_encoder::encode: `out` as it was, the encoder's own shapes forgotten.
template <class T>
result<void> pack_records(records_encoder& enc, const T& v, buffer& out) {
  enc.start_message();
  const std::size_t before = out.size();
  writer<buffer> w(out);
#if __cpp_exceptions
  try {
#endif
    detail::rec::write(enc, w, v);
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    w.set_error(errc::out_of_memory);  // the type cache, a shape's entry
  }
#endif
  const mpk::error e = w.error();
  if (e) enc.fail_message(out, before);
  return e;
}

/// Encodes `v` as one message into a new buffer. Errors: those above.
///
///     auto bytes = mpk::pack_records(enc, beers);   // msgpackr's unpack reads it
template <class T>
[[nodiscard]] result<buffer> pack_records(records_encoder& enc, const T& v) {
  buffer out;
  if (auto r = pack_records(enc, v, out); !r) return r.error();
  return out;
}

/// Adds map-mode struct T's keys as a shared structure; returns its index. Errors: those of
/// shared_structures::add().
template <class T>
result<std::size_t> add_shared_structure(shared_structures& s) {
  using L = detail::layout<T>;
  static_assert(L::map_mode, "mpk::add_shared_structure<T>: T must be described with MPK_MAP");
  shared_structures::keys_type keys(L::names.begin(), L::names.end());
  return s.add(std::move(keys));
}

}  // namespace mpk::inline v0
