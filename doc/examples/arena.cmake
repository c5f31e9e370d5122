# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# The examples quoted by doc/arena.md, included from doc/examples/CMakeLists.txt.
allocplus_doc_examples(PAGE arena FILES
  arena_stack_buffer.cpp
  arena_growing.cpp)
