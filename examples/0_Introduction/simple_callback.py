"""CPU work that follows GPU work through stream callbacks, the Python twin of the CUDA sample
simpleCallback. API area: host functions in streams (cudaStreamAddCallback, cudaLaunchHostFunc)
called back into Python, with per-workload streams and portable pinned memory.

Eight heterogeneous workloads go CPU -> GPU -> CPU, as in the sample. A CPU thread per workload
(`launch`) fills pinned host memory, queues copy-in, an increment kernel and copy-out in the
workload's own stream, then queues a host function and ends; when the stream reaches it, the
driver calls the host function, which starts another CPU thread (`postprocess`) that checks the
data against numpy, frees the workload's memory and stream, and counts down a barrier the main
thread waits on. Even workloads queue their host function with cudaStreamAddCallback (as the
sample does; the callback also gets the stream's status), odd ones with cudaLaunchHostFunc (its
successor). The host functions are ctypes CFUNCTYPE objects kept alive at module level, wrapped
in cudaStreamCallback_t / cudaHostFn_t; the workload reaches them as the address of its ctypes
struct (the `void *userData` of the C sample). Workloads go round-robin to every device.

Run: python examples/0_Introduction/simple_callback.py
Exit status: 0 when every workload's data is right, 1 otherwise, 3 when no CUDA device is
available.
"""
import ctypes
import os
import sys
import threading
import traceback

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               get_kernels, prop_name)
from common.toolkit import host_array, runtime_device_count  # noqa: E402
from cuda.bindings import runtime  # noqa: E402

N_WORKLOADS = 8
N_ELEMENTS_PER_WORKLOAD = 100000
BARRIER_TIMEOUT_S = 120

