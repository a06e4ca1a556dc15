// mpk/value/document.hpp - a whole message parsed into a tree of small nodes.
//
//     auto doc = mpk::document::parse(bytes);           // result<document>
//     if (!doc) return doc.error();                     // code and byte offset
//     mpk::element root = doc->root();
//     std::int64_t id = root["id"].as<std::int64_t>().value_or(0);
//     for (auto [key, val] : root["tags"].entries()) { ... }
//
// Layout: one arena of 16-byte nodes. The children of a container sit next to each other
// (a map's as key, value, key, value, ...), so indexing an array is one addition and walking a
// map is a linear scan. Strings, binaries and extension data are not copied: a node holds the
// offset of its value in the input (or in the document's own copy of it, with
// `document_options::copy`).
//
// Safety: the parse is a loop with an explicit stack (at most limits::max_depth levels), and
// every count is checked against the bytes that remain before nodes are reserved for it:
// every child the document still waits for needs one byte of input at least. The arena
// therefore never holds more nodes than the input has bytes, whatever the declared counts.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mpk/config.hpp"
#include "mpk/detail/coerce.hpp"
#include "mpk/error.hpp"
#include "mpk/format.hpp"
#include "mpk/reader.hpp"

namespace mpk::inline v0 {

/// How document::parse treats its input: the read options, and the document's own. An
/// aggregate: set the fields you need.
///
///     auto doc = mpk::document::parse(bytes, {.copy = true});
///     auto deep = mpk::document::parse(bytes, {.read = {.limits = {.max_depth = 64}}});
struct document_options {
  /// Limits; UTF-8 checks (`owned`, the default, checks what as<std::string>() copies out;
  /// `all` checks every str, keys included, during the parse, so that views are valid too:
  /// errc::invalid_utf8 at the first bad str; `none` checks nothing); strictness (a map with
  /// two keys of the same bytes, header included, so `01` and `cc 01` are different keys and
  /// a container key counts by all its bytes, makes the parse fail with errc::duplicate_key
  /// at the offset of the second key, the first such key in input order; off by default:
  /// the document keeps every entry and lookups find the last; it costs a pass over the keys
  /// after the parse, pairwise for maps of up to 16 entries, a sort of 4-byte indices
  /// allocated once per parse for larger ones); trailing bytes (accepted with
  /// `allow_trailing`: `document::consumed()` then says where the next value starts, so a
  /// sequence of messages is parsed by parsing `bytes.subspan(doc.consumed())` again).
  read_options read{};
  /// Copy the input into the document (one memcpy), so that it may be freed or reused while
  /// the document lives. Without it, views from the document point into the caller's input.
  bool copy = false;
};

namespace detail {

/// One value of a document: 16 bytes.
///
/// `payload` holds the value of a scalar (uint/sint as 64 bits, bool as 0/1, float32 and
/// float64 as their bits), the length of a str, bin or ext, and for a container the distance
/// in nodes from it to its first child (low 32 bits; children come after their container) and
/// its count (high 32 bits: elements, or map entries).
/// `offset` is where the value starts in the input; `head` is the size of its header (for a
/// scalar: of the whole value), so str/bin/ext data start at offset + head.
struct node {
  std::uint64_t payload;
  std::uint32_t offset;
  type tag;
  std::uint8_t head;
  std::int8_t ext_type;
  std::uint8_t reserved;
};
static_assert(sizeof(node) == 16, "mpk::detail::node must stay 16 bytes");
static_assert(std::is_trivial_v<node>, "nodes are allocated without initialization");

/// `x`, which is not null: an iterator's node. Said to the compiler, so that the checks of a
/// missing element vanish from loops over elements and entries.
MPK_ALWAYS_INLINE const node* not_null(const node* x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  if (x == nullptr) __builtin_unreachable();
#endif
  return x;
}

/// A level of the parse stack: the next child slot to fill and the end of the block.
struct parse_frame {
  std::uint32_t next;
  std::uint32_t end;
};

}  // namespace detail

class element;

/// Iterator over the elements of an array (element::elements()).
class element_iterator;
/// Iterator over the entries of a map (element::entries()): yields map_entry.
class entry_iterator;

/// A (key, value) pair of a map, as entry_iterator yields it.
struct map_entry;

/// A read-only view of one value inside a document. Cheap to copy (24 bytes); valid while the
/// document lives and is not parsed into again (and, without `copy`, while the input lives).
///
/// A lookup that finds nothing (a missing key, an index past the end, a lookup on a value of
/// another type) gives a *missing* element: `exists()` is false, `type()` is
/// type::invalid, `size()` is 0, further lookups stay missing, and `as<T>()` returns
/// errc::missing_key with the offset of the container that was searched. So chains of lookups
/// need one check at the end:
///
///     auto port = root["server"]["port"].as<std::uint16_t>();   // result<std::uint16_t>
class MPK_API element {
 public:
  /// A missing value (offset 0).
  element() noexcept = default;

