# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# The examples quoted by doc/allocator.md, included from doc/examples/CMakeLists.txt.
allocplus_doc_examples(PAGE allocator FILES
  allocator_vector.cpp
  allocator_command.cpp
  allocator_burst.cpp
  allocator_heap.cpp
  allocator_traits.cpp)
