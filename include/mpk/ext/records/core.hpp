// mpk/ext/records/core.hpp - msgpackr's record extension: shared structures, the table of
// record definitions, and decoding / encoding of dynamic values (document, value).
//
// The format (msgpackr's `useRecords`, `sequential` and `structures`): a record definition
// is the extension 0x72 with a one-byte id (`d4 72 id`, id 0x40..0x7f) or a two-byte id
// (`d5 72 lo hi`, lo 0x60..0x7f), followed by an array of key strings and then the values of
// the first instance; a later instance is its id byte(s) followed by the values. A byte
// 0x40..0x7f is a record id only when that id is defined; otherwise it is the positive fixint
// 64..127 (an encoder with records on writes those integers as `cc xx`). Two-byte ids
// `lo hi` stand for index (lo & 0x3f) + 32 * hi (32..8223); shared structure i has index i.
//
//     mpk::records_decoder dec;                        // msgpackr's `new Packr()` output
//     auto doc = dec.parse(bytes);                     // result<document>, records as maps
//     mpk::records_encoder enc;
//     auto out = enc.encode(doc->root());              // result<buffer>, maps as records
//
// See docs/records.md (modes, shared structures, limits, where msgpackr misreads two-byte
// ids).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mpk/buffer.hpp"
#include "mpk/config.hpp"
#include "mpk/error.hpp"
#include "mpk/reader.hpp"
#include "mpk/value/document.hpp"
#include "mpk/value/owned.hpp"
#include "mpk/writer.hpp"

namespace mpk::inline v0 {

/// The extension type of a record definition ('r').
inline constexpr std::int8_t record_ext_type = 0x72;
/// Indexes a record id can name: 0..63 with one byte, 32..8223 with two.
inline constexpr std::size_t record_index_count = 8224;
/// The most shared structures msgpackr accepts (its maxSharedStructures limit).
inline constexpr std::size_t max_shared_structures = 8160;

/// msgpackr's `structures` array: shapes (lists of keys) known to both sides in advance, so
/// that records of those shapes carry no definition. Structure i has record id 0x40 + i: one
/// byte for i < 32, two bytes (`0x60 + (i - 32) % 32`, `(i - 32) / 32`) from 32 on.
///
///     auto shared = mpk::shared_structures::load(bytes_saved_by_msgpackr);   // pack(structures)
///     mpk::records_decoder dec({.shared = &*shared});
class MPK_API shared_structures {
 public:
  using keys_type = std::vector<std::string>;

  shared_structures() = default;

  /// Structures held.
  std::size_t size() const noexcept { return list_.size(); }
  /// The keys of structure i (i < size()).
  const keys_type& operator[](std::size_t i) const noexcept { return list_[i]; }

  /// Appends a structure and returns its index. Errors: errc::limit_exceeded (already
  /// max_shared_structures structures), errc::out_of_memory.
  result<std::size_t> add(keys_type keys);

  /// The index of the structure with exactly these keys in this order, or size().
  std::size_t find(std::span<const std::string> keys) const noexcept;

  /// Reads what msgpackr's `pack(structures)` wrote: an array of arrays of str.
  /// Errors (with the offset of the offending value): errc::type_mismatch (not an array of
  /// arrays of str), errc::limit_exceeded (more than max_shared_structures, or a length above
  /// options.limits), errc::truncated, errc::invalid_marker, errc::invalid_utf8,
  /// errc::trailing_bytes (unless options.allow_trailing),
  /// errc::depth_exceeded, errc::out_of_memory.
  template <byte_input B>
  static result<shared_structures> load(const B& bytes, const read_options& options = {}) {
    return load_bytes(mpk::as_bytes(bytes), options);
  }

  /// Writes the structures as msgpackr's `pack(structures)` does (an array of arrays of str),
  /// for msgpackr's `new Packr({structures: unpack(bytes)})` or getStructures.
  /// Errors: errc::out_of_memory.
  result<buffer> save() const;

