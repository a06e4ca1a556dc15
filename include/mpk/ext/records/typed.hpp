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
// Decoding goes through the codec (codec/*.hpp), the same code as mpk::unpack: the decoder
// gives the codecs a value source (detail::rec::source, a reader that resolves records), so
// structs, enums, containers and optionals decode once for both, with the same errors (code,
// offset, member path). A map-mode struct reads a record instance, a record definition or a
// plain map; for each definition and struct type the decoder computes once which field each
// record position fills (and whether positions are exactly the fields in declaration order,
// the common case, read then with no lookup at all); instances then cost no key comparison.
// A type whose codec reads only from a plain reader (std::map, std::tuple, your own codec,
// ...) has its value expanded into plain MessagePack (records become maps) in memory the
// decoder keeps until its next call, and its codec reads that: std::string_view members
// inside such a value point there.
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

/// Types the encoder writes with their codec directly.
template <class T>
inline constexpr bool is_direct_leaf =
    std::is_same_v<T, bool> || std::is_same_v<T, std::nullptr_t> ||
    std::is_same_v<T, std::string_view> || std::is_same_v<T, std::span<const std::byte>>;

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

/// The value source of a records decoding: a reader over the message whose structs may come
/// as msgpackr records. The codecs decode through it as through a reader (codec/core.hpp,
/// unpack_value): a map-mode struct asks it for a record at the cursor (record_at), numbers
/// refuse a defined record id, skip() resolves the definitions inside what it skips, and a
/// type whose codec reads only from a plain reader (std::map, std::tuple, your own codec, ...)
/// has its value expanded to plain MessagePack first (records become maps), in memory the
/// decoder keeps until its next call: std::string_view members inside it point there.
class source : public reader {
 public:
  static constexpr bool has_records = true;

  source(records_decoder& dec, std::span<const std::byte> bytes, std::size_t offset,
         const read_options& options) noexcept
      : reader(bytes, options),
        table_(&dec.table()),
        decoder_(&dec) {
    advance(offset < bytes.size() ? offset : bytes.size());
  }

  /// When a record (an instance, or a definition and its first instance) is at the cursor:
  /// runs `body(record_shape)` with the cursor on its first value and returns true (also
  /// after an error in its id or definition, left in the reader). False for anything else.
  template <class T, class F>
  MPK_ALWAYS_INLINE bool record_at(F&& body) {
    const std::byte* const p = next_byte();
    const std::byte* const end = input_end();
    if (p == end) return false;
    const std::uint8_t m = u8(p);
    if (m >= 0x40 && m <= 0x7f) {
      const record_ref r = table_->lookup(p, end);
      if (r.ec != errc::ok) return fail_here(p, r.ec);
      if (r.def == nullptr) return fail_here(p, errc::type_mismatch);
      instance<T>(*r.def, r.size, body);
      return true;
    }
    if ((m == marker::fixext1 || m == marker::fixext2) && end - p >= 2 &&
        static_cast<std::int8_t>(u8(p + 1)) == record_ext_type) {
      const std::byte* where = p;
      const record_ref r = table_->define(p, end, options().limits, where);
      if (r.ec != errc::ok) return fail_here(where, r.ec);
      instance<T>(*r.def, r.size, body);
      return true;
    }
    return false;
  }

  /// Skips the next value, records resolved (definitions inside it still count).
  void skip() {
    if (!ok()) return;  // stopped at its error: nothing to skip
    std::size_t pos = position();
    const std::byte* const begin = input_begin();
    const std::span<const std::byte> all(begin, static_cast<std::size_t>(input_end() - begin));
    const mpk::error e = expand_value(*table_, all, pos, nullptr, options().limits, 0, nullptr);
    if (e) return set_error(e);
    advance(pos - position());
  }

