// mpk/config.hpp - the library's configuration macros: MPK_API, the mark of what libmpk
// exports, and the inlining marks every header and source file uses (defined here only).
//
// libmpk is compiled with hidden symbols (-fvisibility=hidden -fvisibility-inlines-hidden),
// so that a shared libmpk exports its public API and nothing else: the functions and classes
// compiled in src/ that the headers declare carry MPK_API. Everything a header defines inline
// or as a template is compiled into the program that uses it and needs no mark. The mark is
// the same for a static and a shared library (an ELF default-visibility attribute), so one
// set of headers serves both.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define MPK_API __attribute__((visibility("default")))
#else
#define MPK_API
#endif

// --- inlining ----------------------------------------------------------------------------
// Each mark says why where it is used; a mark is not a default: the compilers inline the
// rest well by themselves, and forcing more made some loops slower (see MPK_WRITER_INLINE).
#if defined(__GNUC__) || defined(__clang__)
/// A function (or member function) inlined into every caller: the hot paths of the reader,
/// the header ladders, the codec's per-value calls, the JSON converter's per-byte helpers.
#define MPK_ALWAYS_INLINE inline __attribute__((always_inline))
/// A lambda inlined where it is called: the continuations given to the header ladders
/// (mpk/detail/header.hpp), each the code of one size class as if written in the ladder's
/// branch. Left to themselves, GCC and Clang keep some as calls (and a call that takes the
/// writer's `this` makes them reload the sink after every store).
#define MPK_HEAD_LAMBDA __attribute__((always_inline))
/// A function kept out of line: its call site stays small (a slow path taken once a value).
#define MPK_NOINLINE __attribute__((noinline))
/// A function kept out of line and laid out with the cold code: error and rare paths.
#define MPK_COLD __attribute__((noinline, cold))
#else
#define MPK_ALWAYS_INLINE inline
#define MPK_HEAD_LAMBDA
#define MPK_NOINLINE
#define MPK_COLD
#endif

// The writer's per-value hot path, forced inline for Clang: Clang 14 left write<T>,
// write_unsigned / write_signed and put_with_payload as calls, and a call that takes the
// writer's `this` makes the compiler reload the writer and the sink after every byte stored
// (W8: Clang's W1 writes were 1.5x GCC's). Not for GCC, which inlines these by itself and
// whose codec loops got slower when forced (W5 serialize_int_array 110 -> 200 ns).
#if defined(__clang__)
#define MPK_WRITER_INLINE MPK_ALWAYS_INLINE
#else
#define MPK_WRITER_INLINE inline
#endif