 private:
  static result<shared_structures> load_bytes(std::span<const std::byte> bytes,
                                              const read_options& options);
  static result<shared_structures> load_keys(std::span<const std::byte> bytes,
                                             const read_options& options);  // may throw
  std::vector<keys_type> list_;
};

/// How definitions live across messages.
enum class records_mode : std::uint8_t {
  /// Each message (each call) starts with only the shared structures: msgpackr's
  /// `new Packr()` / `Packr({structures})`.
  per_message,
  /// Definitions persist from one message to the next: msgpackr's `Packr({sequential: true})`
  /// and PackrStream.
  sequential,
};

/// Options of records_decoder and records_encoder. An aggregate: set the fields you need.
struct records_options {
  records_mode mode = records_mode::per_message;
  /// Shared structures (not owned: they must outlive the decoder or encoder), or none.
  const shared_structures* shared = nullptr;
  /// How the input is read: its limits (a record instance counts as a map: depth,
  /// max_map_len; a definition's key list as an array of str), UTF-8 checks, strict mode
  /// (typed decoding: see read_options::strict; parse() and read_value(): duplicate keys),
  /// trailing bytes (parse(), read_value(), unpack_records(dec, bytes)).
  read_options read{};
  /// Decoding into a document or value expands records into plain maps (each instance
  /// repeats its keys): the expanded bytes may be at most `max_expansion` times the input
  /// plus 4 KiB (errc::limit_exceeded beyond). Typed decoding does not expand.
  std::uint32_t max_expansion = 16;
};

namespace detail {

/// One record definition: its keys, each stored as a minimal MessagePack str.
struct MPK_API record_def {
  struct key_ref {
    std::uint32_t begin;  ///< where the encoded key starts in `encoded`
    std::uint32_t head;   ///< bytes of its str header
    std::uint32_t end;
  };
  /// What a typed decoding of struct `type` does with each position (see records/typed.hpp).
  struct typed_map {
    const void* type;
    bool in_order;                      ///< the keys are the fields, in declaration order
    std::vector<std::uint16_t> fields;  ///< field of each position (0xffff: none)
  };

  std::string encoded;
  std::vector<key_ref> keys;
  std::uint32_t busy = 0;  ///< instances being decoded with it
  std::vector<typed_map> typed;
  /// The struct type (its records/typed.hpp key) whose fields are exactly these keys in
  /// declaration order, or nullptr: its instances are read straight-line with no mapping.
  const void* ordered = nullptr;

  std::uint32_t count() const noexcept { return static_cast<std::uint32_t>(keys.size()); }
  std::string_view key(std::size_t i) const noexcept {
    return std::string_view(encoded).substr(keys[i].begin + keys[i].head,
                                            keys[i].end - keys[i].begin - keys[i].head);
  }
  std::span<const std::byte> encoded_key(std::size_t i) const noexcept {
    return {reinterpret_cast<const std::byte*>(encoded.data()) + keys[i].begin,
            keys[i].end - keys[i].begin};
  }
  void clear() noexcept {
    encoded.clear();
    keys.clear();
    forget_typed();
  }
  /// Forgets what typed decodings computed (the keys changed).
  void forget_typed() noexcept {
    typed.clear();
    ordered = nullptr;
  }
  /// Appends `key` (errc::out_of_memory on failure).
  errc add_key(std::string_view key);
};

/// A record reference or definition as found at some position.
struct record_ref {
  record_def* def;     ///< nullptr: not a record (a plain fixint)
  std::uint32_t size;  ///< bytes of the id (reference) or of the whole definition
  errc ec;
};

/// The decoding state: which record index holds which definition, and which first bytes
/// 0x60..0x7f take a second id byte. Not copyable.
class MPK_API record_table {
 public:
  explicit record_table(const shared_structures* shared);
  record_table(const record_table&) = delete;
  record_table& operator=(const record_table&) = delete;

  /// The definition referenced by the id at `p` (first byte 0x40..0x7f; `end` bounds it).
  /// {nullptr, 1, ok}: the byte is a plain integer. Errors: errc::truncated (a second id
  /// byte is missing), errc::out_of_range (a two-byte id that is not defined).
  MPK_ALWAYS_INLINE record_ref lookup(const std::byte* p, const std::byte* end) const noexcept {
    const unsigned f = u8(p) & 0x3fu;
    if (f >= 32 && wide_[f - 32]) [[unlikely]]
      return lookup_wide(p, end);
    return {table_[f], 1, errc::ok};
  }

  /// True when the byte `b` (0x40..0x7f) starts a record rather than an integer.
  MPK_ALWAYS_INLINE bool is_record(std::uint8_t b) const noexcept {
    const unsigned f = b & 0x3fu;
    return (f >= 32 && wide_[f - 32]) || table_[f] != nullptr;
  }

