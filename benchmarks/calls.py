"""Per-call overhead of one cuda.bindings, in one process: whichever is first on sys.path.

    python3 calls.py --label ours --cubin kernels.cubin [--expect-under DIR | --expect-not-under DIR]
                     [--floor-dir DIR] [--only REGEX]

Prints JSON lines on stdout: first {"meta": {...}} (which cuda.bindings was imported, its version,
the device), then one {"case": NAME, "ns": NS, "iters": N, "repeats": R, "gauge": NS, "gauge_in": NS,
"retimed": K} per case, or
{"case": NAME, "error": MESSAGE} where a call failed, and last {"gauge_end": NS, "gauge_name": NAME}.
benchmarks/measure.py runs this script several times, alternating NVIDIA's package and ours, and
takes the median over processes.

How a case is timed: its statement is checked once (status 0), then calibrated so that one repeat
lasts about 10 ms; the figure is the fastest of 7 repeats, in nanoseconds per call.  The statement
is compiled into timeit's loop with its names bound as local variables, so the figure holds the
call, its argument conversion and its result tuple, plus timeit's loop step (a few ns), and no
lambda or attribute lookup.  Calls that queue GPU work (launches, event records, async copies) run
at most 500 times per repeat (fastest of 21 repeats) and the stream is synchronized, untimed, after
each repeat, so the launch queue never fills and the figure is the CPU cost of the call.

The process's speed: right before each case, and once after the last, a gauge is timed (Gauge:
benchmarks/floor.pyx's tuple_gil where --floor-dir is given, the fastest of 5 short repeats);
benchmarks/measure.py takes the slowest of them as the process's floor and runs a process again
whose floor is well above the fastest of the run's (the same CPU was seen to run a process at
half the speed of the one before).  Within each case, the gauge is timed once more (one short
repeat) before the first repeat and after each: "gauge_in" is the fastest of those.  The CPU's
speed changes within a process too, in steps of about 2x: a case whose gauge within is above 1.2x
the fastest gauge the process has timed is timed again, twice at most, and the attempt with the
fastest gauge within is kept ("retimed": the attempts after the first); measure.py leaves out
the figures still timed slowly and rescales the others to one speed (measure.by_speed).

The case names match benchmarks/overhead_c.c, where the same driver calls are made from C.
Under benchmarks/drvprobe.c (DRVPROBE_OUT set) each case's timed repeats are marked as one segment
of that driver's record.
"""
import argparse
import ctypes
import json
import os
import sys
import time
import timeit

import numpy as np

REPEATS = 7
REPEATS_QUEUED = 21
TARGET_S = 0.010
QUEUED_CAP = 500
PLAIN_CAP = 5_000_000
LAUNCH_ARGS = (0, 4, 8, 16, 256)


def emit(obj):
    print(json.dumps(obj), flush=True)


def status_of(res):
    """The status (first item) of a binding's result tuple, as an int; None for other results."""
    if isinstance(res, tuple) and res:
        try:
            return int(res[0])
        except (TypeError, ValueError):
            return None
    return None


def ok(res, what):
    st = status_of(res)
    if st != 0:
        raise RuntimeError(f"{what} returned {res[0] if isinstance(res, tuple) and res else res!r}")
    return res[1] if len(res) == 2 else res[1:]


