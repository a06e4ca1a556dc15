// mpk/codec/std_types.hpp - codecs of the standard library types: strings, byte containers
// (bin), sequences, sets, maps, std::array, std::pair, std::tuple, std::optional,
// std::variant and enums as integers.
//
// Every container read ends with exactly the input's elements (it clears its target first,
// so that a duplicate map key, last wins, never appends twice; a std::vector of numbers or
// strings overwrites its elements in place instead), checks its depth through the context,
// and reserves only counts the reader has already checked against the bytes that remain.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "mpk/codec/core.hpp"
#include "mpk/codec/describe.hpp"
#include "mpk/unicode.hpp"

namespace mpk::inline v0 {

namespace detail {

/// True when the n bytes at p are ASCII, for n <= 32 (false for longer ones): at most four
/// overlapping 8-byte loads, so the short keys and values that fill most messages need no
/// call to the UTF-8 validator. Reads only [p, p + n). Any byte order: the loaded words are
/// only ORed and masked with a bit of every byte, so where each byte lands does not matter.
MPK_ALWAYS_INLINE bool short_ascii(const char* p, std::size_t n) noexcept {
  auto word = [p](std::size_t at) {
    std::uint64_t v;
    std::memcpy(&v, p + at, sizeof v);
    return v;
  };
  std::uint64_t acc;
  if (n >= 8) {
    if (n > 32) return false;
    acc = word(0) | word(n - 8);
    if (n > 16) acc |= word(8) | word(n - 16);
  } else if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    acc = a | b;
  } else if (n != 0) {
    acc = static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) |
          static_cast<unsigned char>(p[n - 1]);
  } else {
    return true;
  }
  return (acc & 0x8080808080808080u) == 0;
}

/// UTF-8 validity with a fast path for short ASCII strings (is_valid_utf8 is a call, into
/// simdjson when built with it).
MPK_ALWAYS_INLINE bool is_ascii_or_valid_utf8(std::string_view s) noexcept {
  return short_ascii(s.data(), s.size()) || is_valid_utf8(s);
}

/// Reads an array header, checks that it holds `n` elements (errc::out_of_range otherwise)
/// and opens its depth level; false on any error.
inline bool enter_fixed_array(reader& r, read_context& ctx, std::size_t n) noexcept {
  const std::size_t at = r.position();
  const std::uint32_t count = r.read_array_header();
  if (!r.ok()) return false;
  if (count != n) {
    ctx.fail(r, errc::out_of_range, at);
    return false;
  }
  return ctx.enter(r, at);
}

/// True when every element of the pair or tuple T reads as a new one (reads_as_new_v).
template <class T, std::size_t... I>
constexpr bool elements_read_as_new(std::index_sequence<I...>) noexcept {
  return (reads_as_new_v<std::tuple_element_t<I, T>> && ...);
}

template <class T>
inline constexpr bool is_tuple_like_v = false;
template <class A, class B>
inline constexpr bool is_tuple_like_v<std::pair<A, B>> = true;
template <class... E>
inline constexpr bool is_tuple_like_v<std::tuple<E...>> = true;

}  // namespace detail

// --- strings and binaries -------------------------------------------------------------------

/// std::string: a str, checked for UTF-8 on read as the reader's utf8_check says (by
/// default it is: errc::invalid_utf8). Written as it is (no check). Reading assigns into the
/// existing string, so its capacity is reused.
template <class Traits, class Alloc>
struct codec<std::basic_string<char, Traits, Alloc>> {
  using type = std::basic_string<char, Traits, Alloc>;
  template <class S>
  MPK_ALWAYS_INLINE static void write(writer<S>& w, const type& v) noexcept {
    w.write_str(std::string_view(v.data(), v.size()));
  }
  static std::size_t direct_size(const type& v) noexcept { return 5 + v.size(); }
  MPK_ALWAYS_INLINE static std::byte* put_direct(std::byte* p, const type& v) noexcept {
    return detail::put_str(p, std::string_view(v.data(), v.size()));
  }
  MPK_ALWAYS_INLINE static void read(reader& r, type& out) {
    const std::string_view s = read_view(r);
    // clear + append rather than assign: assign is _M_replace, which checks for a source
    // inside the string (about 110 instructions for a 5-byte str), append copies into the
    // capacity there is (W5 deserialize_reuse_*, docs/investigations.md)
    out.clear();
    out.append(s.data(), s.size());
  }
  static constexpr wire_types wire = wire_of(mpk::type::str);
  static constexpr bool reads_as_new = true;
  /// The next str, checked as the reader's utf8_check says; "" after an error (in `r`).
  /// What read() assigns, and what a std::vector of strings constructs its new elements from.
  MPK_ALWAYS_INLINE static std::string_view read_view(reader& r) noexcept {
    const std::size_t left = r.remaining();
    const std::string_view s = r.read_string_view();  // checked already with utf8_check::all
    if (r.options().utf8 == utf8_check::owned && !detail::is_ascii_or_valid_utf8(s)) [[unlikely]] {
      r.set_error({errc::invalid_utf8, detail::offset_before(r, left)});
      return {};
    }
    return s;
  }
};

