# Run a STAMP application RUNS times (default 3) and require the same
# "digest" (a hash of its final state) every time: with a deterministic
# backend the same input and thread count must end in the same state.
#   cmake -DCMD=<binary> -DARGS=<a;b;...> [-DRUNS=n] [-DCMD2=<binary>] -P determinism.cmake
# With CMD2 the runs alternate between the two binaries, which must end in
# the same state too: two backends that commit in the same order (pot and
# Pot over HTM, whose runs of turns count the same accesses).
if(NOT RUNS)
  set(RUNS 3)
endif()
set(_first "")
foreach(i RANGE 1 ${RUNS})
  set(_cmd ${CMD})
  math(EXPR _odd "${i} % 2")
  if(CMD2 AND _odd EQUAL 0)
    set(_cmd ${CMD2})
  endif()
  execute_process(COMMAND ${_cmd} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${i} failed (${rc}):\n${out}\n${err}")
  endif()
  if(NOT out MATCHES "\"digest\": \"([0-9a-f]+)\"")
    message(FATAL_ERROR "run ${i} printed no digest:\n${out}")
  endif()
  set(_digest ${CMAKE_MATCH_1})
  if(i EQUAL 1)
    set(_first ${_digest})
  elseif(NOT _digest STREQUAL _first)
    message(FATAL_ERROR "run ${i} (${_cmd}) ended in a different state: digest "
                        "${_digest}, run 1 (${CMD}) had ${_first}")
  endif()
endforeach()
message(STATUS "${RUNS} runs, digest ${_first} every time")
