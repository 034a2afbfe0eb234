# Pot tests: deterministic transactions, the sequencer, tm barriers and the
# explicit order.  Included at the end of tests/CMakeLists.txt;
# potm_add_check_test builds t-<name>-<backend>.  The mode is chosen inside
# each test (POTM_MODE before tm_init), so one binary covers pot, pot-fast,
# pot-ordered, pogl and destm.  The HTM Pot backends must pass the same
# tests: pot-rtm on its software fast path unless POTM_TEST_HTM_HARDWARE,
# pot-rot under qemu-ppc64le.
set(_pot_tests ${CMAKE_CURRENT_LIST_DIR})
set(_pot_backends pot pot-rtm pot-rot)

potm_add_check_test(pot-determinism
  SOURCES ${_pot_tests}/test_pot_determinism.c ${_pot_tests}/test_pot_util.c
  BACKENDS ${_pot_backends} TIMEOUT 300)
# The same runs on tl2 must differ at least once: the test can see a difference.
potm_add_check_test(pot-determinism-contrast
  SOURCES ${_pot_tests}/test_pot_determinism.c ${_pot_tests}/test_pot_util.c
  BACKENDS tl2 TIMEOUT 120)
potm_add_check_test(pot-equivalence
  SOURCES ${_pot_tests}/test_pot_equivalence.c ${_pot_tests}/test_pot_util.c
  BACKENDS ${_pot_backends} TIMEOUT 180)
# On tl2 the barriers are plain ones: the same phases must not deadlock.
potm_add_check_test(pot-barrier
  SOURCES ${_pot_tests}/test_pot_barrier.c ${_pot_tests}/test_pot_util.c
  BACKENDS ${_pot_backends} tl2 TIMEOUT 180)
potm_add_check_test(pot-explicit
  SOURCES ${_pot_tests}/test_pot_explicit.c ${_pot_tests}/test_pot_util.c
  BACKENDS ${_pot_backends} TIMEOUT 120)
potm_add_check_test(pot-weighted
  SOURCES ${_pot_tests}/test_pot_weighted.c ${_pot_tests}/test_pot_util.c
  BACKENDS ${_pot_backends} tl2 TIMEOUT 180)
# Pot's modes: tm_mode_name's list, each mode's policy row, the refusal of
# an unknown POTM_MODE; every backend library parses POTM_MODE.
potm_add_check_test(pot-modes
  SOURCES ${_pot_tests}/test_pot_modes.c TIMEOUT 60)
