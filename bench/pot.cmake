# Pot benchmarks (issue 3), included at the end of bench/CMakeLists.txt.
#
# fasttx: the cost of one transaction by size and kind on one thread
# (thesis Figure 3.6), for pot (its fast mode), tl2 and seq (the limit).
# fasttx-<b> is the executable; the same code, registered with
# BENCH_REGISTER, also goes into libpotm-bench-<b>.so for the Python
# package (potm_bench_main("fasttx", ...)).
set(_fasttx ${CMAKE_CURRENT_LIST_DIR}/fasttx.c)
foreach(b pot tl2 seq)
  if(NOT b IN_LIST POTM_ENABLED_BACKENDS)
    continue()
  endif()
  add_library(bench-fasttx-${b} OBJECT ${_fasttx})
  target_include_directories(bench-fasttx-${b} PRIVATE
    $<TARGET_PROPERTY:potm-${b},INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(bench-fasttx-${b} PRIVATE
    $<TARGET_PROPERTY:potm-${b},INTERFACE_COMPILE_DEFINITIONS>)
  set_target_properties(bench-fasttx-${b} PROPERTIES C_VISIBILITY_PRESET hidden)
  if(TARGET potm-bench-${b})   # not in static-only builds
    target_link_libraries(potm-bench-${b} PRIVATE bench-fasttx-${b})
  endif()

  potm_add_per_backend_executable(fasttx SOURCES ${_fasttx} BACKENDS ${b}
    LIBS bench-harness-${b})
  target_compile_definitions(fasttx-${b} PRIVATE POTM_FASTTX_MAIN)

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
      set_tests_properties(bench-fasttx-${b}-${m} PROPERTIES TIMEOUT 120)
      if(b STREQUAL "pot")
        set_tests_properties(bench-fasttx-${b}-${m} PROPERTIES ENVIRONMENT POTM_MODE=${m})
      endif()
    endforeach()
  endif()
endforeach()
