#!/usr/bin/env python3
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
"""Runs allocplus's benchmark programs and compares our allocators with their peers.

    bench/run.py --build-dir build/bench [--rounds 5] [--filter REGEX] [--out bench/results]

Finds every bench_* program in <build-dir>/bench, lists its benchmarks (named
<table>/<row>/<allocator>), and runs each benchmark in a process of its own, so that no allocator
inherits a heap warmed, fragmented or trimmed by another. The baselines `glibc_malloc` and
`std_allocator` are run once more under LD_PRELOAD of each peer malloc (jemalloc, tcmalloc,
mimalloc); a peer that is not installed is reported as missing, never left out silently.

Round 0 is a warm-up and is discarded; then --rounds measured rounds. Within a round the
allocators of one <table>/<row> run one after the other, in an order rotated every round. The
figure compared is the median over rounds of the counter `time_per_op` (seconds of real time per
operation; each table says what its operation is), or of real_time per iteration when a
benchmark has no such counter. Every user counter is reported as its median too. A time target
(ours / peer) is checked on the median of the per-round ratios: ours and the peer run seconds
apart within a round, so a machine whose speed drifts between rounds (this project's VM moves by
1.3-1.6x over an hour) cancels out; the lowest and highest per-round ratio are printed beside it.
With --interleave N, each time target marked "same_process" (ours and the peer allocate from
different heaps and set no process-wide option, so neither inherits the other's state) is also
measured with the two in one process, N repetitions of each in random order (Google Benchmark's
random interleaving), once per round; the target is then checked on the median over rounds of
their in-process ratio, which cancels drift over seconds too.

Writes <out>/<date>-<host>.json (machine, settings, every sample, medians, targets) and
<out>/<date>-<host>.md, prints a table per <table>/<row> with, for each allocator of ours (names
starting with `ba_`), the ratio `allocator time / our time` (above 1: ours is faster), then checks
the claims of bench/targets.json (PASS/MISS, informative). Exit status: 0, or 1 if a benchmark
crashed or reported an error, 2 on bad usage. Standard library only; draws PNG plots when
matplotlib happens to be installed.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# The tiers: the default run gives every table and every claim's verdict; --full more of each.
DEFAULT_ROUNDS, DEFAULT_MIN_TIME = 3, 0.1
FULL_ROUNDS, FULL_MIN_TIME, FULL_INTERLEAVE = 9, 0.5, 30

# Peer mallocs run under LD_PRELOAD: name, Debian package, file names to look for.
PEERS = [
    ("jemalloc", "libjemalloc2", ["libjemalloc.so.2", "libjemalloc.so"]),
    ("tcmalloc", "libtcmalloc-minimal4", ["libtcmalloc_minimal.so.4", "libtcmalloc_minimal.so"]),
    ("mimalloc", "libmimalloc2.0", ["libmimalloc.so.2", "libmimalloc.so.2.0", "libmimalloc.so"]),
]
# Baselines re-run under each peer, and the name the preloaded run gets. In the tables of aged
# heaps (names ending in _aged) every std_ container is re-run too, as std_vector+jemalloc, ...
PRELOAD_NAMES = {"glibc_malloc": "{peer}", "std_allocator": "std_allocator+{peer}"}
AGED_SUFFIX = "_aged"
OURS_PREFIX = "ba_"
# Google Benchmark appends these to the names of benchmarks timed in real or manual time.
NAME_SUFFIXES = ("/real_time", "/manual_time")
TIME_COUNTER = "time_per_op"
# Keys of a Google Benchmark JSON run that are not user counters.
RUN_KEYS = {
    "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "aggregate_name", "aggregate_unit", "label", "error_occurred", "error_message",
    "items_per_second", "bytes_per_second", "big_o", "rms",
}
TIME_UNITS_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


# --------------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------------

def library_dirs():
    dirs = []
    multiarch = None
    try:
        multiarch = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True,
                                   timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    if not multiarch:
        multiarch = "%s-linux-gnu" % platform.machine()
    for base in ("/usr/local/lib", "/usr/lib", "/lib"):
        dirs += [os.path.join(base, multiarch), base]
    dirs += ["/usr/lib64", "/lib64"]
    return [d for d in dirs if os.path.isdir(d)]


def find_peers(overrides):
    """Returns {peer: path or None}."""
    found = {}
    dirs = library_dirs()
    for name, _package, files in PEERS:
        path = overrides.get(name)
        if path is None:
            for d in dirs:
                hits = [os.path.join(d, f) for f in files if os.path.isfile(os.path.join(d, f))]
                if hits:
                    path = hits[0]
                    break
        found[name] = path if path and os.path.isfile(path) else None
    return found


def split_name(name):
    """'core_churn/lifo/ba_malloc' -> ('core_churn', 'lifo', 'ba_malloc')."""
    parts = name.split("/")
    if len(parts) < 3:
        return name, "", name
    return parts[0], "/".join(parts[1:-1]), parts[-1]


def canonical(listed):
    for suffix in NAME_SUFFIXES:
        if listed.endswith(suffix):
            listed = listed[: -len(suffix)]
            break
    return re.sub(r"/iterations:\d+$", "", listed)   # a benchmark that fixes its iterations


def add_cpu_argument(ap):
    """The --cpu option of the scripts that compare benchmark processes."""
    ap.add_argument("--cpu", type=int, default=min(os.sched_getaffinity(0)),
                    help="the CPU every benchmark process is pinned to (default: the first this process may "
                         "use, %(default)s; -1: none)")


# The CPUs this process might use before pin_to_cpu: a benchmark with two threads at work gets a
# second one of them (benchmark_cpus).
_cpus_before_pinning = None


def pin_to_cpu(cpu):
    """Pins this process, and so every benchmark it starts, to `cpu` (-1: leaves it free). Unpinned,
    two processes compared may run on different cores, and on a shared VM one core can run 1.8x
    slower than the other for minutes at a time (seen on the project's VM, 2026-11-29)."""
    global _cpus_before_pinning
    _cpus_before_pinning = os.sched_getaffinity(0)
    if cpu >= 0:
        os.sched_setaffinity(0, {cpu})


# Benchmarks in which two threads work at once: pinned to one CPU, they would take turns on it and
# measure the scheduler (a lock's holder preempted, a spinning waiter holding the CPU it needs).
TWO_THREADS_AT_WORK = re.compile(r"_two_threads|producer_consumer")


def two_thread_cpus():
    """The CPUs a row with two threads at work runs on: the pinned CPU and one more of those this
    process was given; None when this process is not pinned to one CPU or was given no other."""
    if _cpus_before_pinning is None:
        return None
    pinned = os.sched_getaffinity(0)
    others = sorted(_cpus_before_pinning - pinned)
    if len(pinned) != 1 or not others:
        return None
    return pinned | {others[0]}


def benchmark_cpus(name):
    """A preexec_fn for the process of benchmark `name`, or None (it inherits this process's
    CPUs): a row with two threads at work gets two_thread_cpus(), so that each thread has a CPU of
    its own, as in the program it stands for."""
    cpus = two_thread_cpus() if TWO_THREADS_AT_WORK.search(name) else None
    return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


def pinning_words(cpu, two_cpus):
    """How a run was pinned, for its report: cpu (-1: not pinned) and the CPUs of its rows with
    two threads at work (a list, or None)."""
    if cpu < 0:
        return " (not pinned to a CPU)"
    if two_cpus:
        return " on CPU %d (rows with two threads at work: CPUs %s)" % (cpu, " and ".join(map(str, sorted(two_cpus))))
    return " on CPU %d (rows with two threads at work too: no other CPU was given)" % cpu


def list_benchmarks(exe):
    out = subprocess.run([exe, "--benchmark_list_tests=true"], capture_output=True, text=True,
                         timeout=120)
    if out.returncode != 0:
        raise RuntimeError("%s --benchmark_list_tests failed (exit %d): %s"
                           % (exe, out.returncode, out.stderr.strip()))
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


def default_selection(runs, groups, missing, targets):
    """The default tier: what gives the headline tables and every claim's verdict, the rest being
    --full's. Keeps, of the whole suite's (runs, groups, missing):
    - every row of bench/tables.json's "headline_tables" and every row named in its "headline",
      with every allocator (the tables and plots people compare us by, every peer in them);
    - for each claim, the two allocators it compares (and the row's baseline, so that every row
      shows its speed-up over std);
    - for a table with none of these, its first row with our allocators and its baseline, so that
      every table of the suite still shows its condition (aged heap, threads) in the report.
    Returns the kept (runs, groups, missing)."""
    head_tables = set(TABLES.get("headline_tables", []))
    head_rows = {h["row"] for h in TABLES.get("headline", [])}
    by_group = {}
    for r in runs:
        by_group.setdefault(r["group"], []).append(r["allocator"])
    for peer, _package, g in missing:
        by_group.setdefault(g, []).append(peer)
    keep = set()
    for g, allocs in by_group.items():
        if g.split("/")[0] in head_tables or g in head_rows:
            keep.update((g, a) for a in allocs)
    for t in targets:
        keep.add((t["table"], t["ours"]))
        if t.get("peer"):
            keep.add((t.get("peer_table", t["table"]), t["peer"]))
    covered = {g.split("/")[0] for g, _a in keep if g in by_group}
    for g in groups:   # (groups in order: a table's first row with one of ours, else its first row)
        table = g.split("/")[0]
        ours = [a for a in by_group.get(g, []) if a.startswith(OURS_PREFIX)]
        first_with_ours = ours or not any(h.split("/")[0] == table and any(
            a.startswith(OURS_PREFIX) for a in by_group.get(h, [])) for h in groups)
        if table not in covered and first_with_ours:
            covered.add(table)
            keep.update((g, a) for a in ours or by_group.get(g, []))
    for g in {g for g, _a in keep}:
        base = baseline_of(by_group.get(g, []))
        if base:
            keep.add((g, base))
    runs = [r for r in runs if (r["group"], r["allocator"]) in keep]
    missing = [m for m in missing if (m[2], m[0]) in keep]
    kept_groups = {r["group"] for r in runs} | {m[2] for m in missing}
    return runs, [g for g in groups if g in kept_groups], missing


def plan_runs(build_dir, peers, name_filter):
    """Returns (runs, groups in order, missing [(peer, package, group)]) of every benchmark the
    programs list (that --filter matches)."""
    exes = sorted(p for p in glob.glob(os.path.join(build_dir, "bench", "bench_*"))
                  if os.path.isfile(p) and os.access(p, os.X_OK))
    if not exes:
        raise SystemExit("run.py: no bench_* program in %s (build with -DALLOCPLUS_BUILD_BENCH=ON)"
                         % os.path.join(build_dir, "bench"))
    runs, groups, missing = [], [], []
    for exe in exes:
        for listed in list_benchmarks(exe):
            name = canonical(listed)
            table, row, alloc = split_name(name)
            variants = [(alloc, None)]
            preloaded = PRELOAD_NAMES.get(alloc)
            if preloaded is None and table.endswith(AGED_SUFFIX) and alloc.startswith("std_"):
                preloaded = alloc + "+{peer}"   # every malloc aged the same way, not glibc's alone
            if preloaded:
                for peer, package, _files in PEERS:
                    shown = preloaded.format(peer=peer)
                    variants.append((shown, peers[peer] or ("missing", package)))
            for shown, preload in variants:
                display = "%s/%s/%s" % (table, row, shown) if row else shown
                if name_filter and not re.search(name_filter, display):
                    continue
                group = "%s/%s" % (table, row) if row else table
                if group not in groups:
                    groups.append(group)
                if isinstance(preload, tuple):
                    missing.append((shown, preload[1], group))
                    continue
                if any(r["name"] == display for r in runs):
                    raise SystemExit("run.py: two benchmarks are named %s (the second in %s)"
                                     % (display, exe))
                runs.append({"exe": exe, "listed": listed, "name": display, "group": group,
                             "allocator": shown, "base": name, "preload": preload})
    return runs, groups, missing


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------

def regex_escape(text):
    """Escapes for the benchmark's regex (POSIX ERE or ECMAScript): only the metacharacters."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


def run_one(run, min_time, timeout):
    cmd = [run["exe"], "--benchmark_filter=^%s$" % regex_escape(run["listed"]),
           "--benchmark_format=json", "--benchmark_min_time=%g" % min_time]
    env = dict(os.environ)
    if run["preload"]:
        env["LD_PRELOAD"] = run["preload"]
    else:
        env.pop("LD_PRELOAD", None)
    started = time.monotonic()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                             preexec_fn=benchmark_cpus(run["listed"]))
    except subprocess.TimeoutExpired:
        return {"status": "timeout after %g s" % timeout}, None
    elapsed = time.monotonic() - started
    if out.returncode != 0:
        detail = out.stderr.strip().splitlines()[-1:] or [""]
        return {"status": ("crashed (exit %d) %s" % (out.returncode, detail[0])).strip()}, None
    try:
        doc = json.loads(out.stdout)
    except ValueError:
        return {"status": "crashed (unreadable output)"}, None
    entries = [b for b in doc.get("benchmarks", []) if b.get("run_type", "iteration") == "iteration"]
    if len(entries) != 1:
        return {"status": "crashed (%d results for one benchmark)" % len(entries)}, None
    b = entries[0]
    if b.get("error_occurred"):
        return {"status": "error: %s" % b.get("error_message", "")}, None
    sample = {
        "real_time_ns": b["real_time"] * TIME_UNITS_NS.get(b.get("time_unit", "ns"), 1.0),
        "cpu_time_ns": b["cpu_time"] * TIME_UNITS_NS.get(b.get("time_unit", "ns"), 1.0),
        "iterations": b.get("iterations"),
        "process_seconds": round(elapsed, 3),
        "counters": {k: v for k, v in b.items() if k not in RUN_KEYS and isinstance(v, (int, float))
                     and not isinstance(v, bool)},
    }
    sample["time_ns"] = sample_time_ns(b)
    return {"status": "ok", "label": b.get("label", "")}, (sample, doc.get("context", {}))


def sample_time_ns(b):
    """Time per operation of one Google Benchmark JSON entry, in ns."""
    if TIME_COUNTER in b:
        return b[TIME_COUNTER] * 1e9
    return b["real_time"] * TIME_UNITS_NS.get(b.get("time_unit", "ns"), 1.0)


def run_interleaved(ours_run, peer_run, repetitions, min_time, timeout):
    """One process running ours and the peer `repetitions` times each in random order: returns
    ours' median time / the peer's, or a status string."""
    pattern = "^(%s|%s)$" % (regex_escape(ours_run["listed"]), regex_escape(peer_run["listed"]))
    cmd = [ours_run["exe"], "--benchmark_filter=" + pattern, "--benchmark_format=json",
           "--benchmark_min_time=%g" % min_time, "--benchmark_repetitions=%d" % repetitions,
           "--benchmark_enable_random_interleaving=true"]
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                             preexec_fn=benchmark_cpus(ours_run["listed"]))
        entries = json.loads(out.stdout).get("benchmarks", []) if out.returncode == 0 else None
    except (subprocess.TimeoutExpired, ValueError):
        entries = None
    if entries is None:
        return "crashed"
    times = {ours_run["listed"]: [], peer_run["listed"]: []}
    for b in entries:
        if b.get("run_type") == "iteration" and b.get("run_name", b["name"]) in times:
            times[b.get("run_name", b["name"])].append(sample_time_ns(b))
    ours, peer = times[ours_run["listed"]], times[peer_run["listed"]]
    if not ours or not peer:
        return "no result"
    return statistics.median(ours) / statistics.median(peer)


# The default tier interleaves only the pairs whose separate-process rounds leave the verdict
# open: some round's ratio within this fraction of a limit, or rounds on both sides of it.
CLOSE_CALL = 0.15


def close_call(ours_res, peer_res, limits):
    """Whether the rounds of ours and the peer (run in separate processes) leave a claim with one of
    `limits` open: no paired round, or the per-round ratios reach within CLOSE_CALL of a limit."""
    paired = paired_time_ratio(ours_res, peer_res) if ours_res and peer_res else None
    if not paired:
        return True
    _median, lowest, highest = paired
    return any(lowest <= limit * (1 + CLOSE_CALL) and highest >= limit * (1 - CLOSE_CALL) for limit in limits)


def execute_interleaved(targets, runs, rounds, repetitions, min_time, timeout, results=None):
    """{(group, ours, peer): [in-process ratio per round]} for every time target whose two
    benchmarks ran without LD_PRELOAD in the same program; with `results` (the default tier), only
    for the close calls among them (close_call)."""
    by_key = {(r["group"], r["allocator"]): r for r in runs}
    pairs, limits = [], {}
    for t in targets:
        if t.get("metric", "time") != "time" or "peer" not in t or not t.get("same_process"):
            continue
        o, p = by_key.get((t["table"], t["ours"])), by_key.get((t["table"], t["peer"]))
        key = (t["table"], t["ours"], t["peer"])
        if o and p and o["exe"] == p["exe"] and not o["preload"] and not p["preload"]:
            limits.setdefault(key, []).append(t["max_ratio_ours_over_peer"])
            if key not in pairs:
                pairs.append(key)
    if results is not None:
        by_run = {(r["run"]["group"], r["run"]["allocator"]): r for r in results.values()}
        ok = lambda k: by_run.get(k) is not None and by_run[k]["status"] == "ok"
        pairs = [k for k in pairs if ok(k[:2]) and ok((k[0], k[2]))]   # a crashed side: nothing to settle
        settled = [k for k in pairs if not close_call(by_run.get(k[:2]), by_run.get((k[0], k[2])), limits[k])]
        pairs = [k for k in pairs if k not in settled]
        print("interleaving %d close pairs in one process (%d more are settled by their separate runs: every "
              "round's ratio more than %.0f%% from the claim's limit)" % (len(pairs), len(settled), 100 * CLOSE_CALL),
              file=sys.stderr)
    ratios = {k: [] for k in pairs}
    progress = Progress(len(pairs) * rounds, "pairs")
    for rnd in range(1, rounds + 1):
        started = time.monotonic()
        for key in pairs:
            r = run_interleaved(by_key[(key[0], key[1])], by_key[(key[0], key[2])], repetitions, min_time,
                                timeout)
            if isinstance(r, str):
                progress.step("round %d %s: %s vs %s interleaved: %s" % ((rnd,) + key + (r,)))
            else:
                ratios[key].append(r)
                progress.step("round %d %s: %s / %s = %.3f (interleaved)" % ((rnd,) + key + (r,)))
        print("interleaved round %d/%d: %d pairs in %.0f s" % (rnd, rounds, len(pairs),
              time.monotonic() - started), file=sys.stderr)
    return ratios


class Progress:
    """One line per benchmark run as it ends: how many runs are done and left, and an estimate of
    the time left: the caller's (from what each run took in the round before) or, without one, the
    average time of the runs so far times the runs left."""

    def __init__(self, total, what):
        self.total, self.done, self.what = total, 0, what
        self.started = time.monotonic()

    def average(self):
        return (time.monotonic() - self.started) / self.done if self.done else 0.0

    def step(self, text, eta=None):
        self.done += 1
        left = self.total - self.done
        if eta is None:
            eta = self.average() * left
        print("[%*d/%d] %s  (%d %s left, about %s)" % (
            len(str(self.total)), self.done, self.total, text, left, self.what if left != 1 else self.what[:-1],
            fmt_duration(eta)),
            file=sys.stderr, flush=True)


def fmt_duration(seconds):
    seconds = int(round(seconds))
    if seconds < 60:
        return "%d s" % seconds
    if seconds < 3600:
        return "%d min %02d s" % (seconds // 60, seconds % 60)
    return "%d h %02d min" % (seconds // 3600, seconds % 3600 // 60)


def warm_up_programs(runs, timeout):
    """The default tier's warm-up: each program once, its first benchmark for one iteration,
    discarded: the first measured runs then do not pay for loading the programs and their
    libraries from disk. (--full discards a whole round instead; in both, the order of a row's
    allocators rotates every round, so that none always runs first.)"""
    firsts = {}
    for r in runs:
        firsts.setdefault(r["exe"], r)
    started = time.monotonic()
    for run in firsts.values():
        run_one(run, 0.0, timeout)
    print("warm-up (discarded): each of %d programs once, %.0f s" % (len(firsts), time.monotonic() - started),
          file=sys.stderr, flush=True)


def execute(runs, groups, rounds, warmup, min_time, timeout, verbose):
    """Runs every benchmark warmup + rounds times (the warm-up rounds are discarded)."""
    by_group = {g: [r for r in runs if r["group"] == g] for g in groups}
    results = {r["name"]: {"run": r, "status": "ok", "label": "", "samples": []} for r in runs}
    context = {}
    progress = Progress(len(runs) * (rounds + warmup), "runs")
    took = {}   # seconds each run's process took last time: the estimate of the time left

    def time_left(rnd, order, position):
        guess = lambda r: took.get(r["name"], progress.average())
        this_round = sum(guess(r) for r in order[position + 1:])
        return this_round + (rounds - rnd) * sum(guess(r) for r in runs)

    for rnd in range(1 - warmup, rounds + 1):
        started = time.monotonic()
        order = []
        for g in groups:
            members = by_group[g]
            if members:
                k = rnd % len(members)
                order += members[k:] + members[:k]
        for position, run in enumerate(order):
            res = results[run["name"]]
            round_text = "warm-up" if rnd <= 0 else "round %d" % rnd
            if res["status"] != "ok":
                took[run["name"]] = 0.0
                progress.step("%s %s: skipped (%s)" % (round_text, run["name"], res["status"]),
                              time_left(rnd, order, position))
                continue  # crashed once: do not spend every round on it
            run_started = time.monotonic()
            info, got = run_one(run, min_time, timeout)
            took[run["name"]] = time.monotonic() - run_started
            if info["status"] != "ok":
                res["status"] = info["status"]
                progress.step("%s %s: %s" % (round_text, run["name"], info["status"]), time_left(rnd, order, position))
                continue
            sample, ctx = got
            res["label"] = info["label"]
            context = context or ctx
            if rnd > 0:
                sample["round"] = rnd
                res["samples"].append(sample)
            extra = ""
            if verbose and sample["counters"]:
                extra = "  " + " ".join("%s=%s" % (k, fmt_count(v)) for k, v in sample["counters"].items()
                                        if k != TIME_COUNTER)
            progress.step("%s %s: %s%s" % (round_text, run["name"], fmt_time(sample["time_ns"]), extra),
                          time_left(rnd, order, position))
        print("%s: %d runs in %.0f s" % ("warm-up (discarded)" if rnd <= 0 else "round %d/%d" % (rnd, rounds),
              len(runs), time.monotonic() - started), file=sys.stderr, flush=True)
    for res in results.values():
        res["median"] = medians(res["samples"])
    return results, context


def medians(samples):
    if not samples:
        return {}
    times = [s["time_ns"] for s in samples]
    m = {"time_ns": statistics.median(times),
         "real_time_ns": statistics.median(s["real_time_ns"] for s in samples)}
    m["spread"] = (max(times) - min(times)) / m["time_ns"] if m["time_ns"] else 0.0
    names = []
    for s in samples:
        names += [k for k in s["counters"] if k not in names and k != TIME_COUNTER]
    for k in names:
        values = [s["counters"][k] for s in samples if k in s["counters"]]
        m[k] = statistics.median(values)
    return m


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------

def fmt_time(ns):
    for unit, scale in (("ns", 1.0), ("us", 1e3), ("ms", 1e6)):
        if ns < 1000 * scale:
            return "%.3g %s" % (ns / scale, unit)
    return "%.3g s" % (ns / 1e9)


def fmt_ratio(r):
    return "%.2f" % r if r < 100 else "%.3g" % r


def fmt_count(v):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= scale:
            return "%.3g%s" % (v / scale, unit)
    return "%.3g" % v


def group_rows(group, results, missing):
    """Rows of one <table>/<row>: (allocator, result or status string)."""
    rows = [(res["run"]["allocator"], res) for res in results.values() if res["run"]["group"] == group]
    rows += [(peer, "missing (Debian package %s)" % package) for peer, package, g in missing
             if g == group]
    return rows


def build_tables(groups, results, missing):
    tables = []
    for g in groups:
        rows = group_rows(g, results, missing)
        ours = [a for a, r in rows if a.startswith(OURS_PREFIX) and isinstance(r, dict)
                and r["median"]]
        counters = []
        label = ""
        for _a, r in rows:
            if isinstance(r, dict):
                label = label or r["label"]
                counters += [k for k in r["median"]
                             if k not in ("time_ns", "real_time_ns", "spread") and k not in counters]
        header = ["allocator", "time/op", "spread"] + ["vs %s" % o for o in ours] + counters
        body = []
        for a, r in rows:
            if not isinstance(r, dict):
                body.append([a, r] + [""] * (len(header) - 2))
                continue
            if r["status"] != "ok" or not r["median"]:
                body.append([a, r["status"] if r["status"] != "ok" else "no samples"]
                            + [""] * (len(header) - 2))
                continue
            m = r["median"]
            line = [a, fmt_time(m["time_ns"]), "%.0f%%" % (100 * m["spread"])]
            for o in ours:
                line.append(fmt_ratio(m["time_ns"] / results_by_alloc(rows, o)["median"]["time_ns"]))
            line += [fmt_count(m[k]) if k in m else "-" for k in counters]
            body.append(line)
        tables.append({"group": g, "label": label, "header": header, "rows": body})
    return tables


def results_by_alloc(rows, alloc):
    for a, r in rows:
        if a == alloc and isinstance(r, dict):
            return r
    return None


def rounds_text(rounds):
    return "median of %d rounds" % rounds if rounds > 1 else "1 round"


def text_table(t, rounds):
    title = "%s  (%s; %s)" % (t["group"], t["label"] or "time per iteration", rounds_text(rounds))
    widths = [max(len(str(x)) for x in col) for col in zip(t["header"], *t["rows"])]
    lines = [title]
    for row in [t["header"]] + t["rows"]:
        cells = []
        for i, (cell, w) in enumerate(zip(row, widths)):
            cells.append(str(cell).ljust(w) if i == 0 else str(cell).rjust(w))
        lines.append("  " + "  ".join(cells).rstrip())
    return "\n".join(lines)


def markdown_table(t, rounds):
    out = ["### %s" % t["group"], "", "%s; %s." % (t["label"] or "time per iteration",
                                                  rounds_text(rounds)), ""]
    out.append("| " + " | ".join(t["header"]) + " |")
    out.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(t["header"]))) + "|")
    for row in t["rows"]:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(out)


def metric_of(res, metric):
    if not isinstance(res, dict) or res["status"] != "ok" or not res["median"]:
        return None
    key = "time_ns" if metric == "time" else metric
    return res["median"].get(key)


def paired_time_ratio(ours_res, peer_res):
    """(median, lowest, highest) over rounds of ours / peer time measured in the same round, or
    None when no round has both."""
    peer_by_round = {s["round"]: s["time_ns"] for s in peer_res["samples"] if s["time_ns"]}
    ratios = sorted(s["time_ns"] / peer_by_round[s["round"]] for s in ours_res["samples"]
                    if s["round"] in peer_by_round)
    if not ratios:
        return None
    return statistics.median(ratios), ratios[0], ratios[-1]


def noise_band(ratio, lowest, highest):
    """The noise of a ratio measured over rounds: half the range of the per-round ratios, relative
    to their median (0 with fewer than two distinct rounds)."""
    return (highest - lowest) / 2 / ratio if ratio > 0 else 0.0


def verdict(ratio, limit, band):
    """PASS when the ratio meets the limit; TIE when it misses by less than the noise of its own
    rounds (two programs that run the same code land there half the time); MISS otherwise."""
    if ratio <= limit:
        return "PASS"
    if band > 0 and ratio <= limit * (1 + band):
        return "TIE"
    return "MISS"


def plain_words(t, ratio, metric, status, band):
    """A time claim in words: what was asked and what this run measured."""
    ours, peer, limit = t["ours"], t["peer"], t["max_ratio_ours_over_peer"]
    if metric != "time":
        return "%s's %s is %.2f of %s's (wanted at most %g)" % (ours, metric, ratio, peer, limit)
    if limit < 1:
        asked = "at least %.3gx faster than %s" % (1 / limit, peer)
    elif limit == 1:
        asked = "no slower than %s" % peer
    else:
        asked = "within %.3gx of %s's time" % (limit, peer)
    if ratio <= 0 or limit <= 0:
        return "%s / %s time = %.3g (wanted at most %g)" % (ours, peer, ratio, limit)
    if abs(ratio - 1) < 0.005:
        got = "as fast"
    else:
        got = "%.2fx faster" % (1 / ratio) if ratio < 1 else "%.2fx slower" % ratio
    words = "%s wanted %s; measured %s" % (ours, asked, got)
    if status == "TIE":
        words += " (within this run's noise of %.0f%%)" % (100 * band)
    return words


def check_targets(targets, results, missing, groups, interleaved=None):
    by_name = {}
    for res in results.values():
        by_name[(res["run"]["group"], res["run"]["allocator"])] = res
    checked = []
    # A target's peer runs in its own table, or (peer_table) in another: a row against itself in
    # another setting, e.g. with an idle thread against single-threaded.
    skipped = [t for t in targets if t["table"] not in groups or t.get("peer_table", t["table"]) not in groups]
    for t in targets:
        if t in skipped:
            continue
        group = t["table"]
        desc = t.get("claim", "")
        entry = dict(t)
        if "counter" in t:
            alloc = t["ours"]
            v = metric_of(by_name.get((group, alloc)), t["counter"])
            if v is None:
                status, text = "n/a", "%s/%s: %s not measured" % (group, alloc, t["counter"])
            else:
                ok = (("min" not in t or v >= t["min"]) and ("max" not in t or v <= t["max"]))
                bounds = " and ".join(s for s in (
                    ">= %g" % t["min"] if "min" in t else "", "<= %g" % t["max"] if "max" in t else "")
                    if s)
                status = "PASS" if ok else "MISS"
                text = "%s/%s: %s = %.3g (want %s)" % (group, alloc, t["counter"], v, bounds)
                entry["words"] = "%s %s: %s (wanted %s)" % (alloc, t["counter"], fmt_count(v), bounds)
        else:
            metric = t.get("metric", "time")
            peer_group = t.get("peer_table", group)
            ours = metric_of(by_name.get((group, t["ours"])), metric)
            peer = metric_of(by_name.get((peer_group, t["peer"])), metric)
            limit = t["max_ratio_ours_over_peer"]
            what = "time" if metric == "time" else metric
            if ours is None or peer is None:
                absent = [n for n, v in ((t["ours"], ours), (t["peer"], peer)) if v is None]
                why = ["missing" if any(p == n and g in (group, peer_group) for p, _k, g in missing)
                       else "not measured" for n in absent]
                status = "n/a"
                text = "%s: %s" % (group, ", ".join("%s %s" % (n, w) for n, w in zip(absent, why)))
            else:
                ratio = ours / peer if peer else float("inf")
                rounds = ""
                band = 0.0
                paired = paired_time_ratio(by_name[(group, t["ours"])], by_name[(peer_group, t["peer"])]) \
                    if metric == "time" else None
                if paired:
                    ratio = paired[0]
                    rounds = ", per round %.2f-%.2f" % paired[1:]
                    band = noise_band(ratio, paired[1], paired[2])
                together = (interleaved or {}).get((group, t["ours"], t["peer"]))
                if metric == "time" and together:
                    ratio = statistics.median(together)
                    rounds = ", in one process, interleaved: rounds %.2f-%.2f; in separate processes %.2f" % (
                        min(together), max(together), paired[0] if paired else ours / peer)
                    band = noise_band(ratio, min(together), max(together))
                status = verdict(ratio, limit, band)
                peer_name = t["peer"] if peer_group == group else "%s/%s" % (peer_group, t["peer"])
                text = "%s: %s %s / %s %s = %.2f (want <= %g%s%s)" % (
                    group, t["ours"], what, peer_name, what, ratio, limit, rounds,
                    ", noise band %.0f%%" % (100 * band) if band else "")
                entry["ratio"], entry["band"] = ratio, band
                entry["words"] = plain_words(t, ratio, metric, status, band)
        entry.update(status=status, result=text)
        checked.append(entry)
        print("%-4s  %s%s" % (status, text, ("  -- " + desc) if desc else ""))
    if skipped:
        print("(%d more not checked: their tables were not run)" % len(skipped))
    return checked


def machine_info(build_dir):
    info = {"host": socket.gethostname(), "uname": " ".join(platform.uname()),
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds")}
    try:
        info["uname"] = subprocess.run(["uname", "-a"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                info["cpu"] = line.split(":", 1)[1].strip()
    except OSError:
        pass
    info["cpus"] = os.cpu_count()
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if os.path.isfile(cache):
        with open(cache) as f:
            for line in f:
                for key in ("CMAKE_CXX_COMPILER", "CMAKE_BUILD_TYPE"):
                    if line.startswith(key + ":"):
                        info[key] = line.split("=", 1)[1].strip()
        if info.get("CMAKE_CXX_COMPILER"):
            try:
                v = subprocess.run([info["CMAKE_CXX_COMPILER"], "--version"], capture_output=True,
                                   text=True, timeout=30).stdout.splitlines()
                info["compiler"] = v[0] if v else info["CMAKE_CXX_COMPILER"]
            except (OSError, subprocess.SubprocessError):
                info["compiler"] = info["CMAKE_CXX_COMPILER"]
    return info


def save_figure(plt, fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# Rows named <iterations>x<elements> or <elements> (the arena's and the private pools' tables): one
# line per allocator, time against the elements.
RANGE_ROW = re.compile(r"^(?:(\d+)x)?(\d+)$")


def plot_ranges(results, out_dir, stem):
    """For tables whose rows are <iterations>x<elements> or <elements>: time per operation against
    the number of elements, one line per allocator (log-log), as the figures of the original
    articles."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    series = {}
    for res in results.values():
        table, row = res["run"]["group"].split("/", 1) if "/" in res["run"]["group"] else (res["run"]["group"], "")
        m = RANGE_ROW.match(row)
        if m and res["median"]:
            series.setdefault(table, {}).setdefault(res["run"]["allocator"], []).append(
                (int(m.group(2)), res["median"]["time_ns"]))
    paths = []
    for table, lines in sorted(series.items()):
        if max(len(points) for points in lines.values()) < 2:
            continue
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for alloc, points in sorted(lines.items()):
            points.sort()
            style = "-" if alloc.startswith(OURS_PREFIX) else "--"
            ax.plot([p[0] for p in points], [p[1] for p in points], style, marker="o", label=alloc)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel("ns per operation (median)")
        ax.set_title(table_title(table))
        ax.legend(fontsize="small")
        paths.append(save_figure(plt, fig, os.path.join(out_dir, "%s-%s-by-size.png" % (stem, table))))
    return paths


def load_tables_file():
    path = os.path.join(HERE, "tables.json")
    if not os.path.isfile(path):
        return {"baselines": [], "tables": {}}
    with open(path) as f:
        return json.load(f)


TABLES = load_tables_file()


def table_title(table):
    known = TABLES["tables"].get(table)
    if known:
        return known["title"]
    return re.sub(r"^seed\d+_", "", table).replace("_", " ")


def baseline_of(allocators):
    for b in TABLES["baselines"]:
        if b in allocators:
            return b
    return None


README_BEGIN = "<!-- benchmarks:headline:begin (bench/run.py writes what lies between these markers) -->"
README_END = "<!-- benchmarks:headline:end -->"


def ratio_words(paired, ratio):
    """Ours against std in words: "2.70x faster", "1.10x slower", or a tie when the per-round
    ratios (paired: (median, lowest, highest), or None) lie on both sides of 1."""
    if paired:
        ratio, lowest, highest = paired
        if lowest <= 1 <= highest:
            return "tie (rounds %.2f-%.2f of std's time)" % (lowest, highest)
    if abs(ratio - 1) < 0.005:
        return "as fast"
    return "%.2fx faster" % (1 / ratio) if ratio < 1 else "%.2fx slower" % ratio


def headline_table(results):
    """The headline of bench/tables.json as markdown lines: for each row, ours against std (time,
    and a counter where the row names one), the ratio (the median of the per-round ratios: rounds
    cancel the machine's drift), both spreads, and the row's fastest allocator when it is neither.
    Rows this run did not measure are left out."""
    by_key = {(r["run"]["group"], r["run"]["allocator"]): r for r in results.values()}
    lines = ["| benchmark | allocplus | std | ratio | spread (allocplus / std) | fastest of the row, if another |",
             "|---|---:|---:|---:|---:|---|"]
    measured = lambda r: bool(r and r["status"] == "ok" and r["median"] and r["median"]["time_ns"] > 0)
    for h in TABLES.get("headline", []):
        ours, std = by_key.get((h["row"], h["ours"])), by_key.get((h["row"], h["std"]))
        if not (measured(ours) and measured(std)):
            continue
        words = ratio_words(paired_time_ratio(ours, std),
                            ours["median"]["time_ns"] / std["median"]["time_ns"])
        cells = []
        for res in (ours, std):
            cell = fmt_time(res["median"]["time_ns"])
            value = res["median"].get(h.get("counter"))
            if value is not None and "counter_values" in h:   # a yes/no counter: its words
                cell += ", " + h["counter_values"].get("%g" % value, "%g" % value)
            elif value is not None:
                cell += ", %s %s" % (fmt_count(value), h["counter_words"])
            cells.append(cell)
        row = {a: r["median"]["time_ns"] for (g, a), r in by_key.items() if g == h["row"] and measured(r)}
        fastest = min(row, key=row.get)
        other = "" if fastest in (h["ours"], h["std"]) else "`%s`, %s" % (fastest, fmt_time(row[fastest]))
        lines.append("| %s | %s | %s | %s | %.0f%% / %.0f%% | %s |" % (
            h["what"], cells[0], cells[1], words, 100 * ours["median"]["spread"], 100 * std["median"]["spread"],
            other))
    return lines if len(lines) > 2 else []


def when(machine):
    """A run's date and time as people write it: 2026-11-30 00:16 UTC."""
    stamp = machine["date"]
    m = re.match(r"^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)", stamp)
    if not m:
        return stamp
    zone = stamp[19:]
    return "%s %s %s" % (m.group(1), m.group(2), "UTC" if zone in ("+00:00", "Z") else "(UTC%s)" % zone)


def plot_links(tables, plots, rel):
    """Markdown lines linking the by-size plot of each of `tables` among `plots` (paths made
    relative by rel), a blank line after each."""
    lines = []
    for table in tables:
        for png in plots:
            if os.path.basename(png).endswith("-%s-by-size.png" % table):
                lines += ["![%s](%s)" % (table_title(table), rel(png)), ""]
    return lines


def run_words(machine, settings):
    """One sentence: when, where and how a run measured."""
    return ("Measured on %s on %s (%s CPUs, %s, build type %s) by `%s`: each benchmark in a process of its own%s, "
            "%d measured round%s%s; a figure is the median over the rounds, its spread (slowest - fastest) / median." % (
                when(machine), machine.get("cpu", "an unknown CPU"), machine.get("cpus"),
                machine.get("compiler", "an unknown compiler"), machine.get("CMAKE_BUILD_TYPE", "?"),
                settings["command"],
                pinning_words(settings["cpu"], settings.get("two_thread_cpus")) if settings.get("cpu", -1) >= 0 else "",
                settings["rounds"], "s" if settings["rounds"] != 1 else "",
                " after a warm-up round" if settings["warmup_rounds"] else ""))


def update_readme(readme, report, machine, settings, results, plots):
    """Rewrites README.md's headline block (between README_BEGIN and README_END) from this run: the
    run's date and machine, the headline table, and the plots of bench/tables.json's
    headline_plots. Leaves the file alone when it has no such block."""
    if not os.path.isfile(readme):
        return False
    with open(readme) as f:
        text = f.read()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        return False
    rel = lambda p: os.path.relpath(p, os.path.dirname(os.path.abspath(readme)))
    block = [README_BEGIN, "", run_words(machine, settings) + " The machine is shared and noisy: read a "
             "difference within the spread as noise. Every table, peer and claim of the run: [%s](%s)." % (
                 os.path.relpath(report, os.path.dirname(os.path.abspath(readme))), rel(report)), ""]
    block += headline_table(results) + [""]
    block += plot_links(TABLES.get("headline_plots", []), plots, rel)
    block.append(README_END)
    with open(readme, "w") as f:
        f.write(text[:begin] + "\n".join(block) + text[end + len(README_END):])
    return True


def write_report(path, machine, command, settings, groups, results, missing, checked, results_md, plots):
    """doc/benchmarks.md: the run for users. Every figure is this run's; a ratio compares two
    benchmarks of this run; where a peer is faster, the table shows it (the fastest is in bold)."""
    rel = lambda p: os.path.relpath(p, os.path.dirname(os.path.abspath(path)))
    counts = {s: sum(1 for c in checked if c["status"] == s) for s in ("PASS", "TIE", "MISS", "n/a")}
    tier = ("the rows of the suite as it stood that day (a run from before the tiers were recorded)"
            if "full" not in settings else
            "every row with every allocator (`--full`)" if settings.get("full") else
            "the rows `--filter` chose" if settings.get("filter") else
             "the default selection: the headline tables with every peer, the allocators each claim compares "
             "with their row's baseline, and a row of every other table (`--full` runs every row with every "
             "allocator)")
    out = ["# Benchmarks", "",
           run_words(machine, settings) + " The machine is a shared virtual machine: differences within the "
           "spread are noise.", "",
           "This run measured %s. Its tables, every sample and the counters: [%s](%s). Older runs: "
           "[bench/results](%s)." % (tier, os.path.basename(results_md), rel(results_md),
                                      rel(os.path.dirname(results_md))), ""]
    headline = headline_table(results)
    if headline:
        out += ["## Headline", "",
                "allocplus against std (`std::allocator` over glibc's malloc, glibc's malloc itself, or the "
                "standard library's `std::pmr` pool resource); the ratio is the median of the per-round ratios, "
                "a tie when the rounds fall on both sides of 1.", ""] + headline + [""]
        out += plot_links(TABLES.get("headline_plots", []), plots, rel)
    if checked:
        out += ["## What this run shows", "",
                "Of %d claims, %d hold, %d are ties (the difference is within the run's own noise) and %d do "
                "not hold%s; those that do not hold come first." % (len(checked), counts["PASS"], counts["TIE"], counts["MISS"],
                                 ", %d were not measured" % counts["n/a"] if counts["n/a"] else ""), ""]
        order = {"MISS": 0, "TIE": 1, "n/a": 2, "PASS": 3}   # what a reader needs to know first
        for c in sorted(checked, key=lambda c: order[c["status"]]):
            words = c.get("words") or c["result"]
            title = table_title(c["table"].split("/")[0])
            row = c["table"].split("/", 1)[1] if "/" in c["table"] else ""
            verdict_words = {"PASS": "holds", "TIE": "tie", "MISS": "does not hold", "n/a": "not measured"}
            out.append("- **%s** %s%s: %s." % (verdict_words[c["status"]], title, (" (%s)" % row) if row else "", words))
        out.append("")
    missing_peers = sorted({(p, k) for p, k, _g in missing})
    if missing_peers:
        out += ["Not installed, so not measured: %s." % ", ".join("%s (Debian package %s)" % pk for pk in missing_peers), ""]
    by_table = {}
    for g in groups:
        by_table.setdefault(g.split("/")[0], []).append(g)
    for table, table_groups in by_table.items():
        out += ["## %s" % table_title(table), ""]
        label = next((r["label"] for r in results.values() if r["run"]["group"] in table_groups and r["label"]), "")
        if label:
            out += ["Figures: %s (median)." % label, ""]
        out += plot_links([table], plots, rel)
        columns = TABLES["tables"].get(table, {}).get("columns", {})   # counter: its header
        out += ["| row | allocator | time | spread | speed-up over the baseline |%s" % "".join(
                    " %s |" % h for h in columns.values()),
                "|---|---|---:|---:|---:|" + "---:|" * len(columns)]
        for g in table_groups:
            rows = [(a, r) for a, r in group_rows(g, results, missing)]
            measured = {a: r["median"]["time_ns"] for a, r in rows
                        if isinstance(r, dict) and r["status"] == "ok" and r["median"]}
            base = baseline_of(measured)
            best = min(measured, key=measured.get) if measured else None
            row_name = g.split("/", 1)[1] if "/" in g else ""
            for a, r in rows:
                if a not in measured:
                    status = r if isinstance(r, str) else (r["status"] if r["status"] != "ok" else "no samples")
                    out.append("| %s | %s | %s | | |%s" % (row_name, a, status, " |" * len(columns)))
                    continue
                name = "**%s**" % a if a == best else a
                speed = ("%.2fx" % (measured[base] / measured[a])) if base else ""
                if a == base:
                    speed = "1 (baseline)"
                counters = "".join(" %s |" % (fmt_count(r["median"][c]) if c in r["median"] else "")
                                   for c in columns)
                out.append("| %s | %s | %s | %.0f%% | %s |%s" % (row_name, name, fmt_time(measured[a]),
                                                              100 * r["median"]["spread"], speed, counters))
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out).rstrip() + "\n")


