# Registers the install tests; included from tests/CMakeLists.txt.
#
#   install_prefix        `cmake --install` of this build into a fresh prefix (a fixture)
#   install_find_package  tests/install built with find_package(mpk) against that prefix
#   install_pkg_config    main.cpp compiled with `pkg-config --cflags --libs mpk`
#
# The consumers are compiled with this build's compiler. A sanitized build installs a
# sanitized libmpk, which links only into sanitized programs: the consumers then get the same
# -fsanitize flags as mpk itself (and are checked by the sanitizers when they run).
include_guard(GLOBAL)

set(_mpk_install_root ${CMAKE_CURRENT_BINARY_DIR}/install)
set(_mpk_install_prefix ${_mpk_install_root}/prefix)

set(_mpk_consumer_flags "")
if(MPK_SANITIZE)
  get_target_property(_mpk_opts mpk_build_flags INTERFACE_COMPILE_OPTIONS)
  list(FILTER _mpk_opts INCLUDE REGEX "^-f(no-)?sanitize|^-fno-omit-frame-pointer$")
  list(JOIN _mpk_opts " " _mpk_consumer_flags)
endif()

find_program(MPK_PKG_CONFIG NAMES pkg-config pkgconf)

set(_mpk_check
  ${CMAKE_COMMAND}
  -DPREFIX=${_mpk_install_prefix}
  -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
  -DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}
  -DVERSION=${PROJECT_VERSION}
  -DCONSUMER_SOURCE=${CMAKE_CURRENT_LIST_DIR}
  -DCXX=${CMAKE_CXX_COMPILER}
  "-DCXX_FLAGS=${_mpk_consumer_flags}"
  "-DGENERATOR=${CMAKE_GENERATOR}"
  -DPKG_CONFIG=${MPK_PKG_CONFIG})

add_test(NAME install_prefix
  COMMAND ${_mpk_check} -DMODE=install -DBUILD_DIR=${PROJECT_BINARY_DIR}
          -P ${CMAKE_CURRENT_LIST_DIR}/check.cmake)
add_test(NAME install_find_package
  COMMAND ${_mpk_check} -DMODE=find_package -DWORK_DIR=${_mpk_install_root}/find_package
          -P ${CMAKE_CURRENT_LIST_DIR}/check.cmake)
add_test(NAME install_pkg_config
  COMMAND ${_mpk_check} -DMODE=pkg_config -DWORK_DIR=${_mpk_install_root}/pkg_config
          -P ${CMAKE_CURRENT_LIST_DIR}/check.cmake)

set_tests_properties(install_prefix PROPERTIES FIXTURES_SETUP mpk_installed LABELS install)
set_tests_properties(install_find_package install_pkg_config PROPERTIES
  FIXTURES_REQUIRED mpk_installed LABELS install TIMEOUT 300)
