"""Turns the raw results of benchmarks/measure.py into docs/benchmarks.md.

    python3 report.py results.json [-o docs/benchmarks.md]
"""
import argparse
import json
import re
import statistics
import sys

TRIVIAL = ("cuCtxGetCurrent", "cuDeviceGetAttribute", "cuGetErrorString", "cuEventQuery")
LAUNCH_TARGET_ARGS = (4, 8, 16)
LAUNCH_FORMS = ("array", "int", "tuple")
FORM_WORDS = {"array": "pre-packed numpy array", "int": "pre-packed, address as int",
              "tuple": "(values, types)", "null": "NULL kernelParams",
              "scattered": "pre-packed numpy array, each value a numpy array of its own"}
NVIDIA_WHEEL_BYTES = 8.4e6


def med(xs):
    return statistics.median(xs) if xs else None


def spread(xs):
    return (min(xs), max(xs)) if xs else None


def interval(xs, coverage=0.95):
    """A distribution-free confidence interval of the median of `xs` (one figure per process):
    the k-th smallest and k-th largest, with k the largest for which the chance that the median
    lies outside is at most 1 - coverage (binomial, p = 1/2), at least 1.  With 5 figures it is
    min..max (93.75 %); with more it narrows (9: 2nd..8th; 15: 4th..12th; 25: 8th..18th), so more
    rounds can tell two packages apart where min..max, which only widens, never could."""
    if not xs:
        return None
    v = sorted(xs)
    n = len(v)
    total, k, tail = 0.0, 0, (1.0 - coverage) / 2
    while True:   # P(Binomial(n, 1/2) <= k) <= tail: the k+1-th smallest is a lower bound
        total += _binom(n, k) / 2.0 ** n
        if total > tail:
            break
        k += 1
    k = max(k, 1)
    return (v[k - 1], v[n - k])


def _binom(n, k):
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


def apart(ours, nvidia):
    """Whether two packages' intervals (`interval`) are apart, and whose is lower: a lead is
    claimed only where they do not overlap."""
    if not ours or not nvidia:
        return "—"
    if ours[1] < nvidia[0]:
        return "ours lower"
    if nvidia[1] < ours[0]:
        return "NVIDIA lower"
    return "overlap"


def f_ns(v):
    if v is None:
        return "—"
    return f"{v:.1f}" if abs(v) < 100 else f"{v:,.0f}"


def f_ms(v):
    return "—" if v is None else (f"{v:.2f}" if abs(v) < 1 else f"{v:.1f}")


def f_us(v):
    return "—" if v is None else f"{v:.2f}"


def f_ratio(v):
    return "—" if v is None else f"{v:.2f}"


def f_range(r, f=f_ns):
    return "—" if r is None else f"{f(r[0])}..{f(r[1])}"


def f_mb(b):
    return "—" if b is None else f"{b / 1e6:.2f} MB"


CHECKED = "checked:"    # a case of cuda.bindings.checked (ours only), set beside its tuple-style case
CHECKED_LIMIT = 1.10    # the checked call costs at most ~10% more than the tuple call


def checked_rows(res, calls):
    """(case, tuple ns, checked ns, checked / tuple, the same with the no-op driver) per checked case."""
    stub = (res.get("stub_calls") or {}).get("ours", {})
    rows = []
    for case in calls.raw["ours"]:
        if not case.startswith(CHECKED):
            continue
        base = case[len(CHECKED):]
        t, c = calls.value("ours", base), calls.value("ours", case)
        st, sc = med(stub.get(base, [])), med(stub.get(case, []))
        rows.append((base, t, c, c / t if t and c else None, st, sc, sc / st if st and sc else None))
    return rows


PYNVML = "pynvml."   # nvidia-ml-py's cases (the same package in both processes): the NVML table only
# NVML's queries: our case -> nvidia-ml-py's (benchmarks/calls.py)
NVML_TWINS = {"nvml.device_get_count_v2": "pynvml.nvmlDeviceGetCount",
              "nvml.device_get_memory_info_v2": "pynvml.nvmlDeviceGetMemoryInfo",
              "nvml.device_get_utilization_rates": "pynvml.nvmlDeviceGetUtilizationRates"}


def nvml_rows(calls):
    """(query, NVIDIA's cuda.bindings.nvml, ours, nvidia-ml-py, ours / NVIDIA, ours / nvidia-ml-py)
    per NVML query both packages ran; nvidia-ml-py's figure is the median over every process."""
    rows = []
    for case, twin in NVML_TWINS.items():
        o, n = calls.value("ours", case), calls.value("nvidia", case)
        p = med(calls.raw["ours"].get(twin, []) + calls.raw["nvidia"].get(twin, []))
        if o is None and n is None and p is None:
            continue
        rows.append((case[len("nvml."):], f_ns(n), f_ns(o), f_ns(p), f_ratio(o / n if o and n else None),
                     f_ratio(o / p if o and p else None)))
    return rows


def c_twin(case):
    m = re.match(r"cuLaunchKernel_(\d+)args_", case)
    return f"cuLaunchKernel_{m.group(1)}args" if m else case


# benchmarks/floor.pyx's cases: (the no-op table's label, the floor table's words)
FLOORS = {
    "floor_tuple_nogil": ("C call returning a 2-tuple, GIL released",
                          "C call returning a 2-tuple, GIL released"),
    "floor_tuple_gil": ("C call returning a 2-tuple, GIL kept", "C call returning a 2-tuple, GIL kept"),
    "floor_noop": ("Cython function returning None", "Cython function returning None"),
    "floor_value_nogil": ("an int in, GIL released, an int out",
                          "an int in, C call with the GIL released, its int output returned "
                          "(NVML's device_get_count_v2, nvFatbin's size)"),
    "floor_struct_nogil": ("an int in, GIL released, a new 64-byte struct object out",
                           "the same, the output a 64-byte struct in a new GC-tracked object "
                           "(NVML's device_get_memory_info_v2)"),
    "floor_handle_gil": ("GIL kept, a new handle object in a 2-tuple",
                         "no argument, C call with the GIL kept, its pointer in a new handle object "
                         "in the 2-tuple (cuCtxGetCurrent)"),
    "floor_enum_int_gil": ("an enum member and an int in, GIL kept, an int in a 2-tuple",
                           "an enum member and an int in, C call with the GIL kept, its int output in "
                           "the 2-tuple (cuDeviceGetAttribute, given the device as an int)"),
    "floor_enum_str_gil": ("an enum member in, GIL kept, a C string as bytes in a 2-tuple",
                           "an enum member in, C call with the GIL kept, the C string it returns as "
                           "bytes in the 2-tuple (cuGetErrorString, cudaGetErrorString)"),
}
# the floors of the second API's shapes (benchmarks/calls_v2.py FLOOR_OF), timed in its processes
V2_FLOORS = {
    "floor_ptr_gil": "no argument, GIL kept, a pointer returned as an int",
    "floor_enum_int_value_gil": "an enum member and an int in, GIL kept, an int returned",
    "floor_int_in_nogil": "an int in, GIL released, None returned",
    "floor_launch_nogil": "nine ints, a buffer's address and an int in, GIL released, None returned",
    "floor_two_ints_gil": "no argument, GIL kept, two ints returned in a 2-tuple",
}
V2_CASES = {
    "v2.ctx_get_current": ("driver.ctx_get_current()", "floor_ptr_gil"),
    "v2.device_get_attribute": ("driver.device_get_attribute(DeviceAttribute.MULTIPROCESSOR_COUNT, dev)",
                                "floor_enum_int_value_gil"),
    "v2.event_query": ("driver.event_query(h) (completed event)", "floor_int_in_nogil"),
    "v2.launch_kernel_8args_array": ("driver.launch_kernel, 8 args, pre-packed numpy array", "floor_launch_nogil"),
    "v2.launch_kernel_8args_int": ("driver.launch_kernel, 8 args, pre-packed, address as int", "floor_launch_nogil"),
    "v2.launch_kernel_8args_tuple": ("driver.launch_kernel, 8 args, (values, types)", "floor_launch_nogil"),
    "v2.nvrtc_version": ("nvrtc.version()", "floor_two_ints_gil"),
}
IMPLS_R = ("nvidia", "ours")
LIMIT_DEFAULT = 1.2
FLOOR_MATCH = 0.10      # target: ours' processes' floors within 10 % of NVIDIA's
PHASES = {"calls": "real driver", "stub_calls": "no-op driver", "v2_calls": "`_v2`, no-op driver",
          "probe_calls": "driver probe"}


