# Interop tests: mpk against msgpack-cxx (C++) and msgpack-python, on the random values of
# tests/support/random_value.hpp. Included from tests/CMakeLists.txt.
#
# A missing peer does not skip its test: the test is still registered and fails, saying what
# to install (the setup script installs libmsgpack-cxx-dev and python3-msgpack).

# --- msgpack-cxx ---------------------------------------------------------------------------
# Upstream msgpack-c >= 4.1 installs the CMake package `msgpack-cxx` (target msgpack-cxx);
# Debian's 4.1.3 installs it as `msgpackc-cxx` with a config file named msgpack-config.cmake
# (target msgpackc-cxx, which also pulls in Boost). mpk uses msgpack-cxx without Boost, so it
# only takes the include directory from either, or from a plain header search.
find_package(msgpack-cxx CONFIG QUIET)
if(NOT TARGET msgpack-cxx)
  find_package(msgpackc-cxx CONFIG QUIET CONFIGS msgpack-config.cmake)
endif()
set(_mpk_msgpack_cxx_include "")
foreach(_t msgpack-cxx msgpackc-cxx)
  if(TARGET ${_t} AND NOT _mpk_msgpack_cxx_include)
    get_target_property(_mpk_msgpack_cxx_include ${_t} INTERFACE_INCLUDE_DIRECTORIES)
  endif()
endforeach()
if(NOT _mpk_msgpack_cxx_include)
  find_path(MPK_MSGPACK_CXX_INCLUDE_DIR msgpack/version_master.hpp)
  if(MPK_MSGPACK_CXX_INCLUDE_DIR)
    set(_mpk_msgpack_cxx_include ${MPK_MSGPACK_CXX_INCLUDE_DIR})
  endif()
endif()

if(_mpk_msgpack_cxx_include)
  add_library(mpk_test_msgpack_cxx INTERFACE)
  target_include_directories(mpk_test_msgpack_cxx SYSTEM INTERFACE ${_mpk_msgpack_cxx_include})
  target_compile_definitions(mpk_test_msgpack_cxx INTERFACE MSGPACK_NO_BOOST)

  add_executable(msgpack_cxx_test ${CMAKE_CURRENT_LIST_DIR}/msgpack_cxx_test.cpp)
  target_include_directories(msgpack_cxx_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(msgpack_cxx_test PRIVATE mpk::mpk mpk_build_flags mpk_test_msgpack_cxx
                                                 GTest::gtest_main)
  gtest_discover_tests(msgpack_cxx_test DISCOVERY_TIMEOUT 60 PROPERTIES LABELS interop)
else()
  message(WARNING "msgpack-cxx not found: the msgpack_cxx interop test will fail "
                  "(install libmsgpack-cxx-dev)")
  add_test(NAME msgpack_cxx_test.missing_peer
           COMMAND sh -c "echo 'msgpack-cxx headers not found at configure time: install libmsgpack-cxx-dev' >&2; exit 1")
  set_tests_properties(msgpack_cxx_test.missing_peer PROPERTIES LABELS interop)
endif()

# --- msgpack-python ------------------------------------------------------------------------
# The Python of the Debian package python3-msgpack. Not the first python3 on PATH: that may
# be another installation (pyenv, venv) that does not see Debian's packages.
set(MPK_TEST_PYTHON3 /usr/bin/python3 CACHE FILEPATH
    "Python 3 with the msgpack module (Debian: python3-msgpack), for the msgpack-python interop test")
execute_process(COMMAND ${MPK_TEST_PYTHON3} -c "import msgpack; print(msgpack.version)"
                RESULT_VARIABLE _mpk_py_rc OUTPUT_VARIABLE _mpk_py_out ERROR_QUIET
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _mpk_py_rc EQUAL 0)
  message(WARNING "${MPK_TEST_PYTHON3} cannot import msgpack: the msgpack-python interop test "
                  "will fail (install python3-msgpack, or set MPK_TEST_PYTHON3)")
endif()

add_executable(python_interop_test ${CMAKE_CURRENT_LIST_DIR}/python_interop_test.cpp)
target_include_directories(python_interop_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(python_interop_test PRIVATE mpk::mpk mpk_build_flags GTest::gtest_main)
target_compile_definitions(python_interop_test PRIVATE
  MPK_TEST_PYTHON3="${MPK_TEST_PYTHON3}"
  MPK_TEST_PYTHON_PEER="${CMAKE_CURRENT_LIST_DIR}/python_peer.py")
# One ctest for the whole suite: its tests share one run of the peer (a few seconds), which
# gtest_discover_tests would repeat in a process per test.
add_test(NAME python_interop_test COMMAND python_interop_test)
set_tests_properties(python_interop_test PROPERTIES LABELS interop TIMEOUT 600)
