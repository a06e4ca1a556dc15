# The Debian package (CPack DEB): headers, libmpk.a and libmpk.so, the CMake package and
# mpk.pc, the mpk tool and its man page, in one package named mpk. Built by scripts/deb: a
# static build tree (-DBUILD_SHARED_LIBS=OFF) and this shared one, whose `cpack -G DEB` packs
# both, the static tree first (MPK_DEB_STATIC_BUILD_DIR) so that the shared tree's mpk.pc is
# the one shipped (plain `pkg-config --libs mpk` gives the shared library; --static adds
# simdjson for libmpk.a).
set(MPK_DEB_STATIC_BUILD_DIR "" CACHE PATH
    "Build tree of a static libmpk to ship in the Debian package beside this tree's shared one")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mpk)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}: library, headers and the mpk tool")
set(CPACK_PACKAGE_CONTACT "mpk maintainers <mpk@localhost>")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # mpk_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Run-time dependencies (libc6, libstdc++6, libsimdjson14, ...) from the shared objects, by
# dpkg-shlibdeps; libsimdjson-dev for what a consumer links: libmpk.a needs -lsimdjson, and
# mpk.pc's Requires.private names simdjson.pc.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(simdjson_FOUND)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libsimdjson-dev")
endif()
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "MessagePack for C++20: fast, safe on hostile input by default, interoperable.\n\
Headers, static and shared library, CMake package (find_package(mpk)) and pkg-config\n\
file (mpk.pc), and the mpk command-line tool (MessagePack to and from JSON, dump,\n\
validate, stats).")
set(CPACK_INSTALL_CMAKE_PROJECTS "")
if(MPK_DEB_STATIC_BUILD_DIR)
  list(APPEND CPACK_INSTALL_CMAKE_PROJECTS "${MPK_DEB_STATIC_BUILD_DIR};mpk;ALL;/")
endif()
list(APPEND CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};mpk;ALL;/")
include(CPack)
