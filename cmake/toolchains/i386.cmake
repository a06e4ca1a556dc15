# cmake/toolchains/i386.cmake - 32-bit x86 (i686) with GCC's -m32 on an x86-64 Debian host (the
# 'i386' preset). What is tested is a 32-bit size_t and pointer. The binaries run natively
# where the kernel runs 32-bit x86 programs, else under qemu-user's qemu-i386 (below).
#
# Needs g++-12-multilib and, for the JSON layer and the tool, libsimdjson14:i386 (multiarch:
# dpkg --add-architecture i386); scripts/setup installs both. GoogleTest is built from Debian's
# sources (MPK_GTEST_SOURCE_DIR), so no i386 GoogleTest package is needed.
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_C_FLAGS_INIT -m32)
set(CMAKE_CXX_FLAGS_INIT -m32)
foreach(_kind EXE SHARED MODULE)
  set(CMAKE_${_kind}_LINKER_FLAGS_INIT -m32)
endforeach()
# i386 libraries installed through multiarch live in /usr/lib/i386-linux-gnu, which CMake does
# not infer from -m32 (its implicit link directories are the multilib /usr/lib32).
set(CMAKE_LIBRARY_ARCHITECTURE i386-linux-gnu)
set(FIND_LIBRARY_USE_LIB32_PATHS ON)

# Debian's gcc-multilib would add /usr/include/asm -> x86_64-linux-gnu/asm, but it conflicts
# with the s390x cross compiler of the 's390x' preset, so scripts/setup installs
# g++-12-multilib without it and the same link is made here, in the build tree: Linux's x86
# <asm/...> headers serve both widths (they select on __i386__ themselves).
if(NOT EXISTS /usr/include/asm)
  set(_mpk_asm_dir ${CMAKE_BINARY_DIR}/mpk-i386-include)
  if(NOT EXISTS ${_mpk_asm_dir}/asm)
    file(MAKE_DIRECTORY ${_mpk_asm_dir})
    file(CREATE_LINK /usr/include/x86_64-linux-gnu/asm ${_mpk_asm_dir}/asm SYMBOLIC)
  endif()
  string(APPEND CMAKE_C_FLAGS_INIT " -idirafter ${_mpk_asm_dir}")
  string(APPEND CMAKE_CXX_FLAGS_INIT " -idirafter ${_mpk_asm_dir}")
endif()

# Libraries whose Debian -dev package is not multiarch (libsimdjson-dev), or whose i386 -dev
# package would pull a second Boost (libmsgpack-dev), are used from their i386 runtime package
# with the amd64 package's headers, which hold nothing architecture-specific:
# i386/simdjson-config.cmake, and msgpack-c for mpk_bench (bench/CMakeLists.txt's fallback).
set(simdjson_DIR ${CMAKE_CURRENT_LIST_DIR}/i386 CACHE PATH "simdjson for i386 (runtime library)")
if(EXISTS /usr/lib/i386-linux-gnu/libmsgpackc.so.2)
  set(MPK_MSGPACK_C_LIBRARY /usr/lib/i386-linux-gnu/libmsgpackc.so.2 CACHE FILEPATH "msgpack-c, i386")
endif()

# Not every x86-64 kernel runs 32-bit programs: one built without IA32 emulation answers
# "Exec format error" (seen on a VM kernel, 6.18 "-fc", 2026-12-02). There every test binary,
# and gtest_discover_tests' listing of it, runs under qemu-i386 (qemu-user, which
# scripts/setup installs for the s390x preset), as the s390x preset's run under qemu-s390x.
# Probed once per configure: a trivial -m32 program, compiled and run.
if(NOT DEFINED MPK_I386_NATIVE)
  set(_mpk_probe ${CMAKE_BINARY_DIR}/mpk-i386-probe)
  file(WRITE ${_mpk_probe}.c "int main(void) { return 0; }\n")
  execute_process(COMMAND gcc -m32 ${_mpk_probe}.c -o ${_mpk_probe}
                  RESULT_VARIABLE _mpk_cc OUTPUT_QUIET ERROR_QUIET)
  execute_process(COMMAND ${_mpk_probe} RESULT_VARIABLE _mpk_run OUTPUT_QUIET ERROR_QUIET)
  if(_mpk_cc STREQUAL "0" AND _mpk_run STREQUAL "0")
    set(MPK_I386_NATIVE ON CACHE BOOL "this kernel runs 32-bit x86 programs")
  else()
    set(MPK_I386_NATIVE OFF CACHE BOOL "this kernel runs 32-bit x86 programs")
  endif()
endif()
if(NOT MPK_I386_NATIVE)
  find_program(MPK_QEMU_I386 qemu-i386)
  if(NOT MPK_QEMU_I386)
    message(FATAL_ERROR "this kernel does not run 32-bit x86 programs and qemu-i386 is missing "
                        "(Debian's qemu-user; scripts/setup installs it)")
  endif()
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MPK_QEMU_I386})
endif()
