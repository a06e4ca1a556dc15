# cmake/toolchains/i386.cmake - 32-bit x86 (i686) with GCC's -m32 on an x86-64 Debian host (the
# 'i386' preset). The binaries run natively; what is tested is a 32-bit size_t and pointer.
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