  /// False for a missing value (see the class comment).
  bool exists() const noexcept { return n_ != nullptr; }
  explicit operator bool() const noexcept { return exists(); }

  /// The wire family, as reader::peek() reports it (uint for positive fixint and
  /// uint8..uint64, sint for negative fixint and int8..int64). type::invalid when missing.
  mpk::type type() const noexcept { return n_ ? n_->tag : mpk::type::invalid; }
  bool is_nil() const noexcept { return type() == mpk::type::nil; }
  bool is_array() const noexcept { return type() == mpk::type::array; }
  bool is_map() const noexcept { return type() == mpk::type::map; }
  bool is_str() const noexcept { return type() == mpk::type::str; }
  bool is_integer() const noexcept {
    return type() == mpk::type::uint || type() == mpk::type::sint;
  }

  /// The value as a T, with exactly the reader's coercions (the reader's decoders run on the
  /// value's bytes): T is an integer type, bool, float, double, std::nullptr_t,
  /// std::string_view / std::span<const std::byte> (views into the input), mpk::ext_view, or
  /// std::string (a copy of a str, checked for UTF-8 unless the document was parsed with
  /// utf8_check::none).
  ///
  ///     double x = v.as<double>().value_or(0.0);
  ///
  /// Errors (with the value's offset): errc::type_mismatch (another family),
  /// errc::out_of_range (an integer that does not fit T, a finite double beyond float's
  /// range, an integer a float or double cannot hold exactly), errc::invalid_utf8 (a
  /// std::string that is not UTF-8); errc::missing_key on a missing value (offset of the
  /// container searched).
  template <class T>
  result<T> as() const {
    if constexpr (std::is_same_v<T, std::string>) {
      return as_slow<T>(n_, input_, miss_, utf8_);
    } else {
      // The families the node holds decoded inline (no result in memory, no destructor to
      // run on the caller's side); everything else out of line.
      if (T v{}; n_ != nullptr && decoded_in_node(v)) return v;
      return as_slow<T>(n_, input_, miss_, utf8_);
    }
  }

  /// Elements of an array, entries of a map; 0 for any other value and when missing.
  std::size_t size() const noexcept {
    return n_ && is_container(n_->tag) ? static_cast<std::size_t>(n_->payload >> 32) : 0;
  }

  /// The i-th element of an array; missing when out of range or not an array.
  element operator[](std::size_t i) const noexcept {
    if (!is_array() || i >= size()) return missing();
    return at(first_child() + i);
  }

  /// The value of the last entry whose key is the str `key` (so a duplicate key: the last one
  /// wins); missing when there is none or this is not a map. A linear scan.
  element operator[](std::string_view key) const noexcept { return find(key); }
  element find(std::string_view key) const noexcept;
  /// The value of the last entry whose key equals `key` (deep equality: any key type).
  element find(const element& key) const;

  /// Range of an array's elements (empty for any other value): `for (element x :
  /// v.elements())`. `for (element x : v)` is the same.
  struct element_range;
  element_range elements() const noexcept;
  /// Range of a map's entries (empty for any other value): `for (auto [k, x] : v.entries())`.
  struct entry_range;
  entry_range entries() const noexcept;
  element_iterator begin() const noexcept;
  element_iterator end() const noexcept;

  /// The bytes of the whole value in the input (header included, however nested); empty
  /// when missing. Agrees with reader::raw_value().
  std::span<const std::byte> raw() const noexcept {
    if (n_ == nullptr) return {};
    return {input_ + n_->offset, extent()};
  }

  /// Offset of the value in the input (of the searched container when missing).
  std::size_t offset() const noexcept { return n_ ? n_->offset : miss_; }

  /// Deep equality of values, not encodings: integers equal by number whatever their width or
  /// family (uint8 5 == int64 5); float32 and float64 by family and bits (NaN equals the same
  /// NaN, 0.0 differs from -0.0); str, bin, ext by type and bytes; arrays element-wise; maps
  /// entry-wise in order. Two missing values are equal. Iterative: no recursion on depth.
  friend MPK_API bool operator==(const element& a, const element& b);

 private:
  friend class document;
  friend class element_iterator;
  friend class entry_iterator;

