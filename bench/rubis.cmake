# RUBiS bid benchmark of the Doppel thesis (bench/rubis.c), included at the
# end of bench/CMakeLists.txt.
#
# rubis-<b>: StoreBid and ViewItem on every backend; the same code,
# registered with BENCH_REGISTER, also goes into libpotm-bench-<b>.so for
# the Python package.
set(_rubis ${CMAKE_CURRENT_LIST_DIR}/rubis.c)
foreach(b ${POTM_ENABLED_BACKENDS})
  potm_bench_program(rubis ${_rubis} ${b})

  if(POTM_BUILD_TESTS)
    # Smoke tests: short verified runs with small item and user counts;
    # 2 and 8 threads (8 oversubscribes a small machine), phases every 2 ms.
    # Each run is name:comma-separated arguments.
    if(b STREQUAL "seq")
      set(_rb_runs "doppel-t1:-m,doppel,-t,1")
    else()
      set(_rb_runs "doppel-t2:-m,doppel,-p,100,-t,2"
                   "split-t8:-m,split,-p,50,-u,80,-t,8"
                   "occ-t2:-m,occ,-t,2")
    endif()
    potm_bench_smoke(rubis ${b} "POTM_DP_SPLIT_MS=2;POTM_DP_CLASSIFY_MS=20"
      "-k;1000;-U;1000;-d;300" ${_rb_runs})
  endif()
endforeach()

# Bad arguments: exit status 2 and a message naming the conflict.
if(POTM_BUILD_TESTS AND TARGET rubis-${_b0})
  bench_expect_usage_error(bench-usage-rubis-categories
    "-c 2000: more categories than items" $<TARGET_FILE:rubis-${_b0}> "-c 2000 -k 1000")
endif()