def measure(stmt, names, queued, after, twin=None):
    """Nanoseconds per execution of `stmt` (fastest of REPEATS), the iterations per repeat, the
    repeats, the gauge within: the fastest of one short gauge timing (Gauge.once) before the
    first repeat and one after each (None without a gauge), the C twin's ns per call (None
    without one): `twin` (run_case's) is timed after each repeat, as many calls as the repeat, so
    that the case and its twin meet the driver in the same state (the fastest twin repeat), and
    with a twin each repeat as [the case's ns, its twin's ns, the gauge after it] (else None),
    kept in results.json ("reps") for estimators that pair a repeat with its own twin."""
    setup = "; ".join(f"{k} = _ns[{k!r}]" for k in sorted(names)) or "pass"
    timer = timeit.Timer(stmt, setup=setup, timer=time.perf_counter, globals={"_ns": names})
    cap = QUEUED_CAP if queued else PLAIN_CAP
    repeats = REPEATS_QUEUED if queued else REPEATS
    n = 16
    while True:
        dt = timer.timeit(n)
        if queued:
            after()
        if dt >= 0.002 or n >= cap:
            break
        n = min(n * 4, cap)
    dt = min(dt, timer.timeit(n))   # a second look, so one stall cannot shrink the repeats
    if queued:
        after()
    iters = int(TARGET_S / max(dt / n, 1e-9))
    iters = max(16, min(cap, iters))
    best = twin_best = float("inf")
    gauge = GAUGE.once() if GAUGE is not None else None
    reps = []
    for _ in range(repeats):
        dt = timer.timeit(iters)
        if queued:
            after()
        best = min(best, dt / iters)
        once = GAUGE.once() if GAUGE is not None else None
        if once is not None:
            gauge = min(gauge, once)
        if twin is not None:
            case, a, b, c, sync = twin
            t = TWIN(case, a, b, c, sync if queued else 0, cap, 1, 0, iters)
            twin_best = min(twin_best, t)
            reps.append([round(dt / iters * 1e9, 2), round(t, 2), None if once is None else round(once, 2)])
    return best * 1e9, iters, repeats, gauge, (twin_best if twin is not None else None), (reps or None)


class Gauge:
    """The speed of this process at one moment: ns per call of `fn` (no arguments), the fastest
    of REPEATS repeats of about half a millisecond each, so that a single interruption does not
    count, while a CPU that runs slowly for a while does."""
    REPEATS = 5

    def __init__(self, fn, name):
        self.name = name
        self.timer = timeit.Timer("f()", setup="f = _f", timer=time.perf_counter, globals={"_f": fn})
        self.n = 64
        while self.timer.timeit(self.n) < 0.0005 and self.n < 1 << 22:
            self.n *= 2

    def __call__(self):
        return round(min(self.timer.timeit(self.n) for _ in range(self.REPEATS)) / self.n * 1e9, 2)

    def once(self):
        """One repeat: ns per call over about half a millisecond."""
        return self.timer.timeit(self.n) / self.n * 1e9


def fallback_gauge():
    """The gauge without benchmarks/floor.pyx: a builtin method call."""
    return Gauge((1).bit_length, "(1).bit_length()")


def floor_gauge(floor_dir):
    """(the floor module or None, the gauge): floor.tuple_gil where floor.pyx was built."""
    if floor_dir:
        sys.path.insert(0, floor_dir)
        try:
            import floor
        except ImportError as e:
            emit({"case": "floor_tuple_nogil", "error": f"ImportError: {e}"})
        else:
            return floor, Gauge(floor.tuple_gil, "floor_tuple_gil")
    return None, fallback_gauge()


ONLY = None     # --only: a regular expression; the cases whose names it does not match are skipped
PROBE = None    # drvprobe_mark of benchmarks/drvprobe.c, where that driver is the one loaded
GAUGE = None    # a Gauge, timed before each case
TWIN = None     # --twin: floor.twin_ns, the C form of a real-driver case, timed between its repeats
FASTEST = None  # the fastest gauge this process has timed
RETIME_OVER = 1.2   # a case whose gauge within is above this x FASTEST is timed again ...
RETIMES = 2         # ... this many times at most, after the first


def wanted(name):
    return ONLY is None or ONLY.search(name) is not None