  element(const detail::node* n, const std::byte* input, utf8_check utf8) noexcept
      : n_(n), input_(input), utf8_(utf8) {}

  element missing() const noexcept {
    element r;
    r.miss_ = static_cast<std::uint32_t>(offset());
    return r;
  }
  element at(const detail::node* x) const noexcept { return {x, input_, utf8_}; }
  /// A container's first child (its payload's low 32 bits: the distance to it in nodes).
  const detail::node* first_child() const noexcept {
    return n_ + static_cast<std::uint32_t>(n_->payload);
  }

  /// as<T>() where the node does not hold the value as T: a missing value, a std::string
  /// (a copy, checked for UTF-8 by the policy), and every coercion the reader's decoder
  /// makes (run on the value's bytes). Out of line, so that the inline part of as<T>()
  /// stays small; the element's fields as arguments, so that the caller's element need not
  /// live in memory.
  template <class T>
  MPK_NOINLINE static result<T> as_slow(const detail::node* n, const std::byte* input,
                                        std::uint32_t miss, utf8_check utf8) {
    element self(n, input, utf8);
    self.miss_ = miss;
    return self.as_decoded<T>();
  }
  template <class T>
  result<T> as_decoded() const {
    if (n_ == nullptr) return mpk::error{errc::missing_key, miss_};
    if constexpr (std::is_same_v<T, std::string>) {
      auto s = as<std::string_view>();
      if (!s) return s.error();
      if (utf8_ != utf8_check::none && !is_valid_utf8(*s))
        return mpk::error{errc::invalid_utf8, n_->offset};
      return std::string(*s);
    } else {
      using D = detail::decoder_for<T>;
      static_assert(!std::is_void_v<D>,
                    "mpk::element::as<T>: T must be an integer, bool, float, double, "
                    "std::string_view, std::string, std::span<const std::byte>, "
                    "std::nullptr_t or mpk::ext_view");
      // The value is complete in the input: `extent()` bytes are readable, and the document
      // already enforced its limits.
      const std::byte* p = input_ + n_->offset;
      const auto d = D::template run<true>(p, p, extent(), limits::trusted());
      if (d.ec != errc::ok) return mpk::error{d.ec, n_->offset};
      return d.value;
    }
  }

  /// The value as a T straight from its node, where the node holds it decoded and T takes it
  /// unchanged (an int in T's range, a float or double of its own width or float32 as a
  /// double, a bool, a str as a string_view, a bin as bytes); false otherwise, and as<T>()
  /// then runs the reader's decoder, which alone says what every other case gives. The
  /// decoders' dispatch for the common cases (with their range rule, detail/coerce.hpp), kept
  /// for speed: W3 `read_dynamic` and the W7 `decode_*` reads of every entry (the decoder
  /// re-reads the marker and measures the value first). Same results: tests/document_test.cpp
  /// `AsUsesTheReadersCoercions`.
  template <class T>
  bool decoded_in_node(T& out) const noexcept {
    const detail::node& x = *n_;
    if constexpr (std::is_same_v<T, bool>) {
      if (x.tag != mpk::type::boolean) return false;
      out = x.payload != 0;
      return true;
    } else if constexpr (detail::is_read_integer<T>) {
      if (x.tag == mpk::type::uint) {
        if (detail::out_of_range_for<T>(x.payload)) return false;
        out = static_cast<T>(x.payload);
        return true;
      }
      if (x.tag != mpk::type::sint ||
          detail::out_of_range_for<T>(static_cast<std::int64_t>(x.payload)))
        return false;
      out = static_cast<T>(static_cast<std::int64_t>(x.payload));
      return true;
    } else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
      if (x.tag == mpk::type::float32) {
        out = static_cast<T>(std::bit_cast<float>(static_cast<std::uint32_t>(x.payload)));
        return true;
      }
      if (!std::is_same_v<T, double> || x.tag != mpk::type::float64) return false;
      out = static_cast<T>(std::bit_cast<double>(x.payload));
      return true;
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      if (x.tag != mpk::type::str) return false;
      out = {reinterpret_cast<const char*>(input_ + x.offset + x.head),
             static_cast<std::size_t>(x.payload)};
      return true;
    } else if constexpr (std::is_same_v<T, std::span<const std::byte>>) {
      if (x.tag != mpk::type::bin) return false;
      out = {input_ + x.offset + x.head, static_cast<std::size_t>(x.payload)};
      return true;
    } else {
      (void)x;
      (void)out;
      return false;
    }
  }

