"""The benchmark's own machinery, without a GPU: the confidence interval that decides whether a
row is a lead (benchmarks/report.py), and the driver probe (benchmarks/drvprobe.c) in front of the
no-op driver, run by benchmarks/calls.py with this package, read back by the report."""
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(os.path.dirname(HERE), "benchmarks")
sys.path.insert(0, BENCH)

import report  # noqa: E402


def binom_tail(n, k):
    """P(Binomial(n, 1/2) <= k)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


@pytest.mark.parametrize("n", range(1, 41))
def test_interval_is_the_narrowest_order_statistic_interval_of_95_percent(n):
    xs = [float(10 * i) for i in range(n, 0, -1)]     # given unsorted
    lo, hi = report.interval(xs)
    k = int(lo / 10)
    assert hi == 10 * (n + 1 - k)                     # symmetric: the k-th smallest and largest
    if k > 1:       # the median lies outside [x_k, x_{n+1-k}] with chance 2 P(B <= k-1) <= 5 %
        assert 2 * binom_tail(n, k - 1) <= 0.05
    if n + 1 - 2 * (k + 1) >= 0:   # one step narrower would not cover 95 %
        assert 2 * binom_tail(n, k) > 0.05
    assert report.interval([]) is None


def test_five_rounds_give_min_to_max_and_more_rounds_narrow_it():
    assert report.interval([5, 1, 4, 2, 3]) == (1, 5)
    assert report.interval(list(range(1, 10))) == (2, 8)
    assert report.interval(list(range(1, 16))) == (4, 12)
    assert report.apart((1, 2), (3, 4)) == "ours lower"
    assert report.apart((3, 4), (1, 2)) == "NVIDIA lower"
    assert report.apart((1, 3), (2, 4)) == "overlap"


@pytest.fixture(scope="module")
def probe_run(tmp_path_factory):
    """calls.py's launch cases with this package on drvprobe.c in front of the no-op driver."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("probe")
    (d / "real").mkdir()
    (d / "front").mkdir()
    real = d / "real" / "libcuda_noop.so"
    for src, out in (("stub_driver.c", real), ("drvprobe.c", d / "front" / "libcuda.so.1")):
        subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(out), os.path.join(BENCH, src), "-ldl"],
                       check=True, capture_output=True)
    cubin = d / "k.cubin"
    cubin.write_bytes(b"\0" * 64)      # the no-op driver reads none of it
    out = d / "probe.jsonl"
    env = dict(os.environ, DRVPROBE_REAL=str(real), DRVPROBE_OUT=str(out), DRVPROBE_LABEL="ours",
               LD_LIBRARY_PATH=str(d / "front"))
    p = subprocess.run([sys.executable, os.path.join(BENCH, "calls.py"), "--label", "ours", "--cubin", str(cubin),
                        "--only", r"^cuLaunchKernel_(0args_null|8args_(array|int|tuple))$"],
                       env=env, capture_output=True, text=True, timeout=300, cwd=str(d))
    assert p.returncode == 0, p.stderr[-2000:]
    rows = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    asked = [x for x in lines if "asked" in x]
    assert len(asked) == 1 and asked[0]["label"] == "ours"
    return rows, [x for x in lines if "case" in x], asked[0]["asked"]


def test_the_probe_records_each_launch_case_as_a_segment(probe_run):
    rows, segs, _ = probe_run
    assert rows[0]["meta"]["device"] == "stub"          # calls.py ran on the no-op driver, behind the probe
    timed = [r["case"] for r in rows if "ns" in r]
    assert timed == ["cuLaunchKernel_0args_null", "cuLaunchKernel_8args_array", "cuLaunchKernel_8args_int",
                     "cuLaunchKernel_8args_tuple"]
    by_case = {s["case"]: s for s in segs}
    assert sorted(by_case) == sorted(timed)
    for case, s in by_case.items():
        assert s["label"] == "ours" and s["launches"] >= 21 * 500
        # the stream is synchronized after each repeat of 500 launches, and nothing else is called
        assert set(s["calls"]) == {"cuStreamSynchronize"}, s["calls"]
        assert 0.001 < s["calls"]["cuStreamSynchronize"] / s["launches"] <= 0.01
        assert s["driver_ns"]["n"] == s["launches"]
        # a launch right after another one (not after the synchronization) has its gap measured
        assert s["between_ns"]["n"] >= s["launches"] * 0.9
        assert 0 < s["between_ns"]["min"] <= s["between_ns"]["median"]
    assert by_case["cuLaunchKernel_0args_null"]["params"]["arrays_distinct"] == 0      # NULL
    # the pre-packed array is one void*[] for every launch; (values, types) is packed per call
    assert by_case["cuLaunchKernel_8args_array"]["params"]["arrays_distinct"] == 1
    assert by_case["cuLaunchKernel_8args_int"]["params"]["array_page_offset"] == \
        by_case["cuLaunchKernel_8args_array"]["params"]["array_page_offset"]


