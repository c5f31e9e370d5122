#!/usr/bin/env python3
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
"""What each checking level costs: the container and pool benchmarks built at
BOOST_ALLOCPLUS_CHECKED=0 (release), 1 (the default without NDEBUG) and 2 (the expensive checks),
each in its own build directory, run interleaved (every round runs each row's three builds one
after the other, in a new random order, a process each) and compared row by row: the median time of level 1 and of level 2 over the
median of release, with each level's spread ((max - min) / median over the rounds).

  python3 bench/checked_levels.py --build-root build --rounds 3 --out bench/results/DATE-checked-levels.md

--configure builds the three directories first (build-root/bench-level0, -level1, -level2).
"""
import argparse
import datetime
import json
import os
import random
import re
import statistics
import subprocess
import sys

from run import add_cpu_argument, benchmark_cpus, list_benchmarks, pin_to_cpu, pinning_words, regex_escape, two_thread_cpus

DEFAULT_FILTER = "/ba_"   # our allocators' rows

PROGRAMS = ["bench_seed000_vector", "bench_seed000_ba_vector", "bench_seed000_list",
            "bench_seed001_shared_ptr_lists", "bench_seed002_node_churn", "bench_seed003_private_pool",
            "bench_seed000_adaptive_pool", "bench_pmr_churn", "bench_seed004_arena_containers"]
LEVELS = [0, 1, 2]


def build_dir(root, level):
    return os.path.join(root, "bench-level%d" % level)


def configure_and_build(source, root, boost_dir):
    for level in LEVELS:
        d = build_dir(root, level)
        subprocess.run(["cmake", "-S", source, "-B", d, "-DBoost_DIR=" + boost_dir, "-DCMAKE_BUILD_TYPE=Release",
                        "-DALLOCPLUS_BUILD_BENCH=ON", "-DALLOCPLUS_BUILD_TESTS=OFF",
                        "-DCMAKE_CXX_FLAGS=-DBOOST_ALLOCPLUS_CHECKED=%d" % level], check=True)
        subprocess.run(["cmake", "--build", d, "-j2", "--target"] + PROGRAMS, check=True)