def run_case(name, stmt, names, queued=False, after=None, status=True, twin=None):
    """Times one case; `status`: the call returns a status first (a tuple-style call), checked
    once to be 0 (not for a call whose tuple is its value, such as nvfatbin.version); `twin`:
    (the C twin's case, its arguments a, b, c, the stream to synchronize), timed after each
    repeat of the case where --twin is given (its "c_in", measure())."""
    if not wanted(name):
        return
    try:
        res = eval(stmt, {}, dict(names))
        st = status_of(res) if status else None
        if st is not None and st != 0:
            raise RuntimeError(f"status {res[0]!r}")
        gauge = GAUGE() if GAUGE is not None else None
        if PROBE is not None:
            PROBE(name.encode())
        ns, iters, repeats, within, c_in, reps, retimed = timed(stmt, names, queued, after, gauge,
                                                                twin if TWIN is not None else None)
        if PROBE is not None:
            PROBE(b"")
    except Exception as e:  # reported, and the other cases still run
        if after is not None:
            try:
                after()
            except Exception:
                pass
        emit({"case": name, "error": f"{type(e).__name__}: {e}"})
        return
    row = {"case": name, "ns": round(ns, 2), "iters": iters, "repeats": repeats}
    if gauge is not None:
        row["gauge"] = gauge
    if within is not None:
        row["gauge_in"] = round(within, 2)
        row["retimed"] = retimed
    if c_in is not None:
        row["c_in"] = round(c_in, 2)
        row["reps"] = reps
    emit(row)


def timed(stmt, names, queued, after, gauge, twin=None):
    """measure(), and again (RETIMES times at most) while the gauge within the case is above
    RETIME_OVER x the fastest gauge of this process (`gauge`, the one timed before the case,
    counts): the CPU's speed changes in steps of about 2x within a process, and a case timed in
    the slow state is timed again rather than kept.  The attempt whose gauge within was the
    fastest is kept: (ns, iters, repeats, gauge within, the C twin's ns, the repeats with their
    twins, attempts after the first).  Not under the driver probe, whose segments count the calls of one attempt."""
    global FASTEST
    best, attempt = None, 0
    for attempt in range(1 + (RETIMES if PROBE is None else 0)):
        got = measure(stmt, names, queued, after, twin)
        within = got[3]
        if within is None:
            return got + (0,)
        FASTEST = min(x for x in (FASTEST, gauge, within) if x is not None)
        if best is None or within < best[3]:
            best = got
        if within <= RETIME_OVER * FASTEST:
            break
    return best + (attempt,)


def gauge_end():
    """The gauge once more after the last case: the process's last moment counts too."""
    if GAUGE is not None:
        emit({"gauge_end": GAUGE(), "gauge_name": GAUGE.name})


NVML_NVFATBIN_CASES = ("nvml.device_get_count_v2", "nvml.device_get_memory_info_v2", "nvml.device_get_utilization_rates",
                       "nvml.device_get_temperature_v", "pynvml.nvmlDeviceGetCount", "pynvml.nvmlDeviceGetMemoryInfo",
                       "pynvml.nvmlDeviceGetUtilizationRates", "nvfatbin.version",
                       "nvfatbin.create+add_cubin+get+destroy")


def loaded(name):
    """The path of the library whose file name starts with `name` that this process has mapped."""
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.split()[-1]
                if os.path.basename(path).startswith(name):
                    return path
    except OSError:
        pass
    return None


