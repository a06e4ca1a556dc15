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
//
// It is read like a document's `element`: `v["server"]["port"].as<std::uint16_t>()` gives a
// result (lookups that find nothing give an absent `value_view`, checked once at the end), with
// the same coercions and range checks (mpk/detail/coerce.hpp).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "mpk/config.hpp"
#include "mpk/detail/coerce.hpp"
#include "mpk/detail/level_stack.hpp"
#include "mpk/error.hpp"
#include "mpk/format.hpp"
#include "mpk/reader.hpp"
#include "mpk/unicode.hpp"
#include "mpk/value/document.hpp"
#include "mpk/writer.hpp"

namespace mpk::inline v0 {

class value_view;
struct value_entry;
namespace detail {
template <class Item>
class value_iterator;
template <class It>
struct view_range;
}  // namespace detail

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
/// Copies, destruction, comparison (`==`), write() and the conversion from a element are
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
  explicit value(const element& ref);

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
  bool is_str() const noexcept { return std::holds_alternative<std::string>(v_); }
  bool is_integer() const noexcept {
    return std::holds_alternative<std::uint64_t>(v_) || std::holds_alternative<std::int64_t>(v_);
  }

  /// The value as a T, with exactly the coercions and range checks of element::as<T>() and
  /// reader::read<T>() (detail::out_of_range_for): T is an integer type, bool, float, double,
  /// std::nullptr_t, std::string_view / std::span<const std::byte> (views of the str, of the
  /// bin: valid while the value lives unchanged), mpk::ext_view, or std::string (a copy of a
  /// str, checked for UTF-8).
  ///
  ///     auto port = v["server"]["port"].as<std::uint16_t>();   // result<std::uint16_t>
  ///
  /// Errors (offset 0: a value has no input): errc::type_mismatch (another family),
  /// errc::out_of_range (an integer that does not fit T, a finite double beyond float's
  /// range, an integer a float or double cannot hold exactly), errc::invalid_utf8 (a
  /// std::string that is not UTF-8). On an absent value_view: errc::missing_key.
  template <class T>
  result<T> as() const;

