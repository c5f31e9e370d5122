# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# cmake -DDOC=<file.md> -DHEADER=<header> -P check_documented.cmake
# Fails unless DOC mentions, as `name(`, every function HEADER declares with
# BOOST_ALLOCPLUS_CORE_API or BOOST_ALLOCPLUS_CORE_HELPER.
cmake_minimum_required(VERSION 3.20)
file(READ "${DOC}" doc)
file(READ "${HEADER}" header)
string(REGEX MATCHALL "BOOST_ALLOCPLUS_CORE_(API|HELPER)[^(;]*[ *](ba_[a-z_0-9]+)\\(" decls "${header}")
set(missing "")
set(count 0)
foreach(decl IN LISTS decls)
  string(REGEX REPLACE ".*[ *](ba_[a-z_0-9]+)\\($" "\\1" name "${decl}")
  math(EXPR count "${count} + 1")
  string(FIND "${doc}" "${name}(" at)
  if(at EQUAL -1)
    list(APPEND missing "${name}")
  endif()
endforeach()
if(count LESS 10)
  message(FATAL_ERROR "found only ${count} functions in ${HEADER}: has its form changed?")
endif()
if(missing)
  message(FATAL_ERROR "${DOC} does not document: ${missing}")
endif()
message(STATUS "${count} functions, all documented")
