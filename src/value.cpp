// mpk::value: construction rules, conversion from a document, edits and comparison
// (mpk/value/owned.hpp).
#include <bit>
#include <cstring>

#include "mpk/value/owned.hpp"

namespace mpk::inline v0 {

namespace {

/// True when `v` is a two-element array whose first element is a str: a map entry by the
/// initializer-list rule.
bool is_pair_with_str_key(const value& v) {
  const auto* a = v.get_if<value::array_type>();
  return a != nullptr && a->size() == 2 && (*a)[0].type() == type::str;
}

/// The scalar part of a element, or an empty container with room for its children.
value shallow_copy(const element& r) {
  switch (r.type()) {
    case type::boolean:
      return value(*r.as<bool>());
    case type::uint:
      return value(*r.as<std::uint64_t>());
    case type::sint:
      return value(*r.as<std::int64_t>());  // a non-negative sint becomes a uint
    case type::float32:
      return value(*r.as<float>());
    case type::float64:
      return value(*r.as<double>());
    case type::str:
      return value(std::string(*r.as<std::string_view>()));
    case type::bin:
      return value::binary(*r.as<std::span<const std::byte>>());
    case type::ext: {
      const ext_view e = *r.as<ext_view>();
      return value::ext(e.type, e.data);
    }
    case type::array: {
      value::array_type a;
      a.reserve(r.size());
      return value(std::move(a));
    }
    case type::map: {
      value::map_type m;
      m.reserve(r.size());
      return value(std::move(m));
    }
    default:
      return value();
  }
}

bool same_bits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}
bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

}  // namespace

value::value(std::initializer_list<value> items) {
  bool all_pairs = items.size() != 0;
  for (const value& item : items) {
    if (!is_pair_with_str_key(item)) {
      all_pairs = false;
      break;
    }
  }
  if (!all_pairs) {
    v_ = array_type(items.begin(), items.end());
    return;
  }
  map_type m;
  m.reserve(items.size());
  for (const value& item : items) {
    const auto& pair = *item.get_if<array_type>();
    m.emplace_back(pair[0], pair[1]);
  }
  v_ = std::move(m);
}

result<value> detail::make_value(const element& ref) noexcept {
#if __cpp_exceptions
  try {
#endif
    return value(ref);
#if __cpp_exceptions
  } catch (const std::bad_alloc&) {
    return mpk::error{errc::out_of_memory, 0};
  }
#endif
}

value::value(const element& ref) : value(shallow_copy(ref)) {
  if (!is_container(ref.type()) || ref.size() == 0) return;
  // Containers being filled: the destination (its vector reserved to the final size, so
  // pointers to its elements stay valid) and where the source's next item comes from.
  struct frame {
    value* dst;
    element src;
    element_iterator next_element;
    entry_iterator next_entry;
    std::size_t left;
  };
  std::vector<frame> stack;
  const auto open = [&stack](value* dst, const element& src) {
    if (src.size() == 0) return;
    stack.push_back({dst, src, src.elements().begin(), src.entries().begin(), src.size()});
  };
  open(this, ref);
  while (!stack.empty()) {
    frame& f = stack.back();
    if (f.left == 0) {
      stack.pop_back();
      continue;
    }
    --f.left;
    if (auto* a = f.dst->get_if<array_type>()) {
      const element src = *f.next_element++;
      a->push_back(shallow_copy(src));
      value* child = &a->back();
      open(child, src);  // may reallocate `stack`: `f` is not used after this
    } else {
      auto* m = f.dst->get_if<map_type>();
      const map_entry e = *f.next_entry++;
      // The key's payload is allocated before the value's, the order mpk::write reads them
      // in (GCC evaluates emplace_back's arguments right to left: the value came first). A
      // tree whose payloads ascend in memory in that order is written faster (W7
      // encode_large: docs/investigations.md).
      value key = shallow_copy(e.key);
      value item = shallow_copy(e.value);
      m->emplace_back(std::move(key), std::move(item));
      auto& entry = m->back();
      open(&entry.second, e.value);
      open(&entry.first, e.key);  // on top: the key's items are built first
    }
  }
}

