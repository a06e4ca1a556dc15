// mpk/codec/reflect.hpp - plain aggregates with no description, and enums by name without
// listing them: what the compiler can tell about a type in standard C++20.
//
//     struct point { int x = 0; int y = 0; };
//     mpk::pack(point{1, 2});                        // {"x": 1, "y": 2}, as MPK_MAP(point, x, y)
//
//     // Only the exceptions, with the hook `mpk_options` found by argument-dependent lookup:
//     constexpr auto mpk_options(mpk::type_tag<user>) {
//       return mpk::struct_options{}.rename("display_name", "displayName").skip("cache");
//     }
//     constexpr auto mpk_options(mpk::type_tag<color>) { return mpk::enum_names{}; }
//
// How (docs/codec.md, "Reflection"):
// - the member count: the largest N for which `T{a1, ..., aN}` is well-formed with
//   arguments that convert to anything (found by binary search). Copy-initialization from
//   such an argument takes its conversion function only (a braced `{a1}` would also try
//   every converting constructor, ambiguous for std::string_view). A nested aggregate is
//   one member (the argument converts to it); a C array would take one argument per
//   element, so it is not supported (use std::array);
// - the members: a structured binding of N names (detail/reflect_tie.hpp);
// - the names: the signature of a function template instantiated on the address of a member
//   of a declared, never defined, object of type T (__PRETTY_FUNCTION__ ends with the member
//   named by that address, on GCC and Clang alike); the text around the name is learnt from
//   a probe struct, not hard-coded per compiler;
// - enumerator names: the same signature trick on each value of a range (a value without an
//   enumerator prints as a cast, `(color)7`, and is left out).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "mpk/codec/core.hpp"
#include "mpk/codec/describe.hpp"
#include "mpk/detail/reflect_tie.hpp"

namespace mpk::inline v0 {

/// A member renamed by struct_options::rename: its C++ name and its key on the wire.
struct member_key {
  std::string_view member;
  std::string_view key;
};

/// What `mpk_options(mpk::type_tag<T>)` returns for a reflected aggregate T: its mode and the
/// members that are renamed or left out; every other member is written under its own name.
///
///     constexpr auto mpk_options(mpk::type_tag<user>) {
///       return mpk::struct_options{.mode = mpk::struct_mode::array}.skip("cache");
///     }
///
/// Names that T has no member of are a compile error (a static_assert naming the hook).
/// MPK_MAP / MPK_ARRAY descriptions take precedence: a described type ignores its options.
struct struct_options {
  static constexpr std::size_t max_exceptions = 16;
  struct_mode mode = struct_mode::map;
  std::array<member_key, max_exceptions> renamed{};
  std::size_t renamed_count = 0;
  std::array<std::string_view, max_exceptions> skipped{};
  std::size_t skipped_count = 0;

