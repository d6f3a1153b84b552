# Runs tfuse-run once and checks its exit code and output; used by the ctest
# tests registered in test/unit/CMakeLists.txt.
#
#   -DTFUSE_RUN=path      the tool
#   -DARGS=a|b|c          its arguments, '|'-separated
#   -DEXPECT_CODE=N       the expected exit code
#   -DEXPECT=regex        must match stdout + stderr
#   -DALLOW_SUCCESS=1     also accept exit code 0 (a machine with a GPU runs
#                         the bundle for real)
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${TFUSE_RUN} ${args}
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(ALLOW_SUCCESS AND code EQUAL 0)
  message(STATUS "tfuse-run succeeded (a GPU is present):\n${all}")
  return()
endif()
if(NOT code EQUAL EXPECT_CODE)
  message(FATAL_ERROR "tfuse-run ${args}: exit code ${code}, expected "
                      "${EXPECT_CODE}; output:\n${all}")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "tfuse-run ${args}: output does not match "
                      "'${EXPECT}':\n${all}")
endif()