def describe(case):
    m = re.match(r"cuLaunchKernel_(\d+)args_(\w+)$", case)
    if m:
        return f"cuLaunchKernel, {m.group(1)} args, {FORM_WORDS.get(m.group(2), m.group(2))}"
    return {
        "cuEventQuery": "cuEventQuery (completed event)",
        "cuStreamQuery": "cuStreamQuery (idle stream)",
        "cuStreamSynchronize": "cuStreamSynchronize (idle stream)",
        "cuMemAlloc+cuMemFree_4KiB": "cuMemAlloc + cuMemFree, 4 KiB",
        "cuMemcpyHtoD_4B": "cuMemcpyHtoD, 4 B (synchronous)",
        "cuMemcpyHtoDAsync_4B": "cuMemcpyHtoDAsync, 4 B (host address as int)",
        "cuPointerGetAttribute": "cuPointerGetAttribute (memory type)",
        "cuEventCreate+cuEventDestroy": "cuEventCreate + cuEventDestroy",
        "cuStreamCreate+cuStreamDestroy": "cuStreamCreate + cuStreamDestroy",
        "cudaGetErrorString": "cudaGetErrorString (runtime)",
        "nvrtcVersion": "nvrtcVersion (NVRTC)",
        "nvml.device_get_count_v2": "NVML device_get_count_v2",
        "nvml.device_get_memory_info_v2": "NVML device_get_memory_info_v2",
        "nvml.device_get_utilization_rates": "NVML device_get_utilization_rates",
        "nvml.device_get_temperature_v": "NVML device_get_temperature_v",
        "nvfatbin.version": "nvFatbin version",
        "nvfatbin.create+add_cubin+get+destroy": "nvFatbin: create, add a cubin, size, get, destroy",
        **{c: "floor: " + short for c, (short, _) in FLOORS.items()},
    }.get(case, case)


class Calls:
    def __init__(self, res):
        calls = res.get("calls", {})
        self.raw = {k: calls.get(k, {}) for k in ("C", "nvidia", "ours")}
        self.errors = res.get("call_errors", {})

    def value(self, impl, case):
        if impl == "C":
            case = c_twin(case)
        return med(self.raw[impl].get(case, []))

    def rng(self, impl, case):
        return interval(self.raw[impl].get(case, []))

    def n(self, impl, case):
        return len(self.raw[impl].get(case, []))

    def cases(self):
        seen = []
        for impl in ("nvidia", "ours"):
            for c in self.raw[impl]:
                if c not in seen and not c.startswith(("floor_", CHECKED, PYNVML)):
                    seen.append(c)
        for impl in ("nvidia", "ours"):
            for c in self.errors.get(impl, {}):
                if c not in seen and not c.startswith(("(", "floor_", CHECKED, PYNVML)):
                    seen.append(c)
        return seen

    def ratio(self, case):
        o, n = self.value("ours", case), self.value("nvidia", case)
        return o / n if o is not None and n else None

    def over_c(self, case):
        o, n, c = self.value("ours", case), self.value("nvidia", case), self.value("C", case)
        if o is None or n is None or c is None or n - c <= 0:
            return None
        return (o - c) / (n - c)


SIDES = ("ours lower", "NVIDIA lower", "overlap")     # what `apart` says
ALONE_MIN_NS = 100     # rows whose binding-alone difference exceeds this must rank the same in any run


def direction(ratio):
    if ratio is None:
        return "—"
    return "ours lower" if ratio < 1 else ("NVIDIA lower" if ratio > 1 else "equal")


def real_rows(res):
    """{case: {ours, nvidia, ratio, direction, ranges, alone}} per real-driver row (the per-call
    table's rows): the medians, ours / NVIDIA, whose median is lower, whether the ranges are apart
    (`apart`), and alone = NVIDIA − ours on the no-op driver in ns (None without that figure)."""
    calls = Calls(res)
    stub = res.get("stub_calls") or {}
    out = {}
    for c in calls.cases():
        so, sn = med(stub.get("ours", {}).get(c, [])), med(stub.get("nvidia", {}).get(c, []))
        r = calls.ratio(c)
        out[c] = {"ours": calls.value("ours", c), "nvidia": calls.value("nvidia", c), "ratio": r,
                  "direction": direction(r), "ranges": apart(calls.rng("ours", c), calls.rng("nvidia", c)),
                  "alone": sn - so if so is not None and sn is not None else None}
    return out


def verdict(measured, limit, unit, fmt, strict=False):
    """'met' or 'MISSED' and by how much (in `unit` and relative to the limit)."""
    if measured is None or limit is None:
        return "not measured"
    gap = measured - limit
    good = gap < 0 if strict else gap <= 0
    rel = f" ({abs(gap) / limit:.0%})" if limit else ""
    if good:
        return f"met: {fmt(abs(gap))} {unit}{rel} under the limit"
    return f"**missed**: {fmt(gap)} {unit}{rel} over the limit"


def alone(res, case):
    """The binding's own cost for `case` (no-op driver): 'ours X vs NVIDIA Y ns (Z x)', or '—'."""
    stub = res.get("stub_calls") or {}
    o, n = med(stub.get("ours", {}).get(case, [])), med(stub.get("nvidia", {}).get(case, []))
    if o is None or n is None:
        return "—"
    return f"{f_ns(o)} vs {f_ns(n)} ns ({f_ratio(o / n)} ×)"


def targets(res, calls):
    rows = []
    for case in TRIVIAL:
        o, n = calls.value("ours", case), calls.value("nvidia", case)
        lim = 0.5 * n if n is not None else None
        rows.append((f"{case}: ours ≤ 0.5 × NVIDIA",
                     f"{f_ratio(calls.ratio(case))} × ({f_ns(o)} vs {f_ns(n)} ns)",
                     f"≤ {f_ns(lim)} ns", verdict(o, lim, "ns", f_ns), alone(res, case)))
    over_c_cases = [f"cuLaunchKernel_{n}args_{f}" for n in LAUNCH_TARGET_ARGS for f in LAUNCH_FORMS]
    over_c_cases.append("cuMemcpyHtoDAsync_4B")
    for case in over_c_cases:
        o, n, c = calls.value("ours", case), calls.value("nvidia", case), calls.value("C", case)
        lim = c + 0.25 * (n - c) if None not in (n, c) else None
        g = calls.over_c(case)
        rows.append((f"{describe(case)}: (ours − C) ≤ 0.25 × (NVIDIA − C)",
                     f"{f_ratio(g)} × (ours {f_ns(o)}, NVIDIA {f_ns(n)}, C {f_ns(c)} ns)",
                     f"ours ≤ {f_ns(lim)} ns", verdict(o, lim, "ns", f_ns), alone(res, case)))
    for base, t, c, r, st, sc, sr in checked_rows(res, calls):
        if base == "cuCtxGetCurrent":
            lim = CHECKED_LIMIT * t if t else None
            rows.append((f"checked {base}: ≤ {CHECKED_LIMIT:.2f} × the tuple call (ours)",
                         f"{f_ratio(r)} × ({f_ns(c)} vs {f_ns(t)} ns)", f"≤ {f_ns(lim)} ns",
                         verdict(c, lim, "ns", f_ns),
                         f"{f_ns(sc)} vs {f_ns(st)} ns ({f_ratio(sr)} ×)" if sr else "—"))
    imp = import_table_values(res).get("driver", {})
    o, n = imp.get("ours"), imp.get("nvidia")
    lim = 0.25 * n if n is not None else None
    rows.append(("import cuda.bindings.driver: ours ≤ 0.25 × NVIDIA",
                 f"{f_ratio(o / n if o is not None and n else None)} × ({f_ms(o)} vs {f_ms(n)} ms)",
                 f"≤ {f_ms(lim)} ms", verdict(o, lim, "ms", f_ms), "—"))
    b = res.get("build", {})
    w = b.get("wheel_bytes")
    q = b.get("nvidia_wheel_bytes_quoted") or NVIDIA_WHEEL_BYTES
    rows.append(("wheel smaller than NVIDIA's (8.4 MB, quoted)", f_mb(w), f"< {f_mb(q)}",
                 verdict(w / 1e6 if w else None, q / 1e6, "MB", lambda v: f"{v:.2f}", strict=True), "—"))
    return rows


