// mpk/value/owned.hpp - mpk::value, an owning tree of MessagePack values to build and edit.
//
//     mpk::value v = {{"name", "mpk"}, {"tags", {1, 2, 3}}};   // a map (see the list rule)
//     v.assign("version", 1);
//     mpk::buffer buf;
//     mpk::writer w(buf);
//     mpk::write(w, v);
//
// A value holds numbers, not encodings: an integer is `uint` when >= 0 and `sint` when
// negative, whatever width or family it was read from, and the writer picks the smallest
// form. Floats keep their family (float32 or float64). Maps keep their entries in order,
// allow any key type, and look keys up by a linear scan (so a duplicate key: the last wins).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "mpk/config.hpp"
#include "mpk/error.hpp"
#include "mpk/format.hpp"
#include "mpk/reader.hpp"
#include "mpk/value/document.hpp"
#include "mpk/writer.hpp"

namespace mpk::inline v0 {

/// An owning MessagePack value: nil, boolean, integer, float32, float64, str, bin, ext, array
/// or map (entries in order).
///
/// Initializer lists (the rule): a braced list is an array, except that a non-empty list
/// whose elements are *all* two-element arrays starting with a str becomes a map of those
/// pairs. So `{{"a", 1}, {"b", 2}}` is the map {a: 1, b: 2}, `{"a", 1}` is the array
/// ["a", 1], `{1, 2, 3}` is an array and `{}` is nil. Braces always build a list:
/// `mpk::value{5}` is the array [5]; write `mpk::value(5)` for the number. To choose
/// yourself, use `value::array({...})` (never a map at its top level) and
/// `value::map({{k, v}, ...})` (any key type).
///
/// Copies, destruction, comparison (`==`), write() and the conversion from a value_ref are
/// iterative: none of them nests C++ calls as deep as the value, so a value 100000 levels
/// deep is handled on a small stack (the work lists take heap memory instead: about 32
/// bytes per open level for a copy, 16 per pending pair for `==`).
class MPK_API value {
 public:
  using array_type = std::vector<value>;
  using map_type = std::vector<std::pair<value, value>>;
  using binary_type = std::vector<std::byte>;
  /// An extension value: its type (-128..127) and data.
  struct extension {
    std::int8_t type = 0;
    binary_type data;
    friend bool operator==(const extension&, const extension&) = default;
  };

  /// nil.
  value() noexcept = default;
  /// A deep copy. Iterative: nested containers are copied with a work list, not by nested
  /// copy constructors. Throws std::bad_alloc when out of memory.
  value(const value& other);
  value(value&&) noexcept = default;
  /// A deep copy, as the copy constructor (copy first, then replace: `v = *v.at(0)` is safe).
  value& operator=(const value& other);
  value& operator=(value&&) noexcept = default;
  /// Iterative: nested containers are taken apart level by level, never by recursion.
  ~value() {
    if (has_nested_containers()) destroy_nested();
  }
  value(std::nullptr_t) noexcept {}  // NOLINT(implicit)
  /// A boolean. (A template, so that pointers do not convert to bool.)
  template <class T>
  requires std::same_as<T, bool> value(T b)
  noexcept : v_(b) {}  // NOLINT(implicit)
  /// An integer: uint when >= 0, sint when negative.
  template <std::integral T>
  requires(!std::same_as<T, bool> && !detail::is_character_v<T>) value(T x)
  noexcept {  // NOLINT
    if constexpr (std::is_signed_v<T>) {
      if (x < 0) {
        v_.template emplace<std::int64_t>(x);
        return;
      }
    }
    v_.template emplace<std::uint64_t>(static_cast<std::uint64_t>(x));
  }
  /// float32.
  value(float f) noexcept : v_(f) {}  // NOLINT(implicit)
  /// float64.
  value(double d) noexcept : v_(d) {}  // NOLINT(implicit)
  /// A str (bytes taken as they are: not checked for UTF-8).
  value(std::string s) noexcept : v_(std::move(s)) {}  // NOLINT(implicit)
  value(std::string_view s) : v_(std::string(s)) {}    // NOLINT(implicit)
  value(const char* s) : v_(std::string(s)) {}         // NOLINT(implicit)
  value(binary_type b) noexcept : v_(std::move(b)) {}  // NOLINT(implicit)
  value(extension e) noexcept : v_(std::move(e)) {}    // NOLINT(implicit)
  value(array_type a) noexcept : v_(std::move(a)) {}   // NOLINT(implicit)
  value(map_type m) noexcept : v_(std::move(m)) {}     // NOLINT(implicit)
  /// An array, or a map by the rule in the class comment.
  value(std::initializer_list<value> items);
  /// A deep copy of a document's value (strings and binaries copied); nil when `ref` is
  /// missing. Iterative.
  explicit value(const value_ref& ref);

