"""Per-call overhead of the second API, `cuda.bindings._v2`, in one process, with whichever
cuda.bindings is first on sys.path (NVIDIA's has it from 13.4; ours from its 13.5 build).

    python3 calls_v2.py --label ours [--expect-under DIR] [--floor-dir DIR] [--only REGEX]

Meant for the no-op driver (benchmarks/stub_driver.c, through LD_LIBRARY_PATH): the figures are
the binding's own cost.  Prints JSON lines as benchmarks/calls.py does ({"meta": ...}, one row
per case with its gauge, {"gauge_end": ...}) and is timed the same way (calls.measure).  Every
case names the Cython floor of its shape (FLOOR_OF, benchmarks/floor.pyx), timed in the same
process where --floor-dir is given.

The `_v2` functions return their outputs and raise on a failed status: handles and device
pointers are ints, enums FastEnum members.
"""
import argparse
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calls  # noqa: E402  (the timing, the gauge and the JSON lines of calls.py)

LAUNCH = "f(k, 1, 1, 1, 32, 1, 1, 0, s, p, 0)"
# each case -> the floor of its shape (benchmarks/floor.pyx; report.FLOORS says what each is)
FLOOR_OF = {
    "v2.ctx_get_current": "floor_ptr_gil",
    "v2.device_get_attribute": "floor_enum_int_value_gil",
    "v2.event_query": "floor_int_in_nogil",
    "v2.launch_kernel_8args_array": "floor_launch_nogil",
    "v2.launch_kernel_8args_int": "floor_launch_nogil",
    "v2.launch_kernel_8args_tuple": "floor_launch_nogil",
    "v2.nvrtc_version": "floor_two_ints_gil",
}


def eight_args(base):
    """The 8 kernel arguments of calls.py's 8-argument launch, pre-packed (a uint64 array: the
    void*[] and then one 8-byte slot per value, in one block) and as (values, types)."""
    vals = [(2.0, np.float32), (base, np.uint64), (base + 4, np.uint64), (base + 8, np.uint64),
            (base + 12, np.uint64), (3, np.int32), (4, np.int32), (7, np.uint64)]
    block = np.zeros(16, dtype=np.uint64)
    slots = block[8:]
    for i, (v, dt) in enumerate(vals):
        slots[i:i + 1].view(np.uint8)[:np.dtype(dt).itemsize] = np.array([v], dtype=dt).view(np.uint8)
    block[:8] = [slots[i:].ctypes.data for i in range(8)]
    c = ctypes
    tuple_form = (tuple(v for v, _ in vals),
                  (c.c_float, c.c_void_p, c.c_void_p, c.c_void_p, c.c_void_p, c.c_int, c.c_int, c.c_ulonglong))
    return block, tuple_form


def setup(D):
    """The driver state the cases need: (device, event, stream, function, device buffer)."""
    D.init(0)
    dev = D.device_get(0)
    D.ctx_set_current(D.device_primary_ctx_retain(dev))
    ev = D.event_create(0)
    stream = D.stream_create(0)
    mod = D.module_load_data(bytes(64))      # the no-op driver reads none of it
    return dev, ev, stream, D.module_get_function(mod, b"k8"), D.mem_alloc_v2(1 << 20)


def cases(D, N, state):
    dev, ev, stream, kern, buf = state
    block, tuple_form = eight_args(buf)

    def sync():
        D.stream_synchronize(stream)

    run = calls.run_case
    run("v2.ctx_get_current", "f()", {"f": D.ctx_get_current}, status=False)
    run("v2.device_get_attribute", "f(a, d)",
        {"f": D.device_get_attribute, "a": D.DeviceAttribute.MULTIPROCESSOR_COUNT, "d": dev}, status=False)
    run("v2.event_query", "f(e)", {"f": D.event_query, "e": ev}, status=False)
    for form, p in (("array", block[:8]), ("int", block.ctypes.data), ("tuple", tuple_form)):
        run(f"v2.launch_kernel_8args_{form}", LAUNCH, {"f": D.launch_kernel, "k": kern, "s": stream, "p": p},
            queued=True, after=sync, status=False)
    run("v2.nvrtc_version", "f()", {"f": N.version}, status=False)
    return block


def floors(floor, block, D, dev):
    """The floors of FLOOR_OF, given what the cases are given (the same enum member, device,
    kernelParams array)."""
    run = calls.run_case
    run("floor_ptr_gil", "f()", {"f": floor.ptr_gil}, status=False)
    run("floor_enum_int_value_gil", "f(a, d)",
        {"f": floor.enum_int_value_gil, "a": D.DeviceAttribute.MULTIPROCESSOR_COUNT, "d": dev}, status=False)
    run("floor_int_in_nogil", "f(e)", {"f": floor.int_in_nogil, "e": 0x1000}, status=False)
    run("floor_launch_nogil", LAUNCH, {"f": floor.launch_nogil, "k": 0x1000, "s": 0x1000, "p": block[:8]},
        status=False)
    run("floor_two_ints_gil", "f()", {"f": floor.two_ints_gil}, status=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="impl")
    ap.add_argument("--expect-under")
    ap.add_argument("--expect-not-under")
    ap.add_argument("--floor-dir")
    ap.add_argument("--only", help="a regular expression: run only the cases whose names it matches")
    args = ap.parse_args()
    if args.only:
        import re
        calls.ONLY = re.compile(args.only)
    meta = calls.where_check(args)
    try:
        from cuda.bindings._v2 import driver as D, nvrtc as N
    except ImportError as e:
        meta.setdefault("fatal", f"no cuda.bindings._v2: {e}")
    if "fatal" in meta:
        calls.emit({"meta": meta})
        sys.exit(3)
    floor, calls.GAUGE = calls.floor_gauge(args.floor_dir)
    state = setup(D)
    meta["device"] = D.device_get_name(128, state[0]).split(b"\0")[0].decode()
    meta["gauge"] = calls.GAUGE.name
    calls.emit({"meta": meta})
    block = cases(D, N, state)
    if floor is not None:
        floors(floor, block, D, state[0])
    calls.gauge_end()


if __name__ == "__main__":
    main()