  /// Parses the definition at `p` (`d4 72 id` or `d5 72 lo hi`, then the key array) and
  /// installs it. `size` is the bytes of the definition (its first instance follows).
  /// Errors: errc::truncated, errc::out_of_range (an id outside 0x40..0x7f, or a two-byte
  /// id whose first byte is not 0x60..0x7f), errc::type_mismatch (keys not an array of str),
  /// errc::limit_exceeded (more keys than max_map_len, a key above max_str_len),
  /// errc::invalid_marker, errc::out_of_memory. `at` is set to the offending byte. On error
  /// the table is unchanged.
  record_ref define(const std::byte* p, const std::byte* end, const limits& lim,
                    const std::byte*& at);

  /// Forgets every definition but the shared structures (between messages).
  void reset() noexcept;
  /// Frees definitions replaced while in use (when no instance is open).
  void release_retired() noexcept { retired_.clear(); }

 private:
  record_ref lookup_wide(const std::byte* p, const std::byte* end) const noexcept;
  record_def* slot_for(std::size_t index);

  std::vector<record_def*> table_;  // at least 64 entries
  std::vector<std::unique_ptr<record_def>> own_;
  std::vector<record_def> shared_defs_;
  std::vector<std::uint32_t> touched_;
  std::vector<std::uint8_t> is_touched_;
  std::vector<std::unique_ptr<record_def>> retired_;
  record_def pending_;
  std::array<bool, 32> wide_{};
  std::array<bool, 32> shared_wide_{};
};

/// Walks the complete value at in[pos] (records resolved through `table`), appending it to
/// `out` as plain MessagePack (records become maps) when `out` is not null, and moves `pos`
/// past it. `saw_records` (if not null) is set when a record was met. `max_out` bounds what
/// is appended (errc::limit_exceeded). Errors carry the input offset.
MPK_API mpk::error expand_value(record_table& table, std::span<const std::byte> in,
                                std::size_t& pos, buffer* out, const limits& lim,
                                std::size_t max_out, bool* saw_records);

/// A dense number for each type that records_encoder caches (see records/typed.hpp).
MPK_API std::size_t next_record_type_index() noexcept;

}  // namespace detail

/// Reads msgpackr records: into plain MessagePack, a document, a value, or (records/typed.hpp)
/// your structs. One decoder holds the definitions of one stream: in per_message mode they
/// are forgotten at the start of every call; in sequential mode they persist (call reset()
/// to start a new stream). Not thread-safe; cheap to keep and reuse.
///
///     mpk::records_decoder dec({.mode = mpk::records_mode::sequential});
///     for (auto& msg : messages) { auto doc = dec.parse(msg); ... }
class MPK_API records_decoder {
 public:
  explicit records_decoder(records_options options = {})
      : options_(options), table_(options.shared) {}

  const records_options& options() const noexcept { return options_; }

  /// Forgets the definitions seen (the shared structures stay).
  void reset() noexcept { table_.reset(); }

  /// Expands the value at `bytes[offset]` into plain MessagePack appended to `out` (records
  /// become maps with str keys), and returns the offset just past it in `bytes`: so a
  /// sequence of values is expanded by calling again from there.
  ///
  /// Errors (offset in `bytes`; `out` may hold part of the value): errc::truncated,
  /// errc::invalid_marker, errc::limit_exceeded (a limit, or the expansion bound),
  /// errc::depth_exceeded, errc::out_of_range (an id outside the record id space, or an
  /// undefined two-byte id), errc::type_mismatch (a definition whose keys are not an array
  /// of str), errc::out_of_memory. Keys repeated in a definition give a map with a repeated
  /// key (a document: the last wins).
  template <byte_input B>
  result<std::size_t> expand(const B& bytes, std::size_t offset, buffer& out) {
    return expand_bytes(mpk::as_bytes(bytes), offset, out);
  }

  /// Parses one whole message into a document that owns its (expanded) bytes.
  /// Errors: those of expand(), errc::trailing_bytes (bytes after the value), and those of
  /// document::parse (errc::invalid_utf8 with utf8_check::all).
  template <byte_input B>
  result<document> parse(const B& bytes) {
    return parse_bytes(mpk::as_bytes(bytes));
  }

  /// Reads one whole message into an owning value. Errors: those of parse().
  template <byte_input B>
  result<value> read_value(const B& bytes) {
    return read_value_bytes(mpk::as_bytes(bytes));
  }

