#!/usr/bin/env bash
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# A before/after measurement of the shared node pools in one process: the headers of a commit
# (base) and of the work tree (work) built into one program with std::allocator beside them
# (bench/ab/pool_churn_main.cpp), their rounds of seed 002's node churn taken in turn.
#
#   bench/ab/pool_churn_ab.sh BASE_COMMIT [THREADS=2] [ROUNDS=12] [list|set] [PRELOAD]
#
# PRELOAD: a malloc to put under std::allocator (for example
# /usr/lib/x86_64-linux-gnu/libmimalloc.so.2); ours use their own heaps either way. Runs on CPUs
# 0 and 1 (0 with one thread). Needs g++ and git.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
base=${1:?"usage: $0 BASE_COMMIT [THREADS] [ROUNDS] [list|set] [PRELOAD]"}
threads=${2:-2}
rounds=${3:-12}
kind=${4:-list}
preload=${5:-}
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
git -C "$root" archive "$base" include | tar -x -C "$dir"
flags=(-std=c++17 -O2 -DNDEBUG -Wall -Wextra -Werror)
g++ "${flags[@]}" -DALLOCPLUS_AB_BUILD=ab_base -I"$dir/include" -c "$root/bench/ab/pool_churn_build.cpp" -o "$dir/base.o"
g++ "${flags[@]}" -DALLOCPLUS_AB_BUILD=ab_work -I"$root/include" -c "$root/bench/ab/pool_churn_build.cpp" -o "$dir/work.o"
g++ "${flags[@]}" "$root/bench/ab/pool_churn_main.cpp" "$dir/base.o" "$dir/work.o" -o "$dir/pool_churn_ab" -lpthread
cpus=0,1
if [ "$threads" = 1 ]; then cpus=0; fi
echo "base $(git -C "$root" rev-parse --short "$base"), work tree $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- include || echo '+changes'); $threads thread(s), $rounds rounds, std::$kind<int>${preload:+, std::allocator over $(basename "$preload")}"
LD_PRELOAD="$preload" taskset -c "$cpus" "$dir/pool_churn_ab" "$threads" "$rounds" "$kind"
