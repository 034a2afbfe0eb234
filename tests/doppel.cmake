# The Doppel layer (issue 5): every backend; the multi-thread cases skip seq.
potm_add_check_test(doppel SOURCES ${CMAKE_CURRENT_LIST_DIR}/doppel/test_doppel.c TIMEOUT 600)
