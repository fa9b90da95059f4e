# SPDX-License-Identifier: Apache-2.0
# Install rules: headers, libgelu, a CMake package (find_package(gelu CONFIG) -> gelu::gelu) and gelu.pc.
include(CMakePackageConfigHelpers)

# Component `runtime`: the shared library itself, what the wheel (pyproject.toml) takes beside `tools` and `python`;
# the rest (headers, namelink, CMake package, pkg-config, LICENSE) is for building against gelu.
install(TARGETS gelu EXPORT gelu-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY include/gelu DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
install(EXPORT gelu-targets NAMESPACE gelu:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gelu)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gelu-config.cmake.in
  ${PROJECT_BINARY_DIR}/gelu-config.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gelu)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gelu-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gelu-config.cmake ${PROJECT_BINARY_DIR}/gelu-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gelu)

# pkg-config: a static libgelu also needs Highway and OpenMP at link time; a shared one, GELU_SHARED.
if(BUILD_SHARED_LIBS)
  set(GELU_PC_PRIVATE_LIBS "")
  set(GELU_PC_CFLAGS "-DGELU_SHARED")  # gelu.h's export macro, as gelu::gelu sets it
else()
  set(GELU_PC_PRIVATE_LIBS "-lhwy -fopenmp")
endif()
# Relocatable: the prefix is found from the .pc file's own location, so `cmake --install --prefix P` works for any P.
file(RELATIVE_PATH GELU_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(${PROJECT_SOURCE_DIR}/cmake/gelu.pc.in ${PROJECT_BINARY_DIR}/gelu.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gelu.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