/// std::u16string: a str, transcoded from UTF-16 on write (a lone surrogate is
/// errc::invalid_utf16, in the writer) and to UTF-16 on read (invalid UTF-8 is
/// errc::invalid_utf8, whatever the utf8_check).
template <class Traits, class Alloc>
struct codec<std::basic_string<char16_t, Traits, Alloc>> {
  using type = std::basic_string<char16_t, Traits, Alloc>;
  template <class S>
  static void write(writer<S>& w, const type& v) noexcept {
    w.write_str(std::u16string_view(v.data(), v.size()));
  }
  static void read(reader& r, type& out) {
    const std::u16string s = r.read<std::u16string>();
    out.assign(s.data(), s.size());
  }
  static constexpr wire_types wire = wire_of(mpk::type::str);
  static constexpr bool reads_as_new = true;
};

/// std::vector<std::byte>: a bin (copied on read).
template <class Alloc>
struct codec<std::vector<std::byte, Alloc>> {
  template <class S>
  static void write(writer<S>& w, const std::vector<std::byte, Alloc>& v) noexcept {
    w.write_bin(std::span<const std::byte>(v.data(), v.size()));
  }
  static constexpr wire_types wire = wire_of(type::bin);
  static constexpr bool reads_as_new = true;
  static void read(reader& r, std::vector<std::byte, Alloc>& out) {
    const std::span<const std::byte> b = r.read_bin();
    out.assign(b.begin(), b.end());
  }
};

/// std::array<std::byte, N>: a bin of exactly N bytes (another length is errc::out_of_range).
template <std::size_t N>
struct codec<std::array<std::byte, N>> {
  template <class S>
  static void write(writer<S>& w, const std::array<std::byte, N>& v) noexcept {
    w.write_bin(std::span<const std::byte>(v.data(), N));
  }
  static constexpr wire_types wire = wire_of(type::bin);
  static constexpr bool reads_as_new = true;
  static void read(reader& r, std::array<std::byte, N>& out, read_context& ctx) noexcept {
    const std::size_t at = r.position();
    const std::span<const std::byte> b = r.read_bin();
    if (!r.ok()) return;
    if (b.size() != N) return ctx.fail(r, errc::out_of_range, at);
    if constexpr (N != 0) std::memcpy(out.data(), b.data(), N);
  }
};

// --- sequences ------------------------------------------------------------------------------

namespace detail {
/// Any range of elements written as an array, one element after the other.
template <class C>
struct array_writer {
  static constexpr wire_types wire = wire_of(type::array);
  template <class S>
  static void write(writer<S>& w, const C& v) noexcept {
    w.begin_array(v.size());
    if constexpr (fixed_size_element) {
      if (!is_floating || w.options().float32 == float32_policy::never) return write_chunks(w, v);
    }
    for (const auto& e : v)
      pack_value(w, e);
  }

 private:
  using element = std::remove_cvref_t<decltype(*std::declval<const C&>().begin())>;
  static constexpr bool is_floating = std::is_floating_point_v<element>;
  /// Numbers and booleans whose codec writes into reserved room (their widest form is a
  /// constant: codec<T>::direct_size).
  static constexpr bool fixed_size_element =
      std::is_arithmetic_v<element> && requires(const element& e, std::byte* p) {
    codec<element>::direct_size(e);
    codec<element>::put_direct(p, e);
  };