def run_once(exe, pattern, min_time):
    """Returns: {benchmark name: ns} of one run of exe: a row's time per operation (its time_per_op
    counter, which for a row that times one phase of an iteration is that phase alone), else the
    real time of an iteration."""
    out = subprocess.run([exe, "--benchmark_filter=" + pattern, "--benchmark_format=json",
                          "--benchmark_min_time=%g" % min_time], check=True, capture_output=True, text=True,
                         preexec_fn=benchmark_cpus(pattern))
    times = {}
    for b in json.loads(out.stdout)["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        times[b["name"]] = b["time_per_op"] * 1e9 if "time_per_op" in b else b["real_time"] * scale
    return times


def spread(values):
    m = statistics.median(values)
    return (max(values) - min(values)) / m if m else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-root", default="build")
    ap.add_argument("--configure", action="store_true", help="configure and build the three directories first")
    ap.add_argument("--boost-dir", default="/usr/lib/x86_64-linux-gnu/cmake/Boost-1.81.0")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--filter", default=DEFAULT_FILTER, help="regex over benchmark names (default: our allocators' rows)")
    ap.add_argument("--programs", nargs="+", default=PROGRAMS, help="which benchmark programs (default: all of PROGRAMS)")
    ap.add_argument("--out", required=True, help="the markdown file to write (a .json beside it)")
    add_cpu_argument(ap)
    args = ap.parse_args()
    pin_to_cpu(args.cpu)

    source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if args.configure:
        configure_and_build(source, args.build_root, args.boost_dir)
    started = datetime.datetime.now(datetime.timezone.utc)
    samples = {}   # (program, name) -> level -> [ns]
    for r in range(args.rounds):
        for program in args.programs:
            exes = {level: os.path.join(build_dir(args.build_root, level), "bench", program) for level in LEVELS}
            # Row by row, the three builds seconds apart: this VM's speed drifts by 2x and more within
            # minutes, which a whole program's run (a minute or more a build) does not cancel.
            for row in [n for n in list_benchmarks(exes[0]) if re.search(args.filter, n)]:
                order = LEVELS[:]
                random.shuffle(order)
                for level in order:
                    for name, ns in run_once(exes[level], "^%s$" % regex_escape(row), args.min_time).items():
                        samples.setdefault((program, name), {}).setdefault(level, []).append(ns)
            print("round %d/%d: %s done" % (r + 1, args.rounds, program), file=sys.stderr)
    finished = datetime.datetime.now(datetime.timezone.utc)

    rows, worst1 = [], 0.0
    for (program, name), by_level in sorted(samples.items()):
        if any(len(by_level.get(level, [])) < args.rounds for level in LEVELS):
            continue
        med = {level: statistics.median(by_level[level]) for level in LEVELS}
        row = {"program": program, "name": name.replace("/real_time", ""),
               "release_ns": med[0], "level1_ns": med[1], "level2_ns": med[2],
               "level1_ratio": med[1] / med[0], "level2_ratio": med[2] / med[0],
               "spread": {str(level): spread(by_level[level]) for level in LEVELS}}
        worst1 = max(worst1, row["level1_ratio"])
        rows.append(row)
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump({"started": started.isoformat(), "finished": finished.isoformat(), "rounds": args.rounds,
                   "min_time": args.min_time, "filter": args.filter, "cpu": args.cpu, "rows": rows}, f, indent=1)
    ratios1 = [r["level1_ratio"] for r in rows]
    ratios2 = [r["level2_ratio"] for r in rows]
    with open(args.out, "w") as f:
        f.write("# What each checking level costs (%s)\n\n" % started.strftime("%Y-%m-%d"))
        f.write("Measured %s to %s UTC on a shared 2-core VM, %d rounds, each round "
                "running each row's three builds one after the other in a new random order, every run%s; `--benchmark_min_time=%g`; "
                "rows of our allocators (`%s`). Command: `python3 bench/checked_levels.py --build-root build "
                "--rounds %d%s --out %s`.\n\n" % (started.strftime("%Y-%m-%d %H:%M"), finished.strftime("%H:%M"),
                                                   args.rounds,
                                                   pinning_words(args.cpu, two_thread_cpus()),
                                                   args.min_time, args.filter, args.rounds,
                                                   ("" if args.programs == PROGRAMS else " --programs " + " ".join(args.programs))
                                                   + ("" if args.filter == DEFAULT_FILTER else " --filter '%s'" % args.filter),
                                                   args.out))
        f.write("Builds: release `BOOST_ALLOCPLUS_CHECKED=0` (NDEBUG), level 1 `=1` (the default without NDEBUG), "
                "level 2 `=2`; all -O2. Time: a row's time per operation (of the phase it times), else per iteration. "
                "Ratio: the median time of the level over the release median. "
                "Spread: (max - min) / median over the rounds, release / level 1 / level 2.\n\n")
        f.write("Level 1 / release: median %.2fx, max %.2fx over %d rows (%d rows above 1.3x). "
                "Level 2 / release: median %.2fx, max %.2fx.\n\n"
                % (statistics.median(ratios1), max(ratios1), len(rows), sum(1 for x in ratios1 if x > 1.3),
                   statistics.median(ratios2), max(ratios2)))
        f.write("| benchmark | release ns | level 1 / release | level 2 / release | spread |\n|---|---:|---:|---:|---|\n")
        for r in rows:
            s = r["spread"]
            f.write("| %s | %.0f | %.2fx | %.2fx | %.0f%% / %.0f%% / %.0f%% |\n"
                    % (r["name"], r["release_ns"], r["level1_ratio"], r["level2_ratio"],
                       100 * s["0"], 100 * s["1"], 100 * s["2"]))
    print("level 1 worst %.2fx; wrote %s" % (worst1, args.out))


if __name__ == "__main__":
    main()
