# Run a benchmark several times and check that every run passes and
# reports the same "digest" in its JSON line:
#   cmake -DCMD=<program> "-DARGS=<arguments>" -DRUNS=<n> -P same_digest.cmake
# ARGS is split like a shell command line.  For the determinism of a
# deterministic backend: the same input, the same final database.  With
# "-DALT=<arguments>" the even runs take ALT instead: two ways to run the
# same transactions (with and without LSD) must reach the same database.
if(NOT DEFINED CMD OR NOT DEFINED RUNS)
  message(FATAL_ERROR "same_digest.cmake: CMD and RUNS are required")
endif()
separate_arguments(args_odd UNIX_COMMAND "${ARGS}")
# EMU: a cross build's emulator command line ("" or unset natively).
separate_arguments(emu UNIX_COMMAND "${EMU}")
set(args_even ${args_odd})
if(DEFINED ALT)
  separate_arguments(args_even UNIX_COMMAND "${ALT}")
endif()
set(first "")
foreach(i RANGE 1 ${RUNS})
  math(EXPR odd "${i} % 2")
  if(odd)
    set(args ${args_odd})
  else()
    set(args ${args_even})
  endif()
  execute_process(COMMAND ${emu} "${CMD}" ${args} RESULT_VARIABLE code
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT "${code}" STREQUAL "0")
    message(FATAL_ERROR "run ${i}: exit status ${code}\n${out}${err}")
  endif()
  if(NOT "${out}" MATCHES "\"digest\": \"([0-9a-f]+)\"")
    message(FATAL_ERROR "run ${i}: no digest in the output\n${out}${err}")
  endif()
  set(digest "${CMAKE_MATCH_1}")
  if(i EQUAL 1)
    set(first "${digest}")
    message("run 1: digest ${digest}")
  elseif(NOT "${digest}" STREQUAL "${first}")
    message(FATAL_ERROR "run ${i} (${args}): digest ${digest}, but run 1 ended with "
                        "${first}\n${out}")
  endif()
endforeach()
message("${RUNS} runs, one digest: ${first}")
