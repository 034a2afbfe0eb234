# STMBench7's text module (issue 7): the vectorized character count against
# a byte-by-byte one; seq (plain loads) and tl2 (transactional chunk
# pointers), or whatever of them is enabled.  The whole benchmark is tested
# by stmbench7/CMakeLists.txt.
if(POTM_BUILD_STMBENCH7)
  set(_sb7_text_backends)
  foreach(b seq tl2)
    if(b IN_LIST POTM_ENABLED_BACKENDS)
      list(APPEND _sb7_text_backends ${b})
    endif()
  endforeach()
  if(_sb7_text_backends)
    potm_add_check_test(sb7-text
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/stmbench7/test_sb7_text.c
              ${PROJECT_SOURCE_DIR}/stmbench7/sb7_text.c
      BACKENDS ${_sb7_text_backends} TIMEOUT 120)
  endif()
endif()
