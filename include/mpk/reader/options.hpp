// mpk/reader/options.hpp - how MessagePack is read: read_options (limits, UTF-8 policy,
// strictness, trailing bytes), shared by every decoding entry point; the reader's checking
// policy; and ext_view, the extension value it returns. Part of mpk/reader.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace mpk::inline v0 {

/// Bounds that a reader enforces on untrusted input. An aggregate: set the fields you need.
///
///     mpk::reader r(bytes, {.limits = {.max_depth = 32, .max_str_len = 4096}});
///
/// Lengths count payload bytes (str, bin, ext data); counts count elements (array) or
/// entries (map). A value above its limit is errc::limit_exceeded; nesting deeper than
/// `max_depth` in skip(), field_size() or raw_value() is errc::depth_exceeded.
struct limits {
  std::uint32_t max_depth = 512;           ///< nested containers (a top-level array is depth 1)
  std::uint32_t max_str_len = 64u << 20;   ///< bytes in one str (64 MiB)
  std::uint32_t max_bin_len = 64u << 20;   ///< bytes in one bin (64 MiB)
  std::uint32_t max_ext_len = 64u << 20;   ///< data bytes in one ext, fixext included (64 MiB)
  std::uint32_t max_array_len = 1u << 24;  ///< elements in one array (16 Mi)
  std::uint32_t max_map_len = 1u << 24;    ///< entries in one map (16 Mi)

  /// Every limit at its maximum (2^32 - 1): for input you trust. Lengths are still checked
  /// against the bytes that remain, and memory stays bounded by the input size.
  static constexpr limits trusted() noexcept {
    constexpr std::uint32_t m = std::numeric_limits<std::uint32_t>::max();
    return limits{m, m, m, m, m, m};
  }
};

/// Which strings a reader checks for valid UTF-8 (invalid ones are errc::invalid_utf8).
///
///     mpk::reader r(bytes, {.utf8 = mpk::utf8_check::all});
enum class utf8_check : std::uint8_t {
  owned,  ///< the default: read<std::string>() and read<std::u16string>() check, views do not
  all,    ///< views too: read<std::string_view>() and read_string_view()
  none,   ///< nothing but read<std::u16string>(), which cannot transcode invalid UTF-8
};

/// How MessagePack is read: the one options aggregate of every decoding entry point (the
/// reader, unpack, document::parse, to_json, stream_decoder, records). Entry points with
/// options of their own nest it as their `read` member (document_options, to_json_options,
/// stream_options, records_options). An aggregate: set the fields you need.
///
///     auto cfg = mpk::unpack<config>(bytes, {.strict = true});
///     mpk::reader r(bytes, {.limits = {.max_depth = 32}, .utf8 = mpk::utf8_check::all});
struct read_options {
  /// Bounds on the input (see limits).
  mpk::limits limits{};
  /// Which strings are checked for valid UTF-8 (see utf8_check).
  mpk::utf8_check utf8 = mpk::utf8_check::owned;
  /// Strict mode. Typed decoding (unpack, stream_decoder::next(T&), unpack_records):
  /// unknown keys (errc::unknown_key), missing keys (errc::missing_key) and duplicate keys
  /// (errc::duplicate_key) of MPK_MAP structs are errors, and MPK_ARRAY structs need exactly
  /// as many elements as they have fields (shorter: errc::missing_key, longer:
  /// errc::unknown_key); otherwise unknown keys and extra elements are skipped, missing ones
  /// keep their value, and the last of duplicate keys wins. A document (document::parse,
  /// records_decoder::parse): a map with two keys of the same bytes is errc::duplicate_key
  /// (see document_options). A reader does not use it itself: it carries it for the
  /// decoders layered on it (unpack(reader&, T&)).
  bool strict = false;
  /// Accept bytes after the value where one whole message is read (unpack(bytes),
  /// document::parse, records_decoder::parse, unpack_records(dec, bytes),
  /// shared_structures::load); otherwise they are errc::trailing_bytes. Entry points that
  /// read values one after another (a reader, to_json(bytes), a stream_decoder) ignore it.
  bool allow_trailing = false;
};

/// An extension value as read: its type (-128..127; negative types are reserved by the spec,
/// -1 is the timestamp) and a view of its data inside the input.
struct ext_view {
  std::int8_t type = 0;
  std::span<const std::byte> data;
};

/// Reader policy: every bounds, limit and range check (the default).
struct checked {};
/// Reader policy for trusted input: no bounds, limit, depth or range checks. Reading
/// malformed or truncated input with it is undefined behaviour.
struct unchecked {};

}  // namespace mpk::inline v0
