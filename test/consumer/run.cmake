# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# Builds and runs the consumer project beside this file against allocplus, as a user would.
#
#   cmake -DALLOCPLUS_BINARY_DIR=<configured allocplus build> [-DMODE=find_package|add_subdirectory|all]
#         [-DALLOCPLUS_SOURCE_DIR=<source>] [-DWORK_DIR=<scratch>] [-DGENERATOR=<generator>]
#         [-DCMAKE_C_COMPILER=...] [-DCMAKE_CXX_COMPILER=...] -P test/consumer/run.cmake
#
# find_package: installs ALLOCPLUS_BINARY_DIR to a scratch prefix and finds it there.
# add_subdirectory: adds ALLOCPLUS_SOURCE_DIR to the consumer's build.
# Any failure stops the script with FATAL_ERROR (a non-zero exit).
cmake_minimum_required(VERSION 3.20)

get_filename_component(_consumer_dir "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
if(NOT ALLOCPLUS_SOURCE_DIR)
  get_filename_component(ALLOCPLUS_SOURCE_DIR "${_consumer_dir}/../.." ABSOLUTE)
endif()
if(NOT MODE)
  set(MODE all)
endif()
if(NOT WORK_DIR)
  if(ALLOCPLUS_BINARY_DIR)
    set(WORK_DIR "${ALLOCPLUS_BINARY_DIR}/consumer-test")
  else()
    set(WORK_DIR "${CMAKE_CURRENT_BINARY_DIR}/allocplus-consumer-test")
  endif()
endif()

function(_run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "consumer: ${what} failed (${rc}):\n  ${cmd}\n${out}")
  endif()
endfunction()

function(_consumer mode)
  set(dir "${WORK_DIR}/${mode}")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  set(args -S "${_consumer_dir}" -B "${dir}/build" -DALLOCPLUS_CONSUMER_MODE=${mode}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  if(GENERATOR)
    list(APPEND args -G "${GENERATOR}")
  endif()
  foreach(var CMAKE_MAKE_PROGRAM CMAKE_C_COMPILER CMAKE_CXX_COMPILER)
    if(${var})
      list(APPEND args "-D${var}=${${var}}")
    endif()
  endforeach()

  if(mode STREQUAL "find_package")
    if(NOT ALLOCPLUS_BINARY_DIR)
      message(FATAL_ERROR "consumer: find_package needs -DALLOCPLUS_BINARY_DIR=<allocplus build>")
    endif()
    set(prefix "${dir}/prefix")
    _run("install" "${CMAKE_COMMAND}" --install "${ALLOCPLUS_BINARY_DIR}" --prefix "${prefix}")
    list(APPEND args "-DCMAKE_PREFIX_PATH=${prefix}")
  else()
    list(APPEND args "-DALLOCPLUS_SOURCE_DIR=${ALLOCPLUS_SOURCE_DIR}")
  endif()

  _run("configure (${mode})" "${CMAKE_COMMAND}" ${args})
  if(mode STREQUAL "find_package")
    # The package must come from the scratch prefix, not from a copy installed elsewhere.
    file(STRINGS "${dir}/build/CMakeCache.txt" found REGEX "^allocplus_DIR:")
    string(FIND "${found}" "${prefix}/" at)
    if(NOT at GREATER -1)
      message(FATAL_ERROR "consumer: allocplus was found outside ${prefix}: ${found}")
    endif()
  endif()
  _run("build (${mode})" "${CMAKE_COMMAND}" --build "${dir}/build")
  _run("run (${mode})" "${dir}/build/consumer")
  message(STATUS "consumer (${mode}): ok")
endfunction()

if(MODE STREQUAL "all")
  _consumer(find_package)
  _consumer(add_subdirectory)
elseif(MODE MATCHES "^(find_package|add_subdirectory)$")
  _consumer(${MODE})
else()
  message(FATAL_ERROR "consumer: unknown MODE '${MODE}'")
endif()