  /// These options with `member` written under `key` (map mode). More than
  /// max_exceptions renames do not compile (std::array::at out of range).
  constexpr struct_options rename(std::string_view member, std::string_view key) const {
    struct_options o = *this;
    o.renamed.at(o.renamed_count++) = {member, key};
    return o;
  }
  /// These options with `member` neither written nor read (it keeps its value on read).
  constexpr struct_options skip(std::string_view member) const {
    struct_options o = *this;
    o.skipped.at(o.skipped_count++) = member;
    return o;
  }
};

/// What `mpk_options(mpk::type_tag<E>)` returns to write enum E by name: its enumerators whose
/// values lie in [min, max] are found at compile time and written as strings (codec of
/// MPK_ENUM); a value outside the range or without an enumerator is written as its integer.
/// Every value of the range costs one template instantiation: keep it near the enum's values.
struct enum_names {
  std::int64_t min = -128;
  std::int64_t max = 127;
};

namespace detail {

// --- member count ---------------------------------------------------------------------------

/// Converts to any type: an argument for probing aggregate initialization (never called, so
/// never defined).
struct any_member {
  template <class U>
  operator U() const noexcept;  // NOLINT(google-explicit-constructor)
};
template <std::size_t>
using any_member_at = any_member;

template <class T, std::size_t... I>
constexpr bool initializable_with(std::index_sequence<I...>) noexcept {
  return requires {
    T{any_member_at<I>{}...};
  };
}

/// The member count of aggregate T: binary search of the largest initializer count that
/// compiles, in [lo, hi). max_reflected_members + 1 means "more than the limit".
template <class T, std::size_t lo = 0, std::size_t hi = max_reflected_members + 2>
constexpr std::size_t member_count() noexcept {
  if constexpr (hi - lo <= 1) {
    return lo;
  } else {
    constexpr std::size_t mid = lo + (hi - lo) / 2;
    if constexpr (initializable_with<T>(std::make_index_sequence<mid>{}))
      return member_count<T, mid, hi>();
    else
      return member_count<T, lo, mid>();
  }
}

/// Converts only to the base classes of T: initializing T from it compiles when T's first
/// element is a base (which reflection cannot name).
template <class T>
struct any_base {
  template <class U>
  requires(std::is_base_of_v<U, T> && !std::is_same_v<U, T>) operator U() const noexcept;
};

template <class T>
concept aggregate_class = std::is_class_v<T> && !std::is_union_v<T> && std::is_aggregate_v<T>;

template <class T>
concept reflectable_aggregate = aggregate_class<T> && !requires {
  T{any_base<T>{}};
}
&&(member_count<T>() <= max_reflected_members);

// --- member names ---------------------------------------------------------------------------

/// Declared, never defined: only the addresses of its members are taken, in constant
/// expressions. The wrapper lets T be any type (no default constructor needed).
template <class T>
struct fake_object_of {
  T value;
};
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wundefined-var-template"
#endif
template <class T>
extern const fake_object_of<T> fake_object;

/// A pointer to a member of fake_object: a class type as template argument, which Clang 14
/// accepts where a plain pointer to a subobject is refused.
template <class M>
struct member_address {
  const M* p;
};

template <auto V>
constexpr std::string_view signature() noexcept {
  return __PRETTY_FUNCTION__;
}

template <class T, std::size_t I>
constexpr auto address_of_member() noexcept {
  const auto& m = member_at<I, member_count<T>()>(fake_object<T>.value);
  return member_address<std::remove_cvref_t<decltype(m)>>{&m};
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

constexpr bool is_identifier_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// The identifier that ends `sig` once the `suffix_size` characters after it are removed;
/// empty when there is none or it starts with a digit (a cast of a number).
constexpr std::string_view trailing_identifier(std::string_view sig,
                                               std::size_t suffix_size) noexcept {
  if (sig.size() < suffix_size) return {};
  sig.remove_suffix(suffix_size);
  std::size_t start = sig.size();
  while (start > 0 && is_identifier_char(sig[start - 1]))
    --start;
  const std::string_view id = sig.substr(start);
  if (id.empty() || (id[0] >= '0' && id[0] <= '9')) return {};
  return id;
}

/// The characters a signature has after the name it shows, learnt from a probe.
constexpr std::size_t suffix_after(std::string_view sig, std::string_view name) noexcept {
  return sig.size() - (sig.rfind(name) + name.size());
}

struct reflection_probe {
  int mpk_reflection_probe_member;
};
enum class reflection_probe_enum { mpk_reflection_probe_enumerator };

inline constexpr std::size_t member_suffix_size = suffix_after(
    signature<address_of_member<reflection_probe, 0>()>(), "mpk_reflection_probe_member");
inline constexpr std::size_t enumerator_suffix_size =
    suffix_after(signature<reflection_probe_enum::mpk_reflection_probe_enumerator>(),
                 "mpk_reflection_probe_enumerator");

/// A name copied out of a signature into its own constant (the signature is much longer and
/// would otherwise be kept in the binary for the string_view into it).
template <std::size_t N>
struct name_chars {
  char text[N + 1]{};
  constexpr std::string_view view() const noexcept { return {text, N}; }
};
template <std::size_t N>
constexpr name_chars<N> copy_name(std::string_view s) noexcept {
  name_chars<N> out{};
  for (std::size_t i = 0; i < N; ++i)
    out.text[i] = s[i];
  return out;
}

template <class T, std::size_t I>
inline constexpr std::string_view member_name_in_signature =
    trailing_identifier(signature<address_of_member<T, I>()>(), member_suffix_size);
template <class T, std::size_t I>
inline constexpr auto member_name_storage =
    copy_name<member_name_in_signature<T, I>.size()>(member_name_in_signature<T, I>);

/// Member I's C++ name.
template <class T, std::size_t I>
inline constexpr std::string_view member_name = member_name_storage<T, I>.view();

// --- options --------------------------------------------------------------------------------

template <class T>
constexpr struct_options options_of() noexcept {
  if constexpr (requires { mpk_options(type_tag<T>{}); }) {
    static_assert(std::is_same_v<decltype(mpk_options(type_tag<T>{})), struct_options>,
                  "mpk: mpk_options(mpk::type_tag<T>) of a struct must return mpk::struct_options");
    return mpk_options(type_tag<T>{});
  } else {
    return {};
  }
}

/// The fields of a reflected aggregate: its members but the skipped ones, under their
/// names or their renames. Provides what layout<T> needs (see describe.hpp, field_source).
template <class T>
struct reflected_fields {
  static constexpr std::size_t members = member_count<T>();
  static constexpr struct_options options = options_of<T>();

  static constexpr std::array<std::string_view, members> member_names =
      []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::string_view, members>{member_name<T, I>...};
  }
  (std::make_index_sequence<members>{});

  static constexpr bool options_name_members = [] {
    auto known = [](std::string_view n) {
      for (std::string_view m : member_names)
        if (m == n) return true;
      return false;
    };
    for (std::size_t i = 0; i < options.renamed_count; ++i)
      if (!known(options.renamed[i].member)) return false;
    for (std::size_t i = 0; i < options.skipped_count; ++i)
      if (!known(options.skipped[i])) return false;
    return true;
  }();
  static_assert(options_name_members,
                "mpk: mpk_options(mpk::type_tag<T>) renames or skips a member that T does not "
                "have (names are the members' C++ names)");

  static constexpr bool is_skipped(std::string_view n) noexcept {
    for (std::size_t i = 0; i < options.skipped_count; ++i)
      if (options.skipped[i] == n) return true;
    return false;
  }

  static constexpr bool map_mode = options.mode == struct_mode::map;
  static constexpr std::size_t count = [] {
    std::size_t n = 0;
    for (std::string_view m : member_names)
      n += is_skipped(m) ? 0 : 1;
    return n;
  }();

  /// Field i is member index[i].
  static constexpr std::array<std::size_t, count> index = [] {
    std::array<std::size_t, count> out{};
    std::size_t f = 0;
    for (std::size_t m = 0; m < members; ++m)
      if (!is_skipped(member_names[m])) out[f++] = m;
    return out;
  }();

  static constexpr std::array<std::string_view, count> names = [] {
    std::array<std::string_view, count> out{};
    for (std::size_t f = 0; f < count; ++f) {
      out[f] = member_names[index[f]];
      for (std::size_t i = 0; i < options.renamed_count; ++i)
        if (options.renamed[i].member == out[f]) out[f] = options.renamed[i].key;
    }
    return out;
  }();

  static constexpr bool keys_unique = [] {
    for (std::size_t a = 0; a < count; ++a)
      for (std::size_t b = a + 1; b < count; ++b)
        if (names[a] == names[b]) return false;
    return true;
  }();
  static_assert(!map_mode || keys_unique,
                "mpk: two members of T have the same key (see its mpk_options renames)");

  template <std::size_t I>
  MPK_ALWAYS_INLINE static constexpr auto& member(T& v) noexcept {
    return member_at<index[I], members>(v);
  }
  template <std::size_t I>
  MPK_ALWAYS_INLINE static constexpr const auto& member(const T& v) noexcept {
    return member_at<index[I], members>(v);
  }
};

/// The checks behind a reflected codec, each with what to do instead.
template <class T>
constexpr bool check_reflectable() noexcept {
  static_assert(
      !requires { T{any_base<T>{}}; },
      "mpk: cannot reflect T: it has a base class. Describe it with MPK_MAP / "
      "MPK_ARRAY (naming the base's members too) or specialize mpk::codec<T>");
  static_assert(member_count<T>() <= max_reflected_members,
                "mpk: cannot reflect T: more than 64 members. Describe it with MPK_MAP / "
                "MPK_ARRAY or group members into nested structs");
  return true;
}

// --- enums ----------------------------------------------------------------------------------

template <class E>
concept reflected_enum = std::is_enum_v<E> && requires {
  { mpk_options(type_tag<E>{}) } -> std::same_as<enum_names>;
};

/// The enumerators of E whose values lie in the range of its enum_names, with their names.
template <class E>
struct reflected_enumerators {
  using U = std::underlying_type_t<E>;
  static constexpr enum_names range = mpk_options(type_tag<E>{});
  // the range, clamped to the values of the underlying type
  static constexpr std::int64_t type_min =
      std::is_signed_v<U> ? static_cast<std::int64_t>(std::numeric_limits<U>::min()) : 0;
  static constexpr std::uint64_t type_umax =
      static_cast<std::uint64_t>(std::numeric_limits<U>::max());
  static constexpr std::int64_t type_max = type_umax >
                                                   std::uint64_t{
                                                       std::numeric_limits<std::int64_t>::max()}
                                               ? std::numeric_limits<std::int64_t>::max()
                                               : static_cast<std::int64_t>(type_umax);
  static constexpr std::int64_t lo = range.min > type_min ? range.min : type_min;
  static constexpr std::int64_t hi = range.max < type_max ? range.max : type_max;
  static_assert(range.min <= range.max && hi - lo < 4096,
                "mpk: enum_names{min, max} of E must be a range of at most 4096 values");
  static constexpr std::size_t span = lo <= hi ? static_cast<std::size_t>(hi - lo + 1) : 0;

