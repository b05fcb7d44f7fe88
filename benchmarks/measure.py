"""Runs the measurements and writes the raw results as JSON (benchmarks/run.sh calls it).

    python3 measure.py --ours DIR --cubin kernels.cubin --out results.json
                       [--c-binary overhead_c] [--floor-dir DIR] [--rounds 5] [--import-repeats 9]
                       [--max-rounds 15] [--extra-seconds 240] [--stub-dir DIR]
                       [--probe-dir DIR --probe-real PATH] [--probe-rounds 2]
                       [--v2-ours DIR --v2-nvidia DIR | --v2-note TEXT]
                       [--cpu auto|N|none] [--attempts 2] [--rerun-seconds 40] [--deadline EPOCH]
                       [--build-seconds S] [--wheel FILE] [--wheel-seconds S] [--phases LIST]

* Process speed: first a CPU probe (CPU_PROBE, a short Python loop in a fresh process pinned to
  each CPU, three times) picks the CPU every process is then pinned to (--cpu auto; a number
  pins to that CPU).  Every per-call process (calls.py, calls_v2.py) times a gauge before each
  case and after the last; its floor is the slowest gauge but one (process_floor).  After all
  phases (finish), each per-call process whose floor is above LIMIT (1.2) x the run's fastest is
  run again, up to --attempts processes, the one with the lower floor kept, both packages alike;
  two processes in a row over the limit probe the CPUs again.  The processes run again and the
  extra rounds below stop at --deadline.  The CPU's speed changes within a process too, so each
  case also times the gauge between its repeats (calls.py "gauge_in"); a case timed slowly is
  timed again in its process (calls.timed), the figures still timed slowly are left out of the
  tables and the others rescaled to one speed (by_speed), so the floor alone does not have to
  make two processes comparable.
* Per-call overhead: R rounds; each round runs the C twin once, then benchmarks/calls.py in a fresh
  process with ours and with NVIDIA's package, the order alternating from round to round
  (ours, NVIDIA / NVIDIA, ours).  Each process reports, per case, the fastest of its repeats; the
  report takes the median of those over the rounds, with a ~95 % confidence interval of it
  (report.interval).  The cases whose two intervals overlap after R rounds get more rounds, of
  those cases alone (calls.py --only), until they are apart, --max-rounds is reached or
  --extra-seconds are spent (more_rounds).  The same for the no-op driver and NVML
  (--stub-dir), where the figures are the binding's own cost, and for the second API,
  cuda.bindings._v2 (calls_v2.py), on the no-op driver, ours from --v2-ours against NVIDIA's from
  --v2-nvidia.
* The driver probe (--probe-dir, --probe-real): the launch cases on benchmarks/drvprobe.c, a
  libcuda.so.1 in front of the real one that records, per case, the entry points called, the
  driver's time per launch, the caller's time between launches and where the kernelParams array
  and its values lay; --probe-rounds processes per package.
* Import time: for each module, a fresh process that times `import cuda.bindings.<module>` with
  time.perf_counter() around the import statement alone; also the process's wall time.  The same
  for `import sys` (already loaded: the cost of the probe itself) gives the baseline that is
  subtracted.  Repeated N times, alternating ours and NVIDIA's, after one untimed warm-up each (it
  writes any missing .pyc and warms the file cache).
* First cuInit: a fresh process times `from cuda.bindings import driver` and then `driver.cuInit(0)`;
  N times each, alternating; the C twin's first cuInit(0) likewise.
Every process is pinned to one CPU with taskset when the machine has it (see above).
Ours is imported with PYTHONPATH=DIR (and checked to come from there); NVIDIA's with PYTHONPATH
unset (and checked not to).
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from report import ALONE_MIN_NS, apart, interval  # noqa: E402  (the report's own test of whether two ranges overlap)
T0 = time.time()
MODULES = ("driver", "runtime", "nvrtc", "nvjitlink")
IMPLS = ("ours", "nvidia")

IMPORT_PROBE = """\
import time
t0 = time.perf_counter()
import {module}
t1 = time.perf_counter()
print(repr(t1 - t0))
"""

INIT_PROBE = """\
import time
t0 = time.perf_counter()
from cuda.bindings import driver
t1 = time.perf_counter()
err, = driver.cuInit(0)
t2 = time.perf_counter()
if int(err) != 0:
    raise SystemExit(f"cuInit(0) returned {err!r}")
print(repr(t1 - t0), repr(t2 - t1))
"""


def log(msg):
    print(f"[measure {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


CPU_PROBE = """\
import time
def loop(n, f=len, x=()):
    t0 = time.perf_counter()
    for _ in range(n):
        f(x)
    return time.perf_counter() - t0
