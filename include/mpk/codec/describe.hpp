// mpk/codec/describe.hpp - describing your own structs and enums: MPK_MAP, MPK_ARRAY,
// MPK_FIELD (renames) and MPK_ENUM (enums as names).
//
//     struct beer { std::string brand; double alcohol = 0; std::vector<std::string> sort; };
//     MPK_MAP(beer, brand, alcohol, MPK_FIELD(sort, "kinds"))   // {"brand":…, "alcohol":…,
//     "kinds":…}
//
// The macros go at namespace scope, in the namespace of the type (they define a constexpr
// function found by argument-dependent lookup), and name public members.
//
// How map mode is fast: every key is encoded once, at compile time, into one constant byte
// array (the map header is glued to the first key); writing a struct copies each key's
// bytes with a copy of constant size, then writes the value. Reading matches each key on
// its raw bytes against the field expected next in declaration order (one length compare
// and one memcmp of constant size), and only when the input is in another order against
// every field; no string is built, nothing is allocated for a struct of scalars.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "mpk/codec/core.hpp"
#include "mpk/detail/header.hpp"

namespace mpk::inline v0 {

/// How a struct travels: a map keyed by field names, or an array of the fields in order.
enum class struct_mode : std::uint8_t { map, array };

namespace detail {

/// One described member: a pointer to it and its key (map mode; unused in array mode).
template <class C, class M>
struct field_desc {
  M C::*member;
  std::string_view name;
};

template <class C, class M>
constexpr field_desc<C, M> make_field(M C::*member, std::string_view name) noexcept {
  return {member, name};
}

using ::mpk::struct_mode;

template <struct_mode Mode, class... F>
struct struct_desc {
  static constexpr struct_mode mode = Mode;
  std::tuple<F...> fields;
};

template <struct_mode Mode, class... F>
constexpr struct_desc<Mode, F...> make_desc(F... fields) noexcept {
  return {{fields...}};
}

template <class T>
concept described = requires {
  mpk_describe(type_tag<T>{});
};

// Header sizes and bytes (str_header_size, container_header_size, put_str_header,
// put_container_header) come from detail/header.hpp, the writer's own definition.

/// Where a struct's fields come from: MPK_MAP / MPK_ARRAY here, reflection of a plain
/// aggregate in codec/reflect.hpp. Each provides map_mode, count, names (the keys) and
/// member<I>(v) (field I of v).
template <class T>
struct field_source;

template <class T>
requires described<T>
struct field_source<T> {
  static constexpr auto desc = mpk_describe(type_tag<T>{});
  static constexpr bool map_mode = decltype(desc)::mode == struct_mode::map;
  static constexpr std::size_t count = std::tuple_size_v<decltype(desc.fields)>;

  static constexpr std::array<std::string_view, count> names = std::apply(
      [](auto... f) { return std::array<std::string_view, count>{f.name...}; }, desc.fields);

  template <std::size_t I>
  MPK_ALWAYS_INLINE static constexpr auto& member(T& v) noexcept {
    return v.*(std::get<I>(desc.fields).member);
  }
  template <std::size_t I>
  MPK_ALWAYS_INLINE static constexpr const auto& member(const T& v) noexcept {
    return v.*(std::get<I>(desc.fields).member);
  }
};

/// The compile-time layout of a struct: its fields (field_source), their keys, and the
/// constant bytes written before each field (segment i = [offsets[i], offsets[i + 1]) of
/// `bytes`; in map mode the container header and key 0 form segment 0, key i segment i; in
/// array mode segment 0 is the array header and the others are empty).
template <class T>
struct layout : field_source<T> {
  static constexpr bool map_mode = field_source<T>::map_mode;
  static constexpr std::size_t count = field_source<T>::count;
  static constexpr const auto& names = field_source<T>::names;

  static constexpr std::size_t total_size = [] {
    std::size_t n = container_header_size(count);
    if (map_mode) {
      for (auto name : names)
        n += str_header_size(name.size()) + name.size();
    }
    return n;
  }();

  /// True when a key takes str8, which an old-spec writer must not write.
  static constexpr bool has_str8_key = [] {
    for (auto name : names)
      if (map_mode && str_header_size(name.size()) == 2) return true;
    return false;
  }();

