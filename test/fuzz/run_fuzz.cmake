# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# cmake -P run_fuzz.cmake -DFUZZER=... -DSEED_CORPUS=... -DREGRESSIONS=... -DWORK_CORPUS=... -DSECONDS=...
# Replays the seed corpus and the crash regressions (one input per defect: each must now be
# reported, not exploited), then fuzzes for SECONDS seconds: half on a scratch copy of the whole
# corpus, half on a scratch copy of its corruption programs alone (inputs that start with
# "corrupt!"), where the fuzzer finds the defects of issue 17 in seconds rather than minutes.
# An input that runs a minute is a failure too (a forged list can make the heap loop).
set(_corrupt_corpus "${WORK_CORPUS}-corrupt")
file(REMOVE_RECURSE "${WORK_CORPUS}" "${_corrupt_corpus}")
file(COPY "${SEED_CORPUS}/" DESTINATION "${WORK_CORPUS}")
file(MAKE_DIRECTORY "${_corrupt_corpus}")
file(GLOB _seeds "${SEED_CORPUS}/*")
foreach(_seed IN LISTS _seeds)
  file(READ "${_seed}" _head LIMIT 8)
  if(_head STREQUAL "corrupt!")
    file(COPY "${_seed}" DESTINATION "${_corrupt_corpus}")
  endif()
endforeach()
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
math(EXPR _half "${SECONDS} / 2")
math(EXPR _rest "${SECONDS} - ${_half}")
foreach(_run IN ITEMS "${_half};${WORK_CORPUS}" "${_rest};${_corrupt_corpus}")
  list(GET _run 0 _seconds)
  list(GET _run 1 _corpus)
  if(_seconds GREATER 0)
    execute_process(COMMAND "${FUZZER}" -max_total_time=${_seconds} -max_len=4096 -timeout=60 -print_final_stats=1 "${_corpus}"
      WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _fuzz)
    if(NOT _fuzz EQUAL 0)
      message(FATAL_ERROR "core_fuzz: found a failing input (exit ${_fuzz}); it is in ${_dir}")
    endif()
  endif()
endforeach()
