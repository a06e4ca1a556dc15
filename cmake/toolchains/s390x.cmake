# cmake/toolchains/s390x.cmake - IBM Z (s390x, 64-bit big-endian), cross-built with Debian's
# GCC cross compiler and run under qemu-user (the 's390x' preset): ctest and
# gtest_discover_tests run every test binary through CMAKE_CROSSCOMPILING_EMULATOR.
#
# Needs g++-s390x-linux-gnu, libc6-dev-s390x-cross and qemu-user (scripts/setup installs them).
# GoogleTest is built from Debian's sources (MPK_GTEST_SOURCE_DIR); simdjson, CLI11 and the
# interop peers are not there for s390x, so the build has the scalar UTF-8 validator, no JSON
# layer and no tool.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(MPK_QEMU_S390X qemu-s390x REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${MPK_QEMU_S390X} -L /usr/s390x-linux-gnu)
