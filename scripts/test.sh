#!/usr/bin/env bash
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#
# scripts/test.sh: builds and runs every test of allocplus, in up to eight phases. Two modes:
# *checked* builds leave NDEBUG undefined (BOOST_ALLOCPLUS_CHECKED=1: the constant-time checks);
# *release* builds define NDEBUG, as users ship (BOOST_ALLOCPLUS_CHECKED=0: the checks and the short
# paths of release builds). Tests that pin a level (2: the expensive checks) define BOOST_ALLOCPLUS_CHECKED themselves.
#   checked       build/test-checked       -O1 -g1, checked (as a debug build); the whole suite
#   release       build/test-release       -O2 -g1 with NDEBUG (release mode); the whole suite
#   asan          build/test-asan          clang, ASan + UBSan (ALLOCPLUS_SANITIZE=address), -O1 -g1,
#                                          checked; the whole suite (and so every test compiled by
#                                          Clang with -Werror)
#   tsan          build/test-tsan          TSan (ALLOCPLUS_SANITIZE=thread), release mode; the tests
#                                          labelled `thread`
#   tsan-checked  build/test-tsan-checked  the same, checked
#   fuzz          build/test-fuzz          clang, libFuzzer + ASan + UBSan, release mode: the core's
#                                          fuzz target replays its corpus and its crash regressions,
#                                          then fuzzes for ALLOCPLUS_FUZZ_SECONDS (default 120)
#   fuzz-checked  build/test-fuzz-checked  the same, checked
#   bench         build/test-bench         the benchmark suite built as scripts/bench.sh builds it,
#                                          and every benchmark run once (bench/run.py --quick), so
#                                          that none rots; each benchmark that runs counts as
#                                          passed; no figure is checked
# and ends with one line `N passed, M failed` (totals over the phases). Exits non-zero when a test
# failed or a configure or build failed (each of which counts as one failure).
#
# Environment:
#   ALLOCPLUS_TEST_PHASES  the phases to run, in order
#                          (default "checked release asan tsan tsan-checked fuzz fuzz-checked bench")
#   ALLOCPLUS_TEST_CXX / ALLOCPLUS_TEST_CC  the compilers of the checked, release, tsan and bench
#                          phases (default g++ / gcc); asan and fuzz use clang
#   ALLOCPLUS_TEST_JOBS    parallel compile jobs (default: nproc)
# Logs: build/test-<phase>/{configure,build,ctest}.log
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

phases=${ALLOCPLUS_TEST_PHASES:-checked release asan tsan tsan-checked fuzz fuzz-checked bench}
# The bench phase needs the benchmark library and the peers it runs; the others need less.
if [[ " $phases " == *" bench "* ]]; then
  bash scripts/setup-deps.sh bench
else
  bash scripts/setup-deps.sh test
fi
cxx=${ALLOCPLUS_TEST_CXX:-g++}
cc=${ALLOCPLUS_TEST_CC:-gcc}
jobs=${ALLOCPLUS_TEST_JOBS:-$(nproc)}

# Sanitizer reports must fail the test that triggered them; keep a caller's settings if any.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-second_deadlock_stack=1}

# The default RelWithDebInfo flags define NDEBUG; each phase says whether it wants it (run_phase).
configure_args=(
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
  "-DCMAKE_CXX_COMPILER=$cxx"
  "-DCMAKE_C_COMPILER=$cc"
  -DALLOCPLUS_BUILD_TESTS=ON
  -DALLOCPLUS_BUILD_EXAMPLES=ON
  -DALLOCPLUS_BUILD_BENCH=OFF
)
# Debian 12 also ships Boost 1.74; the project is tested against 1.81 only.
boost_dir=/usr/lib/x86_64-linux-gnu/cmake/Boost-1.81.0
if [[ -d "$boost_dir" ]]; then
  configure_args+=("-DBoost_DIR=$boost_dir")
fi

total_passed=0
total_failed=0
status=0

say() { printf 'allocplus[%s]: %s\n' "$1" "$2"; }

# Prints the names of the tests of build dir $1 that carry label $2. The test suite names each
# test after the program (the target) it runs; run_phase checks that before trusting it.
tests_with_label() {
  ctest --test-dir "$1" -L "$2" --show-only=json-v1 2>/dev/null | python3 -c '
import json, sys
print(" ".join(sorted({t["name"] for t in json.load(sys.stdin).get("tests", [])})))
' || true
}

