# The server's Check test (server/test_server.c): it starts the
# potm-server-<b> binaries of this build itself, so it depends on them.
if(NOT POTM_SERVER_BACKENDS)
  return()
endif()
add_executable(test_server test_server.c)
target_link_libraries(test_server PRIVATE potm-client PkgConfig::CHECK)
target_compile_definitions(test_server PRIVATE
  POTM_SERVER_DIR="${CMAKE_CURRENT_BINARY_DIR}"
  POTM_SERVER_HAS_RAFT=$<BOOL:${POTM_SERVER_RAFT}>)
foreach(b ${POTM_SERVER_BACKENDS})
  add_dependencies(test_server potm-server-${b})
endforeach()
add_test(NAME t-server COMMAND test_server)
set_tests_properties(t-server PROPERTIES TIMEOUT 600 LABELS server
  ENVIRONMENT "CK_DEFAULT_TIMEOUT=300")

# potm-server --stream: the ordered modes' digests agree (test_stream.sh).
if("pot" IN_LIST POTM_SERVER_BACKENDS)
  add_test(NAME t-server-stream
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_stream.sh ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(t-server-stream PROPERTIES TIMEOUT 120 LABELS server SKIP_RETURN_CODE 77)
endif()

# --log-dir: kill -9 with requests in flight, restart, every acknowledged
# New-Order present and the checks passing (test_durable.py); occ with 2
# workers and oversubscribed with 6.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(_m sequential:seq:1:sequential occ:tl2:2:occ occ:tl2:6:occ6)
    string(REPLACE ":" ";" _m "${_m}")
    list(GET _m 0 _mode)
    list(GET _m 1 _b)
    list(GET _m 2 _workers)
    list(GET _m 3 _name)
    if(_b IN_LIST POTM_SERVER_BACKENDS)
      add_test(NAME t-server-durable-${_name}
               COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_durable.py
                       ${PROJECT_BINARY_DIR} ${_mode} ${_workers})
      set_tests_properties(t-server-durable-${_name} PROPERTIES TIMEOUT 120
        LABELS "server;durable" SKIP_RETURN_CODE 77)
    endif()
  endforeach()
endif()