namespace {
bool is_nonempty_container(const value& v) noexcept {
  if (const auto* a = v.get_if<value::array_type>()) return !a->empty();
  if (const auto* m = v.get_if<value::map_type>()) return !m->empty();
  return false;
}

/// A copy of a scalar or of a container without its children (an empty vector reserved to
/// the source's size, so that pointers to the elements appended later stay valid).
value shallow_copy(const value& v) {
  if (const auto* a = v.get_if<value::array_type>()) {
    value::array_type out;
    out.reserve(a->size());
    return value(std::move(out));
  }
  if (const auto* m = v.get_if<value::map_type>()) {
    value::map_type out;
    out.reserve(m->size());
    return value(std::move(out));
  }
  return v;  // a scalar: the copy constructor copies the variant directly
}
}  // namespace

value::value(const value& other) {
  if (other.has_nested_containers()) {
    copy_nested(other);
  } else {
    v_ = other.v_;  // scalars and empty containers one level down: nothing to nest
  }
}

value& value::operator=(const value& other) {
  if (this != &other) *this = value(other);
  return *this;
}

void value::copy_nested(const value& other) {
  // Containers being filled: the destination, its source and the next item to copy (a map
  // owes two items, key then value, per entry).
  struct frame {
    value* dst;
    const value* src;
    std::size_t next;
    std::size_t count;
  };
  std::vector<frame> stack;
  const auto open = [&stack](value* dst, const value* src) {
    if (const auto* a = src->get_if<array_type>(); a && !a->empty())
      stack.push_back({dst, src, 0, a->size()});
    else if (const auto* m = src->get_if<map_type>(); m && !m->empty())
      stack.push_back({dst, src, 0, 2 * m->size()});
  };
  *this = shallow_copy(other);
  open(this, &other);
  while (!stack.empty()) {
    frame& f = stack.back();
    if (f.next == f.count) {
      stack.pop_back();
      continue;
    }
    const std::size_t i = f.next++;
    value* dst = f.dst;
    const value* src = nullptr;
    value* child = nullptr;
    if (const auto* a = f.src->get_if<array_type>()) {
      src = &(*a)[i];
      auto& out = *dst->get_if<array_type>();
      out.push_back(shallow_copy(*src));
      child = &out.back();
    } else {
      const auto& entry = (*f.src->get_if<map_type>())[i / 2];
      auto& out = *dst->get_if<map_type>();
      if (i % 2 == 0) {
        src = &entry.first;
        out.emplace_back(shallow_copy(*src), value());
        child = &out.back().first;
      } else {
        src = &entry.second;
        child = &out.back().second;
        *child = shallow_copy(*src);
      }
    }
    open(child, src);  // may reallocate `stack`: `f` is not used after this
  }
}

bool value::has_nested_containers() const noexcept {
  if (const auto* a = get_if<array_type>()) {
    for (const value& x : *a)
      if (is_nonempty_container(x)) return true;
  } else if (const auto* m = get_if<map_type>()) {
    for (const auto& [k, x] : *m)
      if (is_nonempty_container(k) || is_nonempty_container(x)) return true;
  }
  return false;
}

void value::destroy_nested() noexcept {
  // Moves every non-empty container out of its parent into a flat work list, so that each
  // destructor call below meets only scalars and emptied (moved-from) containers.
  std::vector<value> pending;
  const auto take_children = [&pending](value& parent) {
    const auto take = [&pending](value& x) {
      if (is_nonempty_container(x)) pending.push_back(std::move(x));
    };
    if (auto* a = parent.get_if<array_type>()) {
      for (value& x : *a)
        take(x);
    } else if (auto* m = parent.get_if<map_type>()) {
      for (auto& [k, x] : *m) {
        take(k);
        take(x);
      }
    }
  };
#if __cpp_exceptions
  try {
#endif
    take_children(*this);
    while (!pending.empty()) {
      value x = std::move(pending.back());
      pending.pop_back();
      take_children(x);
    }  // x dies here with nothing nested left in it
#if __cpp_exceptions
  } catch (...) {
    // Out of memory for the work list: what is left is destroyed the ordinary (nested) way.
  }
#endif
}