  /// The elements in chunks: one reservation of the chunk's widest form, the values stored
  /// through a local cursor (no capacity check, sticky-error test or reload of the sink per
  /// value), one commit. A chunk the sink has no room for (a span_sink near its end, an
  /// allocation that fails) is written value by value, which reports the error where it
  /// happens and writes nothing past the sink's end. Chunks bound the unused room asked for
  /// a large array (64 values: at most 576 bytes). W5 serialize_int_array.
  template <class S>
  static void write_chunks(writer<S>& w, const C& v) noexcept {
    constexpr std::size_t chunk = 64;
    constexpr std::size_t widest = codec<element>::direct_size(element{});
    auto it = v.begin();
    for (std::size_t left = v.size(); left != 0 && w.ok();) {
      const std::size_t k = left < chunk ? left : chunk;
      left -= k;
      std::byte* const start = w.sink().prepare(k * widest);
      if (start == nullptr) [[unlikely]] {
        for (std::size_t i = 0; i < k; ++i, ++it)
          pack_value(w, static_cast<element>(*it));
        continue;
      }
      std::byte* p = start;
      for (std::size_t i = 0; i < k; ++i, ++it)
        p = codec<element>::put_direct(p, static_cast<element>(*it));
      w.sink().commit(static_cast<std::size_t>(p - start));
    }
  }
};

/// Element types that a read replaces whole (nothing of the old value survives it), so an
/// element of an existing container can be read in place, reusing its storage.
template <class T>
inline constexpr bool read_replaces_v = std::is_arithmetic_v<T>;
template <class Traits, class Alloc>
inline constexpr bool read_replaces_v<std::basic_string<char, Traits, Alloc>> = true;

template <class T>
inline constexpr bool is_char_string_v = false;
template <class Traits, class Alloc>
inline constexpr bool is_char_string_v<std::basic_string<char, Traits, Alloc>> = true;

/// std::vector (but of std::byte), std::deque, std::list: an array. Into a std::vector of
/// elements that read as new ones (reads_as_new_v: numbers, strings, vectors, described
/// structs of those, ...), the elements it already has are read into in place (a string
/// keeps its capacity, a vector its elements), the ones beyond the input's count destroyed;
/// new std::string elements are constructed from the input's bytes.
template <class C>
struct sequence_codec : array_writer<C> {
  using value_type = typename C::value_type;
  static constexpr bool is_vector =
      std::is_same_v<C, std::vector<value_type, typename C::allocator_type>>;
  static constexpr bool reads_as_new = true;
  static constexpr bool any_source = true;
  template <class R>
  static void read(R& r, C& out, read_context& ctx) {
    const std::size_t left = r.remaining();
    const std::uint32_t n = r.read_array_header();
    if (!r.ok() || !ctx.enter(r, detail::offset_before(r, left))) {
      out.clear();
      return;
    }
    std::uint32_t i = 0;
    if constexpr (is_vector && reads_as_new_v<value_type> && !std::is_same_v<value_type, bool>) {
      if (out.size() > n) out.erase(out.begin() + n, out.end());
      // a struct element gives the members the input leaves out their new values
      const bool was_as_new = ctx.set_as_new(true);
      for (const std::size_t kept = out.size(); i < kept && r.ok(); ++i)
        unpack_value(r, out[i], ctx);
      ctx.set_as_new(was_as_new);
    } else {
      out.clear();
    }
    // n is at most the bytes that remain (every element takes one at least).
    if constexpr (requires { out.reserve(n); }) out.reserve(n);
    for (; i < n && r.ok(); ++i) {
      if constexpr (std::is_same_v<value_type, bool>) {  // std::vector<bool>: no bool&
        bool e = false;
        unpack_value(r, e, ctx);
        out.push_back(e);
      } else if constexpr (is_char_string_v<value_type>) {
        const std::string_view s = codec<value_type>::read_view(r);
        out.emplace_back(s.data(), s.size());
      } else {
        unpack_value(r, out.emplace_back(), ctx);
      }
    }
    if (!r.ok()) [[unlikely]]
      ctx.failed_at(i - 1, wire_types_of<value_type>());
    ctx.leave();
  }
};

/// std::set, std::unordered_set: an array. A repeated element is errc::duplicate_key in
/// strict mode and dropped otherwise.
template <class C>
struct set_codec : array_writer<C> {
  static constexpr bool reads_as_new = true;
  static void read(reader& r, C& out, read_context& ctx) {
    const std::size_t at = r.position();
    const std::uint32_t n = r.read_array_header();
    out.clear();
    if (!r.ok() || !ctx.enter(r, at)) return;
    for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
      const std::size_t element_at = r.position();
      typename C::value_type e{};
      unpack_value(r, e, ctx);
      if (!r.ok()) [[unlikely]] {
        ctx.failed_at(i, wire_types_of<typename C::value_type>());
        break;
      }
      if (!out.insert(std::move(e)).second && ctx.strict())
        ctx.fail(r, errc::duplicate_key, element_at);
    }
    ctx.leave();
  }
};