  /// Bytes of the whole value: the header and payload of a scalar, str, bin or ext; for a
  /// container, up to the end of its last descendant (a walk down last children).
  std::size_t extent() const noexcept;

  const detail::node* n_ = nullptr;
  const std::byte* input_ = nullptr;
  std::uint32_t miss_ = 0;
  utf8_check utf8_ = utf8_check::owned;
};

struct map_entry {
  element key;
  element value;
};

class element_iterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = element;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = element;

  element_iterator() noexcept = default;
  element operator*() const noexcept { return {detail::not_null(x_), input_, utf8_}; }
  element_iterator& operator++() noexcept {
    ++x_;
    return *this;
  }
  element_iterator operator++(int) noexcept {
    auto old = *this;
    ++x_;
    return old;
  }
  friend bool operator==(const element_iterator& a, const element_iterator& b) noexcept {
    return a.x_ == b.x_;
  }

 private:
  friend class element;
  element_iterator(const detail::node* x, const std::byte* input, utf8_check utf8) noexcept
      : x_(x), input_(input), utf8_(utf8) {}
  const detail::node* x_ = nullptr;
  const std::byte* input_ = nullptr;
  utf8_check utf8_ = utf8_check::owned;
};

class entry_iterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = map_entry;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = map_entry;

  entry_iterator() noexcept = default;
  map_entry operator*() const noexcept {
    return {element(detail::not_null(x_), input_, utf8_), element(x_ + 1, input_, utf8_)};
  }
  entry_iterator& operator++() noexcept {
    x_ += 2;
    return *this;
  }
  entry_iterator operator++(int) noexcept {
    auto old = *this;
    x_ += 2;
    return old;
  }
  friend bool operator==(const entry_iterator& a, const entry_iterator& b) noexcept {
    return a.x_ == b.x_;
  }

 private:
  friend class element;
  entry_iterator(const detail::node* x, const std::byte* input, utf8_check utf8) noexcept
      : x_(x), input_(input), utf8_(utf8) {}
  const detail::node* x_ = nullptr;  // the key of the entry
  const std::byte* input_ = nullptr;
  utf8_check utf8_ = utf8_check::owned;
};

struct element::element_range {
  element_iterator first, last;
  element_iterator begin() const noexcept { return first; }
  element_iterator end() const noexcept { return last; }
  bool empty() const noexcept { return first == last; }
};

struct element::entry_range {
  entry_iterator first, last;
  entry_iterator begin() const noexcept { return first; }
  entry_iterator end() const noexcept { return last; }
  bool empty() const noexcept { return first == last; }
};

inline element::element_range element::elements() const noexcept {
  if (!is_array()) return {};
  const detail::node* f = first_child();
  return {{f, input_, utf8_}, {f + size(), input_, utf8_}};
}

inline element::entry_range element::entries() const noexcept {
  if (!is_map()) return {};
  const detail::node* f = first_child();
  return {{f, input_, utf8_}, {f + 2 * size(), input_, utf8_}};
}

inline element_iterator element::begin() const noexcept {
  return elements().first;
}
inline element_iterator element::end() const noexcept {
  return elements().last;
}

inline std::size_t element::extent() const noexcept {
  const detail::node* x = n_;
  // A container ends where its last child ends: walk down last children (no recursion).
  while (is_container(x->tag) && (x->payload >> 32) != 0) {
    const auto count = static_cast<std::size_t>(x->payload >> 32);
    x +=
        static_cast<std::uint32_t>(x->payload) + (x->tag == mpk::type::map ? 2 * count : count) - 1;
  }
  std::size_t end = std::size_t{x->offset} + x->head;
  if (x->tag == mpk::type::str || x->tag == mpk::type::bin || x->tag == mpk::type::ext)
    end += static_cast<std::size_t>(x->payload);
  return end - n_->offset;
}

inline element element::find(std::string_view key) const noexcept {
  if (!is_map()) return missing();
  const detail::node* const first = first_child();
  for (const detail::node* x = first + 2 * size(); x != first; x -= 2) {
    const detail::node& k = x[-2];
    if (k.tag == mpk::type::str && k.payload == key.size() &&
        (key.empty() || std::memcmp(input_ + k.offset + k.head, key.data(), key.size()) == 0))
      return at(x - 1);
  }
  return missing();
}

