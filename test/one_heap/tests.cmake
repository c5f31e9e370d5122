# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# One heap per process, whatever the build: shared libraries, mixed C and C++ programs, checked
# and unchecked units, fork; misuse reports; ASan and valgrind seeing our blocks as malloc's.

# A shared library with hidden visibility and its own copy of the header-only core.
add_library(allocplus_one_heap_lib SHARED one_heap/shared_lib.cpp)
target_link_libraries(allocplus_one_heap_lib PRIVATE allocplus::allocplus allocplus_build_flags)
set_target_properties(allocplus_one_heap_lib PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
allocplus_add_test(one_heap_shared_library_test SOURCES one_heap/shared_library_test.cpp
                   LABELS unit LIBRARIES allocplus_one_heap_lib)

# C units over the extern "C" core compiled once (allocplus_core_c), this C++ unit header-only.
add_library(allocplus_one_heap_c_side STATIC one_heap/c_side.c)
target_link_libraries(allocplus_one_heap_c_side PRIVATE allocplus::allocplus allocplus_build_flags)
set_target_properties(allocplus_one_heap_c_side PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
allocplus_add_test(one_heap_mixed_c_test SOURCES one_heap/mixed_c_test.cpp
                   LABELS unit LIBRARIES allocplus_one_heap_c_side allocplus_core_c)

allocplus_add_test(one_heap_checked_mix_test
                   SOURCES one_heap/checked_mix_test.cpp one_heap/checked_unit.cpp one_heap/unchecked_unit.cpp
                   LABELS unit)
set_source_files_properties(one_heap/checked_unit.cpp PROPERTIES COMPILE_DEFINITIONS BOOST_ALLOCPLUS_CHECKED=2)
set_source_files_properties(one_heap/unchecked_unit.cpp PROPERTIES COMPILE_DEFINITIONS BOOST_ALLOCPLUS_CHECKED=0)

# Misuse reports at each checking level: 2 (expensive), 1 (the default checked level) and 0 (release).
allocplus_add_test(one_heap_diagnostics_test SOURCES one_heap/diagnostics_test.cpp LABELS unit
                   DEFINITIONS BOOST_ALLOCPLUS_CHECKED=2)
# What each checked level catches, and what only the expensive level catches.
allocplus_add_test(one_heap_checked_level1_test SOURCES one_heap/checked_levels_test.cpp LABELS unit
                   DEFINITIONS BOOST_ALLOCPLUS_CHECKED=1)
allocplus_add_test(one_heap_checked_level2_test SOURCES one_heap/checked_levels_test.cpp LABELS unit
                   DEFINITIONS BOOST_ALLOCPLUS_CHECKED=2)
allocplus_add_test(one_heap_diagnostics_level1_test SOURCES one_heap/diagnostics_test.cpp LABELS unit
                   DEFINITIONS BOOST_ALLOCPLUS_CHECKED=1)
allocplus_add_test(one_heap_diagnostics_release_test SOURCES one_heap/diagnostics_test.cpp LABELS unit
                   DEFINITIONS BOOST_ALLOCPLUS_CHECKED=0)
allocplus_add_test(one_heap_fork_test SOURCES one_heap/fork_test.cpp LABELS unit)

# ASan must report a bug in a block of ours as it does for malloc's (ASan builds only).
if(ALLOCPLUS_SANITIZE STREQUAL "address")
  add_executable(one_heap_asan_victim one_heap/asan_victim.cpp)
  target_link_libraries(one_heap_asan_victim PRIVATE allocplus::allocplus allocplus_build_flags)
  foreach(_mode IN ITEMS overrun use_after_free burst_overrun)
    add_test(NAME one_heap_asan_reports_${_mode} COMMAND one_heap_asan_victim ${_mode})
    set_tests_properties(one_heap_asan_reports_${_mode} PROPERTIES LABELS "core;unit"
      PASS_REGULAR_EXPRESSION "ERROR: AddressSanitizer: use-after-poison")
  endforeach()
  add_test(NAME one_heap_asan_clean COMMAND one_heap_asan_victim clean)
  set_tests_properties(one_heap_asan_clean PROPERTIES LABELS "core;unit")
endif()

# valgrind must report a leaked block of ours, and nothing in a program without bugs.
find_program(ALLOCPLUS_VALGRIND valgrind)
if(ALLOCPLUS_VALGRIND AND ALLOCPLUS_SANITIZE STREQUAL "")
  add_executable(one_heap_leaky one_heap/leaky.cpp)
  target_link_libraries(one_heap_leaky PRIVATE allocplus::allocplus allocplus_build_flags)
  target_compile_definitions(one_heap_leaky PRIVATE BOOST_ALLOCPLUS_CHECKED=1 BOOST_ALLOCPLUS_VALGRIND=1)
  add_test(NAME one_heap_valgrind_reports_leak
    COMMAND ${ALLOCPLUS_VALGRIND} --leak-check=full --error-exitcode=42 $<TARGET_FILE:one_heap_leaky> leak)
  set_tests_properties(one_heap_valgrind_reports_leak PROPERTIES LABELS "core;unit"
    PASS_REGULAR_EXPRESSION "lost: 100 bytes in 1 blocks")
  add_test(NAME one_heap_valgrind_clean
    COMMAND ${ALLOCPLUS_VALGRIND} --leak-check=full --error-exitcode=42 $<TARGET_FILE:one_heap_leaky> clean)
  set_tests_properties(one_heap_valgrind_clean PROPERTIES LABELS "core;unit")
endif()

# The integrity checks of every build: in the release level and the checked level.
allocplus_add_test(one_heap_integrity_test SOURCES one_heap/integrity_test.cpp LABELS core unit
                   DEFINITIONS BOOST_ALLOCPLUS_CHECKED=0)
allocplus_add_test(one_heap_integrity_checked_test SOURCES one_heap/integrity_test.cpp LABELS core unit
                   DEFINITIONS BOOST_ALLOCPLUS_CHECKED=2)

# Heaps over a buffer of yours: abandoned without ba_destroy_heap, or over memory shared with
# other processes (process-shared lock); other libraries' fork handlers using the heaps.
allocplus_add_test(one_heap_abandoned_heap_test SOURCES one_heap/abandoned_heap_test.cpp LABELS unit)
allocplus_add_test(one_heap_shared_heap_test SOURCES one_heap/shared_heap_test.cpp LABELS unit)
allocplus_add_test(one_heap_fork_handlers_test SOURCES one_heap/fork_handlers_test.cpp LABELS unit)