  static constexpr auto encoded = [] {
    std::pair<std::array<std::byte, total_size>, std::array<std::size_t, count + 1>> out{};
    auto& [bytes, offsets] = out;
    std::size_t at = static_cast<std::size_t>(put_container_header<map_mode>(bytes.data(), count) -
                                              bytes.data());
    offsets[0] = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (map_mode) {
        at = static_cast<std::size_t>(put_str_header(bytes.data() + at, names[i].size()) -
                                      bytes.data());
        for (char c : names[i])
          bytes[at++] = static_cast<std::byte>(c);
      }
      offsets[i + 1] = at;
    }
    return out;
  }();

  /// The constant bytes to write before field I (just before the first field: the header).
  template <std::size_t I>
  static constexpr std::size_t segment_size = encoded.second[I + 1] - encoded.second[I];
  template <std::size_t I>
  MPK_ALWAYS_INLINE static constexpr std::span<const std::byte> segment() noexcept {
    return {encoded.first.data() + encoded.second[I], segment_size<I>};
  }

  /// Index of the field whose key is `key`, or count.
  static std::size_t find(std::string_view key) noexcept {
    for (std::size_t i = 0; i < count; ++i)
      if (names[i].size() == key.size() &&
          std::memcmp(names[i].data(), key.data(), key.size()) == 0)
        return i;
    return count;
  }
};

/// Which fields a map has set so far (a std::bitset's set() is a call with a range check).
template <std::size_t N>
struct field_set {
  static constexpr std::size_t words = N == 0 ? 1 : (N + 63) / 64;
  std::uint64_t bits[words] = {};
  MPK_ALWAYS_INLINE void set(std::size_t i) noexcept {
    bits[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  MPK_ALWAYS_INLINE bool test(std::size_t i) const noexcept {
    return (bits[i / 64] >> (i % 64)) & 1u;
  }
  bool all() const noexcept {
    for (std::size_t i = 0; i < N; ++i)
      if (!test(i)) return false;
    return true;
  }
};

/// The unsigned U that memcpy would load from `name` at `at` (native byte order), computed
/// at compile time.
template <class U>
constexpr U constant_word(std::string_view name, std::size_t at) noexcept {
  U v = 0;
  for (std::size_t i = 0; i < sizeof(U); ++i) {
    const auto byte = static_cast<U>(static_cast<unsigned char>(name[at + i]));
    const std::size_t shift =
        std::endian::native == std::endian::little ? 8 * i : 8 * (sizeof(U) - 1 - i);
    v = static_cast<U>(v | static_cast<U>(byte << shift));
  }
  return v;
}

template <class U>
MPK_ALWAYS_INLINE U load_word(const char* p) noexcept {
  U v;
  std::memcpy(&v, p, sizeof(U));
  return v;
}

/// True when the bytes at `p` equal those of the key of field I of layout L (as many as it has):
/// whole-register loads compared with constants, overlapping at the end (2 loads for keys
/// of 2..16 bytes). A load of fewer bytes into a wider word would stall on store
/// forwarding, and memcmp is a call.
template <class L, std::size_t I>
MPK_ALWAYS_INLINE bool key_equals(const char* p) noexcept {
  constexpr std::string_view name = L::names[I];
  constexpr std::size_t n = name.size();
  if constexpr (n == 0) {
    return true;
  } else if constexpr (n == 1) {
    return p[0] == name[0];
  } else if constexpr (n <= 8) {
    using U = std::conditional_t<(n < 4), std::uint16_t, std::uint32_t>;
    constexpr std::size_t last = n - sizeof(U);
    constexpr U head = constant_word<U>(name, 0);
    constexpr U tail = constant_word<U>(name, last);
    return ((load_word<U>(p) ^ head) | (load_word<U>(p + last) ^ tail)) == 0;
  } else {
    return [p]<std::size_t... K>(std::index_sequence<K...>) {
      constexpr std::size_t last = L::names[I].size() - 8;
      constexpr std::uint64_t tail = constant_word<std::uint64_t>(L::names[I], last);
      return ((load_word<std::uint64_t>(p + 8 * K) ==
               constant_word<std::uint64_t>(L::names[I], 8 * K)) &&
              ...) &&
             load_word<std::uint64_t>(p + last) == tail;
    }
    (std::make_index_sequence<(n - 1) / 8>{});
  }
}

/// True when every member of T (layout L) reads as a new one (reads_as_new_v).
template <class L, class T, std::size_t... I>
constexpr bool members_read_as_new(std::index_sequence<I...>) noexcept {
  return (
      reads_as_new_v<std::remove_cvref_t<decltype(L::template member<I>(std::declval<T&>()))>> &&
      ...);
}

/// A struct's values without their keys, whose positions a definition met earlier names: a
/// msgpackr record, from a value source that has them (`R::has_records`: ext/records). The
/// source gives it to the struct's codec with the cursor on the first value.
struct record_shape {
  std::size_t at;  ///< offset of the record (errors about the whole struct point here)
  /// The field each of the n positions fills (count or more: none), or nullptr when the
  /// positions are exactly the fields in declaration order (n == count).
  const std::uint16_t* fields;
  std::uint32_t n;
};

/// The codec of a struct described with MPK_MAP or MPK_ARRAY. It reads from any value source
/// (see unpack_value): a reader, or ext/records' source, which may give a record instead of
/// a map.
template <class T>
struct struct_codec {
  using L = layout<T>;
  static constexpr std::size_t count = L::count;
  using seen_set = field_set<count>;

 private:
  template <std::size_t I>
  using member_type =
      std::remove_cvref_t<decltype(L::template member<I>(std::declval<const T&>()))>;

  /// True when every field's codec can write straight into reserved room (scalars, strings).
  template <std::size_t... I>
  static constexpr bool all_direct(std::index_sequence<I...>) noexcept {
    return (requires(const member_type<I>& m, std::byte* p) {
      codec<member_type<I>>::direct_size(m);
      codec<member_type<I>>::put_direct(p, m);
    } && ...);
  }
  static constexpr bool writes_directly =
      count != 0 && all_direct(std::make_index_sequence<count>{});

 public:
  /// Writes `v`. A struct of scalars and strings (one reservation, see write_direct) is
  /// written inline at the call: out of line, the call passes the writer's address, and every
  /// later store through the sink's cursor makes the caller reload it (W5
  /// serialize_*, W7 encode_*_records; docs/investigations.md, "W2 1 KiB").
  template <class S>
  requires(writes_directly) MPK_ALWAYS_INLINE static void write(writer<S>& w, const T& v) noexcept {
    write_any(w, v);
  }
  template <class S>
  requires(!writes_directly) static void write(writer<S>& w, const T& v) noexcept {
    write_any(w, v);
  }

  static constexpr wire_types wire = wire_of(L::map_mode ? type::map : type::array);
  static constexpr bool any_source = true;

  template <class R>
  static void read(R& r, T& v, read_context& ctx) {
    if constexpr (L::map_mode) {
      if constexpr (requires { R::has_records; }) {
        // (inlined whole, so that a record in declaration order reads straight-line: W7
        // decode_*_records)
        if (r.template record_at<T>([&](const record_shape& s) __attribute__((always_inline)) {
              read_record(r, v, ctx, s);
            }))
          return;
      }
      read_map(r, v, ctx);
    } else {
      read_array(r, v, ctx);
    }
  }

 private:
  template <class S>
  MPK_ALWAYS_INLINE static void write_any(writer<S>& w, const T& v) noexcept {
    if constexpr (L::has_str8_key) {
      if (w.options().old_spec) [[unlikely]]
        return write_old_spec(w, v, std::make_index_sequence<count>{});
    }
    if constexpr (count == 0) {
      w.write_raw(L::encoded.first);
    } else {
      if constexpr (writes_directly) {
        if (write_direct(w, v, std::make_index_sequence<count>{})) [[likely]]
          return;
      }
      write_fields(w, v, std::make_index_sequence<count>{});
    }
  }

 public:
  /// A struct reads as a new one (see reads_as_new_v) when all its members do: under
  /// read_context::as_new() it gives the members the input leaves out a new T's values.
  static constexpr bool reads_as_new = std::is_default_constructible_v<T> &&
                                       std::is_move_assignable_v<T> &&
                                       members_read_as_new<L, T>(std::make_index_sequence<count>{});

 private:
  /// A struct of scalars and strings with one reservation: its constant bytes and values
  /// written through a pointer, one commit. False (nothing written) when the writer has an
  /// error or options that change the bytes (old-spec, a float32 policy), when the bound is
  /// above 4 KiB, or when the sink has no room for the bound: the caller then writes field
  /// by field (which reports the errors).
  template <class S, std::size_t... I>
  MPK_ALWAYS_INLINE static bool write_direct(writer<S>& w, const T& v,
                                             std::index_sequence<I...>) noexcept {
    constexpr std::size_t direct_max = 4096;
    if (!w.ok() || w.options().old_spec || w.options().float32 != float32_policy::never)
      return false;
    const std::size_t bound =
        L::total_size + (codec<member_type<I>>::direct_size(L::template member<I>(v)) + ...);
    if (bound > direct_max) return false;
    std::byte* const start = w.sink().prepare(bound);
    if (start == nullptr) [[unlikely]]
      return false;
    std::byte* p = start;
    ((p = put_segment<I>(p), p = codec<member_type<I>>::put_direct(p, L::template member<I>(v))),
     ...);
    w.sink().commit(static_cast<std::size_t>(p - start));
    return true;
  }

  /// The constant bytes before field I (header, key), copied with a constant size.
  template <std::size_t I>
  MPK_ALWAYS_INLINE static std::byte* put_segment(std::byte* p) noexcept {
    constexpr std::size_t n = L::template segment_size<I>;
    if constexpr (n != 0) std::memcpy(p, L::encoded.first.data() + L::encoded.second[I], n);
    return p + n;
  }

  template <class S, std::size_t... I>
  MPK_ALWAYS_INLINE static void write_fields(writer<S>& w, const T& v,
                                             std::index_sequence<I...>) noexcept {
    (write_field<I>(w, v), ...);
  }

  template <std::size_t I, class S>
  MPK_ALWAYS_INLINE static void write_field(writer<S>& w, const T& v) noexcept {
    if constexpr (L::template segment_size<I> != 0)
      put_constant<L::template segment_size<I>>(w, L::encoded.first.data() + L::encoded.second[I]);
    pack_value(w, L::template member<I>(v));
  }

  /// Copies N constant bytes straight into the sink: one capacity check and a copy of
  /// constant size, which the compiler turns into a few moves (write_raw would be a call
  /// and a memmove of unknown size).
  template <std::size_t N, class S>
  MPK_ALWAYS_INLINE static void put_constant(writer<S>& w, const std::byte* bytes) noexcept {
    if (w.ok()) [[likely]] {
      if (std::byte* p = w.sink().prepare(N)) [[likely]] {
        std::memcpy(p, bytes, N);
        w.sink().commit(N);
        return;
      }
    }
    w.write_raw({bytes, N});  // a no-op after an error; else records the sink's failure
  }

  template <class S, std::size_t... I>
  static void write_old_spec(writer<S>& w, const T& v, std::index_sequence<I...>) noexcept {
    w.begin_map(count);
    ((w.write_str(L::names[I]), pack_value(w, L::template member<I>(v))), ...);
  }

  // --- map mode ---

  template <class R>
  static void read_map(R& r, T& v, read_context& ctx) {
    const std::size_t left = r.remaining();
    const std::uint32_t n = r.read_map_header();
    if (!r.ok()) return;
    const std::size_t at = detail::offset_before(r, left);
    if (!ctx.enter(r, at)) return;
    seen_set seen;
    std::uint32_t i = 0;
    read_in_order(r, v, ctx, n, i, seen, std::make_index_sequence<count>{});
    for (; i < n && r.ok(); ++i)
      read_entry(r, v, ctx, seen);
    check_seen(r, v, ctx, seen, at);
    ctx.leave();
  }

  /// A record: its values in the positions `s` names (strict mode as for a map, errors about
  /// keys at the record).
  template <class R>
  MPK_ALWAYS_INLINE static void read_record(R& r, T& v, read_context& ctx, const record_shape& s) {
    if (!ctx.enter(r, s.at)) return;
    if (s.fields == nullptr) [[likely]] {
      read_positional(r, v, ctx, count, std::make_index_sequence<count>{});
    } else {
      seen_set seen;
      for (std::uint32_t i = 0; i < s.n && r.ok(); ++i)
        dispatch_index(r, v, ctx, s.fields[i], s.at, seen);
      check_seen(r, v, ctx, seen, s.at);
    }
    ctx.leave();
  }

  /// After the entries of a map (at `at`): the keys it lacked (strict: errc::missing_key).
  MPK_ALWAYS_INLINE static void check_seen(reader& r, T& v, read_context& ctx, const seen_set& seen,
                                           std::size_t at) {
    if (!seen.all() && r.ok()) [[unlikely]] {
      if (ctx.strict())
        ctx.fail(r, errc::missing_key, at);
      else if (ctx.as_new())
        reset_unseen(v, seen, std::make_index_sequence<count>{});
    }
  }

  /// Gives the members not in `seen` the values of a new T (read_context::as_new()).
  template <std::size_t... I>
  MPK_COLD static void reset_unseen(T& v, const seen_set& seen, std::index_sequence<I...>) {
    if constexpr (reads_as_new) {
      T fresh{};
      ((seen.test(I) ? void()
                     : void(L::template member<I>(v) = std::move(L::template member<I>(fresh)))),
       ...);
    }
  }

  template <class R, std::size_t... I>
  MPK_ALWAYS_INLINE static void read_in_order(R& r, T& v, read_context& ctx, std::uint32_t n,
                                              std::uint32_t& i, seen_set& seen,
                                              std::index_sequence<I...>) {
    (void)n;  // unused without fields
    (void)(read_expected<I, R>(r, v, ctx, n, i, seen) && ...);
  }

  /// Reads entry i when its key is that of field I (the common case: the writer used the
  /// declaration order); otherwise handles the entry whatever its key and returns false, and
  /// the remaining entries go through read_entry.
  template <std::size_t I, class R>
  MPK_ALWAYS_INLINE static bool read_expected(R& r, T& v, read_context& ctx, std::uint32_t n,
                                              std::uint32_t& i, seen_set& seen) {
    if (i >= n) return false;
    ++i;
    if (r.peek() != type::str) [[unlikely]] {
      other_key(r, ctx);
      return false;
    }
    const std::size_t remaining_before = r.remaining();
    const std::string_view key = r.read_string_view();
    if (key.size() == L::names[I].size() && key_equals<L, I>(key.data())) [[likely]] {
      seen.set(I);
      unpack_value(r, L::template member<I>(v), ctx);
      if (!r.ok()) [[unlikely]] {
        ctx.failed_in(L::names[I], wire_types_of<member_type<I>>());
        return false;
      }
      return true;
    }
    if (!r.ok()) return false;
    // the key's offset, from what it took (position() before the read would cost a call
    // on the path that matches)
    const std::size_t key_at = r.position() - (remaining_before - r.remaining());
    dispatch(r, v, ctx, key, key_at, seen);
    return false;
  }

  template <class R>
  static void read_entry(R& r, T& v, read_context& ctx, seen_set& seen) {
    if (r.peek() != type::str) return other_key(r, ctx);
    const std::size_t key_at = r.position();
    const std::string_view key = r.read_string_view();
    dispatch(r, v, ctx, key, key_at, seen);
  }

  /// The value of the entry whose key `key` (at `key_at`) was just read.
  template <class R>
  static void dispatch(R& r, T& v, read_context& ctx, std::string_view key, std::size_t key_at,
                       seen_set& seen) {
    if (!r.ok()) return;
    dispatch_index(r, v, ctx, L::find(key), key_at, seen);
  }

  /// The value of an entry for field `index` (count or more: no field), keyed at `key_at`.
  /// (Inlined into dispatch: the code mpk::unpack ran before records shared it, W5.)
  template <class R>
  MPK_ALWAYS_INLINE static void dispatch_index(R& r, T& v, read_context& ctx, std::size_t index,
                                               std::size_t key_at, seen_set& seen) {
    if (index >= count) {
      if (ctx.strict()) return ctx.fail(r, errc::unknown_key, key_at);
      return r.skip();
    }
    if (seen.test(index) && ctx.strict()) return ctx.fail(r, errc::duplicate_key, key_at);
    seen.set(index);
    read_field(r, v, ctx, index, std::make_index_sequence<count>{});
  }

  /// A key that is not a string: no field has it.
  template <class R>
  static void other_key(R& r, read_context& ctx) {
    if (!r.ok()) return;
    if (ctx.strict()) return ctx.fail(r, errc::unknown_key, r.position());
    r.skip();
    r.skip();
  }

  template <class R, std::size_t... I>
  static void read_field(R& r, T& v, read_context& ctx, std::size_t index,
                         std::index_sequence<I...>) {
    (void)((index == I ? (read_member<I, R>(r, v, ctx), true) : false) || ...);
  }

  /// Field I, and its key in the path of an error it fails with.
  template <std::size_t I, class R>
  MPK_ALWAYS_INLINE static bool read_member(R& r, T& v, read_context& ctx) {
    unpack_value(r, L::template member<I>(v), ctx);
    if (!r.ok()) [[unlikely]] {
      if constexpr (L::map_mode)
        ctx.failed_in(L::names[I], wire_types_of<member_type<I>>());
      else
        ctx.failed_at(I, wire_types_of<member_type<I>>());
      return false;
    }
    return true;
  }

  // --- array mode ---

  template <class R>
  static void read_array(R& r, T& v, read_context& ctx) {
    const std::size_t at = r.position();
    const std::uint32_t n = r.read_array_header();
    if (!r.ok() || !ctx.enter(r, at)) return;
    read_positional(r, v, ctx, n, std::make_index_sequence<count>{});
    if (n > count && r.ok()) {
      if (ctx.strict()) {
        ctx.fail(r, errc::unknown_key, r.position());
      } else {
        for (std::uint32_t i = count; i < n && r.ok(); ++i)
          r.skip();
      }
    } else if (n < count && r.ok()) {
      if (ctx.strict()) {
        ctx.fail(r, errc::missing_key, at);
      } else if (ctx.as_new()) {
        seen_set seen;
        for (std::uint32_t i = 0; i < n; ++i)
          seen.set(i);
        reset_unseen(v, seen, std::make_index_sequence<count>{});
      }
    }
    ctx.leave();
  }

  template <class R, std::size_t... I>
  MPK_ALWAYS_INLINE static void read_positional(R& r, T& v, read_context& ctx, std::uint32_t n,
                                                std::index_sequence<I...>) {
    (void)n;  // unused without fields
    (void)(((I < n) && read_member<I, R>(r, v, ctx)) && ...);
  }
};

/// An enumerator and its name, for MPK_ENUM.
template <class E>
struct enum_entry {
  E value;
  std::string_view name;
};

/// The names of enum E's enumerators, as `entries` (an array of enum_entry): from MPK_ENUM
/// here, from reflection with enum_names options in codec/reflect.hpp.
template <class E>
struct enum_entries_of;

template <class E>
requires(std::is_enum_v<E>&& requires {
  mpk_enum_names(type_tag<E>{});
}) struct enum_entries_of<E> {
  static constexpr auto entries = mpk_enum_names(type_tag<E>{});
};

template <class E>
concept named_enum = std::is_enum_v<E> && requires {
  enum_entries_of<E>::entries;
};

}  // namespace detail

/// Structs described with MPK_MAP (a map keyed by member names) or MPK_ARRAY (an array of
/// the members in order). See docs/codec.md for versioning and strict mode.
template <class T>
requires detail::described<T>
struct codec<T> : detail::struct_codec<T> {
};

/// Enums described with MPK_ENUM: written as the enumerator's name (a str); a value that has
/// no name is written as its integer. Read from a name (unknown name: errc::out_of_range) or
/// from an integer.
template <class E>
requires detail::named_enum<E>
struct codec<E> {
  static constexpr const auto& entries = detail::enum_entries_of<E>::entries;
  static constexpr wire_types wire = wire_of(type::str);
  using underlying = std::underlying_type_t<E>;

