"""Tasks on managed memory, run by several host threads on their own streams, either on the host or
on the device, port of the CUDA sample UnifiedMemoryStreams through the driver API.

API area: managed (unified) memory: cuMemAllocManaged, cuStreamAttachMemAsync (attaching
allocations to the host or to one stream), cuMemAdvise (read-mostly, preferred location) and
cuMemPrefetchAsync (to the device before a task, back to the host after it), with one stream per
host thread. cuMemAdvise and cuMemPrefetchAsync take a CUmemLocation since CUDA 13 (a device
before it): the calls go through common/cu13.py, which gives every build their CUDA 13 form.

As in the sample: 40 tasks, each a matrix-vector product y = A x on a random square matrix of
64 to 999 rows; four host threads (Python threads here; the driver calls release the GIL) take
tasks in turn; a task under 100 rows runs on the host (its memory attached to the host first), a
larger one on the device on the thread's stream (the sample calls cuBLAS; here a kernel of this
port, one warp per row). Unlike the sample, every task's result is then checked against numpy.

Run: python examples/3_CUDA_Features/unified_memory_streams.py
Exit status: 0 when every task's result is right, 1 otherwise, 3 when no CUDA device with managed
memory is available.
"""
import ctypes
import os
import queue
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, device_arch, release_device, requirement_not_met, select_device  # noqa: E402
from common import cu13  # noqa: E402
from common.drv_helpers import device_name  # noqa: E402
from common.toolkit import host_array  # noqa: E402
from cuda.bindings import driver  # noqa: E402

GEMV_KERNEL = b"""
// y = alpha * A x + beta * y for a row-major n x n matrix: one warp per row
extern "C" __global__ void gemv(int n, double alpha, const double *A, const double *x, double beta, double *y)
{
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (row >= n)
        return;  // (the whole warp)
    double sum = 0.0;
    for (int j = lane; j < n; j += 32)
        sum += A[(size_t)row * n + j] * x[j];
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0)
        y[row] = alpha * sum + beta * y[row];
}
"""

NTHREADS = 4
NTASKS = 40
GEMV_THREADS = 256
ATTACH = driver.CUmemAttach_flags


class Task:
    """A matrix, a vector and a result in managed memory, filled on the host."""

    def __init__(self, size, task_id, rng):
        self.size, self.id = size, task_id
        self.d_data = check(driver.cuMemAllocManaged(8 * size * size, ATTACH.CU_MEM_ATTACH_GLOBAL))
        self.d_result = check(driver.cuMemAllocManaged(8 * size, ATTACH.CU_MEM_ATTACH_GLOBAL))
        self.d_vector = check(driver.cuMemAllocManaged(8 * size, ATTACH.CU_MEM_ATTACH_GLOBAL))
        check(driver.cuCtxSynchronize())
        self.data = host_array(int(self.d_data), size * size, np.float64).reshape(size, size)
        self.result = host_array(int(self.d_result), size, np.float64)
        self.vector = host_array(int(self.d_vector), size, np.float64)
        self.data[:] = rng.random((size, size))
        self.result[:] = 0.0
        self.vector[:] = rng.random(size)
        self.ran_on = ""

    def pointers(self):
        return ((self.d_data, 8 * self.size * self.size), (self.d_vector, 8 * self.size),
                (self.d_result, 8 * self.size))

    def free(self):
        del self.data, self.result, self.vector
        for ptr, _ in self.pointers():
            check(driver.cuMemFree(ptr))


def location(kind, ordinal=0):
    loc = driver.CUmemLocation()
    loc.type = kind
    loc.id = ordinal
    return loc


