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

configure_file(${CMAKE_CURRENT_LIST_DIR}/mpk.pc.in ${CMAKE_CURRENT_BINARY_DIR}/mpk.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mpk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