/// std::map, std::unordered_map: a map. A repeated key is errc::duplicate_key in strict
/// mode; otherwise the last one wins.
template <class C>
struct map_codec {
  static constexpr wire_types wire = wire_of(type::map);
  static constexpr bool reads_as_new = true;
  template <class S>
  static void write(writer<S>& w, const C& v) noexcept {
    w.begin_map(v.size());
    for (const auto& [k, e] : v) {
      pack_value(w, k);
      pack_value(w, e);
    }
  }
  static void read(reader& r, C& out, read_context& ctx) {
    const std::size_t at = r.position();
    const std::uint32_t n = r.read_map_header();
    out.clear();
    if (!r.ok() || !ctx.enter(r, at)) return;
    for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
      const std::size_t key_at = r.position();
      typename C::key_type k{};
      unpack_value(r, k, ctx);
      typename C::mapped_type e{};
      if (!r.ok()) break;
      unpack_value(r, e, ctx);
      if (!r.ok()) [[unlikely]] {
        failed_in_value(ctx, k, i);
        break;
      }
      auto [it, inserted] = out.try_emplace(std::move(k), std::move(e));
      if (!inserted) {
        if (ctx.strict()) {
          ctx.fail(r, errc::duplicate_key, key_at);
          break;
        }
        it->second = std::move(e);  // e was not moved from: try_emplace did not insert
      }
    }
    ctx.leave();
  }

 private:
  /// The path segment of a map value: its key when it is a string or an integer, else the
  /// entry's index.
  static void failed_in_value(read_context& ctx, const typename C::key_type& k, std::uint32_t i) {
    using K = typename C::key_type;
    constexpr wire_types want = wire_types_of<typename C::mapped_type>();
    if constexpr (std::is_convertible_v<const K&, std::string_view>) {
      ctx.failed_in(std::string_view(k), want);
    } else if constexpr (std::is_integral_v<K> && std::is_unsigned_v<K>) {
      ctx.failed_at(k, want);
    } else if constexpr (std::is_integral_v<K>) {
      if (k >= 0)
        ctx.failed_at(static_cast<std::size_t>(k), want);
      else
        ctx.failed_in(std::to_string(k), want);
    } else {
      ctx.failed_at(i, want);
    }
  }
};
}  // namespace detail

template <class T, class A>
requires(!std::is_same_v<T, std::byte>) struct codec<std::vector<T, A>>
    : detail::sequence_codec<std::vector<T, A>> {
};
template <class T, class A>
struct codec<std::deque<T, A>> : detail::sequence_codec<std::deque<T, A>> {};
template <class T, class A>
struct codec<std::list<T, A>> : detail::sequence_codec<std::list<T, A>> {};
template <class K, class C, class A>
struct codec<std::set<K, C, A>> : detail::set_codec<std::set<K, C, A>> {};
template <class K, class H, class E, class A>
struct codec<std::unordered_set<K, H, E, A>> : detail::set_codec<std::unordered_set<K, H, E, A>> {};
template <class K, class V, class C, class A>
struct codec<std::map<K, V, C, A>> : detail::map_codec<std::map<K, V, C, A>> {};
template <class K, class V, class H, class E, class A>
struct codec<std::unordered_map<K, V, H, E, A>>
    : detail::map_codec<std::unordered_map<K, V, H, E, A>> {};

/// std::array<T, N>: an array of exactly N elements (another count is errc::out_of_range).
template <class T, std::size_t N>
requires(!std::is_same_v<T, std::byte>) struct codec<std::array<T, N>> {
  template <class S>
  static void write(writer<S>& w, const std::array<T, N>& v) noexcept {
    w.begin_array(N);
    for (const auto& e : v)
      pack_value(w, e);
  }
  static constexpr wire_types wire = wire_of(type::array);
  static constexpr bool reads_as_new = detail::reads_as_new_v<T>;
  static void read(reader& r, std::array<T, N>& out, read_context& ctx) {
    if (!detail::enter_fixed_array(r, ctx, N)) return;
    for (std::size_t i = 0; i < N; ++i) {
      unpack_value(r, out[i], ctx);
      if (!r.ok()) [[unlikely]] {
        ctx.failed_at(i, wire_types_of<T>());
        break;
      }
    }
    ctx.leave();
  }
};