  /// An array of `items`, never turned into a map.
  static value array(std::initializer_list<value> items = {}) {
    return value(array_type(items.begin(), items.end()));
  }
  /// A map of (key, value) pairs, any key type: `value::map({{1, "one"}, {2, "two"}})`.
  static value map(std::initializer_list<std::pair<value, value>> entries = {}) {
    return value(map_type(entries.begin(), entries.end()));
  }
  /// A bin holding a copy of `bytes`.
  static value binary(std::span<const std::byte> bytes) {
    return value(binary_type(bytes.begin(), bytes.end()));
  }
  /// An extension value of type `type` holding a copy of `data`.
  static value ext(std::int8_t type, std::span<const std::byte> data) {
    return value(extension{type, binary_type(data.begin(), data.end())});
  }

  /// The family: nil, boolean, uint (integers >= 0), sint (negative integers), float32,
  /// float64, str, bin, ext, array or map.
  mpk::type type() const noexcept {
    constexpr mpk::type families[] = {mpk::type::nil,   mpk::type::boolean, mpk::type::uint,
                                      mpk::type::sint,  mpk::type::float32, mpk::type::float64,
                                      mpk::type::str,   mpk::type::bin,     mpk::type::ext,
                                      mpk::type::array, mpk::type::map};
    return families[v_.index()];
  }
  bool is_nil() const noexcept { return v_.index() == 0; }
  bool is_array() const noexcept { return std::holds_alternative<array_type>(v_); }
  bool is_map() const noexcept { return std::holds_alternative<map_type>(v_); }

  /// The stored alternative, or nullptr when the value holds another: T is bool,
  /// std::uint64_t (uint), std::int64_t (sint), float, double, std::string, binary_type,
  /// extension, array_type or map_type. Through it every part can be read and edited.
  ///
  ///     if (auto* items = v.get_if<mpk::value::array_type>()) items->pop_back();
  template <class T>
  T* get_if() noexcept {
    return std::get_if<T>(&v_);
  }
  template <class T>
  const T* get_if() const noexcept {
    return std::get_if<T>(&v_);
  }

  /// Elements of an array, entries of a map, bytes of a str or bin, data bytes of an ext;
  /// 0 otherwise.
  std::size_t size() const noexcept;

  /// The i-th element of an array; nullptr when out of range or not an array.
  value* at(std::size_t i) noexcept {
    auto* a = get_if<array_type>();
    return a && i < a->size() ? &(*a)[i] : nullptr;
  }
  const value* at(std::size_t i) const noexcept { return const_cast<value*>(this)->at(i); }

  /// The value of the last entry whose key is the str `key`; nullptr when there is none or
  /// this is not a map.
  value* find(std::string_view key) noexcept;
  const value* find(std::string_view key) const noexcept {
    return const_cast<value*>(this)->find(key);
  }
  value* find(const char* key) noexcept { return find(std::string_view(key)); }
  const value* find(const char* key) const noexcept { return find(std::string_view(key)); }
  /// The value of the last entry whose key equals `key` (any key type). Allocates (and may
  /// throw std::bad_alloc) only to compare keys that are containers with items.
  value* find(const value& key);
  const value* find(const value& key) const { return const_cast<value*>(this)->find(key); }

  /// Appends to an array; a nil value becomes an empty array first. Returns false (and
  /// changes nothing) when this is neither nil nor an array.
  bool push_back(value item);

  /// Sets the value of `key` in a map: replaces the value of the last entry with that key,
  /// or appends an entry. A nil value becomes an empty map first. Returns false (and
  /// changes nothing) when this is neither nil nor a map.
  ///
  ///     v.assign("retries", 3);
  bool assign(value key, value item);

  /// Removes every entry whose key equals `key` from a map; returns how many (0 when this is
  /// not a map).
  std::size_t erase(const value& key);
  /// Removes the i-th element of an array; false when out of range or not an array.
  bool erase(std::size_t i);

  /// Deep equality: same family and same contents (floats by bits: NaN equals the same NaN,
  /// 0.0 differs from -0.0; maps entry by entry, in order). Iterative.
  friend MPK_API bool operator==(const value& a, const value& b);

 private:
  /// True when an element, key or value of this array or map is a non-empty container.
  bool has_nested_containers() const noexcept;
  /// Destroys the nested containers with a work list instead of nested destructor calls.
  void destroy_nested() noexcept;
  /// Copies the nested containers of `other` (which has some) with a work list.
  void copy_nested(const value& other);