  /// The stored alternative, or nullptr when the value holds another: T is bool,
  /// std::uint64_t, std::int64_t, float, double, std::string, binary_type, extension,
  /// array_type or map_type. Through it every part can be read and edited, numbers excepted.
  ///
  ///     if (auto* items = v.get_if<mpk::value::array_type>()) items->pop_back();
  ///
  /// Integers are found by number, as as<T>() finds them: get_if<std::int64_t>() for any
  /// integer int64 can hold (`value(5)` as well as `value(-5)`), get_if<std::uint64_t>() for
  /// any integer >= 0. Both pointers are to const, even on a non-const value, so that an
  /// integer stays uint when >= 0 and sint when negative: to change a number, assign one
  /// (`v = 7`).
  template <class T>
  auto get_if() noexcept {
    if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>)
      return std::as_const(*this).template get_if<T>();
    else
      return std::get_if<T>(&v_);
  }
  template <class T>
  const T* get_if() const noexcept {
    if constexpr (std::is_same_v<T, std::int64_t>) {
      // uint64 and int64 are corresponding unsigned and signed types: reading the one through
      // a glvalue of the other is allowed ([basic.lval]), and below 2^63 the bits are the same
      // number.
      if (const auto* u = std::get_if<std::uint64_t>(&v_))
        return *u <= static_cast<std::uint64_t>(INT64_MAX) ? reinterpret_cast<const T*>(u)
                                                           : nullptr;
    }
    return std::get_if<T>(&v_);
  }

  /// Elements of an array, entries of a map; 0 for any other value (as element::size(); the
  /// length of a str is `as<std::string_view>()->size()`).
  std::size_t size() const noexcept;

  /// The i-th element of an array; absent when out of range or not an array.
  value_view operator[](std::size_t i) const noexcept;
  /// The value of the last entry whose key is the str `key` (a duplicate key: the last one
  /// wins); absent when there is none or this is not a map. A linear scan.
  value_view operator[](std::string_view key) const noexcept;
  value_view find(std::string_view key) const noexcept;
  value_view find(const char* key) const noexcept;
  /// The value of the last entry whose key equals `key` (any key type, deep equality).
  /// Allocates (and may throw std::bad_alloc) only to compare keys that are containers with
  /// items.
  value_view find(const value& key) const;

  /// Range of an array's elements, as value_view (empty for any other value):
  /// `for (mpk::value_view x : v.elements())`.
  detail::view_range<detail::value_iterator<value>> elements() const noexcept;
  /// Range of a map's entries, as value_entry (empty for any other value):
  /// `for (auto [k, x] : v.entries())`.
  detail::view_range<detail::value_iterator<std::pair<value, value>>> entries() const noexcept;

  /// For editing in place: the i-th element of an array; nullptr when out of range or not an
  /// array.
  value* at(std::size_t i) noexcept {
    auto* a = get_if<array_type>();
    return a && i < a->size() ? &(*a)[i] : nullptr;
  }
  const value* at(std::size_t i) const noexcept { return const_cast<value*>(this)->at(i); }

  /// For editing in place: the value of the last entry whose key is the str `key` (or equals
  /// `key`, any key type); nullptr when there is none or this is not a map.
  ///
  ///     if (mpk::value* n = v.if_contains("retries")) n->push_back(3);
  value* if_contains(std::string_view key) noexcept;
  const value* if_contains(std::string_view key) const noexcept {
    return const_cast<value*>(this)->if_contains(key);
  }
  value* if_contains(const char* key) noexcept { return if_contains(std::string_view(key)); }
  const value* if_contains(const char* key) const noexcept {
    return if_contains(std::string_view(key));
  }
  value* if_contains(const value& key);
  const value* if_contains(const value& key) const {
    return const_cast<value*>(this)->if_contains(key);
  }

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

/// A read-only view of an mpk::value, or of nothing: what value::operator[] and find()
/// return. The owned tree's counterpart of a document's `element`, with the same reading
/// members: a lookup that finds nothing (a missing key, an index past the end, a lookup on a
/// value of another type) gives an *absent* view: `exists()` is false, `type()` is
/// type::invalid, `size()` is 0, further lookups stay absent, and `as<T>()` returns
/// errc::missing_key (offset 0). So a chain of lookups needs one check at the end:
///
///     auto port = v["server"]["port"].as<std::uint16_t>();   // result<std::uint16_t>
///
/// 8 bytes; valid while the value it views lives and is not changed (as a pointer would be).
class value_view {
 public:
  /// Absent.
  value_view() noexcept = default;
  /// A view of `v`.
  explicit value_view(const value& v) noexcept : v_(&v) {}
  /// Not of a temporary: the view would dangle at the end of the statement.
  explicit value_view(const value&&) = delete;

  /// False for an absent view.
  bool exists() const noexcept { return v_ != nullptr; }
  explicit operator bool() const noexcept { return exists(); }
  /// The value viewed; nullptr when absent. Copy it (`mpk::value copy = *view.get();`) to
  /// keep or edit it.
  const value* get() const noexcept { return v_; }

  /// The family, as value::type(); type::invalid when absent.
  mpk::type type() const noexcept { return v_ ? v_->type() : mpk::type::invalid; }
  bool is_nil() const noexcept { return v_ && v_->is_nil(); }
  bool is_array() const noexcept { return v_ && v_->is_array(); }
  bool is_map() const noexcept { return v_ && v_->is_map(); }
  bool is_str() const noexcept { return v_ && v_->is_str(); }
  bool is_integer() const noexcept { return v_ && v_->is_integer(); }