KERNELS = b"""
extern "C" __global__ void incKernel(int *data, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        data[i]++;
}
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "simpleCallback.cu")


class HeterogeneousWorkload(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_int),
        ("cudaDeviceID", ctypes.c_int),
        ("h_data", ctypes.c_void_p),
        ("d_data", ctypes.c_void_p),
        ("stream", ctypes.c_void_p),
        ("success", ctypes.c_bool),
    ]


# what the C sample keeps in globals: the barrier the main thread waits on, and the kernel
finished = threading.Semaphore(0)
inc_kernel: runtime.cudaKernel_t | None = None
threads: list[threading.Thread] = []
errors: list[str] = []


def start_thread(target, workload_address):
    t = threading.Thread(target=target, args=(workload_address,))
    threads.append(t)
    t.start()


def launch(workload_address):
    """CPU thread: prepare the data, queue the GPU work and the host function, end."""
    workload = HeterogeneousWorkload.from_address(workload_address)
    try:
        check(runtime.cudaSetDevice(workload.cudaDeviceID))

        stream = check(runtime.cudaStreamCreate())
        workload.stream = int(stream)
        workload.d_data = check(runtime.cudaMalloc(N_ELEMENTS_PER_WORKLOAD * 4))
        workload.h_data = check(runtime.cudaHostAlloc(N_ELEMENTS_PER_WORKLOAD * 4, runtime.cudaHostAllocPortable))

        # CPU thread generates data
        h_data = host_array(workload.h_data, N_ELEMENTS_PER_WORKLOAD, np.int32)
        h_data[:] = workload.id + np.arange(N_ELEMENTS_PER_WORKLOAD, dtype=np.int32)

        # GPU work in the workload's own stream, without blocking this thread
        block = 512
        grid = (N_ELEMENTS_PER_WORKLOAD + block - 1) // block
        nbytes = N_ELEMENTS_PER_WORKLOAD * 4
        check(runtime.cudaMemcpyAsync(workload.d_data, workload.h_data, nbytes,
                                      runtime.cudaMemcpyKind.cudaMemcpyHostToDevice, stream))
        args = ((workload.d_data, N_ELEMENTS_PER_WORKLOAD), (ctypes.c_void_p, ctypes.c_int))
        check(runtime.cudaLaunchKernel(inc_kernel, dim3(grid), dim3(block), args, 0, stream))
        check(runtime.cudaMemcpyAsync(workload.h_data, workload.d_data, nbytes,
                                      runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))

        # a host function, called once all the work queued before it in the stream has finished
        if workload.id % 2 == 0:
            check(runtime.cudaStreamAddCallback(stream, STREAM_CALLBACK, workload_address, 0))
        else:
            check(runtime.cudaLaunchHostFunc(stream, HOST_FN, workload_address))
    except Exception:
        errors.append(f"workload {workload.id} (launch): {traceback.format_exc()}")
        workload.success = False
        finished.release()
    # CPU thread ends; the GPU goes on with the workload


def postprocess(workload_address):
    """CPU thread started by the host function: check the results, free the resources."""
    workload = HeterogeneousWorkload.from_address(workload_address)
    try:
        check(runtime.cudaSetDevice(workload.cudaDeviceID))
        h_data = host_array(workload.h_data, N_ELEMENTS_PER_WORKLOAD, np.int32)
        expected = workload.id + 1 + np.arange(N_ELEMENTS_PER_WORKLOAD, dtype=np.int32)
        workload.success = workload.success and bool(np.array_equal(h_data, expected))
        del h_data
        check(runtime.cudaFree(workload.d_data))
        check(runtime.cudaFreeHost(workload.h_data))
        check(runtime.cudaStreamDestroy(runtime.cudaStream_t(workload.stream)))
    except Exception:
        errors.append(f"workload {workload.id} (postprocess): {traceback.format_exc()}")
        workload.success = False
    finished.release()  # signal the end of this workload to the main thread


def my_stream_callback(stream, status, data):
    """cudaStreamCallback_t: no CUDA calls allowed here; check the status, hand over to a thread."""
    workload = HeterogeneousWorkload.from_address(data)
    if status != int(runtime.cudaError_t.cudaSuccess):
        errors.append(f"workload {workload.id}: the stream reported {runtime.cudaError_t(status).name}")
        workload.success = False
    start_thread(postprocess, data)


def my_host_fn(data):
    """cudaHostFn_t: the same hand-over, from cudaLaunchHostFunc (no status argument)."""
    start_thread(postprocess, data)


# The C function pointers: kept alive for as long as the program runs, so the driver never calls
# a freed trampoline.
_STREAM_CALLBACK_C = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)(my_stream_callback)
_HOST_FN_C = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(my_host_fn)
STREAM_CALLBACK = runtime.cudaStreamCallback_t(ctypes.cast(_STREAM_CALLBACK_C, ctypes.c_void_p).value)
HOST_FN = runtime.cudaHostFn_t(ctypes.cast(_HOST_FN_C, ctypes.c_void_p).value)


def main():
    global inc_kernel
    print("Starting simpleCallback")

    n_gpus = runtime_device_count(1)
    print(f"Found {n_gpus} CUDA capable GPUs")
    gpu_info = []
    for devid in range(n_gpus):
        check(runtime.cudaSetDevice(devid))
        prop = check(runtime.cudaGetDeviceProperties(devid))
        sm_version = (prop.major << 4) + prop.minor
        capable = sm_version >= 0x11
        print(f"GPU[{devid}] {prop_name(prop)} supports SM {prop.major}.{prop.minor}, "
              f"{'capable' if capable else 'NOT capable'} GPU Callback Functions")
        if capable:
            gpu_info.append(devid)
    print(f"{len(gpu_info)} GPUs available to run Callback Functions")

    # the kernel, compiled for the first device's architecture and loaded as a library (which
    # the runtime loads on each device that launches it)
    check(runtime.cudaSetDevice(gpu_info[0]))
    library = build_library(compile_kernels(device_arch(gpu_info[0])))
    (inc_kernel,) = get_kernels(library, "incKernel")

    workloads = (HeterogeneousWorkload * N_WORKLOADS)()
    print(f"Starting {N_WORKLOADS} heterogeneous computing workloads")
    for i in range(N_WORKLOADS):
        workloads[i].id = i
        workloads[i].cudaDeviceID = gpu_info[i % len(gpu_info)]
        workloads[i].success = True
        start_thread(launch, ctypes.addressof(workloads[i]))

    # sleep until all workloads have finished
    done = sum(finished.acquire(timeout=BARRIER_TIMEOUT_S) for _ in range(N_WORKLOADS))
    for t in list(threads):
        t.join(timeout=BARRIER_TIMEOUT_S)
    print(f"Total of {done} workloads finished:")
    for w in workloads:
        api = "cudaStreamAddCallback" if w.id % 2 == 0 else "cudaLaunchHostFunc"
        print(f"  workload {w.id} on GPU {w.cudaDeviceID}, host function through {api}: "
              f"{'ok' if w.success else 'WRONG'}")
    for e in errors:
        print(e, file=sys.stderr)

    success = done == N_WORKLOADS and not errors and all(w.success for w in workloads)
    check(runtime.cudaLibraryUnload(library))
    print("Success" if success else "Failure")
    return 0 if success else 1


if __name__ == "__main__":
    sys.exit(main())