def probe_summary(res):
    """{case: {impl: {driver, between, calls (per launch), params, processes}}} from the driver
    probe's segments: medians over the processes of each process's median."""
    out = {}
    for seg in res.get("probe") or []:
        case, impl = seg.get("case"), seg.get("label")
        if not case or not impl or not (seg.get("launches") or seg.get("timed_ns")):
            continue
        launches = seg.get("launches") or 0
        d = out.setdefault(case, {}).setdefault(impl, {"driver": [], "between": [], "calls": {}, "params": None,
                                                     "processes": 0, "timed": {}})
        d["processes"] += 1
        for name, st in (seg.get("timed_ns") or {}).items():
            if st:
                d["timed"].setdefault(name, []).append(st["median"])
        if seg.get("driver_ns"):
            d["driver"].append(seg["driver_ns"]["median"])
        if seg.get("between_ns"):
            d["between"].append(seg["between_ns"]["median"])
        # per launch, or per call of the case's first entry point (cuMemAlloc of cuMemAlloc+cuMemFree)
        per = launches or (seg.get("calls") or {}).get(re.split(r"[+_]", case.split(":")[-1])[0]) or 0
        for name, k in (seg.get("calls") or {}).items():
            if per:
                d["calls"].setdefault(name, []).append(k / per)
        d["params"] = d["params"] or seg.get("params")
    return out


def f_calls(calls):
    """Entry points called per launch other than the launch itself, e.g. 'cuStreamSynchronize 0.05'."""
    items = [(n, med(v)) for n, v in sorted(calls.items())]
    items = [(n, v) for n, v in items if v and v >= 0.001]
    return ", ".join(f"{n} {v:.3f}" for n, v in items) or "none"


def f_value_pages(p):
    """The pages the values span; drvprobe.c before 64-bit counts wrapped a span over several
    mappings (terabytes) to a negative int: at least the span's own page count then."""
    v = p["value_pages"]
    return f"{v:,}" if v >= 0 else f"≥ {p['values_span'] // 4096 + 1:,}"


def f_params(p):
    if not p:
        return "—"
    if not p.get("nparams"):
        return "NULL" if not p.get("array_page_offset") and not p.get("arrays_distinct") else "no parameters"
    where = "stack" if p.get("on_stack") else "heap"
    return (f"{where}, offset {p['array_mod64']} in its cache line, {p['array_pages']} page(s); "
            f"{p['nparams']} values over {p['values_span']} bytes, {f_value_pages(p)} page(s), "
            f"first {p['values_from_array']:+d} bytes from the array; "
            f"{p['arrays_distinct']} array address(es) over the launches")


def f_pages(p):
    return "—" if not p or not p.get("nparams") else f"{f_value_pages(p)} ({p['values_span']:,} bytes)"


def findings(res):
    """What the driver probe found about the real-driver rows, with this run's figures."""
    summ = probe_summary(res)
    if not summ:
        return []
    L = ["## What made the real-driver rows change direction from run to run", ""]
    items = []
    modes = []
    for case, name in (("cuEventQuery", "cuEventQuery"), ("cuMemAlloc+cuMemFree_4KiB", "cuMemAlloc"),
                       ("cuLaunchKernel_8args_int", None)):
        per = {}
        for impl in ("nvidia", "ours"):
            d = summ.get(case, {}).get(impl, {})
            xs = d.get("driver") if name is None else d.get("timed", {}).get(name)
            if xs:
                per[impl] = sorted(xs)
        if len(per) == 2:
            modes.append(f"{name or 'cuLaunchKernel (8 arguments)'}: NVIDIA's processes "
                         + ", ".join(f_ns(x) for x in per["nvidia"]) + "; ours' "
                         + ", ".join(f_ns(x) for x in per["ours"]))
    if modes:
        items.append(
            "- **The driver's own time differs from process to process, whichever package calls it.** On "
            "the probe, the driver's time per call in each process (median over its calls), sorted: "
            + "; ".join(modes) + " ns. The spread is the same for both packages and follows neither the "
            "package nor the process's place in the round (the probe's rounds rotate the order); in "
            "earlier runs it fell into a fast and a slow group. With five processes per package a row's "
            "median follows how many landed on the fast side, and so the direction of a whole-call row could flip between runs "
            "while the binding's own cost (no-op driver) stayed far apart. Rows whose ranges overlap get "
            "more rounds, and the probe measures the binding's part on the real driver directly "
            "(*between* below). In a later run (commit d535952, H200 machine) the Cython floor, the same "
            "code in both packages' processes, took 46-50 ns in some processes and 77-86 ns in others: "
            "the process's speed, which the run now checks in every process ([process speed]"
            "(#process-speed-the-floor-in-every-per-call-process)).")
    flags = res.get("getproc_flags") or []
    if flags:
        identical = all(f.get("same_function") for f in flags)
        items.append(
            "- **Not the entry points' flags.** Ours asked `cuGetProcAddress` with "
            "`CU_GET_PROC_ADDRESS_LEGACY_STREAM`, NVIDIA's with `CU_GET_PROC_ADDRESS_DEFAULT`. "
            "`benchmarks/getproc_flags.c` asks for both in one process: "
            + ("the driver hands out the same function for each of "
               if identical else "the driver hands out different functions for some of ")
            + ", ".join(f"{f['case']} ({f_ns(f['default_ns'])} / {f_ns(f['legacy_stream_ns'])} ns)" for f in flags)
            + ". Ours now asks as NVIDIA's does, for parity, not for speed.")
    sp = [(summ.get("cuLaunchKernel_8args_scattered", {}).get(x) or {}).get("params") or {} for x in ("nvidia", "ours")]
    cp = [(summ.get("cuLaunchKernel_8args_array", {}).get(x) or {}).get("params") or {} for x in ("nvidia", "ours")]
    if all(p.get("nparams") for p in sp + cp):
        items.append(
            "- **Where the pre-packed values lay.** Each value of a pre-packed launch was a numpy array of "
            "its own, placed wherever the process's heap had room: the 8 values over "
            f"{sp[0]['value_pages']} pages in NVIDIA's process and {sp[1]['value_pages']} in ours here "
            "(the count changes from process to process), each read by the driver at every launch. "
            "The benchmark now packs them in one block after the `void*[]` "
            f"({cp[0]['value_pages']} and {cp[1]['value_pages']} page), as the C twin's lie on its stack and "
            "as the binding packs `(values, types)`; the *each value a numpy array of its own* row keeps "
            "the old layout.")
    rows = [c for c in summ if c.startswith("cuLaunchKernel_") and c.endswith(("_int", "_array"))
            and summ[c].get("nvidia", {}).get("between") and summ[c].get("ours", {}).get("between")]
    gaps = [med(summ[c]["nvidia"]["between"]) - med(summ[c]["ours"]["between"]) for c in rows]
    lower = sum(apart(interval(summ[c]["ours"]["between"]), interval(summ[c]["nvidia"]["between"])) == "ours lower"
                for c in rows)
    same = sum(apart(interval(summ[c]["ours"]["driver"]), interval(summ[c]["nvidia"]["driver"])) == "overlap"
               for c in rows)
    if gaps:
        items.append(
            f"- **What the binding adds to a launch.** On the same probe the driver's time per launch "
            f"overlaps between the packages on {same} of the {len(rows)} pre-packed rows, and ours' part "
            f"between two launches is lower by {f_ns(min(gaps))} to {f_ns(max(gaps))} ns (ranges apart on "
            f"{lower} of them).")
    return L + items + [""]