def test_the_report_reads_the_probe(probe_run):
    rows, segs, _ = probe_run
    res = {"probe": segs + [dict(s, label="nvidia") for s in segs]}
    summ = report.probe_summary(res)
    assert set(summ["cuLaunchKernel_8args_int"]) == {"ours", "nvidia"}
    text = "\n".join(report.probe_section(res))
    assert "cuLaunchKernel, 8 args, pre-packed, address as int" in text
    assert "cuStreamSynchronize 0.00" in text


def test_the_driver_entry_points_are_asked_for_as_nvidia_asks(probe_run):
    # CU_GET_PROC_ADDRESS_DEFAULT (0), as NVIDIA's package asks, the stream-ordered calls too
    # without the per-thread switch; the probe records what the process asked for
    _, _, asked = probe_run
    names = {name for name, version, flags in asked}
    assert {"cuInit", "cuStreamCreate", "cuLaunchKernel", "cuStreamSynchronize"} <= names
    assert [a for a in asked if a[2] != 0] == []
    launch = [v for n, v, f in asked if n == "cuLaunchKernel"]
    assert launch == [4000]        # the ABI version cudaTypedefs.h gives its prototype


def test_value_pages_of_values_in_several_mappings():
    # values terabytes apart span more pages than a C int holds: drvprobe.c counts them in 64
    # bits; an older record, whose count wrapped negative, shows at least the span's own pages
    span = 140_247_685_790_112
    full = {"nparams": 4, "values_span": span, "value_pages": span // 4096 + 1}
    assert report.f_pages(full) == f"{span // 4096 + 1:,} ({span:,} bytes)"
    wrapped = dict(full, value_pages=-246289142)
    assert report.f_pages(wrapped) == f"≥ {span // 4096 + 1:,} ({span:,} bytes)"
    assert report.f_pages({"nparams": 0}) == "—"


# ------------------------------------------------------------------ ranking runs: floors, reruns, two runs side by side
import argparse  # noqa: E402

import compare_runs  # noqa: E402
import measure  # noqa: E402


def test_a_process_floor_is_its_slowest_gauge_but_one():
    assert measure.process_floor([50, 51, 90, 52]) == 52      # one gauge caught by an interruption
    assert measure.process_floor([50, 91, 90, 52]) == 90      # a slow patch: two gauges
    assert measure.process_floor([60, 50]) == 60              # too few to leave one out
    assert measure.process_floor([]) is None


class FakeProcesses:
    """spawn() for a Phase: each process of (impl, round) gives the next floor of its script."""

    def __init__(self, scripts):
        self.scripts = {k: list(v) for k, v in scripts.items()}
        self.spawned = []

    def __call__(self, rec):
        floor = self.scripts[(rec["impl"], rec["round"])].pop(0)
        self.spawned.append((rec["impl"], rec["round"], floor))
        rows = [{"case": "c", "ns": 10.0 * floor, "gauge": floor}, {"gauge_end": floor, "gauge_name": "g"}]
        return {"ns": 10.0 * floor}, rows


def runner():
    args = argparse.Namespace(python=sys.executable, ours="/nonexistent", cpu="none", deadline=None, attempts=3)
    return measure.Runner(args)


def test_processes_over_the_limit_are_run_again_and_the_faster_attempt_kept():
    r = runner()
    spawn = FakeProcesses({("ours", 0): [50, 80, 52], ("nvidia", 0): [90, 95, 93], ("ours", 1): [55],
                           ("nvidia", 1): [48]})
    table = {}
    ph = measure.Phase(r, "calls", spawn, table.clear,
                       lambda rec: table.setdefault(rec["impl"], []).append(rec["out"]["ns"]))
    for i in range(2):
        for impl in measure.order(i):
            ph.run(i, impl)
    assert r.fastest == 48 and r.limit() == pytest.approx(57.6)
    ph.rerun_slow(ph.procs, attempts=3, until=float("inf"))
    ph.rebuild()
    # ours' first process (50) and both of round 1 were within 1.2 x 48; NVIDIA's first (90) was
    # run twice more (3 processes in all), stayed over, and its lowest attempt, the first, is kept
    assert [s for s in spawn.spawned if s[:2] == ("nvidia", 0)] == [("nvidia", 0, 90), ("nvidia", 0, 95),
                                                                    ("nvidia", 0, 93)]
    assert sorted(table["nvidia"]) == [480.0, 900.0] and sorted(table["ours"]) == [500.0, 550.0]
    s = ph.summary()
    assert s["gauge"] == "g" and s["processes"] == 4 and s["rerun"] == 1 and s["extra_processes"] == 2
    assert s["over_limit"] == 1 and sorted(s["floors"]["nvidia"]) == [48, 90]


def test_a_process_run_again_that_comes_back_fast_replaces_the_slow_one():
    r = runner()
    spawn = FakeProcesses({("ours", 0): [50], ("nvidia", 0): [70, 51]})
    table = {}
    ph = measure.Phase(r, "stub_calls", spawn, table.clear,
                       lambda rec: table.setdefault(rec["impl"], []).append(rec["out"]["ns"]))
    ph.run(0, "ours")
    ph.run(0, "nvidia")
    ph.rerun_slow(ph.procs, attempts=3, until=float("inf"))
    ph.rebuild()
    assert table == {"ours": [500.0], "nvidia": [510.0]}
    assert ph.summary()["over_limit"] == 0 and ph.procs[1]["tries"] == [70, 51]


def synthetic_run(rows, alone):
    """A results.json with real-driver rows {case: (ours figures, NVIDIA figures)} and no-op
    driver medians {case: (ours, NVIDIA)}."""
    res = {"calls": {"C": {}, "ours": {}, "nvidia": {}}, "stub_calls": {"ours": {}, "nvidia": {}}}
    for case, (o, n) in rows.items():
        res["calls"]["ours"][case], res["calls"]["nvidia"][case] = list(o), list(n)
    for case, (o, n) in alone.items():
        res["stub_calls"]["ours"][case], res["stub_calls"]["nvidia"][case] = [o], [n]
    return res


LOW, HIGH, MIXED = [100, 101, 102, 103, 104], [200, 201, 202, 203, 204], [150, 90, 210, 120, 180]


def test_compare_runs_counts_direction_and_ranking_of_the_rows_in_scope():
    alone = {"a": (50, 300), "b": (50, 300), "c": (50, 300), "d": (50, 120)}
    run_a = synthetic_run({"a": (LOW, HIGH), "b": (LOW, HIGH), "c": (LOW, HIGH), "d": (HIGH, LOW)}, alone)
    run_b = synthetic_run({"a": (LOW, HIGH), "b": (MIXED, HIGH), "c": (HIGH, LOW), "d": (LOW, HIGH)},
                          dict(alone, d=(50, 140)))
    rows = {r[0]: r[1:] for r in compare_runs.compare(run_a, run_b)}
    # a: same side, ranges apart in both; b: same side, B's ranges overlap; c: opposite sides
    assert rows["a"][2:] == (True, True, True)
    assert rows["b"][2:] == (True, True, False) and rows["b"][1]["ranges"] == "overlap"
    assert rows["c"][2:] == (True, False, False)
    assert rows["d"][2] is False                      # binding alone 70 and 90 ns: not in scope
    n = compare_runs.counts(compare_runs.compare(run_a, run_b))
    assert (n["rows"], n["in_scope"], n["agree"], n["scope_agree"], n["scope_ranked"]) == (4, 3, 2, 2, 1)
    assert n["scope_missed"] == ["b", "c"]
    assert compare_runs.counts(compare_runs.compare(run_a, run_a))["scope_missed"] == []
    n = compare_runs.counts(compare_runs.compare(run_a, run_b, min_ns=10))
    assert n["in_scope"] == 4 and n["scope_missed"] == ["b", "c", "d"]


def test_compare_runs_prints_both_runs_and_exits_1_on_a_missed_target(tmp_path, capsys):
    alone = {"cuCtxGetCurrent": (50, 300)}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(synthetic_run({"cuCtxGetCurrent": (LOW, HIGH)}, alone)))
    b.write_text(json.dumps(synthetic_run({"cuCtxGetCurrent": (HIGH, LOW)}, alone)))
    assert compare_runs.main([str(a), str(a), "--check"]) == 0
    assert "target (every row in scope ranked alike): met" in capsys.readouterr().out
    assert compare_runs.main([str(a), str(b)]) == 0
    assert compare_runs.main([str(a), str(b), "--check"]) == 1
    out = capsys.readouterr().out
    assert "| cuCtxGetCurrent | 0.50 (ours lower) | 1.98 (NVIDIA lower) | 250 | 250 | yes | DIFFER | no |" in out
    assert "missed: cuCtxGetCurrent" in out


