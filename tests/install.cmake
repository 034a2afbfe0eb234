# The installed tree works for a consumer (CMake package and pkg-config).
if(POTM_BUILD_SHARED AND "tl2" IN_LIST POTM_ENABLED_BACKENDS AND "seq" IN_LIST POTM_ENABLED_BACKENDS)
  add_test(NAME t-install-consumer
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/run.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(t-install-consumer PROPERTIES TIMEOUT 180
                       PASS_REGULAR_EXPRESSION "install consumer: all OK")
endif()
