# The LSD microbenchmarks (bench/lsd.c), included at the end of
# bench/CMakeLists.txt.
#
# lsd-<b>: -w hotkey | assert, -m lsd | std, -p private words, -r shared
# reads, -x hot percentage, on every backend; the same
# code, registered with BENCH_REGISTER, also goes into
# libpotm-bench-<b>.so for the Python package.
set(_lsd ${CMAKE_CURRENT_LIST_DIR}/lsd.c)
foreach(b ${POTM_ENABLED_BACKENDS})
  potm_bench_program(lsd ${_lsd} ${b})

  if(POTM_BUILD_TESTS)
    # Smoke tests: short verified runs of each workload in each mode
    # (name:comma-separated arguments); a small counter makes hotkey refill.
    potm_test_threads(${b} _t)
    potm_bench_smoke(lsd ${b} "" "-n;2000;-t;${_t}"
      "hotkey-lsd:-w,hotkey,-m,lsd,-i,500,-r,8" "hotkey-std:-w,hotkey,-m,std,-i,500,-r,8"
      "hotkey-mixed-lsd:-w,hotkey,-m,lsd,-i,500,-x,30"
      "assert-lsd:-w,assert,-m,lsd" "assert-std:-w,assert,-m,std"
      "assert-contended-lsd:-w,assert,-m,lsd,-c,20"
      "assert-contended-std:-w,assert,-m,std,-c,20")
  endif()
endforeach()

# Bad arguments: exit status 2 and a message naming the conflict.
if(POTM_BUILD_TESTS AND TARGET lsd-${_b0})
  set(_lsd_prog $<TARGET_FILE:lsd-${_b0}>)
  bench_expect_usage_error(bench-usage-lsd-invalidate-hotkey
    "-c applies to -w assert only" ${_lsd_prog} "-w hotkey -c 10")
  bench_expect_usage_error(bench-usage-lsd-initial-assert
    "-i applies to -w hotkey only" ${_lsd_prog} "-w assert -i 10")
  bench_expect_usage_error(bench-usage-lsd-hot-assert
    "-x applies to -w hotkey only" ${_lsd_prog} "-w assert -x 50")
  bench_expect_usage_error(bench-usage-lsd-mode
    "-m occ: mode must be one of lsd, std" ${_lsd_prog} "-m occ")
  bench_expect_usage_error(bench-usage-lsd-private
    "lsd: -p 65: private work must be 0\\.\\.64" ${_lsd_prog} "-p 65")
endif()
