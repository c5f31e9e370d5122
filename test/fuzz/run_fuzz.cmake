# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# cmake -P run_fuzz.cmake -DFUZZER=... -DSEED_CORPUS=... -DREGRESSIONS=... -DWORK_CORPUS=... -DSECONDS=...
# Replays the seed corpus and the crash regressions (one input per defect the fuzzer found: each
# must now be reported, not exploited), then fuzzes a scratch copy of the corpus for SECONDS seconds.
# An input that runs a minute is a failure too (a forged list can make the heap loop).
file(REMOVE_RECURSE "${WORK_CORPUS}")
file(COPY "${SEED_CORPUS}/" DESTINATION "${WORK_CORPUS}")
get_filename_component(_dir "${WORK_CORPUS}" DIRECTORY)
execute_process(COMMAND "${FUZZER}" -runs=0 "${SEED_CORPUS}"
  WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _replay)
if(NOT _replay EQUAL 0)
  message(FATAL_ERROR "core_fuzz: the seed corpus fails (exit ${_replay})")
endif()
file(GLOB _regressions "${REGRESSIONS}/*")
foreach(_input IN LISTS _regressions)
  execute_process(COMMAND "${FUZZER}" -timeout=60 "${_input}"
    WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _replay OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _replay EQUAL 0)
    get_filename_component(_name "${_input}" NAME)
    message("${_out}")
    list(APPEND _failed "${_name}")
  endif()
endforeach()
if(_failed)
  message(FATAL_ERROR "core_fuzz: crash regressions fail (a defect is back): ${_failed}")
endif()
execute_process(COMMAND "${FUZZER}" -max_total_time=${SECONDS} -max_len=4096 -timeout=60 -print_final_stats=1 "${WORK_CORPUS}"
  WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _fuzz)
if(NOT _fuzz EQUAL 0)
  message(FATAL_ERROR "core_fuzz: found a failing input (exit ${_fuzz}); it is in ${_dir}")
endif()