loop(20000)
print(min(loop(50000) for _ in range(5)) / 50000 * 1e9)
"""
LIMIT = 1.2         # a per-call process whose floor exceeds LIMIT x the run's fastest is run again
MAX_REPROBES = 3    # CPU probes after the first, when a process run again is again too slow


def process_floor(gauges):
    """A process's floor: the slowest of the gauges calls.py timed in it (before each case and
    after the last) but one, so that a single gauge caught by an interruption does not count;
    the slowest where there are fewer than 3."""
    g = sorted((x for x in gauges if x), reverse=True)
    if not g:
        return None
    return g[1] if len(g) >= 3 else g[0]


class Runner:
    def __init__(self, args):
        self.args = args
        self.py = args.python
        self.pin = []
        self.fastest = None                 # the fastest process floor of the run so far
        self.cpu_probe = {"mode": "none", "probes": []}
        self.over_in_a_row = 0
        self.deadline = args.deadline
        self.phases = {}                    # name -> Phase, for finish()
        cpu = str(args.cpu).strip().lower()
        if cpu == "auto":
            self.cpu_probe["mode"] = "auto"
            self.choose_cpu()
        elif cpu.lstrip("-").isdigit() and int(cpu) >= 0:
            self.cpu_probe["mode"] = "fixed"
            self.pin_to(int(cpu))
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env["PYTHONUNBUFFERED"] = "1"
        self.env = {"nvidia": env, "ours": dict(env, PYTHONPATH=os.path.abspath(args.ours))}

    def pin_to(self, cpu):
        """Pins every later process to `cpu` with taskset, where the machine has it."""
        if shutil.which("taskset") is None or cpu not in self.cpus():
            return False
        if subprocess.run(["taskset", "-c", str(cpu), "true"], capture_output=True).returncode != 0:
            return False
        self.pin = ["taskset", "-c", str(cpu)]
        return True

    @staticmethod
    def cpus():
        try:
            return sorted(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            return list(range(os.cpu_count() or 1))

    def choose_cpu(self, passes=3):
        """Times a short Python loop (CPU_PROBE) in a fresh process pinned to each CPU, `passes`
        times (the order reversed every other pass), and pins to the CPU whose median is lowest:
        on a virtual machine the CPUs were seen to differ twofold in speed."""
        cpus = self.cpus()
        if shutil.which("taskset") is None or len(cpus) < 2:
            return None
        times = {c: [] for c in cpus}
        for k in range(passes):
            for c in (cpus if k % 2 == 0 else cpus[::-1]):
                p = subprocess.run(["taskset", "-c", str(c), self.py, "-I", "-S", "-c", CPU_PROBE],
                                   capture_output=True, text=True, timeout=60)
                try:
                    times[c].append(round(float(p.stdout.split()[-1]), 2))
                except (IndexError, ValueError):
                    pass
        meds = {c: statistics.median(v) for c, v in times.items() if v}
        if not meds:
            return None
        best = min(meds, key=lambda c: (meds[c], c == 0))
        self.pin_to(best)
        self.cpu_probe["probes"].append({"at_s": round(time.time() - T0, 1), "chosen": best,
                                         "ns": {str(c): v for c, v in times.items()}, "pinned": " ".join(self.pin)})
        log("CPU probe: " + ", ".join(f"{c}: {meds[c]:.1f}" for c in sorted(meds))
            + f" ns per loop step; pinned to {best}")
        return best

    def note(self, floor, over):
        """Keeps the run's fastest floor; after two processes in a row over the limit (the
        second a run again), probes the CPUs again (at most MAX_REPROBES times, with --cpu auto)."""
        if floor is not None and (self.fastest is None or floor < self.fastest):
            self.fastest = floor
        self.over_in_a_row = self.over_in_a_row + 1 if over else 0
        if self.over_in_a_row >= 2 and self.cpu_probe["mode"] == "auto" \
                and len(self.cpu_probe["probes"]) <= MAX_REPROBES:
            self.over_in_a_row = 0
            self.choose_cpu()

    def limit(self):
        return None if self.fastest is None else LIMIT * self.fastest

    def time_left(self):
        return float("inf") if not self.deadline else self.deadline - time.time()

    def run(self, cmd, env=None, timeout=300, cwd=None):
        t0 = time.perf_counter()
        try:
            p = subprocess.run(self.pin + cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd)
        except subprocess.TimeoutExpired as e:
            def text(b):
                return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
            p = subprocess.CompletedProcess(e.cmd, 124, text(e.stdout),
                                            text(e.stderr) + f"\n(timed out after {timeout} s)")
        return p, time.perf_counter() - t0


def parse_lines(text):
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
    return rows


def gauges_of(rows):
    """The gauges calls.py timed in one process (before each case, after the last) and their name."""
    g = [x["gauge"] for x in rows if "gauge" in x] + [x["gauge_end"] for x in rows if "gauge_end" in x]
    return g, next((x["gauge_name"] for x in rows if "gauge_name" in x), None)


def keep(res, key, impl, row):
    """Adds one case's figure (calls.py's row) to res[key][impl], the gauge timed within the case
    (its "gauge_in") beside it in res["gauge_in"][key][impl], its C twin timed in the same
    process (its "c_in") in res["c_in"][key][impl], and its repeats each with its own twin and
    gauge (its "reps") in res["reps"][key][impl] (kept, not used by the table)."""
    res[key][impl].setdefault(row["case"], []).append(row["ns"])
    for k in ("gauge_in", "c_in", "reps"):
        if row.get(k):
            res.setdefault(k, {}).setdefault(key, {}).setdefault(impl, {}).setdefault(row["case"], []).append(row[k])


MIN_KEPT = 5        # by_speed leaves at least this many figures of a package's case


def by_speed(res, key):
    """The figures of res[key] (ours' and NVIDIA's) by the speed they were timed at, the gauge
    within their case (calls.py "gauge_in"), with G the median of every such gauge of the phase,
    both packages' together:
    1. a figure whose gauge is above LIMIT x the fastest tenth of the phase's gauges was timed in
       the CPU's slow state (about 2x; calls.timed has timed such a case again already): it is
       left out, as long as MIN_KEPT figures of the case remain (those with the fastest gauges);
    2. the others are rescaled to G: figure x G / its gauge.  Within the fast state the speed
       still varies by some 10 %, and a case's figure moves with its gauge.
    Rescaling is not done across the 2x step: a launch's or a copy's time is partly the GPU's,
    which does not follow the CPU, and a figure scaled by half was seen to land below the
    package's fast ones.  A case whose every figure has its C twin timed in the same process
    (calls.py --twin, "c_in") is taken by its twin instead (by_twin).  Every figure stays in
    res["raw"][key]; res["speed_check"][key] says G, the fast tenth's gauge, the limit and how
    many figures were left out."""
    gauges = res.get("gauge_in", {}).get(key, {})
    twins = res.get("c_in", {}).get(key, {})
    raw = res.setdefault("raw", {})[key] = {impl: {c: list(v) for c, v in res[key][impl].items()} for impl in IMPLS}
    pairs = {impl: {c: list(zip(v, gauges.get(impl, {}).get(c, []), twins.get(impl, {}).get(c, [None] * len(v))))
                    for c, v in raw[impl].items()
                    if len(gauges.get(impl, {}).get(c, [])) == len(v)} for impl in IMPLS}
    every = sorted(g for impl in IMPLS for ps in pairs[impl].values() for _, g, _ in ps)
    if not every:
        return
    fast = every[len(every) // 10]
    def keep(ps):      # the figures kept, in the processes' order
        by_gauge = sorted(range(len(ps)), key=lambda i: ps[i][1])
        return [ps[i] for i in sorted(i for n, i in enumerate(by_gauge) if n < MIN_KEPT or ps[i][1] <= LIMIT * fast)]
    kept = {impl: {c: keep(ps) for c, ps in pairs[impl].items()} for impl in IMPLS}
    ref = statistics.median(g for impl in IMPLS for ps in kept[impl].values() for _, g, _ in ps)
    twinned = by_twin(kept)
    for impl in IMPLS:
        for case, ps in kept[impl].items():
            if case in twinned:
                res[key][impl][case] = [round((v - t) * ref / g + twinned[case], 2) for v, g, t in ps]
            else:
                res[key][impl][case] = [round(v * ref / g, 2) for v, g, _ in ps]
    res.setdefault("speed_check", {})[key] = {
        "reference_gauge": round(ref, 2), "fast_gauge": round(fast, 2), "limit": LIMIT, "figures": len(every),
        "left_out": len(every) - sum(len(ps) for impl in IMPLS for ps in kept[impl].values())}
    if twinned:
        res["speed_check"][key]["by_twin"] = {c: round(t, 2) for c, t in sorted(twinned.items())}


def by_twin(kept):
    """{case: T} of the cases whose every kept figure has its C twin (the same driver call made
    from C in the same process, between the case's repeats: calls.py --twin), T the median of those
    twins, both packages' together.  The driver's own time per call differs from process to
    process whichever package calls it (the driver probe), by more than the bindings differ on a
    launch; the twin, timed in the same process between the case's repeats, with the same handles
    and argument memory, moves with it.  by_speed takes such a figure as T + (figure - its twin) x G / its gauge: the
    binding's part of the call rescaled to one speed as the other figures are, on the phase's
    median driver time."""
    twinned = {}
    for case in set(kept["ours"]) & set(kept["nvidia"]):
        ts = [t for impl in IMPLS for _, _, t in kept[impl][case]]
        if ts and all(t is not None for t in ts):
            twinned[case] = statistics.median(ts)
    return twinned


def order(i):
    return IMPLS if i % 2 == 0 else IMPLS[::-1]


class Phase:
    """The per-call processes of one phase (calls.py on the real driver, on the no-op driver,
    calls_v2.py, the driver probe), each kept with its output and its floor (process_floor).
    The phase's tables are rebuilt from the processes kept (rebuild); a process whose floor is
    above the limit can be run again (redo), the attempt with the lower floor kept.  Both
    packages' processes are treated alike."""

    def __init__(self, r, name, spawn, reset, take, res=None):
        self.r, self.name = r, name
        self.res = res          # the results whose res[name] rebuild takes by speed (by_speed), if given
        self.spawn = spawn      # spawn(rec) -> (output, rows): one fresh process
        self.reset = reset      # reset(): empties the phase's tables
        self.take = take        # take(rec): adds a kept process's output to them
        self.procs = []
        self.gauge = None

    def _once(self, rec):
        out, rows = self.spawn(rec)
        gauges, name = gauges_of(rows)
        self.gauge = self.gauge or name
        return out, process_floor(gauges)

    def run(self, i, impl, only=None, **extra):
        rec = dict(extra, impl=impl, round=i, only=only)
        t0 = time.perf_counter()
        rec["out"], rec["floor"] = self._once(rec)
        rec["dt"] = time.perf_counter() - t0
        rec["tries"] = [rec["floor"]]
        self.r.note(rec["floor"], self.over(rec))
        self.procs.append(rec)
        return rec

    def over(self, rec):
        lim = self.r.limit()
        return lim is not None and rec["floor"] is not None and rec["floor"] > lim

    def redo(self, rec):
        out, floor = self._once(rec)
        rec["tries"].append(floor)
        if floor is not None and (rec["floor"] is None or floor < rec["floor"]):
            rec["out"], rec["floor"] = out, floor
        self.r.note(floor, self.over(rec))

    def rerun_slow(self, recs, attempts, until):
        """Runs again each of `recs` whose floor is above the limit, up to `attempts` processes
        in all for it, while time.time() < until and the deadline leaves room for one more."""
        for rec in recs:
            while self.over(rec) and len(rec["tries"]) < attempts and time.time() < until \
                    and self.r.time_left() > 2 * rec["dt"] + 5:
                self.redo(rec)

    def rebuild(self):
        self.reset()
        if self.res is not None:
            for k in ("gauge_in", "c_in", "reps"):
                self.res.setdefault(k, {})[self.name] = {}
        for rec in self.procs:
            self.take(rec)
        if self.res is not None:
            by_speed(self.res, self.name)

    def summary(self):
        lim = self.r.limit()
        return {"gauge": self.gauge,
                "floors": {impl: [p["floor"] for p in self.procs if p["impl"] == impl] for impl in IMPLS},
                "processes": len(self.procs),
                "rerun": sum(len(p["tries"]) > 1 for p in self.procs),
                "extra_processes": sum(len(p["tries"]) - 1 for p in self.procs),
                "over_limit": sum(1 for p in self.procs if lim and p["floor"] and p["floor"] > lim),
                "tries": [{"impl": p["impl"], "round": p["round"], "label": p.get("label", p["impl"]),
                           "cases": None if p["only"] is None else len(p["only"]), "floors": p["tries"]}
                          for p in self.procs]}


def run_calls(r, impl, env, only=None, script="calls.py", expect_under=None, twin=False):
    """One fresh calls.py process for `impl` (the cases `only` names, if given; `twin`: with each
    real-driver case's C twin, calls.py --twin): (its JSON rows, the process, seconds)."""
    a = r.args
    cmd = [r.py, os.path.join(HERE, script), "--label", impl]
    if script == "calls.py":
        cmd += ["--cubin", a.cubin]
    if expect_under:
        cmd += ["--expect-under", expect_under]
    else:
        cmd += ["--expect-under", a.ours] if impl == "ours" else ["--expect-not-under", a.ours]
    if a.floor_dir:
        cmd += ["--floor-dir", a.floor_dir]
    if only is not None:
        cmd += ["--only", "^(" + "|".join(re.escape(c) for c in sorted(only)) + ")$"]
    if twin:
        cmd.append("--twin")
    p, dt = r.run(cmd, env=env, timeout=300)
    return parse_lines(p.stdout), p, dt


def calls(r, res):
    a = r.args
    res["calls"] = {"C": {}, "ours": {}, "nvidia": {}}
    res["call_errors"] = {"C": {}, "ours": {}, "nvidia": {}}
    res["call_meta"] = {}
    res["call_iters"] = {"C": {}, "ours": {}, "nvidia": {}}

    def take_rows(impl, rows, only=None):
        for row in rows:
            if "meta" in row:
                res["call_meta"][impl] = row["meta"]
            elif "error" in row:
                res["call_errors"][impl][row["case"]] = row["error"]
            elif "ns" in row and (only is None or row["case"] in only):
                keep(res, "calls", impl, row)
                if "iters" in row:
                    res["call_iters"][impl][row["case"]] = row["iters"]

    def spawn(rec):
        impl = rec["impl"]
        rows, p, dt = run_calls(r, impl, r.env[impl], only=rec["only"], twin=True)
        meta = next((x["meta"] for x in rows if "meta" in x), {})
        if "fatal" in meta:
            raise SystemExit(f"measure: {impl}: {meta['fatal']}")
        err = None
        if p.returncode != 0:
            log(f"{impl} calls.py failed (exit {p.returncode}): {p.stderr.strip()[-1500:]}")
            err = f"exit {p.returncode}: {p.stderr.strip()[-300:]}"
        return {"rows": rows, "error": err}, rows

    def reset():
        for impl in IMPLS:
            res["calls"][impl] = {}
            res["call_errors"][impl] = {}

    def take(rec):
        take_rows(rec["impl"], rec["out"]["rows"], rec["only"])
        if rec["out"]["error"]:
            res["call_errors"][rec["impl"]]["(process)"] = rec["out"]["error"]

    ph = r.phases["calls"] = Phase(r, "calls", spawn, reset, take, res)
    ph.table = res["calls"]
    for i in range(a.rounds):
        took = []
        if a.c_binary:
            p, dt = r.run([a.c_binary, a.cubin], timeout=180)
            if p.returncode != 0:
                log(f"C twin failed (exit {p.returncode}): {p.stderr.strip()[-500:]}")
                res["call_errors"]["C"]["(process)"] = f"exit {p.returncode}: {p.stderr.strip()[-300:]}"
            rows = parse_lines(p.stdout)
            res.setdefault("c_first_cuInit_in_bench_ns", []).extend(
                x["ns"] for x in rows if x.get("case") == "first_cuInit" and "ns" in x)
            take_rows("C", [x for x in rows if x.get("case") != "first_cuInit"])
            took.append(f"C {dt:.1f} s")
        for impl in order(i):
            rec = ph.run(i, impl)
            took.append(f"{impl} {rec['dt']:.1f} s (floor {rec['floor']} ns)")
        log(f"calls round {i + 1}/{a.rounds}: " + ", ".join(took))
    ph.rebuild()


def undecided(table, stub=None):
    """The cases whose ours and NVIDIA's intervals (report.interval) overlap (not the Cython floor
    or nvidia-ml-py's, which are the same code in both packages' processes).  With `stub` (the
    no-op driver's table, for the real-driver phase): only those whose binding-alone difference
    there (NVIDIA's median − ours') exceeds report.ALONE_MIN_NS, or is not measured.  The rows
    below it, a call into the same library through two thin bindings (NVML, nvFatbin), differ by
    less than their processes do on the real driver: the runs of 2d44703 and 0442eb8 gave them
    up to 15 rounds, which left them overlapping and took time in every extra process from the
    rows the ranking is judged on."""
    def small(c):
        o, n = (stub or {}).get("ours", {}).get(c), (stub or {}).get("nvidia", {}).get(c)
        return bool(o) and bool(n) and abs(statistics.median(n) - statistics.median(o)) <= ALONE_MIN_NS
    return {c for c in table["ours"] if c in table["nvidia"] and not c.startswith(("checked:", "floor_", "pynvml."))
            and not small(c) and apart(interval(table["ours"][c]), interval(table["nvidia"][c])) == "overlap"}


def more_rounds(r, res, ph):
    """Rounds beyond --rounds, of the cases whose two intervals still overlap only, the packages
    alternating as before, until none is left, --max-rounds is reached or --extra-seconds are
    spent (or the deadline comes): the interval of a median narrows as figures are added, so a
    difference of a few per cent that five rounds cannot show can be told apart (or shown to be
    too small to tell).  Each of these processes is run again at once if its floor is above the
    limit, as in rerun_slow."""
    a = r.args
    t0 = time.perf_counter()
    i = a.rounds
    stub = res.get("stub_calls") if ph.name == "calls" else None
    left = undecided(ph.table, stub)
    res.setdefault("extra_rounds", {})[ph.name] = {"undecided_after_rounds": sorted(left)}
    step = 2 * max((p["dt"] for p in ph.procs if p["only"] is not None), default=5.0)
    while left and i < a.max_rounds and time.perf_counter() - t0 < a.extra_seconds and r.time_left() > step + 10:
        t1 = time.perf_counter()
        for impl in order(i):
            rec = ph.run(i, impl, only=left)
            ph.rerun_slow([rec], a.attempts, time.time() + a.rerun_seconds)
        ph.rebuild()
        step = max(step, time.perf_counter() - t1)
        i += 1
        left = undecided(ph.table, stub)
        log(f"{ph.name}: extra round {i}/{a.max_rounds}, {len(left)} cases still overlap")
    res["extra_rounds"][ph.name].update(rounds=i, seconds=round(time.perf_counter() - t0, 1),
                                        still_undecided=sorted(left))


def stub_env(r, env):
    env = dict(env)
    env["LD_LIBRARY_PATH"] = r.args.stub_dir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def stub_calls(r, res):
    """The same cases against a no-op libcuda.so.1 (benchmarks/stub_driver.c) and a no-op
    libnvidia-ml.so.1 (benchmarks/stub_nvml.c): the binding's own cost per call, without the
    driver's or NVML's work or its effect on the caches."""
    a = r.args
    if not a.stub_dir:
        return
    res["stub_calls"] = {"ours": {}, "nvidia": {}}
    res["stub_errors"] = {"ours": {}, "nvidia": {}}
    res["stub_nvml"] = {}

    def spawn(rec):
        impl = rec["impl"]
        rows, p, dt = run_calls(r, impl, stub_env(r, r.env[impl]), only=rec["only"])
        meta = next((x["meta"] for x in rows if "meta" in x), {})
        if meta.get("device") != "stub":
            err = (f"not the no-op driver (device {meta.get('device')!r}); "
                   f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
            return {"rows": [], "error": err}, rows
        return {"rows": rows, "error": None}, rows

    def reset():
        for impl in IMPLS:
            res["stub_calls"][impl] = {}
            res["stub_errors"][impl] = {}

    def take(rec):
        impl, rows, only = rec["impl"], rec["out"]["rows"], rec["only"]
        if rec["out"]["error"]:
            res["stub_errors"][impl]["(process)"] = rec["out"]["error"]
        nvml_lib = next((x["nvml_library"] for x in rows if "nvml_library" in x), None)
        if nvml_lib is not None:
            res["stub_nvml"][impl] = nvml_lib
        for row in rows:
            if row.get("case", "").startswith(("nvml.", "pynvml.")) and not str(nvml_lib).startswith(a.stub_dir):
                continue    # the real NVML was loaded: not the binding alone
            if "ns" in row and (only is None or row["case"] in only):
                keep(res, "stub_calls", impl, row)
            elif "error" in row:
                res["stub_errors"][impl][row["case"]] = row["error"]

    ph = r.phases["stub_calls"] = Phase(r, "stub_calls", spawn, reset, take, res)
    ph.table = res["stub_calls"]
    for i in range(a.rounds):
        for impl in order(i):
            ph.run(i, impl)
        log(f"no-op driver round {i + 1}/{a.rounds}: floors " + ", ".join(
            f"{p['impl']} {p['floor']}" for p in ph.procs[-2:]))
    ph.rebuild()


def v2_calls(r, res):
    """NVIDIA's second API, cuda.bindings._v2 (benchmarks/calls_v2.py), on the no-op driver:
    ours' build with it (--v2-ours) against NVIDIA's release with it (--v2-nvidia), each
    imported from its own folder, the processes alternating and judged by their floors as the
    other phases'."""
    a = r.args
    if a.v2_note:
        res["v2_note"] = a.v2_note
    if not (a.v2_ours and a.v2_nvidia and a.stub_dir):
        if not a.v2_note:
            res["v2_note"] = "not run: " + ("no no-op driver (--stub-dir)" if not a.stub_dir
                                            else "--v2-ours and --v2-nvidia not both given")
        return
    base = dict(r.env["nvidia"])
    dirs = {"ours": os.path.abspath(a.v2_ours), "nvidia": os.path.abspath(a.v2_nvidia)}
    envs = {impl: stub_env(r, dict(base, PYTHONPATH=d)) for impl, d in dirs.items()}
    res["v2_calls"] = {"ours": {}, "nvidia": {}}
    res["v2_errors"] = {"ours": {}, "nvidia": {}}
    res["v2_meta"] = {}

    def spawn(rec):
        impl = rec["impl"]
        rows, p, dt = run_calls(r, impl, envs[impl], only=rec["only"], script="calls_v2.py",
                                expect_under=dirs[impl])
        meta = next((x["meta"] for x in rows if "meta" in x), {})
        err = None
        if "fatal" in meta or meta.get("device") != "stub" or p.returncode != 0:
            why = meta.get("fatal") or f"device {meta.get('device')!r}"
            err = f"{why}; exit {p.returncode}: {p.stderr.strip()[-300:]}"
        return {"rows": rows, "meta": meta, "error": err}, rows

    def reset():
        for impl in IMPLS:
            res["v2_calls"][impl] = {}
            res["v2_errors"][impl] = {}

    def take(rec):
        impl, out = rec["impl"], rec["out"]
        res["v2_meta"][impl] = out["meta"]
        if out["error"]:
            res["v2_errors"][impl]["(process)"] = out["error"]
        for row in out["rows"]:
            if "ns" in row and (rec["only"] is None or row["case"] in rec["only"]):
                keep(res, "v2_calls", impl, row)
            elif "error" in row:
                res["v2_errors"][impl][row["case"]] = row["error"]

    ph = r.phases["v2_calls"] = Phase(r, "v2_calls", spawn, reset, take, res)
    ph.table = res["v2_calls"]
    for i in range(a.rounds):
        for impl in order(i):
            ph.run(i, impl)
        log(f"_v2 round {i + 1}/{a.rounds}: floors " + ", ".join(f"{p['impl']} {p['floor']}" for p in ph.procs[-2:]))
    ph.rebuild()


def probe_arms(a):
    """[(impl, label, environment)]: both packages, then the experiments: ours with the entry
    points asked otherwise (--probe-arm VERSION:FLAGS)."""
    arms = [(impl, impl, {}) for impl in IMPLS]
    for spec in a.probe_arm or ():
        ask = dict(zip(("DRVPROBE_ASK_VERSION", "DRVPROBE_ASK_FLAGS"), spec.split(":")))
        arms.append(("ours", f"ours@{spec}", {k: v for k, v in ask.items() if v != ""}))
    return arms


def probe_calls(r, res):
    """The driver cases of calls.py on benchmarks/drvprobe.c (a libcuda.so.1 in front of the real
    one): per package, the driver entry points called per call, each one's own time in the driver,
    for the launches the caller's time between two launches, and where the kernelParams array and
    its values lay."""
    a = r.args
    if not (a.probe_dir and a.probe_real):
        return
    res["probe_asked"] = {}
    arms = probe_arms(a)

    def spawn(rec):
        impl, label = rec["impl"], rec["label"]
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as fh:
            path = fh.name
        env = dict(r.env[impl], DRVPROBE_REAL=a.probe_real, DRVPROBE_OUT=path, DRVPROBE_LABEL=label)
        env.update(rec["ask"])
        env["LD_LIBRARY_PATH"] = a.probe_dir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        cmd = [r.py, os.path.join(HERE, "calls.py"), "--label", impl, "--cubin", a.cubin, "--only", "^cu"]
        cmd += ["--expect-under", a.ours] if impl == "ours" else ["--expect-not-under", a.ours]
        if a.floor_dir:
            cmd += ["--floor-dir", a.floor_dir]     # for the gauge: no floor case matches ^cu
        p, dt = r.run(cmd, env=env, timeout=300)
        with open(path) as fh:
            segs = parse_lines(fh.read())
        os.unlink(path)
        rows = parse_lines(p.stdout)
        err = f"exit {p.returncode}: {p.stderr.strip()[-400:]}" if p.returncode != 0 else None
        return {"rows": rows, "segs": segs, "error": err}, rows

    def reset():
        res["probe"] = []
        res["probe_calls"] = {"ours": {}, "nvidia": {}}
        res["probe_errors"] = {}

    def take(rec):
        label = rec["label"]
        if rec["out"]["error"]:
            res["probe_errors"][label] = rec["out"]["error"]
        for row in rec["out"]["rows"]:
            if "ns" in row:
                res["probe_calls"].setdefault(label, {}).setdefault(row["case"], []).append(row["ns"])
        for seg in rec["out"]["segs"]:
            if "asked" in seg:
                res["probe_asked"][label] = seg["asked"]
                continue
            res["probe"].append(dict(seg, round=rec["round"]))

    ph = r.phases["probe_calls"] = Phase(r, "probe_calls", spawn, reset, take)
    for i in range(a.probe_rounds):
        # each round starts one arm later: over len(arms) rounds each arm runs once in each place
        # of the round (a process's place in the round was seen to change its driver times)
        for impl, label, ask in arms[i % len(arms):] + arms[:i % len(arms)]:
            ph.run(i, impl, label=label, ask=ask)
        log(f"driver probe round {i + 1}/{a.probe_rounds}")
    ph.rebuild()


FINISH_ORDER = ("calls", "stub_calls", "v2_calls", "probe_calls")     # the per-call phases, as finish() takes them


def finish(r, res, save):
    """After every phase, phase by phase (the real-driver phase first, so that a run short of
    time spends it on the rows the ranking is judged on): the per-call processes whose floor is
    above LIMIT x the run's fastest are run again (rerun_pass), then the cases whose two ranges
    still overlap get more rounds (more_rounds; with the slowly timed cases timed again in their
    processes, these narrow the ranges more than whole processes run again would); each step
    within its time and the deadline.  Within a phase the extra rounds come last: a process run
    again replaces its figures, which can leave two ranges overlapping that were apart, and the
    rounds go on until no range in their scope overlaps, so the table is the one they ended on."""
    for name in FINISH_ORDER:
        ph = r.phases.get(name)
        if ph is None:
            continue
        rerun_pass(r, res, save, ph)
        if name != "probe_calls":      # the driver probe's figures are counts and segments, not ranges
            more_rounds(r, res, ph)
            res["floor_check"] = floor_check(r)
            save()


def rerun_pass(r, res, save, ph):
    """Runs again the processes of phase `ph` whose floor is above the limit (Phase.rerun_slow,
    within --rerun-seconds), rebuilds its tables and says how many."""
    a = r.args
    t0 = time.perf_counter()
    before = sum(len(p["tries"]) for p in ph.procs)
    ph.rerun_slow(ph.procs, a.attempts, time.time() + a.rerun_seconds)
    ph.rebuild()
    s = ph.summary()
    log(f"{ph.name}: {sum(len(p['tries']) for p in ph.procs) - before} processes run again "
        f"({time.perf_counter() - t0:.1f} s); {s['rerun']} of {s['processes']} run again in all, "
        f"{s['over_limit']} still over the limit")
    res["floor_check"] = floor_check(r)
    save()


def floor_check(r):
    """What results.json keeps of the floors: the limit, the run's fastest, the CPU probes, and
    per phase each process's floor (and those of its earlier attempts)."""
    return {"limit": LIMIT, "fastest": r.fastest, "attempts": r.args.attempts, "cpu_probe": r.cpu_probe,
            "phases": {name: ph.summary() for name, ph in r.phases.items()}}


def clients(r, res):
    """benchmarks/clients.py (a numba-cuda round trip, a cuda.core launch) in alternating fresh
    processes, pinned to the same CPU as the per-call cases; the medians are reported."""
    a = r.args
    res["clients"] = {"ours": {}, "nvidia": {}}
    res["client_errors"] = {"ours": {}, "nvidia": {}}
    for i in range(a.rounds):
        for impl in order(i):
            cmd = [r.py, os.path.join(HERE, "clients.py"), "--label", impl]
            cmd += ["--expect-under", a.ours] if impl == "ours" else ["--expect-not-under", a.ours]
            # away from the checkout, where a build's cuda_bindings.egg-info would be found first
            p, dt = r.run(cmd, env=r.env[impl], timeout=300, cwd=tempfile.gettempdir())
            for row in parse_lines(p.stdout):
                if "us" in row:
                    res["clients"][impl].setdefault(row["case"], []).append(row["us"])
                elif "error" in row:
                    res["client_errors"][impl][row["case"]] = row["error"]
                elif "fatal" in row.get("meta", {}):
                    res["client_errors"][impl]["(process)"] = row["meta"]["fatal"]
            if p.returncode != 0:
                res["client_errors"][impl]["(process)"] = f"exit {p.returncode}: {p.stderr.strip()[-300:]}"
        log(f"clients round {i + 1}/{a.rounds} ({dt:.1f} s for the last process)")


def imports(r, res):
    a = r.args
    out = {"ours": {}, "nvidia": {}, "baseline": []}
    wall = {"ours": {}, "nvidia": {}, "baseline": []}
    errors = {}

    def probe(impl, module, env):
        p, dt = r.run([r.py, "-c", IMPORT_PROBE.format(module=module)], env=env, timeout=120)
        if p.returncode != 0:
            errors[f"{impl} {module}"] = p.stderr.strip()[-300:]
            return None, dt
        return float(p.stdout.split()[-1]), dt

    for impl in IMPLS:                      # untimed warm-up
        for m in MODULES:
            probe(impl, f"cuda.bindings.{m}", r.env[impl])
    for i in range(a.import_repeats):
        v, dt = probe("baseline", "sys", r.env["nvidia"])
        if v is not None:
            out["baseline"].append(v)
            wall["baseline"].append(dt)
        for m in MODULES:
            for impl in order(i + MODULES.index(m)):
                v, dt = probe(impl, f"cuda.bindings.{m}", r.env[impl])
                if v is not None:
                    out[impl].setdefault(m, []).append(v)
                    wall[impl].setdefault(m, []).append(dt)
    res["imports_s"] = out
    res["imports_wall_s"] = wall
    res["import_errors"] = errors
    log(f"imports: {a.import_repeats} x {len(MODULES)} modules x 2 done"
        + (f"; errors: {sorted(errors)}" if errors else ""))


def first_init(r, res):
    a = r.args
    out = {"ours": [], "nvidia": [], "C": []}
    errors = {}
    for i in range(a.import_repeats):
        if a.c_binary:
            p, _ = r.run([a.c_binary, "--init-only"], timeout=120)
            rows = [x for x in parse_lines(p.stdout) if x.get("case") == "first_cuInit"]
            if p.returncode == 0 and rows:
                out["C"].append({"import_s": 0.0, "cuinit_s": rows[0]["ns"] / 1e9})
            else:
                errors["C"] = p.stderr.strip()[-300:]
        for impl in order(i):
            p, _ = r.run([r.py, "-c", INIT_PROBE], env=r.env[impl], timeout=120)
            if p.returncode != 0:
                errors[impl] = (p.stderr or p.stdout).strip()[-300:]
                continue
            t_imp, t_init = (float(x) for x in p.stdout.split()[-2:])
            out[impl].append({"import_s": t_imp, "cuinit_s": t_init})
    res["first_init"] = out
    res["first_init_errors"] = errors
    log("first cuInit done" + (f"; errors: {errors}" if errors else ""))


def machine(r):
    def sh(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    cpu = ""
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((l.split(":", 1)[1].strip() for l in fh if l.startswith("model name")), "")
    except OSError:
        pass
    ver = {}
    for impl in IMPLS:
        p, _ = r.run([r.py, "-c", "import cuda.bindings as b; print(getattr(b, '__version__', '?')); "
                      "print(b.__file__)"], env=r.env[impl], timeout=60)
        lines = p.stdout.split("\n")
        ver[impl] = {"version": lines[0].strip() if lines else "?",
                     "file": lines[1].strip() if len(lines) > 1 else "?"}
    # -I: not the current folder, where a build of ours may have left its cuda_bindings.egg-info
    p, _ = r.run([r.py, "-I", "-c", "from importlib.metadata import version; print(version('cuda-bindings'))"],
                 env=r.env["nvidia"], timeout=60)
    ver["nvidia"]["dist_version"] = p.stdout.strip() or "?"
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": platform.platform(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "python": sh([r.py, "-c", "import sys; print(sys.version.split()[0])"]),
        "gpu": sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
        "nvcc": (sh(["nvcc", "--version"]).splitlines() or [""])[-1],
        "pinned": " ".join(r.pin) or "no (taskset or the CPU is missing)",
        "packages": ver,
    }


def build_info(a):
    b = {"seconds": a.build_seconds, "cpus": os.cpu_count(), "wheel": None,
         "wheel_bytes": None, "wheel_seconds": a.wheel_seconds,
         "installed_bytes": None,
         "nvidia_wheel_bytes_quoted": 8.4e6,
         "cold_build_seconds_2core": None}
    if a.wheel and os.path.isfile(a.wheel):
        b["wheel"] = os.path.basename(a.wheel)
        b["wheel_bytes"] = os.path.getsize(a.wheel)
    pkg = os.path.join(a.ours, "cuda", "bindings")
    if os.path.isdir(pkg):
        b["installed_bytes"] = sum(os.path.getsize(os.path.join(d, f))
                                   for d, _, fs in os.walk(pkg) for f in fs)
    cold = os.environ.get("COLD_BUILD_SECONDS_2CORE", "").strip()
    if cold:
        try:
            b["cold_build_seconds_2core"] = float(cold)
        except ValueError:
            b["cold_build_seconds_2core_text"] = cold
    return b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True, help="the folder our build was installed into")
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--c-binary")
    ap.add_argument("--floor-dir")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--import-repeats", type=int, default=9)
    ap.add_argument("--cpu", default="auto",
                    help="the CPU every process is pinned to; auto (the fastest by a probe, CPU_PROBE) or none")
    ap.add_argument("--build-seconds", type=float)
    ap.add_argument("--wheel")
    ap.add_argument("--wheel-seconds", type=float)
    ap.add_argument("--commit", default="")
    ap.add_argument("--mirror", help="a second path the results are written to")
    ap.add_argument("--lockprobe", help="JSON lines written by benchmarks/lockprobe.c")
    ap.add_argument("--getproc-flags", help="JSON lines written by benchmarks/getproc_flags.c")
    ap.add_argument("--stub-dir", help="a folder holding the no-op libcuda.so.1 (benchmarks/stub_driver.c) "
                    "and libnvidia-ml.so.1 (benchmarks/stub_nvml.c)")
    ap.add_argument("--max-rounds", type=int, default=31,
                    help="at most this many rounds for a case whose two intervals overlap after --rounds")
    ap.add_argument("--extra-seconds", type=float, default=240.0,
                    help="time allowed for those extra rounds, per phase")
    ap.add_argument("--probe-dir", help="a folder holding benchmarks/drvprobe.c built as libcuda.so.1")
    ap.add_argument("--probe-real", help="the real libcuda.so.1, for the probe to load")
    ap.add_argument("--probe-rounds", type=int, default=2)
    ap.add_argument("--probe-arm", action="append", metavar="VERSION:FLAGS",
                    help="an experiment: also probe ours with every entry point asked at least at VERSION "
                         "and/or with FLAGS (either may be empty)")
    ap.add_argument("--attempts", type=int, default=2,
                    help="processes at most per per-call process whose floor is above the limit (the first included)")
    ap.add_argument("--rerun-seconds", type=float, default=40.0,
                    help="time allowed for running slow processes again, per phase")
    ap.add_argument("--deadline", type=float, help="a time (seconds since the epoch) by which the "
                    "optional work (processes run again, extra rounds) stops")
    ap.add_argument("--v2-ours", help="a folder holding ours' build with cuda.bindings._v2")
    ap.add_argument("--v2-nvidia", help="a folder holding NVIDIA's cuda-bindings with cuda.bindings._v2")
    ap.add_argument("--v2-note", help="why the _v2 phase does not run (shown in the report)")
    ap.add_argument("--phases", default="calls,stub_calls,v2_calls,probe_calls,imports,first_init,clients",
                    help="the phases to run, comma-separated")
    a = ap.parse_args()
    a.ours = os.path.abspath(a.ours)
    a.cubin = os.path.abspath(a.cubin)

    r = Runner(a)
    t0 = time.perf_counter()
    res = {"schema": 1, "rounds": a.rounds, "import_repeats": a.import_repeats}
    res["machine"] = machine(r)
    res["machine"]["commit"] = a.commit
    log(f"pinning: {res['machine']['pinned']}; ours: {res['machine']['packages']['ours']['file']}; "
        f"NVIDIA's: {res['machine']['packages']['nvidia']['file']}")
    res["build"] = build_info(a)
    if a.lockprobe:
        with open(a.lockprobe) as fh:
            res["lockprobe"] = [json.loads(x) for x in fh if x.startswith("{")]
    if a.getproc_flags:
        with open(a.getproc_flags) as fh:
            res["getproc_flags"] = [json.loads(x) for x in fh if x.startswith("{")]

    def save():   # after each phase, so that a run cut short still leaves what it measured
        res["measure_seconds"] = round(time.perf_counter() - t0, 1)
        for path in [a.out] + ([a.mirror] if a.mirror else []):
            with open(path + ".tmp", "w") as fh:
                json.dump(res, fh, indent=1)
            os.replace(path + ".tmp", path)

    res["floor_check"] = floor_check(r)
    phases = {f.__name__: f for f in (calls, stub_calls, v2_calls, probe_calls, imports, first_init, clients)}
    for name in a.phases.split(","):
        phases[name.strip()](r, res)
        save()
    finish(r, res, save)
    log(f"wrote {a.out} after {res['measure_seconds']} s")


if __name__ == "__main__":
    main()