def probe_section(res):
    summ = probe_summary(res)
    if not summ:
        return []
    launch = {c: v for c, v in summ.items() if c.startswith("cuLaunchKernel_")}
    other = {c: v for c, v in summ.items() if not c.startswith(("cuLaunchKernel_", "checked:"))}
    arms = sorted({impl for v in summ.values() for impl in v} - {"ours", "nvidia"})
    L = ["### The launch on the real driver, from the driver's side (`benchmarks/drvprobe.c`)", "",
         "`calls.py`'s launch cases on a `libcuda.so.1` that loads the real driver and hands out, from "
         "`cuGetProcAddress`, entry points that count their calls (`cuLaunchKernel`'s also reads the "
         "time stamp counter around the real call): *driver* is the real `cuLaunchKernel`'s own time per "
         "launch, *between* the caller's time from the return of one launch to the entry of the next "
         "(the binding, its argument conversion and result, and timeit's loop step: each "
         "process's median over its launches, then the median over "
         f"{max((d.get('processes', 0) for c in summ.values() for d in c.values()), default=0)} "
         "processes per package). *other calls per launch*: every other entry point called during the "
         "case, per launch (the synchronization after each repeat of 500 launches is the 0.002). "
         "*what the driver is given*: where the `void*[]` and the values it points to lay in the first "
         "launch of the case, in ours' process (NVIDIA's the same but for the addresses).", ""]
    rows = []
    for case in sorted(launch, key=lambda c: (int(re.search(r"_(\d+)args", c).group(1)), c)):
        o, n = summ[case].get("ours", {}), summ[case].get("nvidia", {})
        rows.append((describe(case), f_ns(med(n.get("driver", []))), f_ns(med(o.get("driver", []))),
                     *[f_ns(med(summ[case].get(a, {}).get("driver", []))) for a in arms],
                     f_range(interval(n.get("driver", []))), f_range(interval(o.get("driver", []))),
                     f_ns(med(n.get("between", []))), f_ns(med(o.get("between", []))),
                     apart(interval(o.get("between", [])), interval(n.get("between", []))),
                     f_calls(n.get("calls", {})), f_calls(o.get("calls", {})),
                     f_pages(n.get("params")), f_pages(o.get("params")), f_params(o.get("params"))))
    L.append(table(["case", "driver: NVIDIA", "driver: ours", *[f"driver: {a}" for a in arms],
                    "NVIDIA range", "ours range", "between: NVIDIA", "between: ours", "between: ranges",
                    "other calls per launch: NVIDIA", "ours", "value pages: NVIDIA", "ours",
                    "what the driver is given (ours)"], rows,
                   ["---"] + ["---:"] * (6 + len(arms)) + ["---", "---", "---", "---:", "---:", "---"]))
    L.append("")
    if other:
        L.append("The other driver cases on the same probe: each entry point's own time in the driver per "
                 "call (median), and the entry points called per call of the case's first one.")
        L.append("")
        rows = []
        for case in other:
            o, n = other[case].get("ours", {}), other[case].get("nvidia", {})
            names = sorted(set(o.get("timed", {})) | set(n.get("timed", {})))
            timed = [other[case].get(a, {}).get("timed", {}) for a in ["nvidia", "ours", *arms]]
            rows.append((describe(case),
                         *[", ".join(f"{k} {f_ns(med(t.get(k, [])))}" for k in names) or "—" for t in timed],
                         f_calls(n.get("calls", {})), f_calls(o.get("calls", {}))))
        L.append(table(["case", "driver ns: NVIDIA", "driver ns: ours", *[f"driver ns: {a}" for a in arms],
                        "calls per call: NVIDIA", "ours"], rows, ["---"] * (5 + len(arms))))
        L.append("")
    pc = res.get("probe_calls") or {}
    if arms and pc:
        L.append("The whole call as `calls.py` times it in the same probe processes (ns; the probe's own "
                 "counting and timing included, the same for every column):")
        L.append("")
        labels = ["nvidia", "ours", *arms]
        cases = [c for c in pc.get("ours", {}) if not c.startswith("checked:")]
        L.append(table(["case", "NVIDIA", "ours", *arms],
                       [(describe(c), *[f_ns(med(pc.get(lab, {}).get(c, []))) for lab in labels]) for c in cases]))
        L.append("")
    if arms:
        L.append("Experiment columns: " + "; ".join(
            f"*{a}* = ours, its entry points asked from the real driver"
            + (f" at version {a.split('@')[1].split(':')[0]} at least" if a.split("@")[1].split(":")[0] else "")
            + (f" with flags {a.split(':')[1]}" if a.split(":")[1] else "") for a in arms)
            + " (the probe changes what it passes on; `BENCH_PROBE_ARMS`).")
        L.append("")
    if res.get("probe_errors"):
        L.append("Probe errors: " + "; ".join(f"{k}: `{str(v)[:300]}`" for k, v in res["probe_errors"].items()))
        L.append("")
    return L


def floors_of(summary, impl):
    return [x for x in (summary.get("floors") or {}).get(impl, []) if x]


def floor_rows(res):
    """Per phase: the gauge, the median floor of NVIDIA's and of ours' processes, ours / NVIDIA,
    whether that is within FLOOR_MATCH, the processes, those run again, those still over."""
    fc = res.get("floor_check") or {}
    rows = []
    for name, words in PHASES.items():
        s = (fc.get("phases") or {}).get(name)
        if not s or not s.get("processes"):
            continue
        n, o = med(floors_of(s, "nvidia")), med(floors_of(s, "ours"))
        r = o / n if o and n else None
        ok = "—" if r is None else ("met" if abs(r - 1) <= FLOOR_MATCH else "**missed**")
        rows.append((words, f"`{s.get('gauge') or '?'}`", f_ns(n), f_ns(o), f_ratio(r), ok,
                     f_range(spread(floors_of(s, "nvidia"))), f_range(spread(floors_of(s, "ours"))),
                     s["processes"], f"{s['rerun']} ({s['extra_processes']} more processes)", s["over_limit"]))
    return rows


def cpu_probe_text(cp):
    """The CPU probes: which CPU was chosen and each CPU's median time per loop step."""
    if not cp or cp.get("mode") != "auto" or not cp.get("probes"):
        return {"fixed": "Pinned to a CPU given by `BENCH_CPU` (no CPU probe)."}.get((cp or {}).get("mode"),
                                                                                  "No CPU probe (not pinned).")
    out = []
    for i, p in enumerate(cp["probes"]):
        meds = {c: med(v) for c, v in p["ns"].items() if v}
        listed = ", ".join(f"{c}: {f_ns(v)}" for c, v in sorted(meds.items(), key=lambda x: int(x[0])))
        when = "At the start" if i == 0 else f"Again after {p['at_s']} s (two processes in a row too slow)"
        out.append(f"{when}, each CPU's median ns per loop step: {listed}; pinned to CPU {p['chosen']}.")
    return " ".join(out)


def floor_section(res):
    fc = res.get("floor_check")
    L = ["## Process speed: the floor in every per-call process", ""]
    if not fc:
        return L + ["Not recorded in this run (made before the floor check; see "
                    "[How it is measured](#how-it-is-measured)).", ""]
    L += [
         "The figures of two packages can be ranked only where their processes ran at the same speed. "
         "The CPUs of a virtual machine were seen to differ twofold, and a process pinned to a fast one "
         "to land in a slow state too. So: (1) every process is pinned to the CPU that ran a short "
         "Python loop fastest, in a fresh process pinned to each CPU, three times each (`CPU_PROBE` in "
         "`benchmarks/measure.py`; `BENCH_CPU` overrides it); (2) every per-call process times a gauge "
         "(the floor of one shape, named below) right before each case and after the last, each the "
         "fastest of 5 repeats of about 0.5 ms; the process's *floor* is the slowest of its gauges but "
         "one; (3) a process whose floor is above "
         f"{fc.get('limit', LIMIT_DEFAULT):.1f} × the run's fastest floor "
         f"({f_ns(fc.get('fastest'))} ns) is run again, up to {fc.get('attempts', '?')} processes in "
         "all, and the one with the lower floor is kept (its figures replace the slow one's), in every "
         "phase and for both packages alike. Two processes in a row above the limit probe the CPUs "
         "again. Target: ours' floors within "
         f"{FLOOR_MATCH:.0%} of NVIDIA's.", "",
         cpu_probe_text(fc.get("cpu_probe")), ""]
    rows = floor_rows(res)
    if rows:
        L.append(table(["phase", "gauge", "NVIDIA floor (median)", "ours", "ours / NVIDIA",
                        f"within {FLOOR_MATCH:.0%}", "NVIDIA min..max", "ours min..max", "processes",
                        "run again", "still over the limit"], rows,
                       ["---", "---", "---:", "---:", "---:", "---", "---:", "---:", "---:", "---:", "---:"]))
        L.append("")
    return L + speed_section(res)


