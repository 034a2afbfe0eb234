# Run a command and check its exit status and output (stdout and stderr):
#   cmake -DCMD=<program> "-DARGS=<arguments>" -DEXPECT_CODE=<n>
#         [-DEXPECT_REGEX=<regex>] -P expect_exit.cmake
# ARGS is split like a shell command line.  (The arguments cannot follow
# the script: cmake would take an -i among them for its own option.)
# For the tests that a bad argument is refused with a clear message:
# ctest's PASS_REGULAR_EXPRESSION alone would ignore the exit status.
if(NOT DEFINED CMD OR NOT DEFINED EXPECT_CODE)
  message(FATAL_ERROR "expect_exit.cmake: CMD and EXPECT_CODE are required")
endif()
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${CMD}" ${args} RESULT_VARIABLE code
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${code}" STREQUAL "${EXPECT_CODE}")
  message(FATAL_ERROR "exit status ${code}, expected ${EXPECT_CODE}")
endif()
if(DEFINED EXPECT_REGEX AND NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}'")
endif()