def floor_checked_run():
    res = synthetic_run({"cuCtxGetCurrent": (LOW, HIGH)}, {"cuCtxGetCurrent": (50, 300)})
    r = runner()
    spawn = FakeProcesses({("ours", 0): [47, 49], ("nvidia", 0): [80, 48]})
    ph = r.phases["calls"] = measure.Phase(r, "calls", spawn, lambda: None, lambda rec: None)
    ph.run(0, "ours")
    ph.run(0, "nvidia")
    ph.rerun_slow(ph.procs, attempts=3, until=float("inf"))
    res["floor_check"] = measure.floor_check(r)
    res["floor_check"]["cpu_probe"] = {"mode": "auto", "probes": [
        {"at_s": 0.4, "ns": {"0": [60, 61], "1": [45, 46], "2": [90, 91]}, "chosen": 1, "pinned": "taskset -c 1"}]}
    return res


def test_the_report_shows_the_floors_of_both_packages_and_the_processes_run_again():
    res = floor_checked_run()
    text = "\n".join(report.floor_section(res))
    assert "above 1.2 × the run's fastest floor (47.0 ns)" in text
    assert "each CPU's median ns per loop step: 0: 60.5, 1: 45.5, 2: 90.5; pinned to CPU 1." in text
    assert ("| real driver | `g` | 48.0 | 47.0 | 0.98 | met | 48.0..48.0 | 47.0..47.0 | 2 | 1 (1 more processes) "
            "| 0 |") in text
    summ = report.summary(res)
    assert "floors, real driver: NVIDIA 48.0, ours 47.0 ns (0.98, within 10%: met); 2 processes" in summ
    assert "real-driver rows: 1; ours / NVIDIA above 1: 0; ranges: ours lower 1" in summ
    assert "_v2: not measured" in summ
    assert "Not recorded in this run" in "\n".join(report.floor_section({}))