# --------------------------------------------------------------------------------------------

def rewrite_report(json_path, report):
    """--report-from: writes the report (and README.md's headline, for the default report) again
    from a run's JSON, as that run would have written it with this runner: a change to how the
    report reads needs no new run, and every figure stays the run's."""
    with open(json_path) as f:
        doc = json.load(f)
    if "benchmarks" not in doc or "machine" not in doc:
        raise SystemExit("run.py --report-from: %s is not a run of bench/run.py" % json_path)
    settings = dict(doc.get("settings", {}))
    settings.setdefault("command", "bench/run.py")
    settings.setdefault("cpu", -1)
    settings.setdefault("rounds", 0)
    settings.setdefault("warmup_rounds", 1)
    whole = (not settings.get("filter") and not settings.get("quick")
             and all(b["status"] == "ok" for b in doc["benchmarks"]))
    if not report and not whole:
        raise SystemExit("run.py --report-from: %s is not a complete run of the whole suite (a --filter, or a "
                         "benchmark that failed): give --report FILE to write its report elsewhere" % json_path)
    doc["settings"] = settings
    results = {}
    for b in doc["benchmarks"]:
        run = {"name": b["name"], "group": b["group"], "allocator": b["allocator"], "base": b.get("benchmark"),
               "preload": b.get("preload")}
        results[b["name"]] = {"run": run, "status": b["status"], "label": b.get("label", ""),
                              "samples": b["samples"], "median": b["median"]}
    groups = []
    for b in doc["benchmarks"]:
        if b["group"] not in groups:
            groups.append(b["group"])
    missing = [(m["allocator"], m["package"], m["group"]) for m in doc.get("missing", [])]
    out_dir = os.path.dirname(os.path.abspath(json_path))
    stem = os.path.splitext(os.path.basename(json_path))[0]
    plots = plot_ranges(results, out_dir, stem)
    if not plots:   # no matplotlib here: the plots the run drew, where they are
        plots = sorted(glob.glob(os.path.join(out_dir, glob.escape(stem) + "-*-by-size.png")))
        if plots:
            print("run.py --report-from: matplotlib is missing; the report links the plots the run drew")
    md_path = os.path.join(out_dir, stem + ".md")
    path = report or os.path.join(HERE, "..", "doc", "benchmarks.md")
    write_report(path, doc["machine"], doc["settings"]["command"], doc["settings"], groups, results, missing,
                 doc.get("targets", []), md_path, plots)
    print("wrote %s" % os.path.relpath(path))
    if not report and update_readme(os.path.join(HERE, "..", "README.md"), path, doc["machine"], doc["settings"],
                                    results, plots):
        print("wrote README.md's headline table")
    return 0


