# Installs headers, the library, a CMake package (mpk::mpk) and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY include/mpk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mpk EXPORT mpk-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT mpk-targets NAMESPACE mpk:: FILE mpk-targets.cmake
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
configure_file(${CMAKE_CURRENT_LIST_DIR}/mpk.pc.in ${CMAKE_CURRENT_BINARY_DIR}/mpk.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mpk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