def test_the_report_shows_the_v2_rows_with_their_floors():
    res = {"v2_calls": {"ours": {"v2.ctx_get_current": LOW, "floor_ptr_gil": [40, 41]},
                        "nvidia": {"v2.ctx_get_current": HIGH, "floor_ptr_gil": [42]}},
           "v2_meta": {"ours": {"version": "13.5.0", "file": "/o/cuda/bindings/__init__.py"},
                       "nvidia": {"version": "13.5.0", "file": "/n/cuda/bindings/__init__.py"}}}
    text = "\n".join(report.v2_section(res))
    assert ("| driver.ctx_get_current() | 202 | 102 | 0.50 | 200..204 | 100..104 | 5/5 | ours lower | "
            "`floor_ptr_gil`: no argument, GIL kept, a pointer returned as an int | 41.0 |") in text
    assert "NVIDIA: 13.5.0 (`/n/cuda/bindings/__init__.py`)" in text
    note = "\n".join(report.v2_section({"v2_note": "ours has no cuda.bindings._v2 yet"}))
    assert "Not measured: ours has no cuda.bindings._v2 yet." in note
    # every _v2 row names a floor that floor.pyx has and calls_v2.py times
    import calls_v2
    floor_src = open(os.path.join(BENCH, "floor.pyx")).read()
    for case, (_, fl) in report.V2_CASES.items():
        assert calls_v2.FLOOR_OF[case] == fl and f"def {fl[len('floor_'):]}(" in floor_src