def twin_section(by_twin):
    """The real-driver cases taken by their C twin timed in the same process (measure.by_twin)."""
    if not by_twin:
        return ["", "No real-driver figure is taken by a C twin timed in its process (this run predates "
                "`calls.py --twin`)."]
    return ["", "The driver's own time per call also differs from process to process, whichever package "
            "calls it (the driver probe below), by more than the two bindings differ on a launch. So each "
            "real-driver case of more than a trivial call is followed, in the same process, by its C form "
            "(`twin_ns` in `benchmarks/floor.pyx`: the same driver entry point, the same handles and "
            "argument memory, one repeat of as many calls after each repeat of the case, the fastest kept), and its figure is taken as T + (figure − its twin) × "
            "G / its gauge, T the median twin of the case over both packages' processes: the binding's part "
            "rescaled to one speed, on one driver time (`by_twin` in `benchmarks/measure.py`). Figures as "
            "timed and twins are in `results.json` (`raw`, `c_in`), and each repeat with its own twin and "
            "gauge (`reps`). The cases and their T:", "",
            table(["case", "T (ns)"], [(c, f_ns(t)) for c, t in by_twin.items()], ["---", "---:"])]


def speed_section(res):
    """The figures by the CPU's speed (calls.timed, measure.by_speed): how many were left out, the
    speed they were rescaled to, and what that did to the ranking of the real-driver rows: their
    ranges on the figures as timed beside those on the ones kept and rescaled."""
    check = res.get("speed_check") or {}
    if not check:
        return ["No figure is left out by its speed (this run predates the gauge within each case).", ""]
    L = ["The CPU's speed also changes within a process, in steps of about 2x, so a process with a "
         "low floor can still time a case slowly. Each case therefore times the gauge once more (one "
         "repeat of about 0.5 ms) before its first repeat and after each; a case whose fastest such "
         f"gauge is above {LIMIT_DEFAULT:.1f} × the fastest gauge its process has timed is timed again "
         "(twice at most) and the attempt with the fastest gauge is kept (`timed` in "
         "`benchmarks/calls.py`). Then, per phase (`by_speed` in `benchmarks/measure.py`): a figure "
         f"still timed slowly, its gauge above {LIMIT_DEFAULT:.1f} × the fastest tenth of the phase's "
         "gauges, is left out, as long as five figures of the case remain; the others are rescaled to "
         "one speed, figure × G / its gauge, G the median gauge of the phase (both packages' "
         "together): within the fast state the speed still varies by some 10 %, and a figure moves with "
         "its gauge. Nothing is rescaled across the 2x step: a launch's or a copy's time is partly the "
         "GPU's, which does not follow the CPU. The C twin's figures are as timed. Every figure as timed "
         "is in `results.json` (`raw`).", ""]
    L.append(table(["phase", "G (ns)", "fastest tenth (ns)", "figures", "left out"],
                   [(name, f_ns(v["reference_gauge"]), f_ns(v["fast_gauge"]), str(v["figures"]), str(v["left_out"]))
                    for name, v in check.items()], ["---", "---:", "---:", "---:", "---:"]))
    L += twin_section(check.get("calls", {}).get("by_twin"))
    raw = (res.get("raw") or {}).get("calls")
    if raw:
        sides = {}
        for label, r in (("as timed", dict(res, calls=dict(res["calls"], **raw))), ("kept, rescaled", res)):
            rows = real_rows(r)
            sides[label] = [sum(1 for x in rows.values() if x["ranges"] == k) for k in SIDES]
        L += ["", "The real-driver rows' ranges, on the figures as timed and on those kept and rescaled:", "",
              table(["figures"] + list(SIDES), [(k,) + tuple(map(str, v)) for k, v in sides.items()],
                    ["---", "---:", "---:", "---:"])]
    return L + [""]


