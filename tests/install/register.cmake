# Registers the install tests; included from tests/CMakeLists.txt. Each builds and runs
# tests/install/main.cpp, which reaches every compiled part of libmpk, against an installed
# mpk, and checks which libmpk (static or shared) it linked.
#
#   install_prefix        `cmake --install` of this build into a fresh prefix (a fixture)
#   install_find_package  tests/install built with find_package(mpk) against that prefix
#   install_pkg_config    main.cpp compiled with `pkg-config --cflags --libs mpk`
#
# With MPK_TEST_PACKAGING (the dev preset), also the Debian package and a shared libmpk:
#
#   install_deb           scripts/deb (a static and a shared build tree of this build type
#                         and compiler, under tests/install/deb; incremental, ccache) and
#                         the .deb unpacked into a scratch root (a fixture)
#   install_deb_*         find_package (shared, the default), find_package with
#                         -DMPK_SHARED_LIBS=OFF (static), plain pkg-config (shared)
#   install_shared_*      `cmake --install` of the package's shared tree alone into a fresh
#                         prefix; find_package and pkg-config against it
#
# The consumers are compiled with this build's compiler. A sanitized build installs a
# sanitized libmpk, which links only into sanitized programs: the consumers then get the same
# -fsanitize flags as mpk itself (and are checked by the sanitizers when they run).
include_guard(GLOBAL)

option(MPK_TEST_PACKAGING "Test the Debian package and a shared libmpk (builds both)" OFF)

set(_mpk_install_root ${CMAKE_CURRENT_BINARY_DIR}/install)
set(_mpk_install_prefix ${_mpk_install_root}/prefix)

set(_mpk_consumer_flags "")
if(MPK_SANITIZE)
  get_target_property(_mpk_opts mpk_build_flags INTERFACE_COMPILE_OPTIONS)
  list(FILTER _mpk_opts INCLUDE REGEX "^-f(no-)?sanitize|^-fno-omit-frame-pointer$")
  list(JOIN _mpk_opts " " _mpk_consumer_flags)
endif()
if(MPK_HAS_JSON)  # main.cpp's JSON part
  string(APPEND _mpk_consumer_flags " -DMPK_CONSUMER_JSON=1")
endif()
if(BUILD_SHARED_LIBS)
  set(_mpk_link shared)
else()
  set(_mpk_link static)
endif()

find_program(MPK_PKG_CONFIG NAMES pkg-config pkgconf)

set(_mpk_check_common
  ${CMAKE_COMMAND}
  -DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}
  -DVERSION=${PROJECT_VERSION}
  -DSOVERSION=${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  -DCONSUMER_SOURCE=${CMAKE_CURRENT_LIST_DIR}
  -DCXX=${CMAKE_CXX_COMPILER}
  "-DCXX_FLAGS=${_mpk_consumer_flags}"
  "-DGENERATOR=${CMAKE_GENERATOR}"
  -DPKG_CONFIG=${MPK_PKG_CONFIG}
  -DCCACHE=${MPK_CCACHE})
set(_mpk_check_script -P ${CMAKE_CURRENT_LIST_DIR}/check.cmake)

# _mpk_consumer_tests(<prefix of the names> <fixture> <link> <prefix> <libdir>): find_package
# and pkg-config consumers of an installed prefix.
function(_mpk_consumer_tests name fixture link prefix libdir)
  set(args ${_mpk_check_common} -DPREFIX=${prefix} -DLIBDIR=${libdir} -DLINK=${link})
  add_test(NAME ${name}_find_package
    COMMAND ${args} -DMODE=find_package -DWORK_DIR=${_mpk_install_root}/${name}_find_package
            ${_mpk_check_script})
  add_test(NAME ${name}_pkg_config
    COMMAND ${args} -DMODE=pkg_config -DWORK_DIR=${_mpk_install_root}/${name}_pkg_config
            ${_mpk_check_script})
  set_tests_properties(${name}_find_package ${name}_pkg_config PROPERTIES
    FIXTURES_REQUIRED ${fixture} LABELS install TIMEOUT 300)
endfunction()

add_test(NAME install_prefix
  COMMAND ${_mpk_check_common} -DPREFIX=${_mpk_install_prefix} -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
          -DLINK=${_mpk_link} -DMODE=install -DBUILD_DIR=${PROJECT_BINARY_DIR}
          ${_mpk_check_script})
set_tests_properties(install_prefix PROPERTIES FIXTURES_SETUP mpk_installed LABELS install)
_mpk_consumer_tests(install mpk_installed ${_mpk_link} ${_mpk_install_prefix}
                    ${CMAKE_INSTALL_LIBDIR})

if(MPK_TEST_PACKAGING)
  # What GNUInstallDirs gives the package's trees (prefix /usr): lib/<multiarch> on Debian.
  set(_mpk_deb_libdir lib)
  if(CMAKE_LIBRARY_ARCHITECTURE)
    set(_mpk_deb_libdir lib/${CMAKE_LIBRARY_ARCHITECTURE})
  endif()
  set(_mpk_deb_dir ${_mpk_install_root}/deb)
  set(_mpk_deb_root ${_mpk_install_root}/deb-root)
  add_test(NAME install_deb
    COMMAND ${_mpk_check_common} -DMODE=deb -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
            -DBUILD_DIR=${_mpk_deb_dir} -DBUILD_TYPE=${CMAKE_BUILD_TYPE} -DROOT=${_mpk_deb_root}
            -DPREFIX=${_mpk_deb_root}/usr -DLIBDIR=${_mpk_deb_libdir} -DLINK=shared
            ${_mpk_check_script})
  set_tests_properties(install_deb PROPERTIES
    FIXTURES_SETUP mpk_deb LABELS install TIMEOUT 1800)
  _mpk_consumer_tests(install_deb mpk_deb shared ${_mpk_deb_root}/usr ${_mpk_deb_libdir})
  add_test(NAME install_deb_find_package_static
    COMMAND ${_mpk_check_common} -DPREFIX=${_mpk_deb_root}/usr -DLIBDIR=${_mpk_deb_libdir}
            -DLINK=static -DFIND_ARGS=-DMPK_SHARED_LIBS=OFF -DMODE=find_package
            -DWORK_DIR=${_mpk_install_root}/install_deb_find_package_static ${_mpk_check_script})
  set_tests_properties(install_deb_find_package_static PROPERTIES
    FIXTURES_REQUIRED mpk_deb LABELS install TIMEOUT 300)

  add_test(NAME install_shared_prefix
    COMMAND ${_mpk_check_common} -DPREFIX=${_mpk_install_root}/prefix-shared
            -DLIBDIR=${_mpk_deb_libdir} -DLINK=shared -DMODE=install
            -DBUILD_DIR=${_mpk_deb_dir}/shared ${_mpk_check_script})
  set_tests_properties(install_shared_prefix PROPERTIES
    FIXTURES_REQUIRED mpk_deb FIXTURES_SETUP mpk_installed_shared LABELS install)
  _mpk_consumer_tests(install_shared mpk_installed_shared shared
                      ${_mpk_install_root}/prefix-shared ${_mpk_deb_libdir})
endif()
