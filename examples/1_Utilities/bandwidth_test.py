"""Memory copy bandwidth, port of the CUDA sample bandwidthTest (its quick mode: one 32 MiB
transfer size, each copy repeated 100 times between two CUDA events).

Host to device and device to host are measured with pageable host memory (a numpy array; the copy
is staged by the driver, so cudaMemcpy is used) and with pinned host memory (cudaHostAlloc; copies
are cudaMemcpyAsync on the default stream); device to device with cudaMemcpy between two
allocations, counting each byte read and written as the sample does. Every measured copy is checked
for the right data, and every bandwidth must be a positive, finite number.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common.toolkit import host_array, rt_check, runtime_device_count  # noqa: E402
from cuda.bindings import runtime  # noqa: E402

MEMCOPY_ITERATIONS = 100
TRANSFER_SIZE = 32 << 20  # bytes

H2D = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost
D2D = runtime.cudaMemcpyKind.cudaMemcpyDeviceToDevice


class Timer:
    """Times the work put on the default stream between start() and stop() with CUDA events."""

    def __init__(self):
        self.start_event = rt_check(runtime.cudaEventCreate())
        self.stop_event = rt_check(runtime.cudaEventCreate())

    def start(self):
        rt_check(runtime.cudaEventRecord(self.start_event, 0))

    def stop(self):
        """Returns the elapsed time in seconds."""
        rt_check(runtime.cudaEventRecord(self.stop_event, 0))
        rt_check(runtime.cudaEventSynchronize(self.stop_event))
        return rt_check(runtime.cudaEventElapsedTime(self.start_event, self.stop_event)) / 1e3

    def destroy(self):
        rt_check(runtime.cudaEventDestroy(self.start_event))
        rt_check(runtime.cudaEventDestroy(self.stop_event))


def copies(timer, dst, src, size, kind, pinned):
    """MEMCOPY_ITERATIONS copies of `size` bytes; returns the seconds they took."""
    timer.start()
    for _ in range(MEMCOPY_ITERATIONS):
        if pinned:
            rt_check(runtime.cudaMemcpyAsync(dst, src, size, kind, 0))
        else:
            rt_check(runtime.cudaMemcpy(dst, src, size, kind))
    return timer.stop()


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9 if seconds > 0 else float("nan")


def test_host_device(timer, pinned, size, pattern, d_buf):
    """Host to device, then device to host; returns ((h2d GB/s, ok), (d2h GB/s, ok))."""
    h_ptr = h_dst_ptr = None
    if pinned:
        h_ptr = rt_check(runtime.cudaHostAlloc(size, runtime.cudaHostAllocDefault))
        h_src = host_array(h_ptr, size, np.uint8)
        h_dst_ptr = rt_check(runtime.cudaHostAlloc(size, runtime.cudaHostAllocDefault))
        h_dst = host_array(h_dst_ptr, size, np.uint8)
        src, dst = h_ptr, h_dst_ptr
    else:
        h_src = np.empty(size, dtype=np.uint8)
        h_dst = np.empty(size, dtype=np.uint8)
        src, dst = h_src, h_dst
    h_src[:] = pattern

    rt_check(runtime.cudaMemset(d_buf, 0, size))
    rt_check(runtime.cudaDeviceSynchronize())
    secs = copies(timer, d_buf, src, size, H2D, pinned)
    h2d = gbps(size * MEMCOPY_ITERATIONS, secs)
    check_back = np.empty(size, dtype=np.uint8)
    rt_check(runtime.cudaMemcpy(check_back, d_buf, size, D2H))
    h2d_ok = bool(np.array_equal(check_back, pattern))

    h_dst[:] = 0
    secs = copies(timer, dst, d_buf, size, D2H, pinned)
    d2h = gbps(size * MEMCOPY_ITERATIONS, secs)
    d2h_ok = bool(np.array_equal(h_dst, pattern))

    del h_src, h_dst
    if pinned:
        rt_check(runtime.cudaFreeHost(h_ptr))
        rt_check(runtime.cudaFreeHost(h_dst_ptr))
    return (h2d, h2d_ok), (d2h, d2h_ok)


def test_device_device(timer, size, pattern, d_src):
    d_dst = rt_check(runtime.cudaMalloc(size))
    rt_check(runtime.cudaMemcpy(d_src, pattern, size, H2D))
    rt_check(runtime.cudaMemset(d_dst, 0, size))
    rt_check(runtime.cudaDeviceSynchronize())
    secs = copies(timer, d_dst, d_src, size, D2D, pinned=False)
    # each byte is read once and written once
    bw = gbps(2 * size * MEMCOPY_ITERATIONS, secs)
    out = np.empty(size, dtype=np.uint8)
    rt_check(runtime.cudaMemcpy(out, d_dst, size, D2H))
    rt_check(runtime.cudaFree(d_dst))
    return bw, bool(np.array_equal(out, pattern))


def main():
    runtime_device_count(1)
    dev = 0
    rt_check(runtime.cudaSetDevice(dev))
    prop = rt_check(runtime.cudaGetDeviceProperties(dev))
    name = prop.name.split(b"\0", 1)[0].decode()
    size = TRANSFER_SIZE
    print(f"bandwidthTest on device {dev}: {name}")
    print(f"quick mode: transfer size {size} bytes, {MEMCOPY_ITERATIONS} copies per measurement, "
          f"timed with CUDA events\n")

    pattern = np.random.default_rng(1).integers(0, 256, size, dtype=np.uint8)
    d_buf = rt_check(runtime.cudaMalloc(size))
    timer = Timer()

    results = []
    for pinned in (False, True):
        memory = "pinned" if pinned else "pageable"
        (h2d, h2d_ok), (d2h, d2h_ok) = test_host_device(timer, pinned, size, pattern, d_buf)
        results.append((f"Host to Device ({memory})", h2d, h2d_ok))
        results.append((f"Device to Host ({memory})", d2h, d2h_ok))
    bw, ok = test_device_device(timer, size, pattern, d_buf)
    results.append(("Device to Device", bw, ok))

    timer.destroy()
    rt_check(runtime.cudaFree(d_buf))

    good = True
    print(f"{'transfer':<28} {'bytes':>10} {'bandwidth (GB/s)':>17}  data")
    for label, bw, ok in results:
        sane = math.isfinite(bw) and bw > 0
        good = good and ok and sane
        print(f"{label:<28} {size:>10} {bw:>17.1f}  {'ok' if ok else 'WRONG DATA'}"
              f"{'' if sane else '  (bandwidth not a positive number)'}")
    print(f"\nResult = {'PASS' if good else 'FAIL'}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