  /// A value whose codec reads only from a reader (unpack_value sends it here).
  template <class T>
  MPK_ALWAYS_INLINE void read_other(T& out, read_context& ctx) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      // a plain fixint 0x40..0x7f never starts a record in numbers: a defined id there is a
      // type mismatch
      const std::byte* const p = next_byte();
      if (p != input_end() && (u8(p) & 0xc0u) == 0x40u && table_->is_record(u8(p))) [[unlikely]]
        return fail_at_ptr(p, errc::type_mismatch);
      unpack_value(static_cast<reader&>(*this), out, ctx);
    } else if constexpr (holds_no_records(wire_types_of<T>())) {
      unpack_value(static_cast<reader&>(*this), out, ctx);
    } else {
      read_expanded(out, ctx);
    }
  }

 private:
  /// True for a codec that reads only types in which no record can start.
  static constexpr bool holds_no_records(wire_types w) noexcept {
    constexpr wire_types may = wire_of(type::uint) | wire_of(type::sint) | wire_of(type::array) |
                               wire_of(type::map) | wire_of(type::ext);
    return w != 0 && (w & may) == 0;
  }

  MPK_COLD bool fail_here(const std::byte* at, errc ec) noexcept {
    fail_at_ptr(at, ec);
    return true;
  }

  /// An instance of definition `d` at the cursor, its values after `head` bytes.
  template <class T, class F>
  MPK_ALWAYS_INLINE void instance(record_def& d, std::size_t head, F& body) {
    const std::size_t at = position();
    if (d.ordered == &type_key<T>) [[likely]] {
      // nothing of the definition is read again, so it need not be kept busy
      advance(head);
      return body(record_shape{at, nullptr, static_cast<std::uint32_t>(layout<T>::count)});
    }
    const std::uint32_t n = d.count();
    if (n > remaining() - head) return fail_at_ptr(next_byte(), errc::truncated);
    advance(head);
    // Busy while its instance is read, also when an allocation throws out of it (the table
    // lives on after the error: a definition left busy would never be replaced in place).
    struct busy_guard {
      record_def& d;
      explicit busy_guard(record_def& def) noexcept : d(def) { ++d.busy; }
      ~busy_guard() { --d.busy; }
      busy_guard(const busy_guard&) = delete;
      busy_guard& operator=(const busy_guard&) = delete;
    } busy(d);
    const record_def::typed_map& m = d.typed[mapping<T>(d)];
    body(record_shape{at, m.in_order ? nullptr : m.fields.data(), n});
  }

  /// The value at the cursor expanded to plain MessagePack when it holds records, then
  /// read by its codec from a plain reader.
  template <class T>
  MPK_COLD void read_expanded(T& out, read_context& ctx) {
    if (!ok()) return;
    const std::byte* const begin = input_begin();
    const std::byte* const at = next_byte();
    std::size_t pos = position();
    buffer& expanded = records_access::fallback_buffer(*decoder_);
    bool saw = false;
    const auto left = remaining();
    const mpk::error e = expand_value(
        *table_, {begin, static_cast<std::size_t>(input_end() - begin)}, pos, &expanded,
        options().limits, left * decoder_->options().max_expansion + 4096, &saw);
    if (e) return set_error(e);
    const std::span<const std::byte> bytes =
        saw ? expanded.bytes() : std::span<const std::byte>(at, begin + pos - at);
    reader r(bytes, options());
    unpack_value(r, out, ctx);
    if (const mpk::error re = r.error()) {
      const std::size_t here = static_cast<std::size_t>(at - begin);
      return set_error({re.code, saw ? here : here + re.offset});
    }
    advance(pos - position());
  }

  record_table* table_;
  records_decoder* decoder_;
};

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
/// errc::missing_key, errc::duplicate_key, and the codecs' own (see mpk::unpack), with the
/// member path (error::path()) as mpk::unpack gives it; errors of a value decoded by its own
/// codec after expansion of records inside it carry the offset where that value starts.
template <class T, byte_input B>
result<std::size_t> unpack_records(records_decoder& dec, const B& input, std::size_t offset, T& out,
                                   const read_options& options) {
  const std::span<const std::byte> bytes = mpk::as_bytes(input);
  records_access::start(dec);
  detail::rec::source src(dec, bytes, offset, options);
  read_context ctx(options);
  detail::unpack_top(src, out, ctx);  // bad_alloc: errc::out_of_memory (strings, definitions)
  dec.table().release_retired();
  if (const mpk::error e = src.error()) [[unlikely]]
    return ctx.annotate(e, wire_types_of<T>(), bytes);
  return src.position();
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