std::size_t value::size() const noexcept {
  switch (type()) {
    case type::array:
      return get_if<array_type>()->size();
    case type::map:
      return get_if<map_type>()->size();
    default:
      return 0;
  }
}

value* value::if_contains(std::string_view key) noexcept {
  auto* m = get_if<map_type>();
  if (m == nullptr) return nullptr;
  for (auto it = m->rbegin(); it != m->rend(); ++it) {
    const auto* k = it->first.get_if<std::string>();
    if (k != nullptr && *k == key) return &it->second;
  }
  return nullptr;
}

value* value::if_contains(const value& key) {
  auto* m = get_if<map_type>();
  if (m == nullptr) return nullptr;
  for (auto it = m->rbegin(); it != m->rend(); ++it) {
    if (it->first == key) return &it->second;
  }
  return nullptr;
}

bool value::push_back(value item) {
  if (is_nil()) v_ = array_type();
  auto* a = get_if<array_type>();
  if (a == nullptr) return false;
  a->push_back(std::move(item));
  return true;
}

bool value::assign(value key, value item) {
  if (is_nil()) v_ = map_type();
  auto* m = get_if<map_type>();
  if (m == nullptr) return false;
  if (value* existing = if_contains(key)) {
    *existing = std::move(item);
  } else {
    m->emplace_back(std::move(key), std::move(item));
  }
  return true;
}

std::size_t value::erase(const value& key) {
  auto* m = get_if<map_type>();
  if (m == nullptr) return 0;
  const auto before = m->size();
  std::erase_if(*m, [&key](const auto& entry) { return entry.first == key; });
  return before - m->size();
}

bool value::erase(std::size_t i) {
  auto* a = get_if<array_type>();
  if (a == nullptr || i >= a->size()) return false;
  a->erase(a->begin() + static_cast<std::ptrdiff_t>(i));
  return true;
}

bool operator==(const value& a, const value& b) {
  // Pairs still to compare; containers push their children's pairs (the order of the
  // comparisons does not matter for equality). The first pair is compared before anything
  // is pushed: scalars and empty containers compare without allocating (value::if_contains() with
  // a scalar key relies on it).
  std::vector<std::pair<const value*, const value*>> work;
  const value* x = &a;
  const value* y = &b;
  for (;;) {
    if (x->type() != y->type()) return false;
    switch (x->type()) {
      case type::nil:
        break;
      case type::boolean:
        if (*x->get_if<bool>() != *y->get_if<bool>()) return false;
        break;
      case type::uint:
        if (*x->get_if<std::uint64_t>() != *y->get_if<std::uint64_t>()) return false;
        break;
      case type::sint:
        if (*x->get_if<std::int64_t>() != *y->get_if<std::int64_t>()) return false;
        break;
      case type::float32:
        if (!same_bits(*x->get_if<float>(), *y->get_if<float>())) return false;
        break;
      case type::float64:
        if (!same_bits(*x->get_if<double>(), *y->get_if<double>())) return false;
        break;
      case type::str:
        if (*x->get_if<std::string>() != *y->get_if<std::string>()) return false;
        break;
      case type::bin:
        if (*x->get_if<value::binary_type>() != *y->get_if<value::binary_type>()) return false;
        break;
      case type::ext:
        if (!(*x->get_if<value::extension>() == *y->get_if<value::extension>())) return false;
        break;
      case type::array: {
        const auto& xa = *x->get_if<value::array_type>();
        const auto& ya = *y->get_if<value::array_type>();
        if (xa.size() != ya.size()) return false;
        for (std::size_t i = 0; i < xa.size(); ++i)
          work.emplace_back(&xa[i], &ya[i]);
        break;
      }
      case type::map: {
        const auto& xm = *x->get_if<value::map_type>();
        const auto& ym = *y->get_if<value::map_type>();
        if (xm.size() != ym.size()) return false;
        for (std::size_t i = 0; i < xm.size(); ++i) {
          work.emplace_back(&xm[i].first, &ym[i].first);
          work.emplace_back(&xm[i].second, &ym[i].second);
        }
        break;
      }
      default:
        return false;
    }
    if (work.empty()) return true;
    x = work.back().first;
    y = work.back().second;
    work.pop_back();
  }
}

}  // namespace mpk::inline v0
