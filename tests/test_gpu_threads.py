"""Sixteen threads on one GPU: each with its own stream copies, launches, records and queries
events for a fixed time and checks every result, while another thread makes blocking calls
(cuStreamSynchronize on a kernel that spins for tens of milliseconds) and a pure-Python thread
counts.  No failure and no deadlock; the counter keeps going while the blocking calls wait (they
release the GIL); and the calls that keep the GIL (overrides.KEEP_GIL) never take long, under
that load."""
import ctypes
import sys
import threading
import time

import numpy as np
import pytest

from _support import ok

from cuda.bindings import driver as D
from cuda.bindings import nvrtc

pytestmark = pytest.mark.gpu

THREADS = 16
SECONDS = 3.0
N = 4096
SOURCE = rb'''
extern "C" __global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}
'''


@pytest.fixture
def gpu(cu, nvrtc_compile):
    """(context, the scale kernel, the spin kernel, the clock rate in kHz)."""
    mod = ok(D.cuModuleLoadData(nvrtc_compile(SOURCE, cu.arch, fmt="cubin", name=b"threads.cu")))
    clock_khz = ok(D.cuDeviceGetAttribute(D.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CLOCK_RATE, cu.dev))
    yield cu.ctx, ok(D.cuModuleGetFunction(mod, b"scale")), ok(D.cuModuleGetFunction(mod, b"spin")), clock_khz
    ok(D.cuModuleUnload(mod))


def test_sixteen_threads_with_blocking_calls_beside_them(gpu):
    ctx, scale, spin, clock_khz = gpu
    stop = threading.Event()
    iterations, failures, blocked, keep_gil_times = [0] * THREADS, [], [0.0, 0, 0], []
    counter = [0]

    def worker(k):
        try:
            ok(D.cuCtxSetCurrent(ctx))
            stream = ok(D.cuStreamCreate(D.CUstream_flags.CU_STREAM_NON_BLOCKING))
            event = ok(D.cuEventCreate(0))
            dptr = ok(D.cuMemAlloc(N * 4))
            host = np.empty(N, np.float32)
            rng = np.random.default_rng(k)
            while not stop.is_set():
                data = rng.random(N, dtype=np.float32)
                ok(D.cuMemcpyHtoDAsync(dptr, data, N * 4, stream))
                ok(D.cuLaunchKernel(scale, (N + 255) // 256, 1, 1, 256, 1, 1, 0, stream,
                                    ((dptr, 2.0, N), (None, ctypes.c_float, ctypes.c_int)), 0))
                ok(D.cuMemcpyDtoHAsync(host, dptr, N * 4, stream))
                ok(D.cuEventRecord(event, stream))
                while True:
                    st = D.cuEventQuery(event)[0]
                    if st == D.CUresult.CUDA_SUCCESS:
                        break
                    if st != D.CUresult.CUDA_ERROR_NOT_READY:
                        raise RuntimeError(f"cuEventQuery: {st!r}")
                if not np.array_equal(host, data * 2):
                    failures.append(f"thread {k}: wrong result")
                iterations[k] += 1
            ok(D.cuMemFree(dptr))
            ok(D.cuEventDestroy(event))
            ok(D.cuStreamDestroy(stream))
        except Exception as e:      # reported by the test
            failures.append(f"thread {k}: {type(e).__name__}: {e}")

    def blocker():
        try:
            ok(D.cuCtxSetCurrent(ctx))
            stream = ok(D.cuStreamCreate(D.CUstream_flags.CU_STREAM_NON_BLOCKING))
            cycles = clock_khz * 30         # about 30 ms of spinning
            while not stop.is_set():
                ok(D.cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream, ((cycles,), (ctypes.c_longlong,)), 0))
                c0, t0 = counter[0], time.perf_counter()
                ok(D.cuStreamSynchronize(stream))
                blocked[0] += time.perf_counter() - t0
                blocked[1] += 1
                blocked[2] += counter[0] - c0       # what the counter did while this call waited
            ok(D.cuStreamDestroy(stream))
        except Exception as e:
            failures.append(f"blocker: {type(e).__name__}: {e}")

    def keep_gil():
        ok(D.cuCtxSetCurrent(ctx))
        calls = [lambda: D.cuGetErrorString(D.CUresult.CUDA_ERROR_INVALID_VALUE),
                 lambda: D.cuGetErrorName(D.CUresult.CUDA_ERROR_INVALID_VALUE), D.cuDriverGetVersion,
                 D.cuCtxGetCurrent, D.cuCtxGetDevice, lambda: D.cuDeviceGet(0), D.cuDeviceGetCount,
                 nvrtc.nvrtcVersion]
        while not stop.is_set():
            for c in calls:
                t0 = time.perf_counter()
                c()
                keep_gil_times.append(time.perf_counter() - t0)
            time.sleep(0.001)

    def count():
        while not stop.is_set():
            counter[0] += 1

    threads = ([threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
               + [threading.Thread(target=f) for f in (blocker, keep_gil, count)])
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)   # threads take turns often: a GIL wait is short next to 30 ms
    try:
        for t in threads:
            t.start()
        time.sleep(SECONDS)
        stop.set()
        for t in threads:
            t.join(timeout=60)
    finally:
        sys.setswitchinterval(interval)
    alive = [t.name for t in threads if t.is_alive()]
    calls = sum(iterations) * 5
    kg = sorted(keep_gil_times) or [0.0]
    p99, worst = kg[int(len(kg) * 0.99)], kg[-1]
    print(f"threads: {THREADS} workers for {SECONDS} s: {sum(iterations)} rounds ({calls} calls, "
          f"{min(iterations)}..{max(iterations)} per thread), failures {len(failures)}; blocking calls "
          f"{blocked[1]} ({blocked[0]:.2f} s waited, the Python counter advanced {blocked[2]:,} meanwhile, "
          f"{counter[0]:,} in all); {len(kg)} GIL-keeping calls: 99th percentile {p99 * 1e3:.3f} ms, "
          f"slowest {worst * 1e3:.2f} ms")
    assert alive == [], f"threads still running after 60 s (deadlock?): {alive}"
    assert failures == []
    assert min(iterations) > 0, iterations          # every worker made progress
    assert blocked[1] > 10 and blocked[0] > 0.5 * SECONDS
    # the blocking calls waited most of the time, and the other threads kept running meanwhile
    assert sum(iterations) > 100 and counter[0] > 100_000
    # the GIL was free while they waited: the counter thread ran during the blocking calls
    assert blocked[2] > 1000 * blocked[1]
    # a call that keeps the GIL waits on no driver lock: never near the blocking calls' 30 ms (its
    # time includes waiting for the GIL when another thread's turn comes between two bytecodes)
    assert p99 < 0.005 and worst < 0.025
