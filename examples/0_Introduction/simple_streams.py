"""Overlapping kernels with device-to-host copies in several streams, the Python twin of the CUDA
sample simpleStreams. API area: streams, events with a chosen synchronization method
(cudaSetDeviceFlags, cudaEventCreateWithFlags), page-locked host memory from cudaMallocHost or
from pinning ordinary pages (mmap + cudaHostRegister).

A kernel adds a device-side value to every element of a 64 MiB int array, five times over, and the
array is copied to the host. Timed with events, as the sample does: one copy, one kernel, `nreps`
rounds of kernel + synchronous copy in the default stream, then `nreps` rounds in which each of 4
streams runs the kernel on its quarter of the array and copies that quarter back
(cudaMemcpyAsync), so one stream's copy can overlap another's kernel. Every element must end as
5 * nreps * 5 (checked with numpy).

Run: python examples/0_Introduction/simple_streams.py [--sync_method=0|1|2|4]
         [--use_generic_memory | --use_cuda_malloc_host]
  --sync_method: 0 automatic, 1 spin, 2 yield, 4 blocking sync (default; low CPU use); giving it
                 runs 100 repetitions instead of 10, to show the steady state
  --use_generic_memory (default): pin page-aligned memory from mmap with cudaHostRegister
  --use_cuda_malloc_host: allocate the host array with cudaMallocHost
Exit status: 0 on a correct result, 1 on a wrong one (or bad options), 3 when no CUDA device is
available.
"""
import argparse
import ctypes
import mmap
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, cores_per_sm, device_arch,  # noqa: E402
                               dim3, find_cuda_device, get_kernels, prop_name)
from common.toolkit import host_array, runtime_device_count  # noqa: E402
from cuda.bindings import runtime  # noqa: E402

EVENT_SYNC_METHOD = {runtime.cudaEventDefault: "cudaEventDefault",
                     runtime.cudaEventBlockingSync: "cudaEventBlockingSync"}
DEVICE_SYNC_METHOD = {0: "cudaDeviceScheduleAuto", 1: "cudaDeviceScheduleSpin",
                      2: "cudaDeviceScheduleYield", 4: "cudaDeviceScheduleBlockingSync"}
SYNC_METHOD = {0: "0 (Automatic Blocking)", 1: "1 (Spin Blocking)", 2: "2 (Yield Blocking)",
               4: "4 (Blocking Sync Event) = low CPU utilization"}

MEMORY_ALIGNMENT = 4096

