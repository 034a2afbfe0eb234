# Core tests (issue 2): every backend; the concurrency test skips seq.
potm_add_check_test(core-tx SOURCES ${CMAKE_CURRENT_LIST_DIR}/core/test_core_tx.c TIMEOUT 120)
potm_add_check_test(core-conc SOURCES ${CMAKE_CURRENT_LIST_DIR}/core/test_core_conc.c TIMEOUT 600)