  template <class S>
  static void write(writer<S>& w, E v) noexcept {
    for (const auto& e : entries)
      if (e.value == v) return w.write_str(e.name);
    pack_value(w, static_cast<underlying>(v));
  }
  static constexpr bool any_source = true;
  template <class R>
  static void read(R& r, E& out, read_context& ctx) {
    if (r.peek() != type::str) {
      underlying u{};
      unpack_value(r, u, ctx);
      out = static_cast<E>(u);
      return;
    }
    const std::size_t at = r.position();
    const std::string_view name = r.read_string_view();
    for (const auto& e : entries)
      if (e.name == name) {
        out = e.value;
        return;
      }
    ctx.fail(r, errc::out_of_range, at);
  }
};

}  // namespace mpk::inline v0

// --- the macros ------------------------------------------------------------------------------
//
// MPK_DETAIL_FOR_EACH(m, T, a, b, …) expands to `m(T, a), m(T, b), …`: a step re-emits itself
// through a deferred call, and MPK_DETAIL_EXPAND rescans 4^4 = 256 times, which bounds the
// number of items per macro at 256.

#define MPK_DETAIL_PARENS ()
#define MPK_DETAIL_EXPAND(...) \
  MPK_DETAIL_EXPAND3(MPK_DETAIL_EXPAND3(MPK_DETAIL_EXPAND3(MPK_DETAIL_EXPAND3(__VA_ARGS__))))
#define MPK_DETAIL_EXPAND3(...) \
  MPK_DETAIL_EXPAND2(MPK_DETAIL_EXPAND2(MPK_DETAIL_EXPAND2(MPK_DETAIL_EXPAND2(__VA_ARGS__))))
#define MPK_DETAIL_EXPAND2(...) \
  MPK_DETAIL_EXPAND1(MPK_DETAIL_EXPAND1(MPK_DETAIL_EXPAND1(MPK_DETAIL_EXPAND1(__VA_ARGS__))))
#define MPK_DETAIL_EXPAND1(...) __VA_ARGS__
#define MPK_DETAIL_FOR_EACH(m, T, ...) \
  __VA_OPT__(MPK_DETAIL_EXPAND(MPK_DETAIL_FOR_EACH_STEP(m, T, __VA_ARGS__)))
#define MPK_DETAIL_FOR_EACH_STEP(m, T, item, ...) \
  m(T, item) __VA_OPT__(, MPK_DETAIL_FOR_EACH_AGAIN MPK_DETAIL_PARENS(m, T, __VA_ARGS__))
#define MPK_DETAIL_FOR_EACH_AGAIN() MPK_DETAIL_FOR_EACH_STEP

// MPK_DETAIL_IS_PAREN(x) is 1 when x is a parenthesized list (what MPK_FIELD makes), else 0.
#define MPK_DETAIL_CAT(a, b) MPK_DETAIL_CAT_(a, b)
#define MPK_DETAIL_CAT_(a, b) a##b
#define MPK_DETAIL_IS_PAREN(x) MPK_DETAIL_IS_PAREN_CHECK(MPK_DETAIL_IS_PAREN_PROBE x)
#define MPK_DETAIL_IS_PAREN_PROBE(...) ~, 1,
#define MPK_DETAIL_IS_PAREN_CHECK(...) MPK_DETAIL_IS_PAREN_PICK(__VA_ARGS__, 0, ~)
#define MPK_DETAIL_IS_PAREN_PICK(a, n, ...) n
#define MPK_DETAIL_UNPAREN(...) __VA_ARGS__
#define MPK_DETAIL_CALL(m, ...) m(__VA_ARGS__)

// A field: `member` (key "member") or MPK_FIELD(member, "key").
#define MPK_DETAIL_FIELD(T, item) \
  MPK_DETAIL_CAT(MPK_DETAIL_FIELD_, MPK_DETAIL_IS_PAREN(item))(T, item)
#define MPK_DETAIL_FIELD_0(T, member) ::mpk::detail::make_field(&T::member, #member)
#define MPK_DETAIL_FIELD_1(T, item) \
  MPK_DETAIL_CALL(MPK_DETAIL_FIELD_RENAMED, T, MPK_DETAIL_UNPAREN item)
#define MPK_DETAIL_FIELD_RENAMED(T, member, key) ::mpk::detail::make_field(&T::member, key)

// An enumerator: `name` or MPK_FIELD(name, "text").
#define MPK_DETAIL_ENUMERATOR(E, item) \
  MPK_DETAIL_CAT(MPK_DETAIL_ENUMERATOR_, MPK_DETAIL_IS_PAREN(item))(E, item)
#define MPK_DETAIL_ENUMERATOR_0(E, name) \
  ::mpk::detail::enum_entry<E> {         \
    E::name, #name                       \
  }
#define MPK_DETAIL_ENUMERATOR_1(E, item) \
  MPK_DETAIL_CALL(MPK_DETAIL_ENUMERATOR_RENAMED, E, MPK_DETAIL_UNPAREN item)
#define MPK_DETAIL_ENUMERATOR_RENAMED(E, name, text) \
  ::mpk::detail::enum_entry<E> {                     \
    E::name, text                                    \
  }

// `scope` is empty at namespace scope and `friend` inside the class (a hidden friend, found
// by argument-dependent lookup through type_tag<T>, that may name private members).
#define MPK_DETAIL_DESCRIBE(scope, mode, T, ...)                                    \
  [[maybe_unused]] scope constexpr auto mpk_describe(::mpk::type_tag<T>) noexcept { \
    return ::mpk::detail::make_desc<::mpk::struct_mode::mode>(                      \
        MPK_DETAIL_FOR_EACH(MPK_DETAIL_FIELD, T, __VA_ARGS__));                     \
  }                                                                                 \
  static_assert(true, "MPK_MAP / MPK_ARRAY take a semicolon")

/// Renames a member in MPK_MAP (its key becomes `key`, a string literal) or an enumerator in
/// MPK_ENUM: `MPK_MAP(user, id, MPK_FIELD(display_name, "displayName"))`.
#define MPK_FIELD(member, key) (member, key)

/// Describes struct T in map mode: a map from member names (or MPK_FIELD keys) to values,
/// in the order given. At namespace scope, in T's namespace; the members must be public.
///
///     MPK_MAP(point, x, y);               // {"x": 1, "y": 2}
#define MPK_MAP(T, ...) MPK_DETAIL_DESCRIBE(, map, T, __VA_ARGS__)

/// Describes struct T in array mode: an array of the members in the order given (positions
/// are the contract: append new members at the end). At namespace scope, in T's namespace.
///
///     MPK_ARRAY(point, x, y);             // [1, 2]
#define MPK_ARRAY(T, ...) MPK_DETAIL_DESCRIBE(, array, T, __VA_ARGS__)

/// MPK_MAP written inside class T, for private members (the role of msgpack-cxx's
/// MSGPACK_DEFINE_MAP): anywhere in the class body, any access section.
///
///     class account {
///       std::string owner_;
///       std::int64_t cents_ = 0;
///      public:
///       MPK_CLASS_MAP(account, MPK_FIELD(owner_, "owner"), MPK_FIELD(cents_, "cents"));
///     };
#define MPK_CLASS_MAP(T, ...) MPK_DETAIL_DESCRIBE(friend, map, T, __VA_ARGS__)

/// MPK_ARRAY written inside class T, for private members.
#define MPK_CLASS_ARRAY(T, ...) MPK_DETAIL_DESCRIBE(friend, array, T, __VA_ARGS__)

/// Gives enum E's enumerators names: it is then written as a str (the name) instead of an
/// integer. At namespace scope, in E's namespace.
///
///     MPK_ENUM(color, red, green, MPK_FIELD(dark_blue, "dark-blue"));
#define MPK_ENUM(E, ...)                                                             \
  [[maybe_unused]] constexpr auto mpk_enum_names(::mpk::type_tag<E>) noexcept {      \
    return ::std::array{MPK_DETAIL_FOR_EACH(MPK_DETAIL_ENUMERATOR, E, __VA_ARGS__)}; \
  }                                                                                  \
  static_assert(true, "MPK_ENUM takes a semicolon")
