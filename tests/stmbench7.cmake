# STMBench7's text module (issue 7): the vectorized character count and
# replacement against byte-by-byte ones, on seq (plain loads) and tl2
# (transactional chunk pointers), those of them that are enabled.  The
# whole benchmark is tested by stmbench7/CMakeLists.txt.
if(POTM_BUILD_STMBENCH7)
  potm_add_check_test(sb7-text
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/stmbench7/test_sb7_text.c
            ${PROJECT_SOURCE_DIR}/stmbench7/sb7_text.c
    BACKENDS seq tl2 TIMEOUT 120)
endif()
