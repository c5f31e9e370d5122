#!/usr/bin/env python3
# Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
# (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
"""Tests of bench/run.py's choices that no benchmark run checks: what the default tier keeps,
which claims it interleaves, the headline table, and the README block it rewrites. Standard
library only; run by ctest (bench_runner_test) in every test build."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import run  # noqa: E402  (bench/run.py)

TABLES = {
    "headline_tables": ["listy"],
    "headline": [
        {"row": "core/random", "ours": "ba_malloc", "std": "glibc_malloc", "what": "churn"},
        {"row": "grow/big", "ours": "ba_expand", "std": "glibc_malloc", "what": "expand",
         "counter": "in_place", "counter_values": {"1": "in place", "0": "moved"}},
    ],
    "headline_plots": [],
    "baselines": ["std_list", "glibc_malloc"],
    "tables": {},
}


def read(path):
    with open(path) as f:
        return f.read()


def a_run(group, allocator):
    return {"group": group, "allocator": allocator, "name": "%s/%s" % (group, allocator), "exe": "prog",
            "preload": None}


def a_result(group, allocator, times, counters=None):
    samples = [{"round": i + 1, "time_ns": t, "real_time_ns": t, "counters": dict(counters or {})}
               for i, t in enumerate(times)]
    return {"run": a_run(group, allocator), "status": "ok", "label": "", "samples": samples,
            "median": run.medians(samples)}


class DefaultSelection(unittest.TestCase):
    def setUp(self):
        run.TABLES = dict(TABLES)
        self.runs = [a_run(g, a) for g, allocs in [
            ("listy/10", ["ba_list", "std_list", "boost_list"]),
            ("listy/100", ["ba_list", "std_list", "boost_list"]),
            ("core/random", ["ba_malloc", "glibc_malloc", "jemalloc"]),
            ("core/lifo", ["ba_malloc", "glibc_malloc", "jemalloc"]),
            ("aged/first", ["ba_vector", "ba_vector_v1", "std_list", "boost_vector"]),
            ("aged/second", ["ba_vector", "std_list"]),
            ("peers/first", ["std_list", "boost_list"]),
            ("peers/second", ["ba_list", "std_list", "boost_list"]),
            ("memory/only", ["std_list", "boost_list"]),
            ("pools/1M", ["ba_pool", "boost_pool", "pmr_pool", "glibc_malloc"]),
        ] for a in allocs]
        self.groups = []
        for r in self.runs:
            if r["group"] not in self.groups:
                self.groups.append(r["group"])

    def kept(self, targets, missing=()):
        runs, groups, missing = run.default_selection(self.runs, self.groups, list(missing), targets)
        return {(r["group"], r["allocator"]) for r in runs}, groups, missing

    def test_headline_tables_and_rows_keep_every_allocator(self):
        kept, _groups, _missing = self.kept([])
        for a in ("ba_list", "std_list", "boost_list"):
            self.assertIn(("listy/10", a), kept)
            self.assertIn(("listy/100", a), kept)
        for a in ("ba_malloc", "glibc_malloc", "jemalloc"):
            self.assertIn(("core/random", a), kept)

    def test_a_claim_keeps_its_two_allocators_and_the_baseline(self):
        kept, _groups, _missing = self.kept([{"table": "pools/1M", "ours": "ba_pool", "peer": "boost_pool"}])
        self.assertIn(("pools/1M", "ba_pool"), kept)
        self.assertIn(("pools/1M", "boost_pool"), kept)
        self.assertIn(("pools/1M", "glibc_malloc"), kept)   # the row's baseline
        self.assertNotIn(("pools/1M", "pmr_pool"), kept)

    def test_a_claim_against_another_row_keeps_the_peer_there(self):
        kept, _groups, _missing = self.kept(
            [{"table": "core/lifo", "ours": "ba_malloc", "peer": "boost_pool", "peer_table": "pools/1M"}])
        self.assertIn(("core/lifo", "ba_malloc"), kept)
        self.assertIn(("pools/1M", "boost_pool"), kept)         # reached through peer_table only
        self.assertNotIn(("core/lifo", "boost_pool"), kept)
        self.assertNotIn(("core/lifo", "jemalloc"), kept)

    def test_a_table_nothing_reaches_keeps_its_first_row_ours_and_baseline(self):
        kept, groups, _missing = self.kept([])
        self.assertIn(("aged/first", "ba_vector"), kept)
        self.assertIn(("aged/first", "ba_vector_v1"), kept)
        self.assertIn(("aged/first", "std_list"), kept)         # the baseline
        self.assertNotIn(("aged/first", "boost_vector"), kept)
        self.assertNotIn("aged/second", groups)
        # A first row without one of ours: the first row that has one.
        self.assertNotIn("peers/first", groups)
        self.assertIn(("peers/second", "ba_list"), kept)
        self.assertIn(("peers/second", "std_list"), kept)
        # A table with none of ours at all still shows its first row.
        self.assertIn(("memory/only", "std_list"), kept)

    def test_groups_keep_their_order_and_missing_peers_follow_their_rows(self):
        missing = [("mimalloc", "libmimalloc2.0", "core/random"), ("mimalloc", "libmimalloc2.0", "core/lifo")]
        _kept, groups, missing = self.kept([], missing)
        self.assertEqual(groups, [g for g in self.groups if g in groups])
        self.assertEqual(missing, [("mimalloc", "libmimalloc2.0", "core/random")])


class CloseCalls(unittest.TestCase):
    def test_rounds_far_from_the_limit_settle_the_claim(self):
        ours, peer = a_result("t/r", "ba", [5, 5, 5]), a_result("t/r", "peer", [10, 10.5, 9.5])
        self.assertFalse(run.close_call(ours, peer, [1.0]))     # ratios about 0.5 against 1

    def test_rounds_near_or_across_the_limit_are_a_close_call(self):
        ours, peer = a_result("t/r", "ba", [9, 10, 11]), a_result("t/r", "peer", [10, 10, 10])
        self.assertTrue(run.close_call(ours, peer, [1.0]))
        ours = a_result("t/r", "ba", [8.8, 8.8, 8.8])
        self.assertTrue(run.close_call(ours, peer, [1.0]))      # 0.88: within 15%
        self.assertFalse(run.close_call(ours, peer, [2.0]))

    def test_no_paired_round_is_a_close_call(self):
        self.assertTrue(run.close_call(None, a_result("t/r", "peer", [1]), [1.0]))


class Headline(unittest.TestCase):
    def setUp(self):
        run.TABLES = dict(TABLES)
        self.results = {}
        for res in (a_result("core/random", "ba_malloc", [10, 12, 11]),
                    a_result("core/random", "glibc_malloc", [20, 22, 24]),
                    a_result("core/random", "jemalloc", [5, 5, 5]),
                    a_result("grow/big", "ba_expand", [1, 1, 1], {"in_place": 1}),
                    a_result("grow/big", "glibc_malloc", [10, 10, 10], {"in_place": 0})):
            self.results[res["run"]["name"]] = res

    def test_rows_say_ratio_spreads_counters_and_the_faster_peer(self):
        lines = run.headline_table(self.results)
        self.assertEqual(len(lines), 4)
        churn, expand = lines[2], lines[3]
        self.assertIn("| churn | 11 ns | 22 ns | 2.00x faster |", churn)
        self.assertIn("`jemalloc`, 5 ns", churn)
        self.assertIn("1 ns, in place", expand)
        self.assertIn("10 ns, moved", expand)
        self.assertTrue(expand.endswith("|  |"))                # ours is the fastest: no other named

    def test_rounds_on_both_sides_of_std_are_a_tie_and_a_crashed_peer_is_not_the_fastest(self):
        self.results["core/random/ba_malloc"] = a_result("core/random", "ba_malloc", [19, 23, 22])
        self.results["core/random/jemalloc"]["status"] = "crashed (exit 1)"
        churn = run.headline_table(self.results)[2]
        self.assertIn("| tie (rounds 0.92-1.05 of std's time) |", churn)
        self.assertTrue(churn.endswith("|  |"))

    def test_a_row_not_measured_is_left_out(self):
        del self.results["grow/big/glibc_malloc"]
        self.assertEqual(len(run.headline_table(self.results)), 3)

    def test_the_readme_block_is_replaced_and_nothing_else(self):
        machine = {"date": "2026-11-30T00:17:00+00:00", "cpu": "a CPU", "cpus": 2, "compiler": "g++",
                   "CMAKE_BUILD_TYPE": "Release"}
        settings = {"command": "scripts/bench.sh", "cpu": -1, "rounds": 3, "warmup_rounds": 0}
        with tempfile.TemporaryDirectory() as d:
            readme = os.path.join(d, "README.md")
            with open(readme, "w") as f:
                f.write("before\n%s\nold table\n%s\nafter\n" % (run.README_BEGIN, run.README_END))
            self.assertTrue(run.update_readme(readme, os.path.join(d, "doc", "benchmarks.md"), machine, settings,
                                              self.results, []))
            text = read(readme)
            self.assertTrue(text.startswith("before\n" + run.README_BEGIN))
            self.assertTrue(text.endswith(run.README_END + "\nafter\n"))
            self.assertNotIn("old table", text)
            self.assertIn("2026-11-30 00:17 UTC", text)
            self.assertIn("| churn |", text)
            self.assertIn("(doc/benchmarks.md)", text)
            with open(readme, "w") as f:
                f.write("no markers\n")
            self.assertFalse(run.update_readme(readme, "r.md", machine, settings, self.results, []))
            self.assertEqual(read(readme), "no markers\n")


class Plots(unittest.TestCase):
    def test_rows_of_elements_are_plotted_against_them(self):
        self.assertEqual(run.RANGE_ROW.match("200x10000").group(2), "10000")
        self.assertEqual(run.RANGE_ROW.match("4096").group(2), "4096")   # the arena's rows
        self.assertIsNone(run.RANGE_ROW.match("1M_nodes"))
        self.assertIsNone(run.RANGE_ROW.match("alloc_1000x32B"))


class ResultFiles(unittest.TestCase):
    def test_a_run_never_overwrites_another(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(run.unused_stem(d, "2026-11-30-vm"), "2026-11-30-vm")
            for name in ("2026-11-30-vm.json", "2026-11-30-vm-2.json"):
                with open(os.path.join(d, name), "w") as f:
                    f.write("{}")
            self.assertEqual(run.unused_stem(d, "2026-11-30-vm"), "2026-11-30-vm-3")


class ReportFrom(unittest.TestCase):
    def test_a_report_is_written_again_from_a_runs_json(self):
        run.TABLES = dict(TABLES, tables={"core": {"title": "Churn", "columns": {"peak": "peak bytes"}}})
        results = [a_result("core/random", "ba_malloc", [10, 12, 11], {"peak": 2048}),
                   a_result("core/random", "glibc_malloc", [20, 22, 24], {"peak": 4096})]
        doc = {"machine": {"date": "2026-11-30T00:17:00+00:00", "uname": "Linux h 6.1 x86_64"},
               "settings": {"command": "scripts/bench.sh", "cpu": 0, "rounds": 3, "warmup_rounds": 0},
               "missing": [{"allocator": "mimalloc", "package": "libmimalloc2.0", "group": "core/random"}],
               "benchmarks": [{"name": r["run"]["name"], "group": r["run"]["group"],
                               "allocator": r["run"]["allocator"], "status": "ok", "label": "",
                               "median": r["median"], "samples": r["samples"]} for r in results],
               "targets": [{"table": "core/random", "ours": "ba_malloc", "peer": "glibc_malloc", "status": "PASS",
                            "result": "r", "words": "ba_malloc wanted no slower; measured 2x faster"}]}
        with tempfile.TemporaryDirectory() as d:
            json_path, report = os.path.join(d, "2026-11-30-vm.json"), os.path.join(d, "benchmarks.md")
            with open(json_path, "w") as f:
                json.dump(doc, f)
            self.assertEqual(run.rewrite_report(json_path, report), 0)
            text = read(report)
        self.assertIn("Of 1 claims, 1 hold", text)
        self.assertIn("| churn | 11 ns | 22 ns | 2.00x faster |", text)
        self.assertIn("mimalloc | missing (Debian package libmimalloc2.0)", text)
        self.assertIn("**ba_malloc**", text)
        self.assertIn("## Churn", text)
        self.assertIn("| speed-up over the baseline | peak bytes |", text)
        self.assertIn("| 2.05k |", text)   # the counter's median, beside the time
        self.assertIn("| 4.1k |", text)


if __name__ == "__main__":
    unittest.main()
