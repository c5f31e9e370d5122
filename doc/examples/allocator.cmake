# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# The examples quoted by doc/allocator.md (issue 4), included from doc/examples/CMakeLists.txt:
# each is built and run as a test (label `examples`; it exits non-zero when what it shows did
# not happen), and examples_quoted_allocator checks that doc/allocator.md quotes each as it is.
set(ALLOCPLUS_ALLOCATOR_EXAMPLES
  allocator_vector.cpp
  allocator_command.cpp
  allocator_burst.cpp
  allocator_heap.cpp
  allocator_traits.cpp)

foreach(_source IN LISTS ALLOCPLUS_ALLOCATOR_EXAMPLES)
  get_filename_component(_name "${_source}" NAME_WE)
  add_executable(example_${_name} "${CMAKE_CURRENT_LIST_DIR}/${_source}")
  target_link_libraries(example_${_name} PRIVATE allocplus::allocplus allocplus_build_flags)
  add_test(NAME example_${_name} COMMAND example_${_name})
  set_tests_properties(example_${_name} PROPERTIES LABELS examples TIMEOUT 120)
endforeach()

add_test(NAME examples_quoted_allocator
  COMMAND "${CMAKE_COMMAND}" "-DEXAMPLES_DIR=${CMAKE_CURRENT_LIST_DIR}"
          "-DDOC=${CMAKE_CURRENT_LIST_DIR}/../allocator.md" "-DFILES=${ALLOCPLUS_ALLOCATOR_EXAMPLES}"
          -P "${CMAKE_CURRENT_LIST_DIR}/check_quoted.cmake")
set_tests_properties(examples_quoted_allocator PROPERTIES LABELS examples)
