# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# cmake -P run_fuzz.cmake -DFUZZER=... -DSEED_CORPUS=... -DWORK_CORPUS=... -DSECONDS=...
# Replays the seed corpus, then fuzzes a scratch copy of it for SECONDS seconds.
file(REMOVE_RECURSE "${WORK_CORPUS}")
file(COPY "${SEED_CORPUS}/" DESTINATION "${WORK_CORPUS}")
get_filename_component(_dir "${WORK_CORPUS}" DIRECTORY)
execute_process(COMMAND "${FUZZER}" -runs=0 "${SEED_CORPUS}"
  WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _replay)
if(NOT _replay EQUAL 0)
  message(FATAL_ERROR "core_fuzz: the seed corpus fails (exit ${_replay})")
endif()
execute_process(COMMAND "${FUZZER}" -max_total_time=${SECONDS} -max_len=4096 -print_final_stats=1 "${WORK_CORPUS}"
  WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _fuzz)
if(NOT _fuzz EQUAL 0)
  message(FATAL_ERROR "core_fuzz: found a failing input (exit ${_fuzz}); it is in ${_dir}")
endif()
