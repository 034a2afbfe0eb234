# HTM tests: the abort-decision logic on injected status words (any CPU).
add_executable(test_htm_decide ${CMAKE_CURRENT_LIST_DIR}/test_htm_decide.c)
target_include_directories(test_htm_decide PRIVATE ${PROJECT_SOURCE_DIR}/include
                           ${PROJECT_SOURCE_DIR}/htm)
target_link_libraries(test_htm_decide PRIVATE PkgConfig::CHECK)
add_test(NAME t-htm-decide COMMAND test_htm_decide)