# Succeeds when every test of build dir $1 with label $2 has a program to run (ctest leaves out
# the command of a test whose program does not exist).
tests_runnable() {
  ctest --test-dir "$1" -L "$2" --show-only=json-v1 2>/dev/null | python3 -c '
import json, os, sys
tests = json.load(sys.stdin).get("tests", [])
sys.exit(0 if all(t.get("command") and os.path.exists(t["command"][0]) for t in tests) else 1)
'
}

# Counts one failure that is not a test (configure, build, ctest itself) and shows its log.
phase_broken() {
  local phase=$1 what=$2 log=$3
  say "$phase" "$what failed; the end of $log:"
  tail -n 150 "$log" || true
  total_failed=$((total_failed + 1))
  status=1
}

# The bench phase: an optimized build of the benchmarks, then each of them run once.
run_bench_phase() {
  local phase=bench dir="build/test-bench" start=$SECONDS
  mkdir -p "$dir"
  say "$phase" "configuring $dir"
  local args=(-DCMAKE_BUILD_TYPE=Release -DALLOCPLUS_BUILD_BENCH=ON -DALLOCPLUS_BUILD_TESTS=OFF
              -DALLOCPLUS_BUILD_EXAMPLES=OFF "-DCMAKE_CXX_COMPILER=$cxx" "-DCMAKE_C_COMPILER=$cc")
  if [[ -d "$boost_dir" ]]; then
    args+=("-DBoost_DIR=$boost_dir")
  fi
  if ! cmake -S . -B "$dir" "${args[@]}" >"$dir/configure.log" 2>&1; then
    phase_broken "$phase" "configure" "$dir/configure.log"
    return 0
  fi
  say "$phase" "building the benchmarks (-j$jobs)"
  if ! cmake --build "$dir" -j"$jobs" >"$dir/build.log" 2>&1; then
    phase_broken "$phase" "build" "$dir/build.log"
    return 0
  fi
  say "$phase" "running every benchmark once (bench/run.py --quick)"
  local rc=0
  python3 bench/run.py --build-dir "$dir" --quick --out "$dir/results" >"$dir/run.log" 2>&1 || rc=$?
  local line ran failed
  line=$(grep -Eo 'quick run: [0-9]+ benchmarks ran, [0-9]+ failed' "$dir/run.log" | tail -n 1 || true)
  if [[ -z "$line" ]]; then
    phase_broken "$phase" "bench/run.py --quick (no summary line, exit $rc)" "$dir/run.log"
    return 0
  fi
  ran=$(awk '{print $3}' <<<"$line")
  failed=$(awk '{print $(NF-1)}' <<<"$line")
  if ((failed > 0)); then
    grep '^FAILED' "$dir/run.log" || true
    status=1
  fi
  total_passed=$((total_passed + ran))
  total_failed=$((total_failed + failed))
  say "$phase" "$ran passed, $failed failed in $((SECONDS - start)) s"
}

