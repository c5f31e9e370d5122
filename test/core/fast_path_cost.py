#!/usr/bin/env python3
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
"""The instructions each fast path of the core runs per call, counted by callgrind, against limits.

    fast_path_cost.py PROGRAM [--valgrind VALGRIND] [--limit PATH=N]... [--work-dir DIR]

PROGRAM is fast_path_cost.cpp built as users ship the core (GCC -O2 -DNDEBUG, a non-PIE
executable). It runs under callgrind collecting only inside its measured functions (cost_path_*),
and dumps the counts after each phase under "<path> <calls>". Retired instructions do not depend
on timing, so every run counts the same.

Prints, per path, the instructions per call and its limit. Exits 1 when a path exceeds its limit;
when its calls did not all run the same instructions (not a steady state); when a measured call
reached one of the core's out-of-line detail functions (ba_detail_*: only the general paths call
one, the fast paths call nothing); when a measured call of a thread cache's fast path ran any
function but the measured one and the public function it calls (a cache's fast path is a leaf:
it calls nothing); or when the program failed its own checks. Exits 77 (skipped) when valgrind
cannot be found.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Instructions per call each path may take: its count in this tree, plus 2 (the paths are pinned
# to within 2 of their count). Measured 2026-11-24: GCC 12.2 -O2 -DNDEBUG, x86-64, a non-PIE
# executable, a single-threaded process, valgrind 3.19, the core's release integrity checks
# included. Lower a count when its path gets shorter. A count is what runs from the call to the
# return, the caller's side included (for ba_heap_free, the null test it inlines into its caller).
#
# The *_cache paths are the default heap's per-thread caches (ba_malloc, ba_free, ba::allocator
# reach them first); their targets are at most 25 instructions for a malloc and 30 for a free
# (the limits are the targets): measured 24 (ba_malloc) and 30 (ba_free; one compare and branch of
# it keeps a block that ends at the top out of the cache). They are leaves: nothing
# but the measured function and ba_malloc or ba_free may run (LEAF). The heap_* paths are the
# heap's own, behind the caches (and every independent heap's), measured through ba_heap_malloc
# and ba_heap_free with the heap in hand: 54 and 57 for the quick lists, 59 and 55 for the top (a
# free's checks include one compare of the block's second word with the caches' mark, so that a
# block a thread caches is not freed to the heap as well).
LIMITS = {
    # path                count + allowance   what runs
    "malloc_cache":       (24, 1, "ba_malloc(32), a block from the thread's cache"),
    "free_cache":         (30, 0, "ba_free of that block, into the thread's cache"),
    "allocate_cache":     (19, 2, "ba::allocator<T>::allocate(1), sizeof(T) 32, from the cache"),
    "deallocate_cache":   (30, 0, "ba::allocator<T>::deallocate, into the cache"),
    "heap_malloc_quick":  (54, 2, "ba_heap_malloc(h, 32), a block from its quick list"),
    "heap_free_quick":    (57, 2, "ba_heap_free(h, p) of that block, into its quick list"),
    "heap_malloc_top":    (59, 2, "ba_heap_malloc(h, 32), a block cut from the top"),
    "heap_free_top":      (55, 2, "ba_heap_free(h, p) of the block before the top, merged into it"),
}
LEAF = {"malloc_cache", "free_cache", "allocate_cache", "deallocate_cache"}

MEASURED = "cost_path_"          # the program's measured functions
GENERAL = re.compile(r"ba_detail_\w+")  # the core's out-of-line functions: its general paths
# The public functions a leaf's measured function may jump to (GCC may keep them out of line):
# "ba_free", or with debug information "boost::allocplus::...::ba_free(void*)"; not a part GCC
# splits off them ("... [clone .part.0]"), which is a call.
ENTRY = re.compile(r"(?:^|::)ba_(?:malloc|free)(?:\([^()]*\))?$")


def parse_dump(path):
    """Returns (description, total instructions, {function name: instructions it ran itself},
    {callee name: calls}) of one callgrind output file."""
    desc, total = None, None
    names = {}          # name compression: "(id) name" defines id, "(id)" refers to it
    self_cost, calls_to = {}, {}
    fn = cfn = None
    after_calls = False  # the cost line after calls= is the call's inclusive cost

    def name(value):
        m = re.match(r"\((\d+)\)(?: (.*))?$", value)
        if not m:
            return value
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), value)

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("desc: Trigger: Client Request: "):
                desc = line[len("desc: Trigger: Client Request: "):]
            elif line.startswith("totals:") or (line.startswith("summary:") and total is None):
                total = int(line.split()[1])
            elif line.startswith("fn="):
                fn = name(line[3:])
            elif line.startswith("cfn="):
                cfn = name(line[4:])
            elif line.startswith("calls="):
                calls_to[cfn] = calls_to.get(cfn, 0) + int(line[6:].split()[0])
                after_calls = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_calls:
                    after_calls = False
                elif fn is not None:
                    parts = line.split()
                    if len(parts) > 1:
                        self_cost[fn] = self_cost.get(fn, 0) + int(parts[1])
    return desc, total, self_cost, calls_to


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program")
    parser.add_argument("--valgrind", default="valgrind")
    parser.add_argument("--limit", action="append", default=[], metavar="PATH=N",
                        help="a limit other than the table's (repeatable)")
    parser.add_argument("--work-dir", help="where callgrind writes its files (kept); default a temporary directory")
    args = parser.parse_args()

    limits = {path: baseline + allowance for path, (baseline, allowance, _) in LIMITS.items()}
    for item in args.limit:
        path, _, value = item.partition("=")
        if path not in limits or not value.isdigit():
            parser.error(f"--limit {item}: expected PATH=N with PATH one of {', '.join(LIMITS)}")
        limits[path] = int(value)

    valgrind = shutil.which(args.valgrind)
    if not valgrind:
        print(f"fast_path_cost: SKIPPED: {args.valgrind} not found")
        return 77

    work = args.work_dir or tempfile.mkdtemp(prefix="fast_path_cost.")
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "callgrind.out")
    for old in os.listdir(work):
        if old.startswith("callgrind.out"):
            os.remove(os.path.join(work, old))
    command = [valgrind, "--tool=callgrind", "--collect-atstart=no", f"--toggle-collect={MEASURED}*",
               f"--callgrind-out-file={out}", args.program]
    try:
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"fast_path_cost: {' '.join(command)} exited {run.returncode}\n{run.stdout}{run.stderr}")
            return 1
        dumps = sorted((f for f in os.listdir(work) if re.fullmatch(r"callgrind\.out\.\d+", f)),
                       key=lambda f: int(f.rsplit(".", 1)[1]))
        results = {}
        errors = []
        for dump in dumps:
            desc, total, self_cost, calls_to = parse_dump(os.path.join(work, dump))
            if desc is None:
                continue
            path, calls = desc.rsplit(" ", 1)
            calls = int(calls)
            measured_calls = sum(n for callee, n in calls_to.items() if callee and callee.startswith(MEASURED))
            if measured_calls != calls:
                errors.append(f"{path}: callgrind saw {measured_calls} measured calls, the program made {calls}")
            general = sorted({m.group(0) for f in self_cost if self_cost[f] for m in [GENERAL.search(f)] if m})
            if general:
                errors.append(f"{path}: the calls reached {', '.join(general)}: not the fast path")
            if path in LEAF:
                ran = sorted(f for f in self_cost
                             if self_cost[f] and not f.startswith(MEASURED) and not ENTRY.search(f))
                if ran:
                    errors.append(f"{path}: the calls ran {', '.join(ran)}: a cache's fast path calls nothing")
            if total % calls != 0:
                errors.append(f"{path}: {total} instructions in {calls} calls: the calls ran different "
                              "instructions, not one path in a steady state")
            results[path] = total / calls
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)

    missing = [path for path in LIMITS if path not in results]
    unknown = [path for path in results if path not in LIMITS]
    if missing:
        errors.append(f"no count for {', '.join(missing)} (callgrind wrote {len(dumps)} dumps)")
    if unknown:
        errors.append(f"no limit for {', '.join(unknown)}: add it to LIMITS in {os.path.basename(__file__)}")

    print("instructions per call (callgrind; GCC -O2 -DNDEBUG, non-PIE)")
    print(f"  {'path':<18} {'count':>6} {'limit':>6}  what runs")
    for path, (baseline, allowance, what) in LIMITS.items():
        if path not in results:
            continue
        count, limit = results[path], limits[path]
        verdict = ""
        if count > limit:
            verdict = "  OVER THE LIMIT"
            errors.append(f"{path}: {count:g} instructions per call, over its limit of {limit}")
        elif limit == baseline + allowance and count < baseline:
            verdict = f"  below the baseline {baseline}: lower it"
        print(f"  {path:<18} {count:>6.1f} {limit:>6}  {what}{verdict}")
    for error in errors:
        print(f"FAILED: {error}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
