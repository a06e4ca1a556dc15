# Driver of the install tests (run with `cmake -P`; see register.cmake for the arguments).
#
#   MODE=install       cmake --install BUILD_DIR --prefix PREFIX, into an emptied PREFIX
#   MODE=deb           scripts/deb (static and shared trees under BUILD_DIR, cpack), then the
#                      .deb unpacked by dpkg into the scratch root ROOT (its own dpkg database:
#                      the machine is not changed); checks `dpkg -L mpk`, the declared
#                      dependencies, the tool and its man page. PREFIX is ROOT/usr.
#   MODE=find_package  configure + build CONSUMER_SOURCE with CMAKE_PREFIX_PATH=PREFIX (and
#                      FIND_ARGS, e.g. -DMPK_SHARED_LIBS=OFF), run it
#   MODE=pkg_config    compile CONSUMER_SOURCE/main.cpp with `pkg-config --cflags --libs mpk`
#                      (PKG_CONFIG_PATH=PREFIX/LIBDIR/pkgconfig), run it
#
# LINK=static|shared: the consumer must have linked that libmpk (its NEEDED entries say).
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

# run_consumer(<exe>): checks which libmpk the consumer linked (LINK), runs it (a shared
# libmpk found in PREFIX/LIBDIR) and checks what it printed.
function(run_consumer exe)
  execute_process(COMMAND readelf -d "${exe}" RESULT_VARIABLE rc OUTPUT_VARIABLE dyn)
  if(NOT rc EQUAL 0)
    fail("readelf -d ${exe} failed (${rc})")
  endif()
  string(REGEX MATCH "NEEDED[^\n]*libmpk[^\n]*" needed "${dyn}")
  if(LINK STREQUAL "shared" AND NOT needed MATCHES "\\[libmpk\\.so\\.${SOVERSION}\\]")
    fail("the consumer does not need libmpk.so.${SOVERSION}: '${needed}'")
  elseif(LINK STREQUAL "static" AND needed)
    fail("the consumer should have linked libmpk.a, but needs: ${needed}")
  endif()
  message(STATUS "$ ${exe}   (links the ${LINK} libmpk)")
  set(ENV{LD_LIBRARY_PATH} "${PREFIX}/${LIBDIR}")
  execute_process(COMMAND ${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}${err}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^consumer: ok")
    fail("the consumer program failed (${rc})")
  endif()
endfunction()

foreach(var MODE PREFIX LIBDIR INCLUDEDIR CONSUMER_SOURCE CXX LINK SOVERSION)
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
  if(LINK STREQUAL "shared")
    set(lib "${LIBDIR}/libmpk.so.${SOVERSION}")
  else()
    set(lib "${LIBDIR}/libmpk.a")
  endif()
  foreach(f "${INCLUDEDIR}/mpk/buffer.hpp" "${INCLUDEDIR}/mpk/config.hpp" "${lib}"
            "${LIBDIR}/cmake/mpk/mpk-config.cmake" "${LIBDIR}/cmake/mpk/mpk-config-version.cmake"
            "${LIBDIR}/cmake/mpk/mpk-targets-${LINK}.cmake" "${LIBDIR}/pkgconfig/mpk.pc")
    if(NOT EXISTS "${PREFIX}/${f}")
      fail("the install did not create ${f}")
    endif()
  endforeach()
  message(STATUS "installed into ${PREFIX}")

elseif(MODE STREQUAL "deb")
  run("scripts/deb" "${SOURCE_DIR}/scripts/deb" --build-dir "${BUILD_DIR}"
      --build-type "${BUILD_TYPE}" --compiler "${CXX}")
  file(GLOB debs "${BUILD_DIR}/mpk_${VERSION}_*.deb")
  list(LENGTH debs n)
  if(NOT n EQUAL 1)
    fail("scripts/deb made no ${BUILD_DIR}/mpk_${VERSION}_*.deb (or several: ${debs})")
  endif()
  # A scratch root with an empty dpkg database: --unpack puts the files in place and records
  # them (no maintainer scripts run: postinst's ldconfig is for the real system).
  if(NOT PREFIX STREQUAL "${ROOT}/usr")
    fail("PREFIX must be ROOT/usr")
  endif()
  file(REMOVE_RECURSE "${ROOT}")
  file(MAKE_DIRECTORY "${ROOT}/var/lib/dpkg/updates" "${ROOT}/var/lib/dpkg/info")
  file(TOUCH "${ROOT}/var/lib/dpkg/status")
  run("dpkg --unpack" dpkg "--root=${ROOT}" --force-depends --log=/dev/null --unpack "${debs}")
  execute_process(COMMAND dpkg "--root=${ROOT}" -L mpk RESULT_VARIABLE rc OUTPUT_VARIABLE listed)
  if(NOT rc EQUAL 0)
    fail("dpkg -L mpk failed (${rc})")
  endif()
  string(REPLACE "\n" ";" listed "${listed}")
  foreach(f /usr/bin/mpk /usr/share/man/man1/mpk.1.gz /usr/${INCLUDEDIR}/mpk/mpk.hpp
            /usr/${INCLUDEDIR}/mpk/config.hpp /usr/${LIBDIR}/libmpk.a /usr/${LIBDIR}/libmpk.so
            /usr/${LIBDIR}/libmpk.so.${SOVERSION} /usr/${LIBDIR}/libmpk.so.${VERSION}
            /usr/${LIBDIR}/pkgconfig/mpk.pc /usr/${LIBDIR}/cmake/mpk/mpk-config.cmake
            /usr/${LIBDIR}/cmake/mpk/mpk-config-version.cmake
            /usr/${LIBDIR}/cmake/mpk/mpk-targets-static.cmake
            /usr/${LIBDIR}/cmake/mpk/mpk-targets-shared.cmake)
    if(NOT f IN_LIST listed)
      fail("dpkg -L mpk does not list ${f}")
    endif()
  endforeach()
  execute_process(COMMAND dpkg-deb -f "${debs}" Depends OUTPUT_VARIABLE depends)
  message(STATUS "Depends: ${depends}")
  foreach(d "libstdc\\+\\+6" "libsimdjson-dev")
    if(NOT depends MATCHES "(^|, )${d}( |,|$)")
      fail("the package does not declare its dependency on ${d}")
    endif()
  endforeach()
  # The packaged tool runs against the packaged libmpk.so, and its man page is a man page.
  set(ENV{LD_LIBRARY_PATH} "${ROOT}/usr/${LIBDIR}")
  execute_process(COMMAND "${ROOT}/usr/bin/mpk" --help RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "to-json")
    fail("the packaged mpk --help failed (${rc})")
  endif()
  execute_process(COMMAND gzip -dc "${ROOT}/usr/share/man/man1/mpk.1.gz" OUTPUT_VARIABLE man)
  if(NOT man MATCHES "\\.TH MPK \"1\"" OR NOT man MATCHES "from\\\\-json")
    fail("mpk.1.gz is not the tool's man page")
  endif()
  message(STATUS "${debs}: unpacked into ${ROOT}")

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
  if(CCACHE)
    list(APPEND configure "-DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE}")
  endif()
  separate_arguments(find_args UNIX_COMMAND "${FIND_ARGS}")
  list(APPEND configure ${find_args})
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
      ${CCACHE} "${CXX}" ${extra} "${CONSUMER_SOURCE}/main.cpp" -o "${WORK_DIR}/app" ${flags})
  run_consumer("${WORK_DIR}/app")

else()
  fail("unknown MODE '${MODE}'")
endif()