def v2_section(res):
    """NVIDIA's second API, cuda.bindings._v2, on the no-op driver: ours against NVIDIA's, with
    the floor of each row's shape."""
    L = ["### The second API, `cuda.bindings._v2`, on the no-op driver", ""]
    v2 = res.get("v2_calls")
    if not v2 or not (v2.get("ours") or v2.get("nvidia")):
        return L + [f"Not measured: {res.get('v2_note') or 'no `_v2` phase in this run'}.", ""]
    meta = res.get("v2_meta") or {}
    who = {impl: f"{meta.get(impl, {}).get('version', '?')} (`{meta.get(impl, {}).get('file', '?')}`)"
           for impl in IMPLS_R}
    L += ["`benchmarks/calls_v2.py`: the same calls as the rows above through `cuda.bindings._v2` "
          "(outputs returned, a failed status raised, handles as ints), against the no-op driver, in "
          f"alternating fresh processes judged by their floors like the others. NVIDIA: {who['nvidia']}; "
          f"ours: {who['ours']}. floor: the Cython floor of the row's shape (`benchmarks/floor.pyx`, "
          "timed in the same processes, both packages' together; for `(values, types)` a lower "
          "bound, without the packing); the GIL is released where ours releases it (calls that take "
          "a driver lock).", ""]
    rows = []
    for case, (words, fl) in V2_CASES.items():
        o, n = v2.get("ours", {}).get(case, []), v2.get("nvidia", {}).get(case, [])
        if not o and not n:
            continue
        fx = v2.get("ours", {}).get(fl, []) + v2.get("nvidia", {}).get(fl, [])
        so, sn = interval(o), interval(n)
        rows.append((words, f_ns(med(n)), f_ns(med(o)), f_ratio(med(o) / med(n) if o and n else None),
                     f_range(sn), f_range(so), f"{len(n)}/{len(o)}", apart(so, sn),
                     f"`{fl}`: {V2_FLOORS[fl]}", f_ns(med(fx))))
    L.append(table(["call", "NVIDIA", "ours", "ours / NVIDIA", "NVIDIA range", "ours range", "n", "ranges",
                    "floor", "floor ns"], rows,
                   ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---", "---", "---:"]))
    L.append("")
    errs = [(impl, c, m) for impl in IMPLS_R for c, m in (res.get("v2_errors") or {}).get(impl, {}).items()]
    if errs:
        L.append("`_v2` errors: " + "; ".join(f"{i}, {c}: `{str(m)[:200]}`" for i, c, m in errs))
        L.append("")
    return L


def import_table_values(res):
    """{module: {impl: ms, impl_range: (ms, ms), impl_wall: ms}} with the baseline taken off."""
    imp = res.get("imports_s", {})
    wall = res.get("imports_wall_s", {})
    base = med(imp.get("baseline", [])) or 0.0
    base_wall = med(wall.get("baseline", []))
    out = {}
    for impl in ("nvidia", "ours"):
        for m, xs in imp.get(impl, {}).items():
            d = out.setdefault(m, {})
            d[impl] = (med(xs) - base) * 1e3
            d[impl + "_range"] = tuple((x - base) * 1e3 for x in spread(xs))
            ws = wall.get(impl, {}).get(m, [])
            if ws and base_wall is not None:
                d[impl + "_wall"] = (med(ws) - base_wall) * 1e3
    return out


def table(header, rows, align=None):
    align = align or ["---"] + ["---:"] * (len(header) - 1)
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def render(res):
    calls = Calls(res)
    m = res.get("machine", {})
    pk = m.get("packages", {})
    b = res.get("build", {})
    L = []
    L.append("# Benchmarks: per-call overhead, import time, build")
    L.append("")
    L.append("Generated by `bash benchmarks/run.sh` (see [How it is measured](#how-it-is-measured)); "
             "do not edit by hand. NVIDIA = NVIDIA's `cuda-bindings` as installed on the machine; "
             "ours = this repository, built with `pip install --no-build-isolation --no-deps "
             "--target`; C = the same driver calls made from C (`benchmarks/overhead_c.c`), the "
             "floor.")
    L.append("")
    L.append(table(["", ""], [
        ("date (UTC)", m.get("date", "?")),
        ("GPU, driver", m.get("gpu", "?")),
        ("CPU", f"{m.get('cpu', '?')}, {m.get('cpus', '?')} CPUs"),
        ("Python", m.get("python", "?")),
        ("NVIDIA's cuda-bindings",
         f"{pk.get('nvidia', {}).get('dist_version', '?')} (`{pk.get('nvidia', {}).get('file', '?')}`)"),
        ("ours", f"{pk.get('ours', {}).get('version', '?')} (`{pk.get('ours', {}).get('file', '?')}`)"
                 + (f", commit {m['commit']}" if m.get("commit") else "")),
        ("pinned to", m.get("pinned", "?")),
        ("rounds (processes per package) / import repeats",
         f"{res.get('rounds', '?')} / {res.get('import_repeats', '?')}"),
    ], ["---", "---"]))
    L.append("")

    # targets
    trows = targets(res, calls)
    met = sum(1 for r in trows if r[3].startswith("met"))
    L.append("## Targets")
    L.append("")
    L.append(f"{met} of {len(trows)} met.")
    L.append("")
    L.append(table(["target", "measured", "limit", "result", "binding alone: ours vs NVIDIA"], trows,
                   ["---", "---", "---", "---", "---"]))
    L.append("")
    if res.get("stub_calls"):
        L.append("*binding alone*: the same call against a no-op `libcuda.so.1` (see [the binding's own "
                 "cost](#the-bindings-own-cost-the-same-cases-against-a-no-op-driver)): what each binding "
                 "itself spends. A target stated against C counts the driver's own slowdown between "
                 "Python calls (the real-driver ours − C minus this figure) as overhead, for both "
                 "packages; the trivial-call targets include the GIL release (Cython floor below) "
                 "for calls that take a driver lock.")
        L.append("")

    L += floor_section(res)

    # per-call
    L.append("## Per-call overhead (ns per call)")
    L.append("")
    L.append("Median over the rounds of each process's fastest repeat. ours / NVIDIA: below 1 is "
             "faster. (ours − C) / (NVIDIA − C): the share of NVIDIA's overhead above C that ours "
             "still has. The C column of every launch row is the one C form (a `void*[]`). range: a "
             "distribution-free ~95 % confidence interval of that median (the k-th smallest to the "
             "k-th largest of the per-process figures: min..max for 5 rounds, narrower with more); "
             "n: the processes (rounds) per package, more where the first rounds left the two ranges "
             "overlapping (see [How it is measured](#how-it-is-measured)). ranges: whether the two "
             "packages' ranges are apart (\"ours lower\", \"NVIDIA lower\") or overlap; a lead is "
             "claimed only where they are apart.")
    L.append("")
    rows = []
    for case in calls.cases():
        rows.append((describe(case), f_ns(calls.value("C", case)), f_ns(calls.value("nvidia", case)),
                     f_ns(calls.value("ours", case)), f_ratio(calls.ratio(case)),
                     f_ratio(calls.over_c(case)),
                     f_range(calls.rng("nvidia", case)), f_range(calls.rng("ours", case)),
                     f"{calls.n('nvidia', case)}/{calls.n('ours', case)}",
                     apart(calls.rng("ours", case), calls.rng("nvidia", case))))
    L.append(table(["case", "C", "NVIDIA", "ours", "ours / NVIDIA", "(ours − C) / (NVIDIA − C)",
                    "NVIDIA range", "ours range", "n", "ranges"], rows))
    L.append("")

    nrows = nvml_rows(calls)
    if nrows:
        L.append("### NVML: ours, NVIDIA's `cuda.bindings.nvml` and nvidia-ml-py")
        L.append("")
        L.append("The same NVML queries on the same device through each package, in the same processes "
                 "(nvidia-ml-py, the ctypes binding `pynvml`, runs in both packages' processes: its "
                 "column is the median over all of them). Below 1 is faster.")
        L.append("")
        L.append(table(["query", "NVIDIA", "ours", "nvidia-ml-py", "ours / NVIDIA", "ours / nvidia-ml-py"],
                       nrows, ["---", "---:", "---:", "---:", "---:", "---:"]))
        L.append("")

    floor = [c for c in FLOORS if calls.raw["ours"].get(c) or calls.raw["nvidia"].get(c)]
    if floor:
        L.append("Cython floor (`benchmarks/floor.pyx`, timed in the same processes, both packages' "
                 "rounds together): a trivial C call returning `(status, value)`.")
        L.append("")
        frows = []
        for c in floor:
            xs = calls.raw["ours"].get(c, []) + calls.raw["nvidia"].get(c, [])
            frows.append((FLOORS[c][1], f_ns(med(xs)), f_range(spread(xs))))
        L.append(table(["floor", "ns", "min..max"], frows))
        L.append("")

    crows = checked_rows(res, calls)
    if crows:
        L.append("### Checked calls: `cuda.bindings.checked` beside the tuple call")
        L.append("")
        L.append("The same call through `cuda.bindings.checked.driver` (returns the outputs, raises on "
                 "a failed status) and through `cuda.bindings.driver`, ours, timed in the same "
                 "processes; the no-op driver columns are the binding's own cost (section below).")
        L.append("")
        L.append(table(["case", "tuple", "checked", "checked / tuple", "no-op driver: tuple", "checked",
                        "checked / tuple"],
                       [(describe(b), f_ns(t), f_ns(c), f_ratio(r), f_ns(st), f_ns(sc), f_ratio(sr))
                        for b, t, c, r, st, sc, sr in crows],
                       ["---", "---:", "---:", "---:", "---:", "---:", "---:"]))
        L.append("")

    stub = res.get("stub_calls") or {}
    if stub.get("ours") or stub.get("nvidia"):
        L.append("### The binding's own cost: the same cases against a no-op driver")
        L.append("")
        L.append("`benchmarks/stub_driver.c` is a `libcuda.so.1` whose entry points return success at "
                 "once; `calls.py` runs against it (LD_LIBRARY_PATH) in fresh processes, alternating the "
                 "packages, same rounds. What is left is each binding's argument conversion, GIL handling "
                 "and result building, without the driver's work and without its effect on the CPU "
                 "caches, which the real-driver rows above include: where ours − C above exceeds ours "
                 "here, the excess is time spent in the driver, not in the binding (the driver's code "
                 "and data are colder between Python calls than in the C twin's tight loop).")
        L.append("")
        L.append("The Cython floor rows (`floor.pyx`, the same code in both packages' processes) are timed "
                 "in these processes too: the bar for a row of the same shape.")
        L.append("")
        srows = []
        cases = list(stub.get("ours", {})) + [c for c in stub.get("nvidia", {}) if c not in stub.get("ours", {})]
        cases = [c for c in cases if not c.startswith((CHECKED, PYNVML))]
        for c in cases:
            o, n = med(stub.get("ours", {}).get(c, [])), med(stub.get("nvidia", {}).get(c, []))
            so, sn = interval(stub.get("ours", {}).get(c, [])), interval(stub.get("nvidia", {}).get(c, []))
            cnt = f"{len(stub.get('nvidia', {}).get(c, []))}/{len(stub.get('ours', {}).get(c, []))}"
            srows.append((describe(c), f_ns(n), f_ns(o), f_ratio(o / n if o and n else None),
                          f_range(sn), f_range(so), cnt, apart(so, sn)))
        L.append(table(["case", "NVIDIA", "ours", "ours / NVIDIA", "NVIDIA range", "ours range", "n", "ranges"],
                       srows, ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---"]))
        L.append("")
        serr = [(impl, case, msg) for impl in ("nvidia", "ours")
                for case, msg in (res.get("stub_errors") or {}).get(impl, {}).items()]
        if serr:
            L.append("No-op driver errors: " + "; ".join(f"{i}, {c}: `{str(m)[:200]}`" for i, c, m in serr))
            L.append("")

    L += v2_section(res)
    L += findings(res)
    L += probe_section(res)

    # imports
    iv = import_table_values(res)
    L.append("## Import time (ms)")
    L.append("")
    L.append("`import cuda.bindings.<module>` in a fresh process, timed around the import statement "
             "(the same probe for `import sys` is subtracted); median of "
             f"{res.get('import_repeats', '?')}. wall − bare: the whole process's wall time minus "
             "that of a process importing nothing.")
    L.append("")
    irows = []
    for mod in ("driver", "runtime", "nvrtc", "nvjitlink"):
        d = iv.get(mod, {})
        o, n = d.get("ours"), d.get("nvidia")
        irows.append((f"cuda.bindings.{mod}", f_ms(n), f_ms(o),
                      f_ratio(o / n if o is not None and n else None),
                      f_range(d.get("nvidia_range"), f_ms), f_range(d.get("ours_range"), f_ms),
                      f_ms(d.get("nvidia_wall")), f_ms(d.get("ours_wall"))))
    L.append(table(["module", "NVIDIA", "ours", "ours / NVIDIA", "NVIDIA min..max", "ours min..max",
                    "NVIDIA wall − bare", "ours wall − bare"], irows))
    L.append("")
    if res.get("import_errors"):
        L.append("Import errors: " + "; ".join(f"{k}: `{v}`" for k, v in res["import_errors"].items()))
        L.append("")

    fi = res.get("first_init", {})
    L.append("### Time to the first successful cuInit(0) (ms)")
    L.append("")
    L.append("A fresh process: `from cuda.bindings import driver`, then `driver.cuInit(0)`; median of "
             f"{res.get('import_repeats', '?')}. C: the first `cuInit(0)` of the C program.")
    L.append("")
    frows = []
    for impl, name in (("C", "C"), ("nvidia", "NVIDIA"), ("ours", "ours")):
        xs = fi.get(impl, [])
        if not xs:
            frows.append((name, "—", "—", "—", "—"))
            continue
        tot = [(x["import_s"] + x["cuinit_s"]) * 1e3 for x in xs]
        frows.append((name, "—" if impl == "C" else f_ms(med([x["import_s"] * 1e3 for x in xs])),
                      f_ms(med([x["cuinit_s"] * 1e3 for x in xs])), f_ms(med(tot)),
                      f_range(spread(tot), f_ms)))
    L.append(table(["", "import", "cuInit(0)", "import + cuInit", "min..max"], frows))
    L.append("")
    if res.get("first_init_errors"):
        L.append("Errors: " + "; ".join(f"{k}: `{v}`" for k, v in res["first_init_errors"].items()))
        L.append("")

    cl = res.get("clients")
    if cl:
        L.append("## What it costs a client (µs per iteration)")
        L.append("")
        L.append("`benchmarks/clients.py`: the machine's cuda.core and numba-cuda over each package, "
                 f"median of {res.get('rounds', '?')} processes per package (each the fastest of 7 "
                 "repeats), pinned like the per-call cases. Both loops spend nearly all their time in the "
                 "client's own code: cuda.core reaches the driver through `cydriver` from its compiled code, so the "
                 "binding's share of a launch is one C call either way. numba round trip: `cuda.to_device` of 4 KiB, one launch of a small "
                 "`@cuda.jit` kernel, `copy_to_host`. cuda.core launch: `launch()` of a 4-parameter "
                 "kernel (a float, two buffers, an int), the CPU cost (the stream is synchronized "
                 "outside the timed loop).")
        L.append("")
        crows = []
        for case, name in (("numba_roundtrip_4KiB", "numba-cuda round trip, 4 KiB"),
                           ("core_launch_4args", "cuda.core launch, 4 arguments")):
            n, o = med(cl["nvidia"].get(case, [])), med(cl["ours"].get(case, []))
            crows.append((name, f_us(n), f_us(o), f_ratio(o / n if o is not None and n else None),
                          f_us(n - o if n is not None and o is not None else None),
                          f_range(spread(cl["nvidia"].get(case, [])), f_us),
                          f_range(spread(cl["ours"].get(case, [])), f_us)))
        L.append(table(["loop", "NVIDIA", "ours", "ours / NVIDIA", "NVIDIA − ours (µs)", "NVIDIA min..max",
                        "ours min..max"], crows))
        L.append("")
        errs = {f"{impl} {k}": v for impl, d in res.get("client_errors", {}).items() for k, v in d.items()}
        if errs:
            L.append("Errors: " + "; ".join(f"{k}: `{v}`" for k, v in errs.items()))
            L.append("")

    # build
    L.append("## Build and wheel")
    L.append("")
    secs = b.get("seconds")
    cold = b.get("cold_build_seconds_2core")
    cold_txt = b.get("cold_build_seconds_2core_text")
    brows = [
        (f"build, `pip install --no-build-isolation --no-deps --target`, this machine "
         f"({b.get('cpus', '?')} CPUs, from a clean tree)",
         "—" if secs is None else f"{secs:.1f} s", "—"),
        ("cold build on the 2-core CI-like machine (COLD_BUILD_SECONDS_2CORE)",
         f"{cold:.1f} s" if cold is not None else (cold_txt or "not given"), "—"),
        ("wheel (.whl) size", f"{f_mb(b.get('wheel_bytes'))}" + (f" (`{b['wheel']}`)" if b.get("wheel") else ""),
         f"{f_mb(b.get('nvidia_wheel_bytes_quoted') or NVIDIA_WHEEL_BYTES)} (quoted: NVIDIA's cp312 "
         "x86_64 wheel, not measured here)"),
        ("wheel built from the same build tree in",
         "—" if b.get("wheel_seconds") is None else f"{b['wheel_seconds']:.1f} s", "—"),
        ("installed `cuda/bindings` on disk", f_mb(b.get("installed_bytes")), "—"),
    ]
    L.append(table(["", "ours", "NVIDIA"], brows, ["---", "---", "---"]))
    L.append("")

    if res.get("lockprobe"):
        L.append("## Which calls keep the GIL")
        L.append("")
        L.append("`benchmarks/lockprobe.c` counts, per call of the driver (100,000 calls each), the pthread "
                 "locks, waits and kernel entries (ioctl, poll, syscall, sleeps) it reaches from the calling "
                 "thread. A call that reaches none cannot block on another thread: those in "
                 "`codegen/overrides.py` KEEP_GIL are called without releasing the GIL, "
                 "`cuDeviceGetAttribute` keeps it for the attributes that reach nothing (KEEP_GIL_UNLESS), "
                 "and `tests/test_keep_gil.py` checks both on every GPU run. The controls show the counter "
                 "sees the driver's locks where there are some.")
        L.append("")
        rows = []
        groups = {}      # "fn[value]" rows (one per enum value) are folded into one row per function
        for r in res["lockprobe"]:
            if "call" not in r:
                continue
            pc = r.get("per_call") or {}
            reached = ", ".join(f"{k} {v:g}" for k, v in pc.items()) if pc else "none"
            m = re.match(r"(\w+)\[(\d+)\]$", r["call"])
            if m:
                g = groups.get(m.group(1))
                if g is None:
                    g = groups[m.group(1)] = [0, []]
                    rows.append((m.group(1), g))
                g[0] += 1
                if pc:
                    g[1].append(f"{m.group(2)}: {reached}")
                continue
            rows.append((r["call"], reached))
        rows = [(c, v) if not isinstance(v, list) else
                (f"{c}, each of {v[0]} values on its own",
                 "none, except " + "; ".join(v[1]) if v[1] else "none") for c, v in rows]
        L.append(table(["call", "reached per call"], rows, ["---", "---"]))
        L.append("")

    errs = [(impl, case, msg) for impl in ("C", "nvidia", "ours")
            for case, msg in res.get("call_errors", {}).get(impl, {}).items()]
    if errs:
        L.append("## Errors")
        L.append("")
        L.append("Cases that failed (no figure in the tables above):")
        L.append("")
        for impl, case, msg in errs:
            msg = str(msg).replace("`", "'").replace("\n", " ")
            L.append(f"- {impl}, {case}: `{msg}`")
        L.append("")

    L.append("## How it is measured")
    L.append("")
    L.append("""\
- `bash benchmarks/run.sh` builds this checkout from a clean copy exactly as
  `scripts/gpu_check.sh` does (`pip install --no-build-isolation --no-deps --target /tmp/ours .`,
  timed), checks that `cuda.bindings` then comes from there, builds the wheel from the same build
  tree (`pip wheel --no-build-isolation --no-deps`), compiles `benchmarks/kernels.cu` to a cubin
  for sm_90, the C twin `benchmarks/overhead_c.c` against `libcuda`, and the Cython floor
  `benchmarks/floor.pyx`, then runs `benchmarks/measure.py` and this report.
- Per-call cases (`benchmarks/calls.py`): the statement is compiled into timeit's loop with its
  names as local variables (no lambda, no attribute lookup), checked once for status 0, calibrated
  to about 10 ms per repeat; a process reports the fastest of 7 repeats. Calls that queue GPU work
  (launches, event records, async copies) run at most 500 times per repeat (fastest of 21), with
  the stream synchronized, untimed, between repeats, so the launch queue never fills. Host memory is
  pageable and its address is an int computed once. The C twin times the same calls the same way.
  A case timed while the CPU ran slowly (by a gauge timed between its repeats) is timed again,
  and figures still timed slowly are left out
  ([Process speed](#process-speed-the-floor-in-every-per-call-process)).
- Noise: each round runs the C twin, then one fresh process with each package, the order
  alternating between rounds; the tables give the median over rounds and its range, a
  distribution-free ~95 % confidence interval (the k-th smallest to the k-th largest figure; with
  5 rounds, min..max). Where the two packages' ranges still overlap after the first rounds and
  the processes run again (below), those cases alone get more rounds (the packages still
  alternating), up to `BENCH_MAX_ROUNDS` rounds or `BENCH_EXTRA_SECONDS` per phase; the range
  narrows as rounds are added, so a difference of a few per cent is either told apart or shown
  too small to tell on the machine (`n` gives the rounds each row got). On the real driver these
  rounds go to the rows whose binding-alone difference exceeds 100 ns (or is not measured): the
  others, NVML and nvFatbin, differ by less than processes do.
- Process speed (see [Process speed](#process-speed-the-floor-in-every-per-call-process)): every
  process is pinned (`taskset`) to the CPU that ran a short Python loop fastest in a probe at the
  start (`BENCH_CPU` names one instead). Every per-call process (real driver, no-op driver,
  `_v2`, driver probe) times a gauge, `floor.pyx`'s `tuple_gil`, before each case and after the
  last; its floor is the slowest gauge but one. After all phases, a process whose floor is above
  1.2 × the run's fastest is run again (up to `BENCH_ATTEMPTS` processes, the lower floor kept),
  in every phase and for both packages alike, before the extra rounds (each of their processes
  judged at once), so that the table is the one the extra rounds ended on. Each case also times the gauge between its repeats:
  a case timed in the CPU's slow state is timed again in its process, a figure still timed slowly
  is left out, and the others are rescaled by their gauge to one speed. This work stops
  `BENCH_BUDGET_SECONDS` after the start, so a run fits a 10-minute command.
  `benchmarks/compare_runs.py A/results.json B/results.json` sets two runs' real-driver rows side
  by side: whether they agree on the direction, and whether every row whose binding-alone
  difference exceeds 100 ns has its ranges apart on the same side in both.
- The no-op driver and NVML (`benchmarks/stub_driver.c`, `benchmarks/stub_nvml.c`, found through
  `LD_LIBRARY_PATH`) make the binding-alone figures; the Cython floor is timed in those processes
  too. The driver probe (`benchmarks/drvprobe.c`) is a `libcuda.so.1` that loads the real one and
  hands out counting (and, for the cases' entry points, timing) wrappers from `cuGetProcAddress`;
  `calls.py` marks each case, and the probe's rounds rotate the packages' order.
  `benchmarks/getproc_flags.c` asks the driver for the same entry points with the two
  `cuGetProcAddress` flags the packages used and times both in one process.
- The second API (`benchmarks/calls_v2.py`): `cuda.bindings._v2` of NVIDIA's release that has
  it and of ours built for CUDA 13.5, each imported from its own folder, on the no-op driver,
  with the Cython floor of each row's shape; the phase runs only where both import (run.sh's
  header names the folders and variables).
- Launch arguments: `array` passes a numpy uint64 array holding the arguments' addresses (the
  values in one block right after it), `int` passes that array's address (`arr.ctypes.data`,
  computed once), `tuple` passes
  `(values, types)` with ctypes types (pointers alternate between a `CUdeviceptr` with type `None`
  and an int with `c_void_p`). The 16- and 256-argument kernels take int and pointer arguments and
  are guarded so that they do nothing.""")
    L.append("")
    return "\n".join(L)


def summary(res):
    """A few lines for the end of a run's log: pinning, floors and processes run again per phase,
    how the real-driver rows rank, the targets, the _v2 phase."""
    m = res.get("machine", {})
    fc = res.get("floor_check") or {}
    probes = (fc.get("cpu_probe") or {}).get("probes") or []
    L = [f"==== summary (commit {m.get('commit') or '?'}, {m.get('date', '?')}, measured in "
         f"{res.get('measure_seconds', '?')} s)",
         f"pinned: {m.get('pinned', '?')}" + (f"; CPU probes: {len(probes)}, chosen "
                                              + ", ".join(str(p['chosen']) for p in probes) if probes else "")]
    for words, gauge, n, o, r, ok, _, _, procs, again, over in floor_rows(res):
        L.append(f"floors, {words}: NVIDIA {n}, ours {o} ns ({r}, within {FLOOR_MATCH:.0%}: {ok}); "
                 f"{procs} processes, {again} run again, {over} still over the limit")
    rows = real_rows(res)
    if rows:
        tally = {k: sum(1 for x in rows.values() if x["ranges"] == k) for k in SIDES}
        scope = [x for x in rows.values() if x["alone"] is not None and abs(x["alone"]) > ALONE_MIN_NS]
        L.append(f"real-driver rows: {len(rows)}; ours / NVIDIA above 1: "
                 f"{sum(1 for x in rows.values() if x['ratio'] and x['ratio'] > 1)}; ranges: "
                 + ", ".join(f"{k} {v}" for k, v in tally.items())
                 + f"; binding-alone difference over {ALONE_MIN_NS} ns: {len(scope)} rows, ranges apart on "
                 f"{sum(1 for x in scope if x['ranges'] != 'overlap')}")
        raw = (res.get("raw") or {}).get("calls")
        if raw:
            rr = real_rows(dict(res, calls=dict(res["calls"], **raw)))
            L.append("  on the figures as timed (none left out or rescaled): "
                     + ", ".join(f"{k} {sum(1 for x in rr.values() if x['ranges'] == k)}" for k in SIDES))
    if res.get("calls"):
        t = targets(res, Calls(res))
        L.append(f"targets: {sum(1 for x in t if x[3].startswith('met'))} of {len(t)} met")
    v2 = res.get("v2_calls") or {}
    if v2.get("ours") or v2.get("nvidia"):
        got = [apart(interval(v2.get("ours", {}).get(c, [])), interval(v2.get("nvidia", {}).get(c, [])))
               for c in V2_CASES if v2.get("ours", {}).get(c) or v2.get("nvidia", {}).get(c)]
        L.append(f"_v2: {len(got)} rows; " + ", ".join(f"{k} {got.count(k)}" for k in SIDES))
    else:
        L.append(f"_v2: not measured ({res.get('v2_note') or 'no _v2 phase'})")
    return "\n".join(L)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("-o", "--output")
    ap.add_argument("--summary", action="store_true", help="print a few lines instead of the report")
    a = ap.parse_args(argv)
    with open(a.results) as fh:
        res = json.load(fh)
    if a.summary:
        print(summary(res))
        return
    text = render(res)
    if a.output:
        with open(a.output, "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
