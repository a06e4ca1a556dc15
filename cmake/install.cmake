# Installs headers, the library, a CMake package (mpk::mpk) and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY include/mpk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mpk EXPORT mpk-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# One export file per kind of library, so that a static and a shared build installed into the
# same prefix (the Debian package ships both) sit side by side; mpk-config.cmake picks one.
if(BUILD_SHARED_LIBS)
  set(_mpk_kind shared)
else()
  set(_mpk_kind static)
endif()
install(EXPORT mpk-targets NAMESPACE mpk:: FILE mpk-targets-${_mpk_kind}.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mpk)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/mpk-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/mpk-config.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mpk)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mpk-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mpk-config.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/mpk-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mpk)

# mpk.pc finds its prefix from its own folder (${pcfiledir}), so it stays right when the
# prefix is chosen at install time (`cmake --install --prefix`, DESTDIR) or moved as a whole.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(MPK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(MPK_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(MPK_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _mpk_pc_up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" _mpk_pc_up "${_mpk_pc_up}")
  set(MPK_PC_PREFIX "\${pcfiledir}/${_mpk_pc_up}")
  set(MPK_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(MPK_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# simdjson (when built with it): a static libmpk needs it in plain `pkg-config --libs mpk`
# (Requires), a shared one only under --static (Requires.private; the .so records its own
# dependency). Through simdjson's own simdjson.pc when it has one, else as -lsimdjson.
set(MPK_PC_REQUIRES "")
set(MPK_PC_REQUIRES_PRIVATE "")
set(MPK_PC_LIBS "")
set(MPK_PC_LIBS_PRIVATE "")
if(simdjson_FOUND)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(MPK_SIMDJSON_PC QUIET simdjson)
  endif()
  if(BUILD_SHARED_LIBS AND MPK_SIMDJSON_PC_FOUND)
    set(MPK_PC_REQUIRES_PRIVATE simdjson)
  elseif(BUILD_SHARED_LIBS)
    set(MPK_PC_LIBS_PRIVATE -lsimdjson)
  elseif(MPK_SIMDJSON_PC_FOUND)
    set(MPK_PC_REQUIRES simdjson)
  else()
    set(MPK_PC_LIBS -lsimdjson)
  endif()
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/mpk.pc.in ${CMAKE_CURRENT_BINARY_DIR}/mpk.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mpk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
