#!/usr/bin/env bash
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# scripts/setup-deps.sh test|bench
#
# Makes sure the Debian packages that `scripts/test.sh` (test) or `scripts/bench.sh` (bench) need
# are installed. Quiet when they all are. Otherwise, as root, installs the missing ones with apt-get;
# as anyone else, prints the apt-get line to run and exits 2.
set -euo pipefail

test_packages=(
  cmake g++ clang make python3
  libboost1.81-dev libboost-test1.81-dev libboost-container1.81-dev
  libclang-rt-14-dev valgrind pkg-config
)
bench_packages=(
  "${test_packages[@]}"
  libbenchmark-dev libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0 libfoonathan-memory-dev
  python3-matplotlib
)

mode=${1:-}
case "$mode" in
  test)  packages=("${test_packages[@]}") ;;
  bench) packages=("${bench_packages[@]}") ;;
  *)
    echo "usage: $0 test|bench" >&2
    exit 64
    ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "allocplus: dpkg-query not found; this script knows Debian only. Install the equivalents of:" >&2
  echo "  ${packages[*]}" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  # "install ok installed" is the only state in which the package's files are all there.
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ "$(id -u)" -eq 0 ]]; then
  echo "allocplus: installing missing Debian packages: ${missing[*]}" >&2
  apt-get update
  # "libboost1.74-dev-" keeps Debian's default Boost out: its headers conflict with 1.81's, and
  # apt's resolver otherwise reaches for it while placing python3-matplotlib's dependencies
  # (seen: "libboost1.81-dev : Conflicts: libboost1.74-dev"), which fails the whole install.
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" libboost1.74-dev-
else
  echo "allocplus: missing Debian packages; run as root:" >&2
  echo "sudo apt-get install -y --no-install-recommends ${missing[*]} libboost1.74-dev-" >&2
  exit 2
fi