def unused_stem(out_dir, stem):
    """`stem`, or, when a run of the same day and host already wrote <stem>.json in out_dir (a run
    of the whole suite followed by a filtered one, say), <stem>-2, -3...: a run never overwrites
    another's results."""
    candidate, n = stem, 1
    while os.path.exists(os.path.join(out_dir, candidate + ".json")):
        n += 1
        candidate = "%s-%d" % (stem, n)
    return candidate


def quick_summary(results):
    """--quick: which benchmarks ran and which did not. Exit status 1 when one did not."""
    failed = sorted(n for n, r in results.items() if r["status"] != "ok")
    for n in failed:
        print("FAILED  %s: %s" % (n, results[n]["status"]))
    print("quick run: %d benchmarks ran, %d failed" % (len(results) - len(failed), len(failed)))
    return 1 if failed else 0


def default_target_files():
    """bench/targets.json, then each part's bench/<part>/targets.json, in name order."""
    files = [os.path.join(HERE, "targets.json")]
    files += sorted(glob.glob(os.path.join(HERE, "*", "targets.json")))
    return [f for f in files if os.path.isfile(f)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", help="the CMake build directory (bench programs in <dir>/bench)")
    tier = ap.add_mutually_exclusive_group()
    tier.add_argument("--quick", action="store_true",
                      help="run every benchmark once, as short as it can be (one round, no warm-up, no "
                           "interleaving): that they all still run; no figure is checked, no report written")
    tier.add_argument("--full", action="store_true",
                      help="every benchmark with more rounds (%d), longer runs (%g s) and %d interleaved "
                           "repetitions, however long it takes" % (FULL_ROUNDS, FULL_MIN_TIME, FULL_INTERLEAVE))
    ap.add_argument("--rounds", type=int, default=None,
                    help="measured rounds, after one warm-up round (default %d; --full %d)" % (DEFAULT_ROUNDS, FULL_ROUNDS))
    ap.add_argument("--filter", default="", help="Python regex over <table>/<row>/<allocator> names")
    ap.add_argument("--out", default=os.path.join(HERE, "results"), help="where the JSON and markdown go")
    ap.add_argument("--min-time", type=float, default=None,
                    help="--benchmark_min_time of each run, seconds (default %g; --full %g)" % (DEFAULT_MIN_TIME, FULL_MIN_TIME))
    ap.add_argument("--report", default=None,
                    help="the report for users to write (default doc/benchmarks.md, for a run of every "
                         "benchmark without --filter and without --quick)")
    ap.add_argument("--no-report", action="store_true", help="write no report, only the dated results")
    ap.add_argument("--report-from", metavar="RUN.json",
                    help="run nothing: write the report (default doc/benchmarks.md, and then README.md's headline "
                         "table) again from a run's JSON in bench/results, with this runner's way of writing it")
    ap.add_argument("--timeout", type=float, default=600, help="seconds before a run counts as crashed")
    ap.add_argument("--targets", action="append", default=[],
                    help="a file of claimed targets (repeatable; default bench/targets.json and "
                         "bench/*/targets.json, one file per part of the library)")
    ap.add_argument("--peer-lib", action="append", default=[], metavar="NAME=PATH",
                    help="use PATH for a peer (jemalloc, tcmalloc, mimalloc) instead of searching")
    ap.add_argument("--interleave", type=int, default=0, metavar="N",
                    help="also run ours and the peer of each same_process time target together in one "
                         "process, N repetitions each in random order, once per round, and check the "
                         "target on that")
    ap.add_argument("--interleave-min-time", type=float, default=0.05,
                    help="--benchmark_min_time of each interleaved repetition, seconds (default 0.05)")
    ap.add_argument("--list", action="store_true", help="print what would run, run nothing")
    ap.add_argument("--verbose", action="store_true", help="print every run")
    add_cpu_argument(ap)
    args = ap.parse_args()
    if args.report_from:
        return rewrite_report(args.report_from, args.report)
    if not args.build_dir:
        ap.error("--build-dir is required (but for --report-from)")
    pin_to_cpu(args.cpu)
    shown, skip = [], False
    for a in sys.argv[1:]:   # the command as a user types it: scripts/bench.sh gives the build dir
        if skip or a.startswith("--build-dir"):
            skip = a == "--build-dir" and not skip
            continue
        shown.append(a if re.match(r"^[\w./=:,+-]+$", a) else "'%s'" % a)
    command = os.environ.get("ALLOCPLUS_BENCH_COMMAND") or " ".join(["scripts/bench.sh"] + shown)
    if args.quick:
        args.rounds, args.min_time, args.interleave, warmup = 1, 0.0, 0, 0
    else:
        warmup = 1 if args.full else 0   # the default tier warms up each program once instead
        if args.full:
            args.interleave = max(args.interleave, FULL_INTERLEAVE)
        if args.rounds is None:
            args.rounds = FULL_ROUNDS if args.full else DEFAULT_ROUNDS
        if args.min_time is None:
            args.min_time = FULL_MIN_TIME if args.full else DEFAULT_MIN_TIME
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if args.interleave < 0 or args.interleave == 1:
        ap.error("--interleave wants at least 2 repetitions (or 0: off)")
    if args.filter:
        try:
            re.compile(args.filter)
        except re.error as e:
            ap.error("--filter: %s" % e)
    overrides = {}
    for item in args.peer_lib:
        name, _, path = item.partition("=")
        if name not in {p[0] for p in PEERS} or not path:
            ap.error("--peer-lib wants NAME=PATH with NAME one of %s" % ", ".join(p[0] for p in PEERS))
        overrides[name] = path
    build_dir = os.path.abspath(args.build_dir)

    peers = find_peers(overrides)
    target_files = args.targets or default_target_files()
    targets = []
    for path in target_files:
        with open(path) as f:
            targets += json.load(f).get("targets", [])
    runs, groups, missing = plan_runs(build_dir, peers, args.filter)
    if not (args.full or args.quick or args.filter):   # the default tier
        runs, groups, missing = default_selection(runs, groups, missing, targets)
    for peer, package, _files in PEERS:
        if peers[peer]:
            print("peer: %s = %s" % (peer, peers[peer]))
        elif any(m[0].endswith(peer) for m in missing):
            print("missing: %s (Debian package %s)" % (peer, package))
    if not runs:
        print("run.py: no benchmark matches --filter %r" % args.filter, file=sys.stderr)
        return 2
    if args.list:
        for r in runs:
            print("%-64s %s%s" % (r["name"], os.path.basename(r["exe"]),
                                  "  LD_PRELOAD=" + r["preload"] if r["preload"] else ""))
        return 0
    print("%d benchmarks, %d groups, %s + %d round(s), min time %g s each%s"
          % (len(runs), len(groups), "no warm-up" if args.quick else "a warm-up round" if warmup
             else "each program warmed up once", args.rounds, args.min_time,
             " (--quick: that every benchmark runs; no figure is checked)" if args.quick else ""),
          file=sys.stderr)

    if not args.quick and not warmup:
        warm_up_programs(runs, args.timeout)
    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    results, context = execute(runs, groups, args.rounds, warmup, args.min_time, args.timeout, args.verbose)
    two_cpus = sorted(two_thread_cpus() or []) or None
    if args.quick:
        return quick_summary(results)
    interleaved = (execute_interleaved(targets, runs, args.rounds, args.interleave, args.interleave_min_time,
                                       args.timeout, None if args.full else results) if args.interleave else {})
    tables = build_tables(groups, results, missing)
    print()
    print("time/op: median time per operation (the label says what one operation is); spread: "
          "(max - min) / median over rounds;\nvs X: this allocator's time / X's time (above 1: X, "
          "ours, is faster).")
    for t in tables:
        print()
        print(text_table(t, args.rounds))

    if target_files:
        print()
        print("targets (%s):" % ", ".join(os.path.relpath(p) for p in target_files))
    checked = check_targets(targets, results, missing, groups, interleaved)
    headline = headline_table(results)
    if headline:
        print()
        print("headline: allocplus against std (time per operation, median; ratio: median of the per-round ratios)")
        for line in headline:
            print(line)

    machine = machine_info(build_dir)
    machine["finished"], machine["date"] = machine["date"], started
    machine["benchmark_context"] = context
    host = re.sub(r"[^A-Za-z0-9_.-]", "_", machine["host"].split(".")[0]) or "host"
    stem = unused_stem(args.out, "%s-%s" % (datetime.date.today().isoformat(), host))
    os.makedirs(args.out, exist_ok=True)
    doc = {
        "machine": machine,
        "settings": {"rounds": args.rounds, "warmup_rounds": warmup, "min_time": args.min_time, "command": command,
                     "filter": args.filter, "build_dir": build_dir, "peers": peers,
                     "interleave": args.interleave, "interleave_min_time": args.interleave_min_time,
                     "cpu": args.cpu, "two_thread_cpus": two_cpus, "full": bool(args.full)},
        "interleaved": [{"table": k[0], "ours": k[1], "peer": k[2], "ratios": v} for k, v in interleaved.items()],
        "missing": [{"allocator": p, "package": k, "group": g} for p, k, g in missing],
        "benchmarks": [{"name": n, "group": r["run"]["group"], "allocator": r["run"]["allocator"],
                        "program": os.path.basename(r["run"]["exe"]), "benchmark": r["run"]["base"],
                        "preload": r["run"]["preload"], "status": r["status"], "label": r["label"],
                        "median": r["median"], "samples": r["samples"]}
                       for n, r in results.items()],
        "targets": checked,
    }
    json_path = os.path.join(args.out, stem + ".json")
    with open(json_path, "w") as f:
        json.dump(doc, f, indent=1)
    md = ["# allocplus benchmarks, %s" % machine["date"], "",
          "- machine: %s, %s CPUs (`%s`)" % (machine.get("cpu", "?"), machine.get("cpus"), machine["uname"]),
          "- compiler: %s, build type %s" % (machine.get("compiler", "?"), machine.get("CMAKE_BUILD_TYPE", "?")),
          "- %d measured round(s) after %s, each benchmark in its own process%s, min time %g s%s%s"
          % (args.rounds, "a warm-up round" if warmup else "each program was warmed up once",
             pinning_words(args.cpu, two_cpus), args.min_time,
             (", filter `%s`" % args.filter) if args.filter else "",
             ("; %d time target(s) %salso run with ours and the peer in one process, %d repetitions each "
              "interleaved at random, %g s each, per round" % (
                  len(interleaved), "" if args.full else "(the close calls) ", args.interleave,
                  args.interleave_min_time)) if args.interleave else ""),
          "- time/op: median time per operation; spread: (max - min) / median over rounds; "
          "vs X: time / X's time (above 1: X, ours, is faster)", ""]
    md += ["missing: %s (Debian package %s)" % (p, k) for p, k, _f in PEERS if not peers[p]]
    for t in tables:
        md += ["", markdown_table(t, args.rounds)]
    if checked:
        md += ["", "### Targets", ""]
        md += ["- **%s** %s%s" % (c["status"], c["result"], (" — " + c["claim"]) if c.get("claim") else "")
               for c in checked]
    md_path = os.path.join(args.out, stem + ".md")
    with open(md_path, "w") as f:
        f.write("\n".join(md) + "\n")
    range_pngs = plot_ranges(results, args.out, stem)
    print()
    print("wrote %s and %s%s" % (os.path.relpath(json_path), os.path.relpath(md_path),
                                 " and %d plots" % len(range_pngs) if range_pngs else ""))
    failed = [n for n, r in results.items() if r["status"] != "ok"]
    # The page for users comes only from a complete run of the whole suite, kept in bench/results.
    whole_run = not args.filter and not failed and os.path.abspath(args.out) == os.path.join(HERE, "results")
    report = args.report or (os.path.join(HERE, "..", "doc", "benchmarks.md") if whole_run else None)
    if report and not args.no_report:
        write_report(report, machine, command, doc["settings"], groups, results, missing, checked, md_path,
                     range_pngs)
        print("wrote %s" % os.path.relpath(report))
        readme = os.path.join(HERE, "..", "README.md")
        if not args.report and update_readme(readme, report, machine, doc["settings"], results, range_pngs):
            print("wrote README.md's headline table")
    if failed:
        print("FAILED: %s" % ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
