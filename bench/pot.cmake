# Pot benchmarks, included at the end of bench/CMakeLists.txt.
#
# fasttx: the cost of one transaction by size and kind on one thread
# (thesis Figure 3.6), for pot (its fast mode), tl2, seq (the limit), and
# rtm and pot-rtm (a hardware transaction's entry and exit; pot-rtm alone
# runs in fast mode, in software).
# fasttx-<b> is the executable; the same code, registered with
# BENCH_REGISTER, also goes into libpotm-bench-<b>.so for the Python
# package (potm_bench_main("fasttx", ...)).
set(_fasttx ${CMAKE_CURRENT_LIST_DIR}/fasttx.c)
foreach(b pot tl2 seq rtm pot-rtm)
  if(NOT b IN_LIST POTM_ENABLED_BACKENDS)
    continue()
  endif()
  potm_bench_program(fasttx ${_fasttx} ${b})
  potm_backend_test_env(${b} _fasttx_env)

  if(POTM_BUILD_TESTS)
    # Smoke test: the whole sweep, a few thousand verified transactions
    # per point; for pot once per mode.
    if(b STREQUAL "pot")
      set(_modes pot pot-fast pot-ordered pogl destm)
    else()
      set(_modes ${b})
    endif()
    foreach(m ${_modes})
      add_test(NAME bench-fasttx-${b}-${m} COMMAND fasttx-${b} -n 3000)
      set_tests_properties(bench-fasttx-${b}-${m} PROPERTIES TIMEOUT 120
                           SKIP_RETURN_CODE 77)
      if(b STREQUAL "pot")
        set_tests_properties(bench-fasttx-${b}-${m} PROPERTIES ENVIRONMENT POTM_MODE=${m})
      elseif(_fasttx_env)
        set_tests_properties(bench-fasttx-${b}-${m} PROPERTIES ENVIRONMENT "${_fasttx_env}")
      endif()
    endforeach()
  endif()
endforeach()
