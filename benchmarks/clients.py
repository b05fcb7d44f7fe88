"""What a client library pays for its cuda.bindings: two loops of the libraries built on it, in
one process, with whichever cuda.bindings is first on sys.path.

    python3 clients.py --label ours [--expect-under DIR | --expect-not-under DIR]

Cases (microseconds per iteration; the fastest of 7 repeats, after a warm-up that compiles):
  numba_roundtrip_4KiB  numba-cuda: `cuda.to_device` of 4 KiB (1024 float32), one launch of a
                        small @cuda.jit kernel, `copy_to_host` (synchronous: each iteration
                        waits for the GPU);
  core_launch_4args     cuda.core: `launch(stream, config, kernel, np.float32, buf, buf, np.int32)`
                        of a 4-parameter kernel, 500 per repeat; the stream is synchronized,
                        untimed, after each repeat, so the figure is the CPU cost of a launch.
Prints JSON lines: {"meta": {...}} first, then {"case": NAME, "us": US, "iters": N} or
{"case": NAME, "error": MESSAGE}.  benchmarks/measure.py runs it in alternating fresh processes.
numba-cuda 0.30.4 calls numpy.row_stack, gone from numpy >= 2.4: aliased to numpy.vstack here.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

REPEATS = 7
SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''


def emit(obj):
    print(json.dumps(obj), flush=True)


def best_us(fn, iters, after=None):
    best = None
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn(iters)
        dt = time.perf_counter() - t0
        if after:
            after()
        best = dt if best is None or dt < best else best
    return best / iters * 1e6


def numba_roundtrip():
    from numba import cuda

    @cuda.jit
    def scale(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * 2.0

    host = np.arange(1024, dtype=np.float32)

    def loop(n):
        for _ in range(n):
            d = cuda.to_device(host)
            scale[4, 256](d)
            out = d.copy_to_host()
        return out

    out = loop(3)                                # compiles and warms up
    assert np.array_equal(out, host * 2), "numba kernel result"
    return best_us(loop, 200), 200


def core_launch():
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
    dev = Device(0)
    dev.set_current()
    s = dev.create_stream()
    kern = Program(SAXPY, "c++", ProgramOptions(arch=f"sm_{dev.arch}")).compile("cubin").get_kernel("saxpy")
    n = 1024
    x, y = dev.allocate(4 * n, stream=s), dev.allocate(4 * n, stream=s)
    cfg = LaunchConfig(grid=n // 256, block=256)
    a, nn = np.float32(2.0), np.int32(n)

    def loop(k):
        for _ in range(k):
            launch(s, cfg, kern, a, x, y, nn)

    loop(10)
    s.sync()
    return best_us(loop, 500, after=s.sync), 500


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--expect-under")
    ap.add_argument("--expect-not-under")
    a = ap.parse_args()
    import cuda.bindings
    where = os.path.realpath(cuda.bindings.__file__)
    meta = {"label": a.label, "file": cuda.bindings.__file__, "version": cuda.bindings.__version__}
    if a.expect_under and not where.startswith(os.path.realpath(a.expect_under)):
        meta["fatal"] = f"cuda.bindings is {where}, not under {a.expect_under}"
    if a.expect_not_under and where.startswith(os.path.realpath(a.expect_not_under)):
        meta["fatal"] = f"cuda.bindings is {where}, under {a.expect_not_under}"
    emit({"meta": meta})
    if "fatal" in meta:
        return 2
    for name, fn in (("core_launch_4args", core_launch), ("numba_roundtrip_4KiB", numba_roundtrip)):
        try:
            us, iters = fn()
        except Exception as e:
            emit({"case": name, "error": f"{type(e).__name__}: {e}"[:500]})
        else:
            emit({"case": name, "us": round(us, 3), "iters": iters})
    return 0


if __name__ == "__main__":
    sys.exit(main())
