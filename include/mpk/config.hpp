// mpk/config.hpp - MPK_API, the mark of what libmpk exports.
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