KERNELS = b"""
extern "C" __global__ void init_array(int *g_data, int *factor, int num_iterations)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < num_iterations; i++)
        g_data[idx] += *factor;  // non-coalesced on purpose, to burn time
}
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "simpleStreams.cu")


def align_up(x, size):
    return (x + size - 1) & ~(size - 1)


class HostMemory:
    """The host array: generic page-aligned memory pinned with cudaHostRegister, or cudaMallocHost."""

    def __init__(self, pin_generic_memory, nbytes):
        self.pin_generic = pin_generic_memory
        self.nbytes = nbytes
        self.mapping: mmap.mmap | None = None
        self.export: ctypes.Array[ctypes.c_char] | None = None
        mib = nbytes / 1048576.0
        if pin_generic_memory:
            print(f"> mmap() allocating {mib:4.2f} Mbytes (generic page-aligned system memory)")
            self.mapping = mmap.mmap(-1, nbytes + MEMORY_ALIGNMENT, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                                     prot=mmap.PROT_READ | mmap.PROT_WRITE)
            export = (ctypes.c_char * (nbytes + MEMORY_ALIGNMENT)).from_buffer(self.mapping)
            self.export = export  # (holds the mapping open until free())
            self.aligned = align_up(ctypes.addressof(export), MEMORY_ALIGNMENT)
            print(f"> cudaHostRegister() registering {mib:4.2f} Mbytes of generic allocated system memory")
            # pin the allocated memory
            check(runtime.cudaHostRegister(self.aligned, nbytes, runtime.cudaHostRegisterMapped))
        else:
            print(f"> cudaMallocHost() allocating {mib:4.2f} Mbytes of system memory")
            # host memory must be pinned for the copies to be asynchronous
            self.aligned = check(runtime.cudaMallocHost(nbytes))

    def free(self):
        if self.pin_generic:
            check(runtime.cudaHostUnregister(self.aligned))
            self.export = None
            if self.mapping is not None:
                self.mapping.close()
        else:
            check(runtime.cudaFreeHost(self.aligned))


def correct_data(a, c):
    wrong = np.flatnonzero(a != c)
    if wrong.size:
        i = int(wrong[0])
        print(f"{i}: {int(a[i])} {c} ({wrong.size} elements wrong)")
        return False
    return True


def parse_args():
    parser = argparse.ArgumentParser(description="simpleStreams")
    parser.add_argument("--sync_method", type=int, default=None, help="0, 1, 2 or 4 (default 4)")
    parser.add_argument("--use_generic_memory", action="store_true")
    parser.add_argument("--use_cuda_malloc_host", action="store_true")
    return parser.parse_args()


def main():
    nstreams = 4  # number of streams for CUDA calls
    nreps = 10  # number of times each experiment is repeated
    n = 16 * 1024 * 1024  # number of ints in the data set

    print("[ simpleStreams ]\n")
    args = parse_args()
    pin_generic_memory = not args.use_cuda_malloc_host  # the default on Linux
    device_sync_method = runtime.cudaDeviceBlockingSync
    if args.sync_method is not None:
        if args.sync_method not in SYNC_METHOD:
            print(f'Invalid command line option sync_method="{args.sync_method}"')
            return 1
        device_sync_method = args.sync_method
        print(f"Device synchronization method set to = {SYNC_METHOD[device_sync_method]}")
        print("Setting reps to 100 to demonstrate steady state")
        nreps = 100

    print()
    cuda_device = find_cuda_device(0)
    num_devices = runtime_device_count(1)
    print(f"{num_devices} CUDA device(s); using device {cuda_device}")
    check(runtime.cudaSetDevice(cuda_device))

    device_prop = check(runtime.cudaGetDeviceProperties(cuda_device))
    niterations = 5  # number of iterations of the loop inside the kernel

    # without mapping of host memory, fall back to cudaMallocHost
    if pin_generic_memory:
        print(f"Device: <{prop_name(device_prop)}> canMapHostMemory: "
              f"{'Yes' if device_prop.canMapHostMemory else 'No'}")
        if not device_prop.canMapHostMemory:
            print("Using cudaMallocHost, CUDA device does not support mapping of generic host memory")
            pin_generic_memory = False

    # anything with less than 32 cores gets a scaled-down workload
    cores = cores_per_sm(device_prop.major, device_prop.minor)
    scale_factor = max(32.0 / (cores * device_prop.multiProcessorCount), 1.0)
    n = int(round(n / scale_factor))
    nbytes = n * 4
    print(f"> CUDA Capable: SM {device_prop.major}.{device_prop.minor} hardware")
    print(f"> {device_prop.multiProcessorCount} Multiprocessor(s) x {cores} (Cores/Multiprocessor) = "
          f"{cores * device_prop.multiProcessorCount} (Cores)")
    print(f"> scale_factor = {1.0 / scale_factor:1.4f}")
    print(f"> array_size   = {n}\n")

    # enable the chosen synchronization (blocking sync reduces CPU usage)
    print(f"> Using CPU/GPU Device Synchronization method ({DEVICE_SYNC_METHOD[device_sync_method]})")
    check(runtime.cudaSetDeviceFlags(device_sync_method | (runtime.cudaDeviceMapHost if pin_generic_memory else 0)))

    library = build_library(compile_kernels(device_arch(cuda_device)))
    (init_array,) = get_kernels(library, "init_array")

    # allocate host memory
    c = 5  # value the array is incremented by
    host = HostMemory(pin_generic_memory, nbytes)
    h_a = host_array(host.aligned, n, np.int32)

    # allocate device memory
    d_a = check(runtime.cudaMalloc(nbytes))
    check(runtime.cudaMemset(d_a, 0x0, nbytes))
    d_c = check(runtime.cudaMalloc(4))
    c_host = np.array([c], dtype=np.int32)
    check(runtime.cudaMemcpy(d_c, c_host, 4, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))

    print("\nStarting Test")
    streams = [check(runtime.cudaStreamCreate()) for _ in range(nstreams)]

    # events, with blocking sync when the device uses it
    eventflags = (runtime.cudaEventBlockingSync if device_sync_method == runtime.cudaDeviceBlockingSync
                  else runtime.cudaEventDefault)
    print(f"> events created with {EVENT_SYNC_METHOD[eventflags]}")
    start_event = check(runtime.cudaEventCreateWithFlags(eventflags))
    stop_event = check(runtime.cudaEventCreateWithFlags(eventflags))
    d2h = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost

    def launch(grid, d_data, stream):
        args = ((d_data, d_c, niterations), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
        check(runtime.cudaLaunchKernel(init_array, dim3(grid), dim3(512), args, 0, stream))

    def elapsed():
        check(runtime.cudaEventRecord(stop_event, 0))
        check(runtime.cudaEventSynchronize(stop_event))  # block until the event is recorded
        return check(runtime.cudaEventElapsedTime(start_event, stop_event))

    # time a copy from the device (recording in stream 0 waits for all earlier work)
    check(runtime.cudaEventRecord(start_event, 0))
    check(runtime.cudaMemcpyAsync(host.aligned, d_a, nbytes, d2h, streams[0]))
    time_memcpy = elapsed()
    print(f"memcopy:\t{time_memcpy:.2f}")

    # time the kernel
    check(runtime.cudaEventRecord(start_event, 0))
    launch(n // 512, d_a, streams[0])
    time_kernel = elapsed()
    print(f"kernel:\t\t{time_kernel:.2f}")

    # non-streamed execution, for reference
    check(runtime.cudaEventRecord(start_event, 0))
    for _ in range(nreps):
        launch(n // 512, d_a, 0)
        check(runtime.cudaMemcpy(host.aligned, d_a, nbytes, d2h))
    time_serial = elapsed() / nreps
    print(f"non-streamed:\t{time_serial:.2f}")

    # nstreams streams, each with its own part of the data
    h_a[:] = -1  # host memory all 1 bits, device memory all 0, for testing correctness
    check(runtime.cudaMemset(d_a, 0, nbytes))
    check(runtime.cudaEventRecord(start_event, 0))
    part = n // nstreams
    for _ in range(nreps):
        # asynchronously launch nstreams kernels, each on its own portion of the data
        for i in range(nstreams):
            launch(n // (nstreams * 512), d_a + i * part * 4, streams[i])
        # asynchronously launch nstreams copies; the copy in stream i starts once the work
        # queued before it in stream i has completed
        for i in range(nstreams):
            check(runtime.cudaMemcpyAsync(host.aligned + i * part * 4, d_a + i * part * 4,
                                          nbytes // nstreams, d2h, streams[i]))
    time_streamed = elapsed() / nreps
    print(f"{nstreams} streams:\t{time_streamed:.2f}")

    # check whether the output is correct
    print("-------------------------------")
    expected = c * nreps * niterations
    results = correct_data(h_a, expected)
    print(f"every element is {expected}: {'ok' if results else 'WRONG RESULT'}; "
          f"{nstreams} streams took {time_streamed:.2f} ms a round against {time_serial:.2f} ms in one stream")

    # release resources
    for s in streams:
        check(runtime.cudaStreamDestroy(s))
    check(runtime.cudaEventDestroy(start_event))
    check(runtime.cudaEventDestroy(stop_event))
    del h_a
    host.free()
    check(runtime.cudaFree(d_a))
    check(runtime.cudaFree(d_c))
    check(runtime.cudaLibraryUnload(library))
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main())