  std::variant<std::nullptr_t, bool, std::uint64_t, std::int64_t, float, double, std::string,
               binary_type, extension, array_type, map_type>
      v_;
};

namespace detail {
/// A deep copy of `ref` as an owned value (nil when `ref` is missing), or
/// errc::out_of_memory (offset 0) when an allocation fails: value(ref) without the
/// exception.
result<value> make_value(const value_ref& ref) noexcept;
}  // namespace detail

/// Writes `v` with `w`, iteratively (no recursion, however deep `v` is): integers, str, bin
/// and ext in their smallest forms, float32 and float64 as such. Writer errors stay in `w`
/// (sticky): errc::out_of_memory (the sink's, or the work list of open containers that
/// could not grow: never an exception), errc::buffer_full, errc::io_error, errc::too_large.
///
///     mpk::buffer buf; mpk::writer w(buf); mpk::write(w, v); if (!w.ok()) ...
template <class S>
void write(writer<S>& w, const value& v) noexcept {
  // Containers being written: the next item to write and how many there are (a map owes
  // two items, key then value, per entry).
  struct frame {
    const value* container;
    std::size_t next;
    std::size_t count;
  };
  std::vector<frame> stack;
  // Opens a container of n items (2 per map entry); false, and errc::out_of_memory in `w`,
  // when the work list cannot grow.
  const auto open = [&stack, &w](const value* c, std::size_t n) noexcept {
#if __cpp_exceptions
    try {
#endif
      if (n != 0) stack.push_back({c, 0, n});
#if __cpp_exceptions
    } catch (const std::bad_alloc&) {
      w.set_error(errc::out_of_memory);
      return false;
    }
#endif
    return true;
  };
  const value* x = &v;
  for (;;) {
    switch (x->type()) {
      case type::nil:
        w.write_nil();
        break;
      case type::boolean:
        w.write(*x->get_if<bool>());
        break;
      case type::uint:
        w.write_unsigned(*x->get_if<std::uint64_t>());
        break;
      case type::sint:
        w.write_signed(*x->get_if<std::int64_t>());
        break;
      case type::float32:
        w.write_float32(*x->get_if<float>());
        break;
      case type::float64:
        w.write_float64(*x->get_if<double>());
        break;
      case type::str:
        w.write_str(*x->get_if<std::string>());
        break;
      case type::bin:
        w.write_bin(*x->get_if<value::binary_type>());
        break;
      case type::ext: {
        const auto& e = *x->get_if<value::extension>();
        w.write_ext(e.type, e.data);
        break;
      }
      case type::array: {
        const std::size_t n = x->get_if<value::array_type>()->size();
        w.begin_array(n);
        if (!open(x, n)) return;
        break;
      }
      case type::map: {
        const std::size_t n = x->get_if<value::map_type>()->size();
        w.begin_map(n);
        if (!open(x, 2 * n)) return;
        break;
      }
      default:
        break;
    }
    // The next item: from the innermost container that still owes one.
    while (!stack.empty() && stack.back().next == stack.back().count)
      stack.pop_back();
    if (stack.empty() || !w.ok()) return;
    frame& f = stack.back();
    const std::size_t i = f.next++;
    const value* c = f.container;
    if (const auto* a = c->get_if<value::array_type>()) {
      x = &(*a)[i];
    } else {
      const auto& entry = (*c->get_if<value::map_type>())[i / 2];
      x = i % 2 == 0 ? &entry.first : &entry.second;
    }
  }
}

/// Reads the next complete value from `r` into an owning value, within the reader's limits
/// (depth included), and consumes it. Its strings are checked for UTF-8 as the reader checks
/// what it copies into a std::string: unless the reader's policy is utf8_check::none.
///
///     mpk::reader r(bytes); auto v = mpk::read_value(r);   // result<mpk::value>
///
/// Errors (also recorded in `r`, sticky): those of reader::skip(): errc::truncated,
/// errc::invalid_marker, errc::limit_exceeded, errc::depth_exceeded, errc::out_of_memory (also
/// when the document or the value cannot be allocated: offset of the value); and
/// errc::invalid_utf8 (offset of the first bad str).
template <class Policy>
result<value> read_value(basic_reader<Policy>& r) {
  const std::size_t start = r.position();
  // The reader checks the whole value (its limits, its depth, its bounds) without recursion;
  // the document then builds the tree from those checked bytes.
  const std::span<const std::byte> bytes = r.raw_value();
  if (!r.ok()) return r.error();
  const utf8_check utf8 = r.options().utf8 == utf8_check::none ? utf8_check::none : utf8_check::all;
  auto doc = document::parse(bytes, {.read = {.limits = r.options().limits, .utf8 = utf8}});
  if (!doc) {
    const mpk::error e{doc.error().code, start + doc.error().offset};
    r.set_error(e);
    return e;
  }
  result<value> v = detail::make_value(doc->root());
  if (!v) {
    const mpk::error e{errc::out_of_memory, start};
    r.set_error(e);
    return e;
  }
  return v;
}

}  // namespace mpk::inline v0
