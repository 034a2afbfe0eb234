# Run a STAMP application RUNS times (default 3) and require the same
# "digest" (a hash of its final state) every time: with a deterministic
# backend the same input and thread count must end in the same state.
#   cmake -DCMD=<binary> -DARGS=<a;b;...> [-DRUNS=n] -P determinism.cmake
if(NOT RUNS)
  set(RUNS 3)
endif()
set(_first "")
foreach(i RANGE 1 ${RUNS})
  execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
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
    message(FATAL_ERROR "run ${i} ended in a different state: digest ${_digest}, "
                        "run 1 had ${_first}")
  endif()
endforeach()
message(STATUS "${RUNS} runs, digest ${_first} every time")