  /// value::as<T>(); errc::missing_key (offset 0) when absent.
  template <class T>
  result<T> as() const {
    if (v_ == nullptr) return mpk::error{errc::missing_key, 0};
    return v_->template as<T>();
  }
  /// value::get_if<T>() (read-only); nullptr when absent.
  template <class T>
  const T* get_if() const noexcept {
    return v_ ? v_->template get_if<T>() : nullptr;
  }

  /// Elements of an array, entries of a map; 0 for any other value and when absent.
  std::size_t size() const noexcept { return v_ ? v_->size() : 0; }
  value_view operator[](std::size_t i) const noexcept { return v_ ? (*v_)[i] : value_view(); }
  value_view operator[](std::string_view key) const noexcept { return find(key); }
  value_view find(std::string_view key) const noexcept { return v_ ? v_->find(key) : value_view(); }
  value_view find(const char* key) const noexcept { return find(std::string_view(key)); }
  value_view find(const value& key) const { return v_ ? v_->find(key) : value_view(); }

  /// As value::elements() and value::entries(); empty when absent.
  detail::view_range<detail::value_iterator<value>> elements() const noexcept;
  detail::view_range<detail::value_iterator<std::pair<value, value>>> entries() const noexcept;
  /// `for (mpk::value_view x : v["tags"])`: the elements of an array.
  detail::value_iterator<value> begin() const noexcept;
  detail::value_iterator<value> end() const noexcept;

  /// Deep equality of the values viewed (value's ==); two absent views are equal.
  friend bool operator==(const value_view& a, const value_view& b) {
    if (a.v_ == nullptr || b.v_ == nullptr) return a.v_ == b.v_;
    return *a.v_ == *b.v_;
  }

 private:
  const value* v_ = nullptr;
};

/// A (key, value) pair of a value's map, as value::entries() yields it.
struct value_entry {
  value_view key;
  value_view value;
};

namespace detail {

/// Iterator over a value's array elements (Item = value: yields value_view) or map entries
/// (Item = std::pair<value, value>: yields value_entry).
template <class Item>
class value_iterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = std::conditional_t<std::is_same_v<Item, value>, value_view, value_entry>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = value_type;

  value_iterator() noexcept = default;
  explicit value_iterator(const Item* p) noexcept : p_(p) {}
  value_type operator*() const noexcept {
    if constexpr (std::is_same_v<Item, value>)
      return value_view(*p_);
    else
      return {value_view(p_->first), value_view(p_->second)};
  }
  value_iterator& operator++() noexcept {
    ++p_;
    return *this;
  }
  value_iterator operator++(int) noexcept {
    auto old = *this;
    ++p_;
    return old;
  }
  friend bool operator==(const value_iterator& a, const value_iterator& b) noexcept {
    return a.p_ == b.p_;
  }

 private:
  const Item* p_ = nullptr;
};

template <class It>
struct view_range {
  It first, last;
  It begin() const noexcept { return first; }
  It end() const noexcept { return last; }
  bool empty() const noexcept { return first == last; }
};

}  // namespace detail

inline value_view value::operator[](std::size_t i) const noexcept {
  const value* x = at(i);
  return x ? value_view(*x) : value_view();
}
inline value_view value::operator[](std::string_view key) const noexcept {
  return find(key);
}
inline value_view value::find(std::string_view key) const noexcept {
  const value* x = if_contains(key);
  return x ? value_view(*x) : value_view();
}
inline value_view value::find(const char* key) const noexcept {
  return find(std::string_view(key));
}
inline value_view value::find(const value& key) const {
  const value* x = if_contains(key);
  return x ? value_view(*x) : value_view();
}

