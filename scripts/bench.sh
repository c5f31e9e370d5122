#!/usr/bin/env bash
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# Builds and runs the benchmark suite and prints the comparison with glibc malloc, std::allocator
# and the peer mallocs (the README's benchmark command):
#
#   scripts/bench.sh [bench/run.py options: --rounds N --filter REGEX --out DIR --min-time S ...]
#
# Installs the missing Debian packages first when run as root (else prints the apt-get line and
# stops), builds an optimized tree in build/bench (ALLOCPLUS_BENCH_BUILD_DIR overrides), then
# runs bench/run.py, which writes bench/results/<date>-<host>.{json,md}. Time targets marked
# same_process are also measured with ours and the peer interleaved in one process
# (--interleave 20; pass --interleave 0 to skip).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ALLOCPLUS_BENCH_BUILD_DIR:-$root/build/bench}"

if [ -f "$root/scripts/setup-deps.sh" ]; then
  # Exits non-zero (after printing the apt-get line) when packages are missing and we are not root.
  bash "$root/scripts/setup-deps.sh" bench
fi

jobs="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"

cmake -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DALLOCPLUS_BUILD_BENCH=ON \
  -DALLOCPLUS_BUILD_TESTS=OFF \
  -DALLOCPLUS_BUILD_EXAMPLES=OFF
cmake --build "$build" -j "$jobs"

# Debian's python3 is the one setup-deps.sh gave matplotlib (for the plots); another python3 first
# in PATH (pyenv, a venv) may lack it. The runner itself needs only the standard library.
python=python3
if [ -x /usr/bin/python3 ]; then python=/usr/bin/python3; fi
# The report names the command as it was typed, not with the options added here.
ALLOCPLUS_BENCH_COMMAND="scripts/bench.sh"
if [ "$#" -gt 0 ]; then ALLOCPLUS_BENCH_COMMAND+="$(printf ' %q' "$@")"; fi
export ALLOCPLUS_BENCH_COMMAND
exec "$python" "$root/bench/run.py" --build-dir "$build" --interleave 20 "$@"
