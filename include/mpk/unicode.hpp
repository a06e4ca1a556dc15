// mpk/unicode.hpp - UTF-8 validation and UTF-16 <-> UTF-8 transcoding.
//
// MessagePack's str family holds UTF-8. This header checks it (through simdjson's runtime-
// dispatched SIMD validator when mpk is built with MPK_USE_SIMDJSON, the default; through a
// scalar validator otherwise) and converts between UTF-8 and UTF-16 in one pass, 8 ASCII
// code units at a time.
//
// The writer (`write(std::u16string_view)`) and the reader (`read<std::string>()`,
// `read<std::u16string>()`) build on these functions, so this header depends on error.hpp
// only.
//
// Valid UTF-8 is RFC 3629's: no overlong forms, no surrogates (U+D800..U+DFFF), nothing
// above U+10FFFF, no truncated sequence. Valid UTF-16 has every surrogate in a pair (a high
// one, U+D800..U+DBFF, then a low one, U+DC00..U+DFFF); a lone one is errc::invalid_utf16.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mpk/config.hpp"
#include "mpk/error.hpp"

namespace mpk::inline v0 {

/// True when the `size` bytes at `data` are valid UTF-8 (embedded NULs are valid). Uses
/// simdjson's validator when mpk was built with it, else the scalar one.
///
///     if (!mpk::is_valid_utf8(text)) return mpk::errc::invalid_utf8;
[[nodiscard]] MPK_API bool is_valid_utf8(const char* data, std::size_t size) noexcept;

/// True when `text` is valid UTF-8.
[[nodiscard]] inline bool is_valid_utf8(std::string_view text) noexcept {
  return is_valid_utf8(text.data(), text.size());
}

/// The validator this build of mpk uses: "simdjson" or "scalar".
[[nodiscard]] MPK_API const char* utf8_validator() noexcept;

/// Bytes of the UTF-8 form of `text`.
/// Errors: errc::invalid_utf16 (a lone surrogate; the offset is its index in code units).
[[nodiscard]] MPK_API result<std::size_t> utf8_length(std::u16string_view text) noexcept;

/// Code units of the UTF-16 form of `text`.
/// Errors: errc::invalid_utf8 (the offset is the byte where the bad sequence starts).
[[nodiscard]] MPK_API result<std::size_t> utf16_length(std::string_view text) noexcept;

/// Transcodes UTF-16 to UTF-8 into `out` (caller's memory, not zero-terminated) and returns
/// the bytes written. Nothing beyond `out.size()` is touched: with 3 bytes of room per code
/// unit it takes one pass, with less it measures first.
///
///     char buf[64]; auto n = mpk::utf16_to_utf8(u"h\u00e9", buf);   // *n == 3
///
/// Errors: errc::invalid_utf16 (a lone surrogate; offset: its index in code units),
/// errc::buffer_full (`out` is too small; offset 0; nothing written).
[[nodiscard]] MPK_API result<std::size_t> utf16_to_utf8(std::u16string_view text,
                                                        std::span<char> out) noexcept;

/// Transcodes UTF-8 to UTF-16 into `out` (caller's memory) and returns the code units
/// written. Validates as it goes, so the output never holds a lone surrogate. With one code
/// unit of room per input byte it takes one pass, with less it measures first.
///
/// Errors: errc::invalid_utf8 (offset: the byte where the bad sequence starts),
/// errc::buffer_full (`out` is too small; offset 0).
[[nodiscard]] MPK_API result<std::size_t> utf8_to_utf16(std::string_view text,
                                                        std::span<char16_t> out) noexcept;

/// UTF-16 to a new std::string of UTF-8.
///
///     mpk::result<std::string> s = mpk::to_utf8(u"caf\u00e9");
///
/// Errors: errc::invalid_utf16 (offset in code units), errc::out_of_memory.
[[nodiscard]] MPK_API result<std::string> to_utf8(std::u16string_view text) noexcept;

/// UTF-8 to a new std::u16string.
/// Errors: errc::invalid_utf8 (offset in bytes), errc::out_of_memory.
[[nodiscard]] MPK_API result<std::u16string> to_utf16(std::string_view text) noexcept;

namespace detail {

/// What a raw transcoding did: `count` units written, or `error_at` (the input index of the
/// offending sequence) when it is not `no_error`. Trivially copyable, so it comes back in
/// registers.
struct transcoded {
  static constexpr std::size_t no_error = static_cast<std::size_t>(-1);
  std::size_t count = 0;
  std::size_t error_at = no_error;
};

/// The scalar UTF-8 validator: always compiled, the reference the SIMD one is tested
/// against, and what is_valid_utf8 uses in a build without simdjson.
[[nodiscard]] MPK_API bool is_valid_utf8_scalar(const char* data, std::size_t size) noexcept;

/// The ASCII run is_valid_utf8 skips before it validates: of the `size` > 32 bytes at `data`,
/// the length of a prefix that is all ASCII and ends where a UTF-8 character starts (`size`
/// when every byte is ASCII; else at most the index of the first non-ASCII byte). Scanned with
/// AVX2 when `wide` and the CPU has it, else SSE2; 0 without SSE2 (the scalar validator
/// scans by itself). Tests call both scans.
[[nodiscard]] MPK_API std::size_t ascii_run(const char* data, std::size_t size, bool wide) noexcept;

/// Transcodes `n` UTF-16 code units at `in` to UTF-8 at `out` and returns the bytes written.
/// It writes exactly the UTF-8 length of the input, never more (3 * n bytes always suffice).
/// On a lone surrogate, stops with error_at = its index (the bytes written are garbage).
[[nodiscard]] MPK_API transcoded utf16_to_utf8_raw(const char16_t* in, std::size_t n,
                                                   char* out) noexcept;

/// utf16_to_utf8_raw for an output with room for 3 * n bytes, which it may use as scratch:
/// bytes past the returned count (within 3 * n) may be overwritten. Faster on non-ASCII
/// text (on x86, AVX-512 VBMI2 or SSSE3, chosen at run time; utf16_to_utf8_raw elsewhere).
/// Same result and error_at as utf16_to_utf8_raw.
[[nodiscard]] MPK_API transcoded utf16_to_utf8_wide(const char16_t* in, std::size_t n,
                                                    char* out) noexcept;

/// The kernels of utf16_to_utf8_wide, each CPU running a prefix of this list.
enum class simd_kernel : unsigned char { scalar, ssse3, avx512 };

/// True when this build and this CPU can run kernel `k`.
[[nodiscard]] MPK_API bool simd_kernel_available(simd_kernel k) noexcept;

/// utf16_to_utf8_wide through kernel `k`, which must be available (tests compare them).
[[nodiscard]] MPK_API transcoded utf16_to_utf8_with(simd_kernel k, const char16_t* in,
                                                    std::size_t n, char* out) noexcept;

/// The kernel utf16_to_utf8_wide (so the writer) uses from now on, for tests and
/// measurements: `k` if available, else the best one; anything but avx512 also turns off
/// the AVX-512 path of utf8_to_utf16_raw. Returns the previous choice. Not meant to change
/// while other threads transcode (they would see either kernel: same results).
MPK_API simd_kernel use_utf16_kernel(simd_kernel k) noexcept;

/// The kernel utf16_to_utf8_wide uses now.
[[nodiscard]] MPK_API simd_kernel utf16_kernel() noexcept;

/// Transcodes `n` bytes of UTF-8 at `in` to UTF-16 at `out` and returns the code units
/// written: exactly the UTF-16 length of the input, never more (n code units always suffice).
/// On invalid UTF-8, stops with error_at = the offset of the bad sequence. From 128 bytes on
/// an AVX-512 CPU (builds with simdjson): validated first, then decoded 64 bytes at a time.
[[nodiscard]] MPK_API transcoded utf8_to_utf16_raw(const char* in, std::size_t n,
                                                   char16_t* out) noexcept;

/// utf8_length without result<>: count = bytes, or error_at = the lone surrogate's index.
[[nodiscard]] MPK_API transcoded utf8_length_raw(const char16_t* in, std::size_t n) noexcept;

}  // namespace detail

}  // namespace mpk::inline v0
