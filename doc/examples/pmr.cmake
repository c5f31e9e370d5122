# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# The examples quoted by doc/memory_resource.md, included from doc/examples/CMakeLists.txt.
allocplus_doc_examples(PAGE memory_resource FILES
  pmr_pool_resources.cpp
  pmr_heap_resources.cpp
  pmr_arena_resource.cpp
  pmr_adaptive_resources.cpp)