inline detail::view_range<detail::value_iterator<value>> value::elements() const noexcept {
  const auto* a = get_if<array_type>();
  if (a == nullptr) return {};
  return {detail::value_iterator<value>(a->data()),
          detail::value_iterator<value>(a->data() + a->size())};
}
inline detail::view_range<detail::value_iterator<std::pair<value, value>>> value::entries()
    const noexcept {
  const auto* m = get_if<map_type>();
  if (m == nullptr) return {};
  using it = detail::value_iterator<std::pair<value, value>>;
  return {it(m->data()), it(m->data() + m->size())};
}
inline detail::view_range<detail::value_iterator<value>> value_view::elements() const noexcept {
  return v_ ? v_->elements() : detail::view_range<detail::value_iterator<value>>{};
}
inline detail::view_range<detail::value_iterator<std::pair<value, value>>> value_view::entries()
    const noexcept {
  return v_ ? v_->entries() : detail::view_range<detail::value_iterator<std::pair<value, value>>>{};
}
inline detail::value_iterator<value> value_view::begin() const noexcept {
  return elements().first;
}
inline detail::value_iterator<value> value_view::end() const noexcept {
  return elements().last;
}

template <class T>
result<T> value::as() const {
  static_assert(!std::is_void_v<detail::decoder_for<T>> || std::is_same_v<T, std::string>,
                "mpk::value::as<T>: T must be an integer, bool, float, double, "
                "std::string_view, std::string, std::span<const std::byte>, "
                "std::nullptr_t or mpk::ext_view");
  const mpk::error mismatch{errc::type_mismatch, 0};
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
    const auto* s = std::get_if<std::string>(&v_);
    if (s == nullptr) return mismatch;
    if constexpr (std::is_same_v<T, std::string>) {
      if (!is_valid_utf8(*s)) return mpk::error{errc::invalid_utf8, 0};
      return *s;
    } else {
      return std::string_view(*s);
    }
  } else if constexpr (std::is_same_v<T, std::span<const std::byte>>) {
    const auto* b = std::get_if<binary_type>(&v_);
    if (b == nullptr) return mismatch;
    return std::span<const std::byte>(*b);
  } else if constexpr (std::is_same_v<T, ext_view>) {
    const auto* e = std::get_if<extension>(&v_);
    if (e == nullptr) return mismatch;
    return ext_view{e->type, e->data};
  } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
    if (!is_nil()) return mismatch;
    return nullptr;
  } else if constexpr (std::is_same_v<T, bool>) {
    const auto* b = std::get_if<bool>(&v_);
    if (b == nullptr) return mismatch;
    return *b;
  } else {
    // Numbers: an integer into any integer type, float or double, a float into float or
    // double, each by detail::out_of_range_for (the reader's rule).
    const auto convert = [](auto x) -> result<T> {
      if (detail::out_of_range_for<T>(x)) return mpk::error{errc::out_of_range, 0};
      return static_cast<T>(x);
    };
    if (const auto* u = std::get_if<std::uint64_t>(&v_)) return convert(*u);
    if (const auto* i = std::get_if<std::int64_t>(&v_)) return convert(*i);
    if constexpr (std::is_floating_point_v<T>) {
      if (const auto* f = std::get_if<float>(&v_)) return convert(*f);
      if (const auto* d = std::get_if<double>(&v_)) return convert(*d);
    }
    return mismatch;
  }
}

namespace detail {
/// A deep copy of `ref` as an owned value (nil when `ref` is missing), or
/// errc::out_of_memory (offset 0) when an allocation fails: value(ref) without the
/// exception.
result<value> make_value(const element& ref) noexcept;
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
  detail::basic_owed_stack<frame> stack;  // 64 levels inline: no allocation for most values
  // Opens a container of n items (2 per map entry); false, and errc::out_of_memory in `w`,
  // when the work list cannot grow.
  const auto open = [&stack, &w](const value* c, std::size_t n) noexcept {
    if (n != 0 && !stack.push({c, 0, n})) [[unlikely]] {
      w.set_error(errc::out_of_memory);
      return false;
    }
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
    while (!stack.empty() && stack.top().next == stack.top().count)
      stack.pop();
    if (stack.empty() || !w.ok()) return;
    frame& f = stack.top();
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
