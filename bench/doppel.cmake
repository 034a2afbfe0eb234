# Doppel benchmarks, included at the end of bench/CMakeLists.txt.
#
# doppel-<b>: INCR1, INCRZ and LIKE (bench/doppel.c) on every backend; the
# same code, registered with BENCH_REGISTER, also goes into
# libpotm-bench-<b>.so for the Python package.
set(_doppel ${CMAKE_CURRENT_LIST_DIR}/doppel.c)
foreach(b ${POTM_ENABLED_BACKENDS})
  potm_bench_program(doppel ${_doppel} ${b} LIBS m)

  if(POTM_BUILD_TESTS)
    # Smoke tests: short verified runs of each workload and mode; 2 and 8
    # threads (8 oversubscribes a small machine), phases every 2 ms.  Each
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
    potm_bench_smoke(doppel ${b} "POTM_DP_SPLIT_MS=2;POTM_DP_CLASSIFY_MS=20"
      "-k;10000;-U;1000;-d;300" ${_dp_runs})
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
