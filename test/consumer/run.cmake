# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# Builds and runs the consumer project beside this file against allocplus, as a user would.
#
#   cmake -DALLOCPLUS_BINARY_DIR=<configured allocplus build>
#         [-DMODE=find_package|add_subdirectory|pkg_config|all] [-DALLOCPLUS_SOURCE_DIR=<source>]
#         [-DWORK_DIR=<scratch>] [-DGENERATOR=<generator>] [-DBOOST_DIR=<dir of BoostConfig.cmake>]
#         [-DHIDE_BOOST=OFF] [-DCMAKE_C_COMPILER=...] [-DCMAKE_CXX_COMPILER=...]
#         -P test/consumer/run.cmake
#
# find_package: installs ALLOCPLUS_BINARY_DIR to a scratch prefix and finds it there.
# add_subdirectory: adds ALLOCPLUS_SOURCE_DIR to the consumer's build.
# pkg_config: installs to a scratch prefix and compiles main.cpp with what
#   `pkg-config --cflags --libs allocplus` says (skipped, saying so, without pkg-config).
#
# In the first two, Boost is reachable only through its CMake package, as on a machine where
# Boost is not on the compiler's default include path: the consumer's compilers run with
# -nostdinc and their own default include directories given back one by one, except that a
# directory holding boost/ (/usr/include) is replaced by one of symlinks to everything in it but
# boost/; and Boost_DIR names a private copy of Boost's CMake package (BOOST_DIR, by default the
# one the allocplus build found) whose headers are a symlink to Boost's. So the consumer compiles
# only if allocplus::allocplus carries Boost's include directory. HIDE_BOOST=OFF skips the hiding.
#
# Any failure stops the script with FATAL_ERROR (a non-zero exit).
cmake_minimum_required(VERSION 3.20)

get_filename_component(_consumer_dir "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
if(NOT ALLOCPLUS_SOURCE_DIR)
  get_filename_component(ALLOCPLUS_SOURCE_DIR "${_consumer_dir}/../.." ABSOLUTE)
endif()
if(NOT MODE)
  set(MODE all)
endif()
if(NOT DEFINED HIDE_BOOST)
  set(HIDE_BOOST ON)
endif()
if(NOT WORK_DIR)
  if(ALLOCPLUS_BINARY_DIR)
    set(WORK_DIR "${ALLOCPLUS_BINARY_DIR}/consumer-test")
  else()
    set(WORK_DIR "${CMAKE_CURRENT_BINARY_DIR}/allocplus-consumer-test")
  endif()
endif()
if(NOT CMAKE_CXX_COMPILER)
  set(CMAKE_CXX_COMPILER c++)
endif()
if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER cc)
endif()

function(_run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "consumer: ${what} failed (${rc}):\n  ${cmd}\n${out}")
  endif()
endfunction()

# The value of <name> in the allocplus build's cache, or empty.
function(_allocplus_cache name out)
  set(value "")
  if(ALLOCPLUS_BINARY_DIR AND EXISTS "${ALLOCPLUS_BINARY_DIR}/CMakeCache.txt")
    file(STRINGS "${ALLOCPLUS_BINARY_DIR}/CMakeCache.txt" line REGEX "^${name}:[A-Z]+=")
    string(REGEX REPLACE "^[^=]*=" "" value "${line}")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# Copies Boost's CMake package (BoostConfig.cmake and boost_headers-config.cmake, which find the
# headers relative to themselves) under <dir>, with <dir>/include/boost a symlink to Boost's
# headers, and sets <out> to the copy's Boost_DIR.
function(_private_boost dir out)
  set(boost_dir "${BOOST_DIR}")
  if(NOT boost_dir)
    _allocplus_cache(Boost_DIR boost_dir)
  endif()
  if(NOT EXISTS "${boost_dir}/BoostConfig.cmake")
    message(FATAL_ERROR "consumer: no BoostConfig.cmake in '${boost_dir}': set BOOST_DIR, or "
      "ALLOCPLUS_BINARY_DIR to a build that found Boost through its package")
  endif()
  get_filename_component(package "${boost_dir}" NAME)            # Boost-1.81.0
  string(REGEX REPLACE "^Boost-" "" version "${package}")
  get_filename_component(cmake_dir "${boost_dir}/.." REALPATH)
  set(headers_config "${cmake_dir}/boost_headers-${version}/boost_headers-config.cmake")
  if(NOT EXISTS "${headers_config}")
    message(FATAL_ERROR "consumer: no ${headers_config}")
  endif()
  # Where boost_headers-config.cmake looks for the headers, relative to the directory of packages.
  file(STRINGS "${headers_config}" line REGEX "_BOOST_INCLUDEDIR \"\\\${_BOOST_CMAKEDIR}/")
  if(NOT line MATCHES "_BOOST_CMAKEDIR}/([./]*)include/?\"")
    message(FATAL_ERROR "consumer: cannot tell where ${headers_config} finds the headers")
  endif()
  get_filename_component(prefix "${cmake_dir}/${CMAKE_MATCH_1}" ABSOLUTE)
  if(NOT EXISTS "${prefix}/include/boost/config.hpp")
    message(FATAL_ERROR "consumer: Boost's package points at ${prefix}/include, without boost/")
  endif()
  file(RELATIVE_PATH cmake_rel "${prefix}" "${cmake_dir}")          # lib/x86_64-linux-gnu/cmake
  file(COPY "${cmake_dir}/${package}" "${cmake_dir}/boost_headers-${version}"
    DESTINATION "${dir}/${cmake_rel}")
  file(MAKE_DIRECTORY "${dir}/include")
  file(CREATE_LINK "${prefix}/include/boost" "${dir}/include/boost" SYMBOLIC)
  set(${out} "${dir}/${cmake_rel}/${package}" PARENT_SCOPE)