def test_calls_v2_refuses_a_package_without_the_second_api():
    # this package has no cuda.bindings._v2 (yet): the process says so and exits 3
    try:
        import cuda.bindings._v2  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("this cuda.bindings has _v2")
    p = subprocess.run([sys.executable, os.path.join(BENCH, "calls_v2.py"), "--label", "ours"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 3
    meta = json.loads(p.stdout.splitlines()[0])["meta"]
    assert meta["fatal"].startswith("no cuda.bindings._v2")


def test_the_v2_launch_arguments_are_packed_in_one_block():
    import numpy as np

    import calls_v2
    block, (values, types) = calls_v2.eight_args(0x10000)
    assert block.dtype == np.uint64 and len(block) == 16 and len(values) == len(types) == 8
    base = block[8:].ctypes.data
    assert [int(x) for x in block[:8]] == [base + 8 * i for i in range(8)]
    assert np.frombuffer(block[8:9].tobytes()[:4], dtype=np.float32)[0] == 2.0
    assert [int(x) for x in block[9:13]] == [0x10000, 0x10004, 0x10008, 0x1000C]


def test_the_gauge_times_a_call():
    import calls
    g = calls.fallback_gauge()
    assert g.name == "(1).bit_length()" and 0 < g() < 10_000


def test_a_case_times_the_gauge_between_its_repeats():
    import calls
    seen = []

    class Slowing:      # a gauge whose every repeat is slower than the one before
        def once(self):
            seen.append(len(seen))
            return 50.0 + len(seen)
    old = calls.GAUGE
    calls.GAUGE = Slowing()
    try:
        ns, iters, repeats, within, twin, reps = calls.measure("f()", {"f": int}, False, None)
    finally:
        calls.GAUGE = old
    assert len(seen) == repeats + 1 and within == 51.0 and ns > 0 and twin is None and reps is None
    calls.GAUGE = None
    try:
        assert calls.measure("f()", {"f": int}, False, None)[3] is None
        assert calls.timed("f()", {"f": int}, False, None, None)[3:] == (None, None, None, 0)
    finally:
        calls.GAUGE = old


def test_a_case_timed_slowly_is_timed_again_and_the_fastest_attempt_kept():
    import calls
    speeds = iter([90.0, 95.0, 92.0, 99.0, 45.0, 46.0, 47.0, 44.0, 60.0])

    class Stepping:     # slow during the first attempt (90 and up), fast during the second
        def once(self):
            return next(speeds)
    old, calls.GAUGE, calls.FASTEST = calls.GAUGE, Stepping(), None
    try:
        with_repeats = calls.REPEATS
        calls.REPEATS = 3       # 4 gauges per attempt
        ns, iters, repeats, within, twin, reps, retimed = calls.timed("f()", {"f": int}, False, None, gauge=40.0)
    finally:
        calls.GAUGE, calls.REPEATS = old, with_repeats
    # 40 (before the case) is the fastest: 90 is over 1.2 x 40, 44 is not; no third attempt
    assert (within, twin, retimed, repeats) == (44.0, None, 1, 3) and calls.FASTEST == 40.0
    assert next(speeds) == 60.0


def test_figures_timed_slowly_are_left_out_while_five_remain_and_the_rest_rescaled():
    res = {"calls": {"ours": {}, "nvidia": {}}}
    # ours: 6 figures of case c, the last timed at half speed; NVIDIA's: 5, one slow (kept: five);
    # among the fast ones, one timed 10 % slower (gauge 44) and its figure 10 % higher
    for impl, n in (("ours", 6), ("nvidia", 5)):
        for i in range(n):
            slow, slower = i == n - 1, i == 1
            measure.keep(res, "calls", impl, {"case": "c", "ns": 200.0 if slow else (110.0 if slower else 100.0),
                                              "gauge_in": 80.0 if slow else (44.0 if slower else 40.0)})
        measure.keep(res, "calls", impl, {"case": "nogauge", "ns": 7.0})
    measure.by_speed(res, "calls")
    assert res["speed_check"]["calls"] == {"reference_gauge": 40.0, "fast_gauge": 40.0, "limit": 1.2,
                                           "figures": 11, "left_out": 1}
    assert res["calls"]["ours"]["c"] == [100.0] * 5                      # the slow one left out
    assert res["calls"]["nvidia"]["c"] == [100.0] * 4 + [100.0]           # kept (five), rescaled by half
    assert res["raw"]["calls"]["ours"]["c"][-1] == 200.0 and res["calls"]["ours"]["nogauge"] == [7.0]
    text = "\n".join(report.speed_section(res))
    assert "| calls | 40.0 | 40.0 | 11 | 1 |" in text


def test_a_phase_given_the_results_leaves_out_slow_figures_when_rebuilt():
    r = runner()
    res = {"calls": {"ours": {}, "nvidia": {}}}

    def spawn(rec):
        slow = 2.0 if rec["round"] == 5 else 1.0
        rows = [{"case": "c", "ns": 100.0 * slow, "gauge": 40.0 * slow, "gauge_in": 40.0 * slow},
                {"gauge_end": 40.0 * slow, "gauge_name": "g"}]
        return {"rows": rows}, rows

    def reset():
        for impl in measure.IMPLS:
            res["calls"][impl] = {}
    ph = measure.Phase(r, "calls", spawn, reset,
                       lambda rec: [measure.keep(res, "calls", rec["impl"], x) for x in rec["out"]["rows"] if "ns" in x],
                       res)
    for i in range(6):
        for impl in measure.order(i):
            ph.run(i, impl)
    ph.rebuild()
    ph.rebuild()        # a second rebuild starts again from the processes
    assert res["calls"]["ours"]["c"] == res["calls"]["nvidia"]["c"] == [100.0] * 5
    assert res["raw"]["calls"]["ours"]["c"] == [100.0] * 5 + [200.0]


def test_run_sh_names_the_v2_variables_and_folders():
    head = open(os.path.join(BENCH, "run.sh")).read().split("set -u -o pipefail")[0]
    for word in ("BENCH_V2_NVIDIA", "BENCH_V2_OURS", "CUDA_BINDINGS_CUDA_VERSION=13.5", "CUDA_BINDINGS_INCLUDE_DIR",
                 "headers/cuda-13.5/", "cuda_bindings-13.5.0-*.whl", "/tmp/nvidia-13.5.0", "/tmp/ours-13.5",
                 "BENCH_CPU (auto", "BENCH_BUDGET_SECONDS", "BENCH_ATTEMPTS", "BENCH_NO_GPU"):
        assert word in head, word


def test_the_runs_page_is_what_compare_runs_prints_for_the_committed_runs():
    root = os.path.dirname(BENCH)
    page = open(os.path.join(root, "docs", "benchmark-runs.md")).read()
    out = subprocess.run([sys.executable, os.path.join(BENCH, "compare_runs.py"), "benchmarks/results.json",
                          "benchmarks/results-run-b.json"], capture_output=True, text=True, cwd=root, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() and page.rstrip().endswith(out.stdout.rstrip())
    # and the third run's pairs, quoted by their last two lines
    for a, b in (("results.json", "results-run-c.json"), ("results-run-b.json", "results-run-c.json")):
        out = subprocess.run([sys.executable, os.path.join(BENCH, "compare_runs.py"), "benchmarks/" + a,
                              "benchmarks/" + b], capture_output=True, text=True, cwd=root, timeout=120)
        assert out.returncode == 0
        for line in out.stdout.rstrip().splitlines()[-2:]:
            assert line in page, line



# ------------------------------------------------------------------ the C twin in the process

def test_a_case_with_its_c_twin_is_taken_by_the_twin():
    # the driver's own time differs from process to process (3,500 to 3,900 ns here), whichever
    # package calls it; the binding's own part is 200 ns (ours) and 500 ns (NVIDIA's).  The
    # figures as timed overlap; taken by the twin timed in the same process, they are apart
    res = {"calls": {"ours": {}, "nvidia": {}}}
    drivers = {"ours": [3900, 3500, 3800, 3600, 3700], "nvidia": [3500, 3600, 3550, 3700, 3650]}
    part = {"ours": 200.0, "nvidia": 500.0}
    for impl in measure.IMPLS:
        for d in drivers[impl]:
            measure.keep(res, "calls", impl, {"case": "launch", "ns": d + part[impl], "gauge_in": 40.0, "c_in": d + 5.0})
            measure.keep(res, "calls", impl, {"case": "plain", "ns": 100.0, "gauge_in": 40.0})
    assert report.apart(report.interval(res["calls"]["ours"]["launch"]),
                        report.interval(res["calls"]["nvidia"]["launch"])) == "overlap"
    measure.by_speed(res, "calls")
    t = statistics.median([d + 5.0 for impl in measure.IMPLS for d in drivers[impl]])
    assert res["speed_check"]["calls"]["by_twin"] == {"launch": t}
    assert res["calls"]["ours"]["launch"] == [t + 195.0] * 5
    assert res["calls"]["nvidia"]["launch"] == [t + 495.0] * 5
    assert res["calls"]["ours"]["plain"] == [100.0] * 5             # no twin: by its gauge only
    assert res["raw"]["calls"]["ours"]["launch"][0] == 4100.0
    text = "\n".join(report.speed_section(res))
    assert f"| launch | {report.f_ns(t)} |" in text and "predates" not in text
    assert "predates `calls.py --twin`" in "\n".join(report.twin_section(None))
    # the binding's part is rescaled by the gauge, the twin's median is not
    res2 = {"calls": {"ours": {}, "nvidia": {}}}
    for impl, g in (("ours", 40.0), ("nvidia", 44.0)):
        for _ in range(5):
            measure.keep(res2, "calls", impl, {"case": "launch", "ns": 3700.0 + 2 * g, "gauge_in": g, "c_in": 3700.0})
    measure.by_speed(res2, "calls")
    assert res2["calls"]["ours"]["launch"] == res2["calls"]["nvidia"]["launch"] == [3700.0 + 2 * 42.0] * 5


def test_the_twin_is_timed_after_each_repeat_with_as_many_calls():
    import calls
    asked = []

    def twin(case, a, b, c, sync, cap, repeats, target_ns, iters):
        asked.append((case, a, sync, repeats, iters))
        return 100.0 - len(asked)          # each repeat of the twin faster than the one before
    old = calls.TWIN
    calls.TWIN = twin
    try:
        ns, iters, repeats, within, c_in, reps = calls.measure("f()", {"f": int}, True, lambda: None,
                                                               twin=("cuEventRecord", 7, 8, 0, 9))
        assert calls.measure("f()", {"f": int}, False, None)[4:] == (None, None)     # no twin, no repeats kept
    finally:
        calls.TWIN = old
    assert len(asked) == repeats == calls.REPEATS_QUEUED and c_in == 100.0 - repeats
    # each repeat kept with its own twin, in order, the fastest of them the case's figure
    assert [t for _, t, _ in reps] == [100.0 - i for i in range(1, repeats + 1)]
    assert min(v for v, _, _ in reps) == pytest.approx(ns, abs=0.01) and all(g is None or g > 0 for _, _, g in reps)
    # one repeat of the C form each time, as many calls as the case's repeat, the stream synchronized
    assert set(asked) == {("cuEventRecord", 7, 9, 1, iters)} and iters <= calls.QUEUED_CAP


@pytest.fixture(scope="module")
def floor_dir(tmp_path_factory):
    """benchmarks/floor.pyx built as run.sh builds it."""
    pytest.importorskip("Cython")
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("floor")
    shutil.copy(os.path.join(BENCH, "floor.pyx"), d)
    setup = ("from Cython.Build import cythonize; from setuptools import Extension, setup; "
             "setup(ext_modules=cythonize([Extension('floor', ['floor.pyx'])], quiet=True), "
             "script_args=['build_ext', '--inplace', '-q'])")
    p = subprocess.run([sys.executable, "-c", setup], cwd=str(d), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    return d


def test_the_c_twin_is_timed_after_each_real_driver_case(floor_dir, tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(tmp_path / "libcuda.so.1"),
                    os.path.join(BENCH, "stub_driver.c"), "-ldl"], check=True, capture_output=True)
    cubin = tmp_path / "k.cubin"
    cubin.write_bytes(b"\0" * 64)
    only = r"^(cuCtxGetCurrent|cuEventQuery|cuEventRecord|cuStreamCreate\+cuStreamDestroy|cuLaunchKernel_8args_(int|scattered))$"
    runs = {}
    for twin in (True, False):
        p = subprocess.run([sys.executable, os.path.join(BENCH, "calls.py"), "--label", "ours", "--cubin", str(cubin),
                            "--floor-dir", str(floor_dir), "--only", only] + (["--twin"] if twin else []),
                           env=dict(os.environ, LD_LIBRARY_PATH=str(tmp_path)), capture_output=True, text=True,
                           timeout=300, cwd=str(tmp_path))
        assert p.returncode == 0, p.stderr[-2000:]
        runs[twin] = {r["case"]: r for r in (json.loads(x) for x in p.stdout.splitlines() if x.startswith("{"))
                      if "ns" in r}
    rows = runs[True]
    assert sorted(rows) == ["cuCtxGetCurrent", "cuEventQuery", "cuEventRecord", "cuLaunchKernel_8args_int",
                            "cuLaunchKernel_8args_scattered", "cuStreamCreate+cuStreamDestroy"], sorted(rows)
    # on the no-op driver the C call costs a few ns; the binding's call more
    for case in ("cuEventQuery", "cuEventRecord", "cuStreamCreate+cuStreamDestroy", "cuLaunchKernel_8args_int",
                 "cuLaunchKernel_8args_scattered"):
        assert 0 < rows[case]["c_in"] < rows[case]["ns"], rows[case]
        assert len(rows[case]["reps"]) == rows[case]["repeats"]
        assert min(t for _, t, _ in rows[case]["reps"]) == pytest.approx(rows[case]["c_in"], abs=0.01)
    assert "c_in" not in rows["cuCtxGetCurrent"]                 # no twin for a call under 100 ns of binding
    assert not any("c_in" in r for r in runs[False].values())      # only with --twin


def test_extra_rounds_on_the_real_driver_go_to_rows_whose_binding_alone_difference_is_large():
    # three rows overlapping on the real driver: on the no-op driver "far" differs by 150 ns,
    # "near" by 20 ns (NVML, nvFatbin: the same library through two thin bindings), "unseen" has
    # no no-op figure; "apart" does not overlap
    wide = [100.0, 110.0, 120.0, 130.0, 140.0]
    table = {"ours": {"far": wide, "near": wide, "unseen": wide, "apart": wide},
             "nvidia": {"far": [x + 5 for x in wide], "near": [x + 5 for x in wide],
                        "unseen": [x + 5 for x in wide], "apart": [x + 100 for x in wide]}}
    stub = {"ours": {"far": [50.0] * 5, "near": [50.0] * 5}, "nvidia": {"far": [200.0] * 5, "near": [70.0] * 5}}
    assert measure.undecided(table) == {"far", "near", "unseen"}
    assert measure.undecided(table, stub) == {"far", "unseen"}
    # the boundary is report.ALONE_MIN_NS, as in compare_runs: a difference of exactly 100 ns is out
    stub["nvidia"]["far"] = [50.0 + report.ALONE_MIN_NS] * 5
    assert measure.undecided(table, stub) == {"unseen"}


def test_processes_are_run_again_before_the_extra_rounds(monkeypatch):
    # a process run again replaces its figures and can leave two ranges overlapping that were
    # apart: the extra rounds come after it, so the table is the one they ended on
    # (phase by phase, the real-driver phase first, so that a run short of time spends it there;
    # the driver probe gets no extra rounds)
    steps = []
    monkeypatch.setattr(measure, "rerun_pass", lambda r, res, save, ph: steps.append(("rerun", ph)))
    monkeypatch.setattr(measure, "more_rounds", lambda r, res, ph: steps.append(("rounds", ph)))
    monkeypatch.setattr(measure, "floor_check", lambda r: {})
    r = runner()
    r.phases = {"v2_calls": "v2", "calls": "real", "probe_calls": "probe"}
    measure.finish(r, {}, lambda: None)
    assert steps == [("rerun", "real"), ("rounds", "real"), ("rerun", "v2"), ("rounds", "v2"), ("rerun", "probe")]
