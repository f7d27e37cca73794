# Installing tress: headers under include/tress/, static or (BUILD_SHARED_LIBS) shared libraries
# named libtress-<component>, one pkg-config file per component and a CMake package (tressConfig)
# whose targets are tress::<component>.
#
#   tress_install_library(<target> <component> [DESCRIPTION text] [INCLUDE_DIR dir]
#     [REQUIRES pc...] [LIBS flags...] [PKG_PUBLIC PREFIX=module...] [PKG_PRIVATE PREFIX=module...]
#     [LIBS_PRIVATE flags...])
# REQUIRES names other tress-* modules; PKG_PUBLIC/PKG_PRIVATE the pkg-config modules behind the
# PkgConfig::PREFIX targets the library links publicly/privately, so pkg-config consumers get them
# in Requires(.private) and CMake consumers get them found again by tressConfig.cmake.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# 0.x releases may break the ABI at every minor version, so the SONAME carries it.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(TRESS_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(TRESS_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()

# pkg-config files locate the prefix from their own place, so an installed tree can be moved
# (and `cmake --install --prefix` works without reconfiguring).
file(RELATIVE_PATH TRESS_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
set_property(GLOBAL PROPERTY TRESS_CONFIG_PKG_DEPS "")

function(tress_install_library target component)
  cmake_parse_arguments(ARG "" "DESCRIPTION;INCLUDE_DIR"
                        "REQUIRES;LIBS;PKG_PUBLIC;PKG_PRIVATE;LIBS_PRIVATE" ${ARGN})
  string(REPLACE "_" "-" pc_name "tress-${component}")
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${component} OUTPUT_NAME ${pc_name}
                        VERSION ${PROJECT_VERSION} SOVERSION ${TRESS_SOVERSION})
  target_include_directories(${target} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "SHARED_LIBRARY")
    # Only the public API leaves the library: tress_<name>, never tress__<internal> or a
    # file's helpers. --no-undefined makes a missing cross-library symbol a build error here.
    target_link_options(${target} PRIVATE
      -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/tress_exports.map -Wl,--no-undefined)
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/tress_exports.map)
  endif()
  install(TARGETS ${target} EXPORT tressTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(ARG_INCLUDE_DIR)
    install(DIRECTORY ${ARG_INCLUDE_DIR}/tress DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
  endif()

  # The config file re-finds what the exported targets name: public deps always, private ones
  # of static libraries too (they reach the consumer's link as $<LINK_ONLY:...>).
  set(config_deps ${ARG_PKG_PUBLIC})
  if(NOT type STREQUAL "SHARED_LIBRARY")
    list(APPEND config_deps ${ARG_PKG_PRIVATE})
  endif()
  set_property(GLOBAL APPEND PROPERTY TRESS_CONFIG_PKG_DEPS ${config_deps})

  set(requires ${ARG_REQUIRES})
  foreach(dep ${ARG_PKG_PUBLIC})
    string(REGEX REPLACE "^[^=]*=" "" module ${dep})
    list(APPEND requires ${module})
  endforeach()
  set(requires_private "")
  foreach(dep ${ARG_PKG_PRIVATE})
    string(REGEX REPLACE "^[^=]*=" "" module ${dep})
    list(APPEND requires_private ${module})
  endforeach()
  list(JOIN requires " " TRESS_PC_REQUIRES)
  list(JOIN requires_private " " TRESS_PC_REQUIRES_PRIVATE)
  list(JOIN ARG_LIBS " " TRESS_PC_LIBS)
  list(JOIN ARG_LIBS_PRIVATE " " TRESS_PC_LIBS_PRIVATE)
  set(TRESS_PC_NAME ${pc_name})
  set(TRESS_PC_DESCRIPTION "${ARG_DESCRIPTION}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/tress.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc_name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc_name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()

# After every library is declared: tressConfig.cmake, its version file and the exported targets.
function(tress_install_package)
  if(BUILD_SHARED_LIBS)
    set(TRESS_CONFIG_SHARED TRUE)
  else()
    set(TRESS_CONFIG_SHARED FALSE)
  endif()
  get_property(deps GLOBAL PROPERTY TRESS_CONFIG_PKG_DEPS)
  list(REMOVE_DUPLICATES deps)
  set(TRESS_CONFIG_PKG_DEPS "${deps}")
  set(dest ${CMAKE_INSTALL_LIBDIR}/cmake/tress)
  install(EXPORT tressTargets NAMESPACE tress:: DESTINATION ${dest})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tressConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/cmake/tressConfig.cmake INSTALL_DESTINATION ${dest})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/tressConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/tressConfig.cmake ${PROJECT_BINARY_DIR}/cmake/tressConfigVersion.cmake
          DESTINATION ${dest})
endfunction()
