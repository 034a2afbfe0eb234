# Doppel benchmarks (issue 5), included at the end of bench/CMakeLists.txt.
#
# doppel-<b>: INCR1, INCRZ and LIKE (bench/doppel.c) on every backend; the
# same code, registered with BENCH_REGISTER, also goes into
# libpotm-bench-<b>.so for the Python package.
set(_doppel ${CMAKE_CURRENT_LIST_DIR}/doppel.c)
foreach(b ${POTM_ENABLED_BACKENDS})
  add_library(bench-doppel-${b} OBJECT ${_doppel})
  target_include_directories(bench-doppel-${b} PRIVATE
    $<TARGET_PROPERTY:potm-${b},INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(bench-doppel-${b} PRIVATE
    $<TARGET_PROPERTY:potm-${b},INTERFACE_COMPILE_DEFINITIONS>)
  set_target_properties(bench-doppel-${b} PROPERTIES C_VISIBILITY_PRESET hidden)
  if(TARGET potm-bench-${b})
    target_link_libraries(potm-bench-${b} PRIVATE bench-doppel-${b} m)
  endif()
  potm_add_per_backend_executable(doppel SOURCES ${_doppel} BACKENDS ${b}
    LIBS bench-harness-${b} m)
  target_compile_definitions(doppel-${b} PRIVATE POTM_DOPPEL_MAIN)

  if(POTM_BUILD_TESTS)
    # Smoke tests: short verified runs of each workload and mode; 2 and 8
    # threads (8 oversubscribes the two cores), phases every 2 ms.  Each
    # run is name:comma-separated arguments.
    if(b STREQUAL "seq")
      set(_dp_runs "incr1-doppel-t1:-w,incr1,-m,doppel,-t,1"
                   "like-occ-t1:-w,like,-m,occ,-t,1")
    else()
      set(_dp_runs "incr1-doppel-t2:-w,incr1,-m,doppel,-t,2"
                   "incr1-split-t8:-w,incr1,-m,split,-p,50,-t,8"
                   "incr1-moving-t2:-w,incr1,-m,doppel,-c,50,-i,20,-t,2"
                   "incr1-atomic-t2:-w,incr1,-m,atomic,-t,2"
                   "incrz-doppel-t2:-w,incrz,-m,doppel,-t,2"
                   "like-split-t2:-w,like,-m,split,-s,4,-t,2"
                   "like-doppel-t8:-w,like,-m,doppel,-t,8")
    endif()
    foreach(run ${_dp_runs})
      string(REPLACE ":" ";" _parts "${run}")
      string(REPLACE "," ";" _parts "${_parts}")
      list(GET _parts 0 _name)
      list(REMOVE_AT _parts 0)
      add_test(NAME bench-doppel-${b}-${_name}
               COMMAND doppel-${b} ${_parts} -k 10000 -U 1000 -d 300)
      potm_backend_test_env(${b} _benv)
      set_tests_properties(bench-doppel-${b}-${_name} PROPERTIES TIMEOUT 120
        ENVIRONMENT "POTM_DP_SPLIT_MS=2;POTM_DP_CLASSIFY_MS=20;${_benv}")
    endforeach()
  endif()
endforeach()

# Bad arguments: exit status 2 and a message naming the conflict.
if(POTM_BUILD_TESTS AND TARGET doppel-${_b0})
  bench_expect_usage_error(bench-usage-doppel-atomic-like
    "-m atomic runs incr1 and incrz only" $<TARGET_FILE:doppel-${_b0}> "-w like -m atomic")
  bench_expect_usage_error(bench-usage-doppel-moving-split
    "-c with -m split: a hand split cannot follow" $<TARGET_FILE:doppel-${_b0}> "-m split -c 100")
  bench_expect_usage_error(bench-usage-doppel-moving-incrz
    "-c is for incr1" $<TARGET_FILE:doppel-${_b0}> "-w incrz -c 100")
endif()
