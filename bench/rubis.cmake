# RUBiS bid benchmark of the Doppel thesis (bench/rubis.c), included at the
# end of bench/CMakeLists.txt.
#
# rubis-<b>: StoreBid and ViewItem on every backend; the same code,
# registered with BENCH_REGISTER, also goes into libpotm-bench-<b>.so for
# the Python package.
set(_rubis ${CMAKE_CURRENT_LIST_DIR}/rubis.c)
foreach(b ${POTM_ENABLED_BACKENDS})
  add_library(bench-rubis-${b} OBJECT ${_rubis})
  target_include_directories(bench-rubis-${b} PRIVATE
    $<TARGET_PROPERTY:potm-${b},INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(bench-rubis-${b} PRIVATE
    $<TARGET_PROPERTY:potm-${b},INTERFACE_COMPILE_DEFINITIONS>)
  set_target_properties(bench-rubis-${b} PROPERTIES C_VISIBILITY_PRESET hidden)
  if(TARGET potm-bench-${b})
    target_link_libraries(potm-bench-${b} PRIVATE bench-rubis-${b})
  endif()
  potm_add_per_backend_executable(rubis SOURCES ${_rubis} BACKENDS ${b}
    LIBS bench-harness-${b})
  target_compile_definitions(rubis-${b} PRIVATE POTM_RUBIS_MAIN)

  if(POTM_BUILD_TESTS)
    # Smoke tests: short verified runs with small item and user counts;
    # 2 and 8 threads (8 oversubscribes the two cores), phases every 2 ms.
    # Each run is name:comma-separated arguments.
    if(b STREQUAL "seq")
      set(_rb_runs "doppel-t1:-m,doppel,-t,1")
    else()
      set(_rb_runs "doppel-t2:-m,doppel,-p,100,-t,2"
                   "split-t8:-m,split,-p,50,-u,80,-t,8"
                   "occ-t2:-m,occ,-t,2")
    endif()
    foreach(run ${_rb_runs})
      string(REPLACE ":" ";" _parts "${run}")
      string(REPLACE "," ";" _parts "${_parts}")
      list(GET _parts 0 _name)
      list(REMOVE_AT _parts 0)
      add_test(NAME bench-rubis-${b}-${_name}
               COMMAND rubis-${b} ${_parts} -k 1000 -U 1000 -d 300)
      potm_backend_test_env(${b} _benv)
      set_tests_properties(bench-rubis-${b}-${_name} PROPERTIES TIMEOUT 120
        ENVIRONMENT "POTM_DP_SPLIT_MS=2;POTM_DP_CLASSIFY_MS=20;${_benv}")
    endforeach()
  endif()
endforeach()

# Bad arguments: exit status 2 and a message naming the conflict.
if(POTM_BUILD_TESTS AND TARGET rubis-${_b0})
  bench_expect_usage_error(bench-usage-rubis-categories
    "-c 2000: more categories than items" $<TARGET_FILE:rubis-${_b0}> "-c 2000 -k 1000")
endif()
