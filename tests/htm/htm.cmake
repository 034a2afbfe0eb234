# HTM tests: the abort-decision logic on injected status words (any CPU).
add_executable(test_htm_decide ${CMAKE_CURRENT_LIST_DIR}/test_htm_decide.c)
target_include_directories(test_htm_decide PRIVATE ${PROJECT_SOURCE_DIR}/include
                           ${PROJECT_SOURCE_DIR}/htm)
target_link_libraries(test_htm_decide PRIVATE PkgConfig::CHECK)
add_test(NAME t-htm-decide COMMAND test_htm_decide)
# Pot on HTM (pot-rtm, pot-rot): statistics, slots, settings, the message
# without hardware.  Each backend's test environment applies
# (potm_backend_test_env): the software fast path here, qemu for pot-rot.
if(COMMAND potm_add_check_test)
  potm_add_check_test(pot-htm
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pot_htm.c
            ${PROJECT_SOURCE_DIR}/tests/test_pot_util.c
    BACKENDS pot-rtm pot-rot TIMEOUT 180)
endif()