/// A whole MessagePack message parsed into an arena of nodes (see the top of this file).
///
/// A document owns its arena (and, with `copy`, a copy of the input); it is movable, not
/// copyable. Parse again into the same document with parse_into() to reuse its memory: once
/// the arena is large enough for the messages seen, parsing allocates nothing.
///
/// Memory: at most 16 bytes of nodes per input byte (never more nodes than input bytes),
/// plus 8 bytes per nesting level for the parse stack, plus the input size with `copy`.
class MPK_API document {
 public:
  /// An empty document: root() is missing.
  document() noexcept = default;
  document(document&&) noexcept = default;
  document& operator=(document&&) noexcept = default;
  document(const document&) = delete;
  document& operator=(const document&) = delete;
  ~document() = default;

  /// Parses one complete MessagePack value from `bytes` (any mpk::byte_input).
  ///
  ///     auto doc = mpk::document::parse(bytes, {.read = {.limits = {.max_depth = 64}}});
  ///
  /// Errors (with the byte offset of the offending value): errc::truncated (the input ends
  /// inside a value, or a container declares more items than the remaining bytes can hold),
  /// errc::invalid_marker (0xc1), errc::limit_exceeded (a length or count above
  /// options.read.limits), errc::depth_exceeded (containers nested deeper than
  /// limits.max_depth), errc::trailing_bytes (bytes after the value, unless
  /// options.read.allow_trailing),
  /// errc::invalid_utf8 (with utf8_check::all: the first str, in input order, that is not
  /// UTF-8),
  /// errc::duplicate_key (with options.read.strict: the first key, in input order,
  /// that repeats an earlier key of its map; when a str is also not UTF-8, whichever comes
  /// first in the input is reported),
  /// errc::too_large (an input of 4 GiB or more: offsets are 32-bit),
  /// errc::out_of_memory (the arena could not grow).
  template <byte_input B>
  static result<document> parse(const B& bytes, const document_options& options = {}) {
    return parse_bytes(mpk::as_bytes(bytes), options);
  }

  /// Like parse(), into this document: its arena, stack and copy buffer are reused, so once
  /// warm no allocation happens. Views taken from the previous message become invalid. On
  /// error the document is empty (root() missing) but keeps its memory.
  ///
  ///     mpk::document doc;
  ///     for (auto& msg : messages) if (auto r = doc.parse_into(msg); !r) ...;
  ///
  /// Errors: those of parse().
  template <byte_input B>
  result<void> parse_into(const B& bytes, const document_options& options = {}) {
    if (const detail::sticky_error e = parse_into_bytes(mpk::as_bytes(bytes), options)) [[unlikely]]
      return mpk::error(e);
    return {};
  }

  /// The top-level value; missing when the document is empty.
  element root() const noexcept {
    if (size_ == 0) return {};
    return {nodes_.get(), input_, utf8_};
  }

  /// Bytes of the input the top-level value took: where the next one starts with
  /// `read.allow_trailing` (equal to the input size without it). 0 when empty.
  std::size_t consumed() const noexcept { return consumed_; }
  /// The bytes the views point into (the caller's input, or the document's copy).
  std::span<const std::byte> input() const noexcept { return {input_, consumed_}; }
  /// Nodes in use (one per value, key and element).
  std::size_t node_count() const noexcept { return size_; }
  /// Bytes the document holds from the heap: arena, stack and copy buffer.
  std::size_t memory_usage() const noexcept {
    return node_capacity_ * sizeof(detail::node) + stack_capacity_ * sizeof(detail::parse_frame) +
           copy_capacity_;
  }

 private:
  static result<document> parse_bytes(std::span<const std::byte> bytes,
                                      const document_options& options);
  detail::sticky_error parse_into_bytes(std::span<const std::byte> bytes,
                                        const document_options& options);
  bool reserve_nodes(std::size_t n, std::size_t keep) noexcept;
  bool reserve_stack(std::size_t n) noexcept;
  mpk::error check_utf8() const noexcept;
  mpk::error check_duplicate_keys() const noexcept;
  detail::sticky_error run(const std::byte* in, std::size_t n, const limits& lim,
                           bool allow_trailing) noexcept;
  template <bool Exact>
  detail::sticky_error parse_loop(const std::byte* in, std::size_t n, const limits& lim,
                                  bool allow_trailing) noexcept;

  std::unique_ptr<detail::node[]> nodes_;
  std::size_t node_capacity_ = 0;
  std::size_t size_ = 0;
  std::unique_ptr<detail::parse_frame[]> stack_;
  std::size_t stack_capacity_ = 0;
  std::unique_ptr<std::byte[]> copy_;
  std::size_t copy_capacity_ = 0;
  const std::byte* input_ = nullptr;
  std::size_t consumed_ = 0;
  utf8_check utf8_ = utf8_check::owned;
};

}  // namespace mpk::inline v0
