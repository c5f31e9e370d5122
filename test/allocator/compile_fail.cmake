# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# cmake -DCXX=<compiler> -DSOURCE=compile_fail.cpp -DINCLUDE_DIR=<include> -P compile_fail.cmake
# Case 0 must compile; each other case must fail with the message of its static_assert.
cmake_minimum_required(VERSION 3.20)
set(expected
  "1=Version must be 1 or 2"
  "2=may not remove allocate_new, expand_fwd and expand_bwd all together"
  "3=DisableMask applies to version-2 allocators only"
  "4=Version must be 1 or 2"
  "5=insert and emplace need a move-assignable T"
  "6=ba::vector<T, A>: T must not be const or volatile"
  "7=ba::list<T, A>: T must not be const or volatile"
  "8=ba::vector<T, A>: A::value_type must be T"
  "9=ba::list<T, A>: A::value_type must be T"
  "10=ba::list<T, A>: A::pointer must be T* (fancy pointers are not supported"
  "11=ba::vector<T, A>: A::pointer must be T* (fancy pointers are not supported"
  "12=ba::heap: a heap over a buffer needs at least 4096 bytes"
  "13=ba::vector<T, A>: T must not be const or volatile")
set(failures "")
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only "-I${INCLUDE_DIR}" -DCASE=0 "${SOURCE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "case 0 (valid arguments) does not compile:\n${out}")
endif()
foreach(entry IN LISTS expected)
  string(REGEX MATCH "^([0-9]+)=(.*)$" _ "${entry}")
  set(case "${CMAKE_MATCH_1}")
  set(message "${CMAKE_MATCH_2}")
  execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only "-I${INCLUDE_DIR}" -DCASE=${case} "${SOURCE}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    list(APPEND failures "case ${case} compiled")
  else()
    string(FIND "${out}" "${message}" at)
    if(at EQUAL -1)
      list(APPEND failures "case ${case} failed without \"${message}\":\n${out}")
    endif()
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "every invalid case was refused with its message")