def nvml_and_nvfatbin_cases(cubin):
    """NVML (cuda.bindings.nvml, and nvidia-ml-py's pynvml where it is installed: the same library
    calls through ctypes) and nvFatbin, in the snake_case style both packages share.  The names
    of a release that lacks the versioned form fall back to the plain one."""
    if not any(wanted(n) for n in NVML_NVFATBIN_CASES):
        return
    try:
        from cuda.bindings import nvml
    except ImportError as e:
        emit({"case": "nvml.device_get_count_v2", "error": f"ImportError: {e}"})
    else:
        try:
            nvml.init_v2()
            h = nvml.device_get_handle_by_index_v2(0)
        except Exception as e:
            emit({"case": "nvml.device_get_count_v2", "error": f"{type(e).__name__}: {e}"})
        else:
            emit({"nvml_library": loaded("libnvidia-ml.so")})
            mem = getattr(nvml, "device_get_memory_info_v2", None) or nvml.device_get_memory_info
            run_case("nvml.device_get_count_v2", "f()", {"f": nvml.device_get_count_v2})
            run_case("nvml.device_get_memory_info_v2", "f(h)", {"f": mem, "h": h})
            run_case("nvml.device_get_utilization_rates", "f(h)", {"f": nvml.device_get_utilization_rates, "h": h})
            run_case("nvml.device_get_temperature_v", "f(h, 0)", {"f": nvml.device_get_temperature_v, "h": h})
    try:
        import pynvml
    except ImportError as e:
        emit({"case": "pynvml.nvmlDeviceGetMemoryInfo", "error": f"ImportError: {e}"})
    else:
        pynvml.nvmlInit()
        ph = pynvml.nvmlDeviceGetHandleByIndex(0)
        run_case("pynvml.nvmlDeviceGetCount", "f()", {"f": pynvml.nvmlDeviceGetCount})
        # the same entry point as ours (nvmlDeviceGetMemoryInfo_v2) where this nvidia-ml-py has it
        v2 = getattr(pynvml, "nvmlMemory_v2", None)
        if v2 is not None:
            run_case("pynvml.nvmlDeviceGetMemoryInfo", "f(h, version=v)",
                     {"f": pynvml.nvmlDeviceGetMemoryInfo, "h": ph, "v": v2})
        else:
            run_case("pynvml.nvmlDeviceGetMemoryInfo", "f(h)", {"f": pynvml.nvmlDeviceGetMemoryInfo, "h": ph})
        run_case("pynvml.nvmlDeviceGetUtilizationRates", "f(h)", {"f": pynvml.nvmlDeviceGetUtilizationRates, "h": ph})
    try:
        from cuda.bindings import nvfatbin
    except ImportError as e:
        emit({"case": "nvfatbin.version", "error": f"ImportError: {e}"})
        return
    run_case("nvfatbin.version", "f()", {"f": nvfatbin.version}, status=False)

    def build():
        h = nvfatbin.create([], 0)
        nvfatbin.add_cubin(h, cubin, len(cubin), "90", "k")
        out = bytearray(nvfatbin.size(h))
        nvfatbin.get(h, out)
        nvfatbin.destroy(h)
        return out
    run_case("nvfatbin.create+add_cubin+get+destroy", "f()", {"f": build})