endfunction()

# Sets <out> to the flags that make <compiler> (language <lang>: c or c++) search its default
# include directories with boost/ hidden in them, each such directory replaced by symlinks under
# <dir>; empty when no default directory holds boost/.
function(_hidden_boost_flags lang compiler dir out)
  execute_process(COMMAND "${compiler}" -x${lang} -E -v -
    INPUT_FILE /dev/null RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
  set(list_re "#include <\\.\\.\\.> search starts here:\n(.*)\nEnd of search list")
  if(NOT rc EQUAL 0 OR NOT text MATCHES "${list_re}")
    message(FATAL_ERROR "consumer: cannot read the include directories of ${compiler}:\n${text}")
  endif()
  string(REPLACE "\n" ";" defaults "${CMAKE_MATCH_1}")
  set(flags -nostdinc)
  set(hidden OFF)
  set(n 0)
  foreach(entry IN LISTS defaults)
    string(STRIP "${entry}" entry)
    if(entry MATCHES " ")
      message(FATAL_ERROR "consumer: include directory '${entry}' has a space")
    endif()
    if(IS_DIRECTORY "${entry}/boost")
      set(copy "${dir}/${n}")
      math(EXPR n "${n} + 1")
      file(REMOVE_RECURSE "${copy}")
      file(MAKE_DIRECTORY "${copy}")
      file(GLOB children RELATIVE "${entry}" LIST_DIRECTORIES true "${entry}/*")
      foreach(child IN LISTS children)
        if(NOT child STREQUAL "boost")
          file(CREATE_LINK "${entry}/${child}" "${copy}/${child}" SYMBOLIC)
        endif()
      endforeach()
      set(entry "${copy}")
      set(hidden ON)
    endif()
    list(APPEND flags -isystem "${entry}")
  endforeach()
  if(NOT hidden)
    set(flags "")
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# Checks that the flags hide Boost and nothing else: the standard library, the C library and
# pthread.h are found, boost/config.hpp is not.
function(_check_hidden dir flags)
  file(WRITE "${dir}/probe_std.cpp" "#include <cstdlib>\n#include <vector>\n#include <pthread.h>\n")
  file(WRITE "${dir}/probe_boost.cpp" "#include <boost/config.hpp>\n")
  _run("compiling the standard headers with Boost hidden"
    "${CMAKE_CXX_COMPILER}" ${flags} -std=c++17 -fsyntax-only "${dir}/probe_std.cpp")
  execute_process(COMMAND "${CMAKE_CXX_COMPILER}" ${flags} -fsyntax-only "${dir}/probe_boost.cpp"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    message(FATAL_ERROR "consumer: boost/config.hpp is still found with ${flags}")
  endif()
endfunction()

# Installs ALLOCPLUS_BINARY_DIR under <dir>/prefix for `mode` and sets <out_var> to that prefix.
function(_install_allocplus mode dir out_var)
  if(NOT ALLOCPLUS_BINARY_DIR)
    message(FATAL_ERROR "consumer: ${mode} needs -DALLOCPLUS_BINARY_DIR=<allocplus build>")
  endif()
  _run("install" "${CMAKE_COMMAND}" --install "${ALLOCPLUS_BINARY_DIR}" --prefix "${dir}/prefix")
  set(${out_var} "${dir}/prefix" PARENT_SCOPE)
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

  _private_boost("${dir}/boost" boost_dir)
  list(APPEND args "-DBoost_DIR=${boost_dir}")
  if(HIDE_BOOST)
    _hidden_boost_flags(c++ "${CMAKE_CXX_COMPILER}" "${dir}/include-cxx" cxx_flags)
    _hidden_boost_flags(c "${CMAKE_C_COMPILER}" "${dir}/include-c" c_flags)
    if(cxx_flags)
      _check_hidden("${dir}" "${cxx_flags}")
    endif()
    string(REPLACE ";" " " cxx_flags "${cxx_flags}")
    string(REPLACE ";" " " c_flags "${c_flags}")
    list(APPEND args "-DCMAKE_CXX_FLAGS=${cxx_flags}" "-DCMAKE_C_FLAGS=${c_flags}")
  endif()

  if(mode STREQUAL "find_package")
    _install_allocplus(find_package "${dir}" prefix)
    list(APPEND args "-DCMAKE_PREFIX_PATH=${prefix}")
  else()
    list(APPEND args "-DALLOCPLUS_SOURCE_DIR=${ALLOCPLUS_SOURCE_DIR}")
  endif()

  _run("configure (${mode})" "${CMAKE_COMMAND}" ${args})
  # The packages must come from the scratch prefix and the private copy of Boost's, not from
  # copies installed elsewhere.
  file(STRINGS "${dir}/build/CMakeCache.txt" found REGEX "^(allocplus|Boost|boost_headers)_DIR:")
  if(mode STREQUAL "find_package")
    string(FIND "${found}" "allocplus_DIR:PATH=${prefix}/" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "consumer: allocplus was found outside ${prefix}: ${found}")
    endif()
  endif()
  string(FIND "${found}" "boost_headers_DIR:PATH=${dir}/boost/" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "consumer: Boost's headers were found outside ${dir}/boost: ${found}")
  endif()
  _run("build (${mode})" "${CMAKE_COMMAND}" --build "${dir}/build")
  _run("run (${mode})" "${dir}/build/consumer")
  if(mode STREQUAL "add_subdirectory")
    # The consumer turned allocplus's install rules off: its install tree holds its program only.
    _run("install (${mode})"
      "${CMAKE_COMMAND}" --install "${dir}/build" --prefix "${dir}/installed")
    file(GLOB_RECURSE installed RELATIVE "${dir}/installed" "${dir}/installed/*")
    if(NOT installed MATCHES "consumer" OR installed MATCHES "allocplus")
      message(FATAL_ERROR "consumer: with ALLOCPLUS_INSTALL off, the install tree holds: "
        "${installed}")
    endif()
  endif()
  message(STATUS "consumer (${mode}): ok")
endfunction()

# The installed pkg-config file: its flags alone compile and link main.cpp (C++17 is the user's
# to ask for, as with any library's .pc file).
function(_consumer_pkg_config)
  set(dir "${WORK_DIR}/pkg_config")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  find_program(pkg_config NAMES pkg-config pkgconf)
  if(NOT pkg_config)
    message(STATUS "consumer: SKIPPED: neither pkg-config nor pkgconf is installed")
    return()
  endif()
  _install_allocplus(pkg_config "${dir}" prefix)
  file(GLOB_RECURSE pc_files "${prefix}/*/allocplus.pc")
  if(NOT pc_files)
    message(FATAL_ERROR "consumer: no allocplus.pc was installed under ${prefix}")
  endif()
  get_filename_component(pc_dir "${pc_files}" DIRECTORY)
  set(env "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${pc_dir}")
  foreach(what cflags libs)
    execute_process(COMMAND ${env} "${pkg_config}" --${what} allocplus
      RESULT_VARIABLE rc OUTPUT_VARIABLE ${what} ERROR_VARIABLE err
      OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "consumer: pkg-config --${what} allocplus failed (${rc}): ${err}")
    endif()
    separate_arguments(${what} UNIX_COMMAND "${${what}}")
  endforeach()
  # The include directory it names is the installed one (not a copy elsewhere on the machine).
  get_filename_component(installed "${prefix}/include" REALPATH)
  set(named OFF)
  foreach(flag IN LISTS cflags)
    if(flag MATCHES "^-I(.+)$")
      get_filename_component(include "${CMAKE_MATCH_1}" REALPATH)
      if(include STREQUAL installed)
        set(named ON)
      endif()
    endif()
  endforeach()
  if(NOT named)
    message(FATAL_ERROR "consumer: pkg-config --cflags allocplus does not name ${installed}: "
      "${cflags}")
  endif()
  _run("compile with pkg-config's flags" "${CMAKE_CXX_COMPILER}" -std=c++17 -Wall -Wextra -Werror
    ${cflags} "${_consumer_dir}/main.cpp" -o "${dir}/consumer" ${libs})
  _run("run (pkg_config)" "${dir}/consumer")
  message(STATUS "consumer (pkg_config): ok (cflags: ${cflags}; libs: ${libs})")
endfunction()

if(MODE STREQUAL "all")
  _consumer(find_package)
  _consumer(add_subdirectory)
  _consumer_pkg_config()
elseif(MODE MATCHES "^(find_package|add_subdirectory)$")
  _consumer(${MODE})
elseif(MODE STREQUAL "pkg_config")
  _consumer_pkg_config()
else()
  message(FATAL_ERROR "consumer: unknown MODE '${MODE}'")
endif()