  template <std::int64_t V>
  static constexpr std::string_view name_of = trailing_identifier(signature<static_cast<E>(V)>(),
                                                                  enumerator_suffix_size);

  // every value's name ("" for none): a pack expansion, not a fold (Clang limits folds to
  // 256 operands)
  static constexpr std::array<std::string_view, span> all_names =
      []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::string_view, span>{name_of<lo + static_cast<std::int64_t>(I)>...};
  }
  (std::make_index_sequence<span>{});

  static constexpr std::size_t found = [] {
    std::size_t n = 0;
    for (std::string_view name : all_names)
      n += name.empty() ? 0 : 1;
    return n;
  }();

  static constexpr std::array<enum_entry<E>, found> entries = [] {
    std::array<enum_entry<E>, found> out{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < span; ++i)
      if (!all_names[i].empty())
        out[n++] = {static_cast<E>(lo + static_cast<std::int64_t>(i)), all_names[i]};
    return out;
  }();
};

template <class E>
requires reflected_enum<E>
struct enum_entries_of<E> {
  static constexpr auto& entries = reflected_enumerators<E>::entries;
};

}  // namespace detail

namespace detail {
template <class T>
requires(aggregate_class<T> && !described<T> && reflectable_aggregate<T>) struct field_source<T>
    : reflected_fields<T> {
};

/// The codec of an aggregate that cannot be reflected: only its static_asserts.
template <class T>
struct unreflectable_codec {
  static_assert(check_reflectable<T>());
};
}  // namespace detail

/// Plain aggregates without MPK_MAP / MPK_ARRAY: map mode with the members' names as keys
/// (or as their mpk_options say), the same bytes as MPK_MAP of the same members.
template <class T>
requires(detail::aggregate_class<T> && !detail::described<T>) struct codec<T>
    : std::conditional_t<detail::reflectable_aggregate<T>, detail::struct_codec<T>,
                         detail::unreflectable_codec<T>> {
};

}  // namespace mpk::inline v0