class Runner:
    """What each host thread needs: the context, streams (stream 0 is the host tasks' one), the
    kernel, and whether the device can prefetch managed memory."""

    def __init__(self, ctx, dev, streams, gemv, concurrent):
        self.ctx, self.streams, self.gemv, self.concurrent = ctx, streams, gemv, concurrent
        self.on_device = location(driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, int(dev))
        self.on_host = location(driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST)
        self.lock = threading.Lock()

    def say(self, text):
        with self.lock:
            print(text, flush=True)

    def execute(self, t, tid):
        """execute(): small tasks on the host, the others on the device on this thread's stream."""
        if t.size < 100:
            self.say(f"Task [{t.id}], thread [{tid}] executing on host ({t.size})")
            # attach the memory to the host, so that it may be used while the device is busy
            for ptr, _ in t.pointers():
                check(driver.cuStreamAttachMemAsync(self.streams[0], ptr, 0, ATTACH.CU_MEM_ATTACH_HOST))
            check(driver.cuStreamSynchronize(self.streams[0]))
            t.result[:] = t.data @ t.vector
            t.ran_on = "host"
            return
        self.say(f"Task [{t.id}], thread [{tid}] executing on device ({t.size})")
        stream = self.streams[tid + 1]
        for ptr, _ in t.pointers():
            check(driver.cuStreamAttachMemAsync(stream, ptr, 0, ATTACH.CU_MEM_ATTACH_SINGLE))
        if self.concurrent:
            advise = driver.CUmem_advise
            (d_data, data_bytes), (d_vector, vector_bytes), (d_result, result_bytes) = t.pointers()
            check(cu13.cuMemAdvise(d_data, data_bytes, advise.CU_MEM_ADVISE_SET_READ_MOSTLY, self.on_device))
            check(cu13.cuMemAdvise(d_vector, vector_bytes, advise.CU_MEM_ADVISE_SET_READ_MOSTLY, self.on_device))
            check(cu13.cuMemAdvise(d_result, result_bytes, advise.CU_MEM_ADVISE_SET_PREFERRED_LOCATION, self.on_device))
            for ptr, nbytes in t.pointers():
                check(cu13.cuMemPrefetchAsync(ptr, nbytes, self.on_device, 0, stream))
        blocks = -(-t.size * 32 // GEMV_THREADS)
        args = ((t.size, 1.0, t.d_data, t.d_vector, 0.0, t.d_result),
                (ctypes.c_int, ctypes.c_double, None, None, ctypes.c_double, None))
        check(driver.cuLaunchKernel(self.gemv, blocks, 1, 1, GEMV_THREADS, 1, 1, 0, stream, args, None))
        if self.concurrent:
            # the host reads the result at the end: have it there by then
            check(cu13.cuMemPrefetchAsync(t.d_result, 8 * t.size, self.on_host, 0, stream))
        t.ran_on = "device"

    def worker(self, tid, tasks):
        check(driver.cuCtxSetCurrent(self.ctx))
        while True:
            try:
                t = tasks.get_nowait()
            except queue.Empty:
                return
            self.execute(t, tid)


def main():
    dev, ctx = select_device(0)
    attr = driver.CUdevice_attribute
    if not check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, dev)):
        requirement_not_met("Unified Memory not supported on this device")
    compute_mode = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev))
    if compute_mode == driver.CUcomputemode.CU_COMPUTEMODE_PROHIBITED:
        requirement_not_met("This sample requires a device in either default or process exclusive mode")
    concurrent = bool(check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, dev)))
    print(f"UnifiedMemoryStreams on {device_name(dev)} (CUDA {cu13.CUDA_MAJOR} build; concurrent managed "
          f"access: {'yes, with advice and prefetches' if concurrent else 'no, attaching only'})")

    cubin = compile_source(GEMV_KERNEL, device_arch(dev), fmt="cubin", name=b"gemv.cu")
    module = check(driver.cuModuleLoadData(cubin))
    gemv = check(driver.cuModuleGetFunction(module, b"gemv"))
    streams = [check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_DEFAULT)) for _ in range(NTHREADS + 1)]

    # the task list, random sizes from 64 to 999
    rng = np.random.default_rng(2014)
    tasks = [Task(max(int(rng.random() * 1000.0), 64), i, rng) for i in range(NTASKS)]

    print("Executing tasks on host / device")
    runner = Runner(ctx, dev, streams, gemv, concurrent)
    todo: queue.Queue[Task] = queue.Queue()
    for t in tasks:
        todo.put(t)
    threads = [threading.Thread(target=runner.worker, args=(tid, todo)) for tid in range(NTHREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    check(driver.cuCtxSynchronize())

    bad = []
    for t in tasks:
        expected = t.data @ t.vector
        if not np.allclose(t.result, expected, rtol=1e-10, atol=0.0):
            bad.append(t)
            print(f"WRONG RESULT: task [{t.id}] ({t.size}, on the {t.ran_on or 'nowhere'}): max error "
                  f"{float(np.max(np.abs(t.result - expected))):.3g}")
    on_device = sum(t.ran_on == "device" for t in tasks)
    print(f"{on_device} tasks ran on the device and {NTASKS - on_device} on the host; "
          f"{NTASKS - len(bad)} of {NTASKS} results match numpy")

    for s in streams:
        check(driver.cuStreamDestroy(s))
    for t in tasks:
        t.free()
    check(driver.cuModuleUnload(module))
    release_device(dev)
    print("All Done!")
    return 0 if not bad and on_device + sum(t.ran_on == "host" for t in tasks) == NTASKS else 1


if __name__ == "__main__":
    sys.exit(main())