def where_check(args):
    import cuda.bindings

    f = os.path.realpath(cuda.bindings.__file__)
    meta = {"label": args.label, "file": cuda.bindings.__file__,
            "version": getattr(cuda.bindings, "__version__", None), "python": sys.version.split()[0]}
    if args.expect_under:
        d = os.path.realpath(args.expect_under) + os.sep
        if not f.startswith(d):
            meta["fatal"] = f"cuda.bindings came from {f}, not from under {d}"
    if args.expect_not_under:
        d = os.path.realpath(args.expect_not_under) + os.sep
        if f.startswith(d):
            meta["fatal"] = f"cuda.bindings came from {f}, which is under {d}"
    return meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="impl")
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--expect-under")
    ap.add_argument("--expect-not-under")
    ap.add_argument("--floor-dir")
    ap.add_argument("--only", help="a regular expression: run only the cases whose names it matches")
    ap.add_argument("--twin", action="store_true",
                    help="time each real-driver case's C form in this process after it (floor.twin_ns)")
    args = ap.parse_args()
    global ONLY, PROBE, GAUGE, TWIN
    if args.only:
        import re
        ONLY = re.compile(args.only)
    if os.environ.get("DRVPROBE_OUT"):      # running on benchmarks/drvprobe.c: mark each case
        PROBE = ctypes.CDLL("libcuda.so.1").drvprobe_mark
        PROBE.argtypes = [ctypes.c_char_p]
        PROBE.restype = None

    meta = where_check(args)
    if "fatal" in meta:
        emit({"meta": meta})
        sys.exit(3)

    from cuda.bindings import driver, nvrtc, runtime

    floor, GAUGE = floor_gauge(args.floor_dir)
    if args.twin and PROBE is None and floor is not None:
        TWIN = floor.twin_ns
    ok(driver.cuInit(0), "cuInit")
    dev = ok(driver.cuDeviceGet(0), "cuDeviceGet")
    ctx = ok(driver.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    ok(driver.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    meta["device"] = bytes(ok(driver.cuDeviceGetName(128, dev), "cuDeviceGetName")).split(b"\0")[0].decode()
    emit({"meta": meta})

    with open(args.cubin, "rb") as fh:
        image = fh.read()
    mod = ok(driver.cuModuleLoadData(image), "cuModuleLoadData")
    kern = {n: ok(driver.cuModuleGetFunction(mod, f"k{n}".encode()), f"cuModuleGetFunction k{n}")
            for n in LAUNCH_ARGS}
    stream = ok(driver.cuStreamCreate(0), "cuStreamCreate")
    buf = ok(driver.cuMemAlloc(1 << 20), "cuMemAlloc")
    ev_done = ok(driver.cuEventCreate(0), "cuEventCreate")
    ev_rec = ok(driver.cuEventCreate(0), "cuEventCreate")
    ok(driver.cuEventRecord(ev_done, stream), "cuEventRecord")
    ok(driver.cuStreamSynchronize(stream), "cuStreamSynchronize")
    host = np.zeros(1, dtype=np.float32)   # pageable, like the C twin's float
    host_addr = host.ctypes.data           # an int, computed once

    def sync():
        ok(driver.cuStreamSynchronize(stream), "cuStreamSynchronize")

    D = driver
    # cuda.bindings.checked (ours only): the same call returning its outputs, raising on failure,
    # timed right after the tuple-style case (the driver's state then is the same); report.py
    # sets "checked:<case>" beside "<case>"
    try:
        from cuda.bindings.checked import driver as CD
    except ImportError:
        CD = None

    def with_checked(name, stmt, names, checked_stmt=None, twin=None, **kw):
        run_case(name, stmt, names, twin=twin, **kw)
        if CD is not None:
            run_case("checked:" + name, checked_stmt or stmt,
                     {k: getattr(CD, v.__name__) if getattr(v, "__module__", None) == D.__name__ and callable(v)
                      and not isinstance(v, type) else v for k, v in names.items()}, **kw)

    with_checked("cuCtxGetCurrent", "f()", {"f": D.cuCtxGetCurrent})
    with_checked("cuDeviceGetAttribute", "f(a, d)",
                 {"f": D.cuDeviceGetAttribute, "d": dev,
                  "a": D.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT})
    with_checked("cuGetErrorString", "f(e)",
                 {"f": D.cuGetErrorString, "e": D.CUresult.CUDA_ERROR_INVALID_VALUE})
    # the C twin of a case (floor.twin_ns): its case, the handles and addresses it takes as ints
    # (the same objects the binding is given), the stream synchronized after a queued repeat
    s_, e_done, e_rec, b_ = int(stream), int(ev_done), int(ev_rec), int(buf)

    def tw(case, a=0, b=0, c=0):
        return (case, a, b, c, s_)

    with_checked("cuEventQuery", "f(e)", {"f": D.cuEventQuery, "e": ev_done}, twin=tw("cuEventQuery", e_done))
    with_checked("cuStreamQuery", "f(s)", {"f": D.cuStreamQuery, "s": stream}, twin=tw("cuStreamQuery", s_))
    run_case("cuEventRecord", "f(e, s)", {"f": D.cuEventRecord, "e": ev_rec, "s": stream},
             queued=True, after=sync, twin=tw("cuEventRecord", e_rec, s_))
    run_case("cuStreamSynchronize", "f(s)", {"f": D.cuStreamSynchronize, "s": stream},
             twin=tw("cuStreamSynchronize", s_))
    run_case("cuEventCreate+cuEventDestroy", "g(f(0)[1])",
             {"f": D.cuEventCreate, "g": D.cuEventDestroy}, twin=tw("cuEventCreate+cuEventDestroy"))
    run_case("cuStreamCreate+cuStreamDestroy", "g(f(0)[1])",
             {"f": D.cuStreamCreate, "g": D.cuStreamDestroy}, twin=tw("cuStreamCreate+cuStreamDestroy"))
    with_checked("cuMemAlloc+cuMemFree_4KiB", "g(f(4096)[1])",
                 {"f": D.cuMemAlloc, "g": D.cuMemFree}, checked_stmt="g(f(4096))",
                 twin=tw("cuMemAlloc+cuMemFree_4KiB"))
    run_case("cuMemcpyHtoD_4B", "f(d, h, 4)", {"f": D.cuMemcpyHtoD, "d": buf, "h": host_addr},
             twin=tw("cuMemcpyHtoD_4B", b_, host_addr))
    run_case("cuMemcpyHtoDAsync_4B", "f(d, h, 4, s)",
             {"f": D.cuMemcpyHtoDAsync, "d": buf, "h": host_addr, "s": stream},
             queued=True, after=sync, twin=tw("cuMemcpyHtoDAsync_4B", b_, host_addr, s_))
    run_case("cuPointerGetAttribute", "f(a, d)",
             {"f": D.cuPointerGetAttribute, "d": buf,
              "a": D.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE}, twin=tw("cuPointerGetAttribute", b_))

    # cuLaunchKernel: for each kernel, the arguments in three forms --
    #   array: a numpy uint64 array of the arguments' addresses (a void*[]), built once;
    #   int:   that array's address (arr.ctypes.data), computed once;
    #   tuple: (values, types), packed by the binding at each call (None = a cuda.bindings object).
    # The pre-packed values lie in one block right after the void*[], 8 bytes each, as the C
    # twin's lie together on its stack and as the binding packs (values, types): with each value
    # a numpy array of its own, the values lay wherever each process's heap had room (for 8
    # arguments 1 page in one process, 18 in the next: benchmarks/drvprobe.c), and the driver,
    # which reads every value at each launch, took longer in the process whose values were spread
    # out.  One case keeps that layout (8 arguments, "scattered") to show it.
    base = int(buf)
    keep = []

    def table(values):
        n = max(len(values), 1)
        block = np.zeros(2 * n, dtype=np.uint64)      # the void*[], then one 8-byte slot per value
        slots = block[n:]
        for i, (v, dt) in enumerate(values):
            slots[i:i + 1].view(np.uint8)[:np.dtype(dt).itemsize] = np.array([v], dtype=dt).view(np.uint8)
        block[:len(values)] = [slots[i:].ctypes.data for i in range(len(values))]
        keep.append(block)
        return block[:n]

    def scattered(values):
        arrs = [np.array([v], dtype=dt) for v, dt in values]
        keep.extend(arrs)
        t = np.array([a.ctypes.data for a in arrs] or [0], dtype=np.uint64)
        keep.append(t)
        return t

    c = ctypes
    forms = {}
    forms[0] = (table([]), ((), ()))
    forms[4] = (table([(2.0, np.float32), (base, np.uint64), (base + 4, np.uint64), (7, np.uint64)]),
                ((2.0, buf, base + 4, 7), (c.c_float, None, c.c_void_p, c.c_ulonglong)))
    eight = [(2.0, np.float32), (base, np.uint64), (base + 4, np.uint64), (base + 8, np.uint64),
             (base + 12, np.uint64), (3, np.int32), (4, np.int32), (7, np.uint64)]
    forms[8] = (table(eight),
                ((2.0, buf, base + 4, D.CUdeviceptr(base + 8), base + 12, 3, 4, 7),
                 (c.c_float, None, c.c_void_p, None, c.c_void_p, c.c_int, c.c_int, c.c_ulonglong)))
    for nargs in (16, 256):
        pairs = (nargs - 2) // 2
        packed = [(7, np.uint64)]
        vals, types = [7], [c.c_ulonglong]
        for i in range(pairs):
            packed += [(base + 4 * i, np.uint64), (i, np.int32)]
            if i % 2 == 0:   # pointers alternate: a CUdeviceptr (type None) and an int (c_void_p)
                vals.append(D.CUdeviceptr(base + 4 * i)); types.append(None)
            else:
                vals.append(base + 4 * i); types.append(c.c_void_p)
            vals.append(i); types.append(c.c_int)
        packed.append((0, np.int32))
        vals.append(0); types.append(c.c_int)
        assert len(packed) == len(vals) == nargs
        forms[nargs] = (table(packed), (tuple(vals), tuple(types)))

    spread = scattered(eight)
    launch = "f(k, 1, 1, 1, 32, 1, 1, 0, s, p, 0)"
    # each form's C twin launches with the pre-packed void*[] of the same values (the C form of
    # every one); the scattered case's with its own scattered values
    run_case("cuLaunchKernel_0args_null", launch,
             {"f": D.cuLaunchKernel, "k": kern[0], "s": stream, "p": 0}, queued=True, after=sync,
             twin=tw("cuLaunchKernel", int(kern[0]), s_, 0))
    for nargs in LAUNCH_ARGS:
        arr, vt = forms[nargs]
        for form, p in (("array", arr), ("int", arr.ctypes.data), ("tuple", vt)):
            timed = with_checked if (nargs, form) == (4, "int") else run_case
            timed(f"cuLaunchKernel_{nargs}args_{form}", launch,
                  {"f": D.cuLaunchKernel, "k": kern[nargs], "s": stream, "p": p},
                  queued=True, after=sync, twin=tw("cuLaunchKernel", int(kern[nargs]), s_, arr.ctypes.data))
        if nargs == 8:
            run_case("cuLaunchKernel_8args_scattered", launch,
                     {"f": D.cuLaunchKernel, "k": kern[8], "s": stream, "p": spread}, queued=True, after=sync,
                     twin=tw("cuLaunchKernel", int(kern[8]), s_, spread.ctypes.data))

    run_case("nvrtcVersion", "f()", {"f": nvrtc.nvrtcVersion})
    nvml_and_nvfatbin_cases(image)
    run_case("cudaGetErrorString", "f(e)",
             {"f": runtime.cudaGetErrorString, "e": runtime.cudaError_t.cudaErrorInvalidValue})

    if floor is not None:
        run_case("floor_tuple_nogil", "f()", {"f": floor.tuple_nogil})
        run_case("floor_tuple_gil", "f()", {"f": floor.tuple_gil})
        run_case("floor_noop", "f()", {"f": floor.noop})
        run_case("floor_value_nogil", "f(h)", {"f": floor.value_nogil, "h": 0x7f0000001000}, status=False)
        run_case("floor_struct_nogil", "f(h)", {"f": floor.struct_nogil, "h": 0x7f0000001000}, status=False)
        run_case("floor_handle_gil", "f()", {"f": floor.handle_gil})
        run_case("floor_enum_int_gil", "f(a, d)", {"f": floor.enum_int_gil, "d": int(dev),
                 "a": D.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT})
        run_case("floor_enum_str_gil", "f(e)", {"f": floor.enum_str_gil, "e": D.CUresult.CUDA_ERROR_INVALID_VALUE})
    gauge_end()

    sync()
    for e in (ev_done, ev_rec):
        driver.cuEventDestroy(e)
    driver.cuMemFree(buf)
    driver.cuStreamDestroy(stream)
    driver.cuModuleUnload(mod)
    driver.cuDevicePrimaryCtxRelease(dev)


if __name__ == "__main__":
    main()