/// std::pair and std::tuple: an array of exactly as many elements (another count is
/// errc::out_of_range).
template <class T>
requires detail::is_tuple_like_v<T>
struct codec<T> {
  static constexpr std::size_t size = std::tuple_size_v<T>;
  template <class S>
  static void write(writer<S>& w, const T& v) noexcept {
    w.begin_array(size);
    std::apply([&](const auto&... e) { (pack_value(w, e), ...); }, v);
  }
  static constexpr wire_types wire = wire_of(type::array);
  static constexpr bool reads_as_new =
      detail::elements_read_as_new<T>(std::make_index_sequence<size>{});
  static void read(reader& r, T& out, read_context& ctx) {
    if (!detail::enter_fixed_array(r, ctx, size)) return;
    std::apply(
        [&](auto&... e) {
          std::size_t i = 0;
          (void)((unpack_value(r, e, ctx),
                  r.ok() ? (++i, true)
                         : (ctx.failed_at(i, wire_types_of<std::remove_cvref_t<decltype(e)>>()),
                            false)) &&
                 ...);
        },
        out);
    ctx.leave();
  }
};

/// std::optional<T>: nil when empty, else the value (read into the one it holds when that
/// reads as new: a string keeps its capacity).
template <class T>
struct codec<std::optional<T>> {
  template <class S>
  static void write(writer<S>& w, const std::optional<T>& v) noexcept {
    if (v)
      pack_value(w, *v);
    else
      w.write_nil();
  }
  static constexpr wire_types wire = wire_of(type::nil) | wire_types_of<T>();
  static constexpr bool reads_as_new = true;
  static constexpr bool any_source = true;
  template <class R>
  static void read(R& r, std::optional<T>& out, read_context& ctx) {
    if (r.try_read_nil()) {
      out.reset();
      return;
    }
    if constexpr (detail::reads_as_new_v<T>) {
      // a string or number in place always; a struct only under as_new(), since otherwise
      // it keeps the members the input leaves out, where a new one has their defaults
      if (out && (detail::read_replaces_v<T> || ctx.as_new())) return unpack_value(r, *out, ctx);
    }
    unpack_value(r, out.emplace(), ctx);
  }
};

/// std::variant<T...>: a two-element array [index, value], the index of the alternative
/// (0-based, in declaration order) then the value. An index out of range, or an array of
/// another size, is errc::out_of_range. Alternatives must be default-constructible.
template <class... T>
struct codec<std::variant<T...>> {
  using type = std::variant<T...>;
  static constexpr bool reads_as_new = true;
  template <class S>
  static void write(writer<S>& w, const type& v) noexcept {
    w.begin_array(2);
    w.write(v.index());
    std::visit([&](const auto& e) { pack_value(w, e); }, v);
  }
  static constexpr wire_types wire = wire_of(mpk::type::array);
  static void read(reader& r, type& out, read_context& ctx) {
    if (!detail::enter_fixed_array(r, ctx, 2)) return;
    const std::size_t at = r.position();
    const auto index = r.read<std::size_t>();
    if (!r.ok()) [[unlikely]] {
      ctx.failed_at(0, wire_of(mpk::type::uint));
    } else if (index >= sizeof...(T)) {
      ctx.fail(r, errc::out_of_range, at);
      ctx.failed_at(0, wire_of(mpk::type::uint));
    } else {
      read_alternative(r, out, ctx, index, std::index_sequence_for<T...>{});
    }
    ctx.leave();
  }

 private:
  template <std::size_t... I>
  static void read_alternative(reader& r, type& out, read_context& ctx, std::size_t index,
                               std::index_sequence<I...>) {
    (void)((index == I ? (read_value<I>(r, out, ctx), true) : false) || ...);
  }
  template <std::size_t I>
  static void read_value(reader& r, type& out, read_context& ctx) {
    unpack_value(r, out.template emplace<I>(), ctx);
    if (!r.ok()) [[unlikely]]
      ctx.failed_at(1, wire_types_of<std::variant_alternative_t<I, type>>());
  }
};

/// std::monostate (an empty alternative of a variant): nil.
template <>
struct codec<std::monostate> {
  static constexpr wire_types wire = wire_of(type::nil);
  template <class S>
  static void write(writer<S>& w, std::monostate) noexcept {
    w.write_nil();
  }
  static void read(reader& r, std::monostate&) noexcept { r.read_nil(); }
};

