# Driver of the install tests (run with `cmake -P`; see register.cmake for the arguments).
#
#   MODE=install       cmake --install BUILD_DIR --prefix PREFIX, into an emptied PREFIX
#   MODE=find_package  configure + build CONSUMER_SOURCE with CMAKE_PREFIX_PATH=PREFIX, run it
#   MODE=pkg_config    compile CONSUMER_SOURCE/main.cpp with `pkg-config --cflags --libs mpk`
#                      (PKG_CONFIG_PATH=PREFIX/LIBDIR/pkgconfig), run it
#
# Each mode fails when the installed package cannot be found or used, and also when it was
# found somewhere else than PREFIX (say a copy in /usr/local), so that a broken package is
# never hidden by another one.
cmake_minimum_required(VERSION 3.22)

function(fail)
  string(JOIN "" text ${ARGN})
  message(FATAL_ERROR "install test (${MODE}): ${text}")
endfunction()

# run(<what> <command>...): runs a command, echoing it; fails the test if it fails.
function(run what)
  string(JOIN " " shown ${ARGN})
  message(STATUS "$ ${shown}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    fail("${what} failed (${rc})")
  endif()
endfunction()

# run_consumer(<exe>): runs the built consumer and checks what it printed.
function(run_consumer exe)
  message(STATUS "$ ${exe}")
  execute_process(COMMAND ${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}${err}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^consumer: 3 bytes buffered")
    fail("the consumer program failed (${rc})")
  endif()
endfunction()

foreach(var MODE PREFIX LIBDIR INCLUDEDIR CONSUMER_SOURCE CXX)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    fail("-D${var}=... is required")
  endif()
endforeach()

if(MODE STREQUAL "install")
  if(NOT IS_DIRECTORY "${BUILD_DIR}")
    fail("no build directory '${BUILD_DIR}'")
  endif()
  file(REMOVE_RECURSE "${PREFIX}")
  run("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}")
  foreach(f "${INCLUDEDIR}/mpk/buffer.hpp" "${INCLUDEDIR}/mpk/error.hpp"
            "${LIBDIR}/cmake/mpk/mpk-config.cmake" "${LIBDIR}/cmake/mpk/mpk-config-version.cmake"
            "${LIBDIR}/cmake/mpk/mpk-targets.cmake" "${LIBDIR}/pkgconfig/mpk.pc")
    if(NOT EXISTS "${PREFIX}/${f}")
      fail("the install did not create ${f}")
    endif()
  endforeach()
  file(GLOB libs "${PREFIX}/${LIBDIR}/libmpk.*")
  if(NOT libs)
    fail("the install did not create ${LIBDIR}/libmpk.*")
  endif()
  message(STATUS "installed into ${PREFIX}")

elseif(MODE STREQUAL "find_package")
  file(REMOVE_RECURSE "${WORK_DIR}")
  set(configure "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE}" -B "${WORK_DIR}"
      "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_PREFIX_PATH=${PREFIX}"
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
  if(GENERATOR)
    list(APPEND configure -G "${GENERATOR}")
  endif()
  if(CXX_FLAGS)
    list(APPEND configure "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
  endif()
  run("configuring the consumer" ${configure})
  # Which mpk did find_package take? It must be the one just installed.
  file(STRINGS "${WORK_DIR}/CMakeCache.txt" found REGEX "^mpk_DIR:")
  string(REGEX REPLACE "^mpk_DIR:[A-Z]+=" "" found "${found}")
  file(REAL_PATH "${PREFIX}/${LIBDIR}/cmake/mpk" expected)
  if(EXISTS "${found}")
    file(REAL_PATH "${found}" found)
  endif()
  if(NOT found STREQUAL expected)
    fail("find_package(mpk) found '${found}', expected '${expected}'")
  endif()
  run("building the consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}")
  run_consumer("${WORK_DIR}/app")

elseif(MODE STREQUAL "pkg_config")
  if(NOT PKG_CONFIG)
    fail("pkg-config is not installed (scripts/setup installs it)")
  endif()
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}")
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${LIBDIR}/pkgconfig")
  message(STATUS "PKG_CONFIG_PATH=$ENV{PKG_CONFIG_PATH}")

  execute_process(COMMAND "${PKG_CONFIG}" --modversion mpk
    RESULT_VARIABLE rc OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    fail("pkg-config does not find mpk")
  endif()
  if(NOT version STREQUAL VERSION)
    fail("pkg-config says mpk ${version}, the build is ${VERSION}")
  endif()
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs mpk
    RESULT_VARIABLE rc OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    fail("pkg-config --cflags --libs mpk failed (${rc})")
  endif()
  message(STATUS "pkg-config --cflags --libs mpk: ${flags}")
  # The flags must point into PREFIX, not at a copy of mpk installed elsewhere.
  separate_arguments(flags UNIX_COMMAND "${flags}")
  file(REAL_PATH "${PREFIX}/${INCLUDEDIR}" expected_inc)
  file(REAL_PATH "${PREFIX}/${LIBDIR}" expected_lib)
  set(inc_ok FALSE)
  set(lib_ok FALSE)
  foreach(f IN LISTS flags)
    if(f MATCHES "^-([IL])(.+)$")
      set(kind "${CMAKE_MATCH_1}")
      set(p "${CMAKE_MATCH_2}")
      if(EXISTS "${p}")
        file(REAL_PATH "${p}" p)
        if(kind STREQUAL "I" AND p STREQUAL expected_inc)
          set(inc_ok TRUE)
        elseif(kind STREQUAL "L" AND p STREQUAL expected_lib)
          set(lib_ok TRUE)
        endif()
      endif()
    endif()
  endforeach()
  if(NOT inc_ok OR NOT lib_ok)
    fail("the pkg-config flags do not point into ${PREFIX}")
  endif()
  separate_arguments(extra UNIX_COMMAND "${CXX_FLAGS}")
  run("compiling with pkg-config's flags"
      "${CXX}" ${extra} "${CONSUMER_SOURCE}/main.cpp" -o "${WORK_DIR}/app" ${flags})
  run_consumer("${WORK_DIR}/app")

else()
  fail("unknown MODE '${MODE}'")
endif()