  /// The table of definitions (for records/typed.hpp).
  detail::record_table& table() noexcept { return table_; }

 private:
  friend struct records_access;
  result<std::size_t> expand_bytes(std::span<const std::byte> bytes, std::size_t offset,
                                   buffer& out);
  result<document> parse_bytes(std::span<const std::byte> bytes);
  result<value> read_value_bytes(std::span<const std::byte> bytes);
  void start_message() noexcept {
    if (options_.mode == records_mode::per_message) table_.reset();
  }

  records_options options_;
  detail::record_table table_;
  buffer scratch_;
  std::vector<std::unique_ptr<buffer>> fallback_;  // expanded values of a typed decoding
};

/// Writes msgpackr records: maps whose keys are all str become records (a definition the
/// first time a shape is met, then its id), integers 64..255 are written as `cc xx` (so
/// that no plain integer reads as a record id), and everything else as plain MessagePack.
/// Shapes of the shared structures are written as their ids without a definition. Own ids
/// cycle through 0x40..0x7f (after shared structures: the ids left, or two-byte ids from the
/// first free index when there are more than 32 shared structures), redefining the oldest.
///
///     mpk::records_encoder enc;                 // msgpackr's `new Packr()` reads the result
///     mpk::result<mpk::buffer> bytes = enc.encode(v);
class MPK_API records_encoder {
 public:
  explicit records_encoder(records_options options = {});

  const records_options& options() const noexcept { return options_; }

  /// Forgets the shapes defined so far (the shared structures stay).
  void reset() noexcept;

  /// Encodes one message: appends it to `out`. Errors: errc::out_of_memory,
  /// errc::too_large, errc::depth_exceeded (deeper than limits.max_depth). On error `out`
  /// is cut back to what it held, and the encoder forgets the shapes it defined (as
  /// reset()): a definition in the failed message never reached the reader, so the next
  /// message defines again what it uses.
  result<void> encode(element v, buffer& out);
  result<void> encode(const value& v, buffer& out);
  /// Encodes one message into a new buffer. Errors: those above.
  result<buffer> encode(element v);
  result<buffer> encode(const value& v);

  // --- for records/typed.hpp ---

  /// Writes `v` as part of the current message (no start_message()): the walk encode() does.
  /// Errors stay in `w`; errc::depth_exceeded is returned.
  result<void> write_value(writer<buffer>& w, element v);

  /// Starts a message (per_message mode forgets the own definitions).
  void start_message() noexcept {
    if (options_.mode == records_mode::per_message) reset();
  }
  /// The record id for the shape whose encoded keys (minimal str headers, concatenated) are
  /// `shape` with `count` keys: writes either the id or a definition (`d4 72 id` + key array)
  /// to `w`. Returns the writer's error.
  void write_record_head(writer<buffer>& w, std::string_view shape, std::size_t count);
  /// A per-type cache: the slot last used for typed struct `type_index`, valid while
  /// generation matches.
  struct type_slot {
    std::uint32_t index = 0;
    std::uint64_t generation = 0;
  };
  std::vector<type_slot>& type_cache() noexcept { return type_cache_; }
  /// Writes the id of slot `index` (one or two bytes) when its generation is `generation`;
  /// false when the slot was reused since.
  bool write_cached(writer<buffer>& w, const type_slot& s);
  type_slot last_slot() const noexcept { return last_; }
  /// After a message failed: cuts `out` back to `size` bytes and forgets the own shapes.
  void fail_message(buffer& out, std::size_t size) noexcept;

 private:
  struct slot {
    std::string shape;
    std::uint64_t generation = 0;
  };
  void write_id(writer<buffer>& w, std::size_t index);

  struct shape_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  records_options options_;
  // the index of each shape (its keys as minimal str, concatenated)
  std::unordered_map<std::string, std::uint32_t, shape_hash, std::equal_to<>> ids_;
  std::vector<slot> slots_;    // by index
  std::size_t own_first_ = 0;  // first own index
  std::size_t own_count_ = 0;  // own indexes available
  std::size_t own_next_ = 0;   // next own slot to use (0..count)
  std::uint64_t generation_ = 1;
  std::vector<type_slot> type_cache_;
  type_slot last_{};
  std::string key_scratch_;
};

}  // namespace mpk::inline v0