/// A std::variant written untagged: the alternative as it is, with no index, read back by
/// its MessagePack type (a str to the string alternative, an int to the integer one, ...):
/// what Python and JavaScript write for "a string or a number". It is a std::variant
/// (std::visit, std::get and comparisons work); only its codec differs.
///
///     mpk::untagged<std::string, std::int64_t, std::monostate> id;   // "a1", 7 or nil
///
/// The alternatives must be told apart by their types on the wire: two of the same family
/// (two integers, two strings, two map-mode structs, ...), or one whose codec does not say
/// its wire types (mpk::value, your own codecs without `wire`), do not compile. On read, an
/// integer with no integer alternative goes to a float one; any other type is
/// errc::type_mismatch.
template <class... T>
struct untagged : std::variant<T...> {
  using base = std::variant<T...>;
  using base::base;
  using base::operator=;
  untagged() = default;
  /// The std::variant itself.
  base& as_variant() noexcept { return *this; }
  const base& as_variant() const noexcept { return *this; }
};

namespace detail {
template <class... T>
constexpr bool wire_types_disjoint() noexcept {
  constexpr wire_types w[] = {wire_types_of<T>()...};
  for (std::size_t a = 0; a < sizeof...(T); ++a) {
    if (w[a] == 0) return false;
    for (std::size_t b = a + 1; b < sizeof...(T); ++b)
      if ((w[a] & w[b]) != 0) return false;
  }
  return true;
}
}  // namespace detail

template <class... T>
struct codec<untagged<T...>> {
  using type = untagged<T...>;
  static_assert(sizeof...(T) > 0);
  static_assert(detail::wire_types_disjoint<T...>(),
                "mpk::untagged<T...>: two alternatives are read from the same MessagePack type "
                "(or one's codec does not say its wire types), so the bytes cannot tell them "
                "apart: use std::variant (written [index, value]) instead");
  static constexpr wire_types wire = (wire_types_of<T>() | ...);

  template <class S>
  static void write(writer<S>& w, const type& v) noexcept {
    std::visit([&](const auto& e) { pack_value(w, e); }, v.as_variant());
  }
  static void read(reader& r, type& out, read_context& ctx) {
    const std::size_t at = r.position();
    const mpk::type t = r.peek();
    if (!r.ok()) return;
    const std::size_t index = choose(t);
    if (index == sizeof...(T)) return ctx.fail(r, errc::type_mismatch, at);
    read_alternative(r, out, ctx, index, std::index_sequence_for<T...>{});
  }

 private:
  /// The alternative that reads a value of type `t`, or sizeof...(T).
  static std::size_t choose(mpk::type t) noexcept {
    constexpr wire_types w[] = {wire_types_of<T>()...};
    for (std::size_t i = 0; i < sizeof...(T); ++i)
      if (w[i] & wire_of(t)) return i;
    if (t == mpk::type::uint || t == mpk::type::sint || t == mpk::type::float32 ||
        t == mpk::type::float64) {
      constexpr wire_types floats = wire_of(mpk::type::float32) | wire_of(mpk::type::float64);
      for (std::size_t i = 0; i < sizeof...(T); ++i)
        if (w[i] & floats) return i;
    }
    return sizeof...(T);
  }
  template <std::size_t... I>
  static void read_alternative(reader& r, type& out, read_context& ctx, std::size_t index,
                               std::index_sequence<I...>) {
    (void)((index == I ? (unpack_value(r, out.template emplace<I>(), ctx), true) : false) || ...);
  }
};

/// Enums without MPK_ENUM names: their underlying integer (range-checked on read).
template <class E>
requires(std::is_enum_v<E> && !detail::named_enum<E>) struct codec<E> {
  // An enum over `char` travels as the integer of the same signedness.
  using underlying =
      std::conditional_t<std::is_same_v<std::underlying_type_t<E>, char>,
                         std::conditional_t<std::is_signed_v<char>, signed char, unsigned char>,
                         std::underlying_type_t<E>>;
  static constexpr wire_types wire = wire_of(type::uint) | wire_of(type::sint);
  template <class S>
  static void write(writer<S>& w, E v) noexcept {
    pack_value(w, static_cast<underlying>(v));
  }
  static void read(reader& r, E& out, read_context& ctx) {
    underlying u{};
    unpack_value(r, u, ctx);
    out = static_cast<E>(u);
  }
};

}  // namespace mpk::inline v0
