# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# cmake -DEXAMPLES_DIR=<dir> -DDOC=<file.md> -DFILES=a.cpp;b.c -P check_quoted.cmake
# Fails unless DOC contains each example file verbatim from its first line of code on (the
# comment at the top, license and summary, is left to the prose), so the docs cannot drift from
# the code that CTest builds and runs.
cmake_minimum_required(VERSION 3.20)
file(READ "${DOC}" doc)
set(stale "")
foreach(f IN LISTS FILES)
  file(READ "${EXAMPLES_DIR}/${f}" body)
  if(body MATCHES "^/\\*")
    string(FIND "${body}" "*/" end)
    math(EXPR end "${end} + 2")
    string(SUBSTRING "${body}" ${end} -1 body)
  else()
    while(body MATCHES "^//[^\n]*\n")
      string(REGEX REPLACE "^//[^\n]*\n" "" body "${body}")
    endwhile()
  endif()
  string(REGEX REPLACE "^\n+" "" body "${body}")
  string(FIND "${doc}" "${body}" at)
  if(at EQUAL -1)
    list(APPEND stale "${f}")
  endif()
endforeach()
if(stale)
  message(FATAL_ERROR "${DOC} does not quote the current text of: ${stale}")
endif()
