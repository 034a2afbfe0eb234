# make install / cmake --install: headers, every backend library, a
# pkg-config file per backend and a CMake package.
#
#   find_package(potm REQUIRED)
#   target_link_libraries(app PRIVATE potm::tl2)          # or potm::tl2-static
#
#   cc app.c $(pkg-config --cflags --libs potm-tl2)       # add --static for .a
#
# The targets carry -DPOTM_BACKEND_<B> (tm.h then inlines the backend's
# common case of an access).  potmConfig.cmake re-finds libnuma and
# liburcu-memb, which a static link needs.
include(CMakePackageConfigHelpers)

# include/potm: the public headers, and static/, the inline paths that
# tm.h's macros and accesses expand to (a consumer needs both).
install(DIRECTORY include/potm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ${POTM_EXPORT_TARGETS} EXPORT potmTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(_potm_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/potm)
install(EXPORT potmTargets NAMESPACE potm:: DESTINATION ${_potm_cmakedir})
configure_package_config_file(cmake/potmConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/potmConfig.cmake INSTALL_DESTINATION ${_potm_cmakedir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/potmConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/potmConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/potmConfigVersion.cmake
        DESTINATION ${_potm_cmakedir})

# pkg-config: prefix relative to the .pc file, so an installed tree can move.
file(RELATIVE_PATH _pc_to_prefix
  ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
foreach(b ${POTM_ENABLED_BACKENDS})
  potm_backend_define(${b} POTM_PC_DEFINE)
  set(POTM_PC_BACKEND ${b})
  configure_file(cmake/potm.pc.in ${CMAKE_CURRENT_BINARY_DIR}/potm-${b}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/potm-${b}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
