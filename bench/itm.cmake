# GCC's own transactional memory (libitm), for comparison:
# intset-libitm is the intset benchmark compiled with -fgnu-tm, its
# transactions run by libitm with the method ITM_DEFAULT_METHOD names
# (bench/itm.h).  potm-gl is linked for the harness's thread registration
# only.  Native builds with GCC only: cross builds lack the target's
# libitm, and GCC refuses -fgnu-tm with AddressSanitizer.
include(CheckCSourceCompiles)
if(CMAKE_CROSSCOMPILING OR POTM_SANITIZE OR NOT CMAKE_C_COMPILER_ID STREQUAL "GNU"
   OR NOT "gl" IN_LIST POTM_ENABLED_BACKENDS)
  return()
endif()
set(CMAKE_REQUIRED_FLAGS -fgnu-tm)
set(CMAKE_REQUIRED_LINK_OPTIONS -fgnu-tm)
check_c_source_compiles("
  static int x;
  int main(void) { __transaction_atomic { x++; } return x - 1; }"
  POTM_HAVE_GNU_TM)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT POTM_HAVE_GNU_TM)
  message(STATUS "intset-libitm: skipped (the compiler has no -fgnu-tm or libitm)")
  return()
endif()

add_executable(intset-libitm intset_main.c harness.c ${POTM_BENCH_SOURCES_intset})
# -Wno-clobbered: GCC treats _ITM_beginTransaction like setjmp and warns,
# but its TM lowering itself restores what an aborted attempt changed.
target_compile_options(intset-libitm PRIVATE -fgnu-tm -Wno-clobbered)
target_compile_definitions(intset-libitm PRIVATE POTM_BENCH_ITM)
target_link_options(intset-libitm PRIVATE -fgnu-tm)
target_link_libraries(intset-libitm PRIVATE potm-gl-static)

if(POTM_BUILD_TESTS)
  # Verified runs on libitm's STM, 2 threads and oversubscribed.
  foreach(t 2 8)
    add_test(NAME bench-intset-rb-libitm-t${t}
             COMMAND intset-libitm -s rb ${_bench_args_rb} -n ${_bench_ops_rb_t${t}} -t ${t})
    set_tests_properties(bench-intset-rb-libitm-t${t} PROPERTIES TIMEOUT 60
      ENVIRONMENT ITM_DEFAULT_METHOD=ml_wt
      PASS_REGULAR_EXPRESSION "\"backend\": \"libitm-ml_wt\".*\"verified\": true")
  endforeach()
endif()
