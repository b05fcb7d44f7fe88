"""The benchmark's own machinery, without a GPU: the confidence interval that decides whether a
row is a lead (benchmarks/report.py), and the driver probe (benchmarks/drvprobe.c) in front of the
no-op driver, run by benchmarks/calls.py with this package, read back by the report."""
import json
import math
import os
import shutil
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