run_phase() {
  local phase=$1 dir="build/test-$1" sanitize="" label="" ndebug=0 start=$SECONDS extra=() optimize=2
  case "$phase" in
    bench) run_bench_phase; return 0 ;;
    # The checked mode is what a debug build runs: -O1 builds the suite in half the time of -O2
    # (GCC, vector_test.cpp at -g1: 43 s against 75 s); the release phase keeps -O2, as users ship.
    checked) optimize=1 ;;
    release) ndebug=1 ;;
    # Clang: GCC 12 builds the suite with ASan + UBSan in three times Clang 14's time (45 minutes
    # against 15 on CI's two cores; test/list/list_test.cpp at -O2 -g: 356 s against 62 s).
    asan)
      sanitize=address; optimize=1
      extra=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang)
      ;;
    tsan) sanitize=thread; label=thread; ndebug=1 ;;
    tsan-checked) sanitize=thread; label=thread ;;
    fuzz|fuzz-checked)
      sanitize=address; label=fuzz
      if [[ $phase == fuzz ]]; then ndebug=1; fi
      extra=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DALLOCPLUS_BUILD_FUZZ=ON
             "-DALLOCPLUS_FUZZ_SECONDS=${ALLOCPLUS_FUZZ_SECONDS:-120}")
      ;;
    *)
      say "$phase" "unknown phase (known: checked release asan tsan tsan-checked fuzz fuzz-checked bench)"
      total_failed=$((total_failed + 1)); status=1
      return 0
      ;;
  esac
  # Checked phases drop the NDEBUG of CMake's RelWithDebInfo flags; release phases keep it.
  # Line tables (-g1) are all a report needs; full debug information made the builds a third
  # slower (GCC, test/vector/vector_test.cpp: 104 s at -O2 -g, 75 s at -O2 -g1).
  local mode_flags="-O$optimize -g1" mode=checked
  if ((ndebug)); then
    mode_flags+=" -DNDEBUG" mode=release
  fi
  extra+=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$mode_flags" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$mode_flags")
  mkdir -p "$dir"

  say "$phase" "configuring $dir ($mode mode)"
  if ! cmake -S . -B "$dir" "${configure_args[@]}" "${extra[@]}" "-DALLOCPLUS_SANITIZE=$sanitize" \
       >"$dir/configure.log" 2>&1; then
    phase_broken "$phase" "configure" "$dir/configure.log"
    return 0
  fi

  # With a label, build only the programs of those tests (a TSan build of everything costs
  # minutes); fall back to everything when the names are not targets or leave a test unrunnable.
  local targets=() build_rc=0
  if [[ -n "$label" ]]; then
    read -r -a targets <<<"$(tests_with_label "$dir" "$label")"
    if ((${#targets[@]} == 0)) && ctest --test-dir "$dir" -N -L "$label" | grep -q "Total Tests: 0"; then
      say "$phase" "no test is labelled $label"
      echo "No tests were found" >"$dir/ctest.log"
      return 0
    fi
  fi
  if ((${#targets[@]} > 0)); then
    say "$phase" "building ${targets[*]} (-j$jobs)"
    cmake --build "$dir" -j"$jobs" --target "${targets[@]}" >"$dir/build.log" 2>&1 || build_rc=$?
    if ((build_rc != 0)) && grep -q "No rule to make target" "$dir/build.log"; then
      build_rc=0
      targets=()
    elif ((build_rc == 0)) && ! tests_runnable "$dir" "$label"; then
      targets=()
    fi
  fi
  if ((build_rc == 0 && ${#targets[@]} == 0)); then
    say "$phase" "building everything (-j$jobs)"
    cmake --build "$dir" -j"$jobs" >"$dir/build.log" 2>&1 || build_rc=$?
  fi
  if ((build_rc != 0)); then
    phase_broken "$phase" "build" "$dir/build.log"
    return 0
  fi

  say "$phase" "running ctest${label:+ -L $label}"
  local ctest_args=(--test-dir "$dir" --output-on-failure -j2 --timeout 1800)
  if [[ -n "$label" ]]; then
    ctest_args+=(-L "$label")
  fi
  local ctest_rc=0
  ctest "${ctest_args[@]}" 2>&1 | tee "$dir/ctest.log" || ctest_rc=$?

  local line failed total
  line=$(grep -Eo '[0-9]+ tests? failed out of [0-9]+' "$dir/ctest.log" | tail -n 1 || true)
  if [[ -n "$line" ]]; then
    failed=$(awk '{print $1}' <<<"$line")
    total=$(awk '{print $NF}' <<<"$line")
  elif grep -q "No tests were found" "$dir/ctest.log"; then
    failed=0
    total=0
  else
    phase_broken "$phase" "ctest (no summary line, exit $ctest_rc)" "$dir/ctest.log"
    return 0
  fi
  total_passed=$((total_passed + total - failed))
  total_failed=$((total_failed + failed))
  if ((failed > 0)); then
    status=1
  elif ((ctest_rc != 0)); then
    phase_broken "$phase" "ctest (exit $ctest_rc with no failed test)" "$dir/ctest.log"
  fi
  say "$phase" "$((total - failed)) passed, $failed failed in $((SECONDS - start)) s"
}

for phase in $phases; do
  run_phase "$phase"
done

echo "${total_passed} passed, ${total_failed} failed"
exit "$status"
