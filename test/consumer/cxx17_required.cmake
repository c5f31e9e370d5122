# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# cmake -DCXX=<compiler> -DINCLUDE_DIR=<allocplus include/> [-DBOOST_INCLUDE_DIRS=<dir>|<dir>...]
#       -DWORK_DIR=<scratch> -P cxx17_required.cmake
#
# Every public C++ header (include/boost/allocplus/*.hpp), compiled alone as C++14, fails with
# detail/config.hpp's #error, and that is the first error the compiler reports; as C++17 they all
# compile (so a broken command line cannot pass for a refusal).
cmake_minimum_required(VERSION 3.20)
set(message "allocplus needs C++17 or later")
string(REPLACE "|" ";" boost_dirs "${BOOST_INCLUDE_DIRS}")
set(includes "-I${INCLUDE_DIR}")
foreach(dir IN LISTS boost_dirs)
  if(dir)
    list(APPEND includes "-idirafter" "${dir}")
  endif()
endforeach()
file(GLOB headers RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/boost/allocplus/*.hpp")
if(NOT headers)
  message(FATAL_ERROR "no public header under ${INCLUDE_DIR}/boost/allocplus")
endif()
file(MAKE_DIRECTORY "${WORK_DIR}")

set(all "")
foreach(header IN LISTS headers)
  string(APPEND all "#include <${header}>\n")
endforeach()
file(WRITE "${WORK_DIR}/all_headers.cpp" "${all}")
execute_process(COMMAND "${CXX}" -std=c++17 -Wall -Wextra -Werror -fsyntax-only ${includes}
    "${WORK_DIR}/all_headers.cpp"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the public headers do not compile as C++17:\n${out}")
endif()

set(failures "")
foreach(header IN LISTS headers)
  get_filename_component(name "${header}" NAME_WE)
  file(WRITE "${WORK_DIR}/${name}.cpp" "#include <${header}>\n")
  execute_process(COMMAND "${CXX}" -std=c++14 -fsyntax-only ${includes} "${WORK_DIR}/${name}.cpp"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  # The first line that reports an error (GCC and Clang both write "error:").
  string(REGEX MATCH "[^\n]*error:[^\n]*" first "${out}")
  string(FIND "${first}" "${message}" at)
  if(rc EQUAL 0)
    list(APPEND failures "${header} compiled as C++14")
  elseif(at EQUAL -1)
    list(APPEND failures "${header}: the first error is not \"${message}\":\n${out}")
  endif()
endforeach()
if(failures)
  string(REPLACE ";" "\n" failures "${failures}")
  message(FATAL_ERROR "${failures}")
endif()
list(LENGTH headers n)
message(STATUS "${n} public headers refuse C++14 with \"${message}\" first and compile as C++17")
