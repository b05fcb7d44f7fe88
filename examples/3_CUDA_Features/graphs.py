"""CUDA graphs: a sum reduction (a float vector reduced to per-block partial sums, then to one
double) run as a graph built two ways, then changed without rebuilding it.

  1. built node by node: a host-to-device memcpy node and a memset node, the `reduce` kernel node
     after both, a second memset node, the `reduceFinal` kernel node, a device-to-host memcpy node
     and a host node (a Python callback) reading the result; instantiated once and launched
     several times with new input, then cloned, and updated in place with
     `cuGraphExecKernelNodeSetParams` to reduce another part of the input;
  2. captured from two streams (fork and join with events), launched, then a capture of the same
     work on a shorter input is applied to the executable graph with `cuGraphExecUpdate`.

Every launch's result is checked against numpy.

Exit status: 0 on correct results, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, release_device, select_device  # noqa: E402
from common.cuda_extras import device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

THREADS_PER_BLOCK = 512
GRAPH_LAUNCH_ITERATIONS = 3

REDUCE = b"""
#define THREADS_PER_BLOCK %d

// each block sums a grid-strided share of the input into outputVec[blockIdx.x]
extern "C" __global__ void reduce(const float *inputVec, double *outputVec, size_t inputSize,
                                  size_t outputSize)
{
    __shared__ double tmp[THREADS_PER_BLOCK];
    double sum = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < inputSize;
         i += (size_t)gridDim.x * blockDim.x)
        sum += inputVec[i];
    tmp[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) tmp[threadIdx.x] += tmp[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0 && blockIdx.x < outputSize) outputVec[blockIdx.x] = tmp[0];
}

// one block adds up the partial sums
extern "C" __global__ void reduceFinal(const double *inputVec, double *result, size_t inputSize)
{
    __shared__ double tmp[THREADS_PER_BLOCK];
    double sum = 0.0;
    for (size_t i = threadIdx.x; i < inputSize; i += blockDim.x) sum += inputVec[i];
    tmp[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) tmp[threadIdx.x] += tmp[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) result[0] = tmp[0];
}
""" % THREADS_PER_BLOCK

PTX_ARCH = "75"


def host_array(address, n, ctype, dtype):
    return np.ctypeslib.as_array((ctype * n).from_address(address)).view(dtype)


def kernel_node_params(func, grid, block, args):
    p = driver.CUDA_KERNEL_NODE_PARAMS()
    p.func = func
    p.gridDimX, p.gridDimY, p.gridDimZ = grid, 1, 1
    p.blockDimX, p.blockDimY, p.blockDimZ = block, 1, 1
    p.sharedMemBytes = 0
    p.kernelParams = args
    p.extra = 0
    return p


def close(got, expected):
    return abs(got - expected) <= 1e-9 * max(1.0, abs(expected))


class Reduction:
    """Device and pinned host buffers shared by every graph below."""

    def __init__(self, module, n, grid):
        self.n, self.grid = n, grid
        self.reduce = check(driver.cuModuleGetFunction(module, b"reduce"))
        self.reduce_final = check(driver.cuModuleGetFunction(module, b"reduceFinal"))
        self.h_in_ptr = check(driver.cuMemAllocHost(n * 4))
        self.h_result_ptr = check(driver.cuMemAllocHost(8))
        self.h_in = host_array(self.h_in_ptr, n, ctypes.c_float, np.float32)
        self.h_result = host_array(self.h_result_ptr, 1, ctypes.c_double, np.float64)
        self.d_in = check(driver.cuMemAlloc(n * 4))
        self.d_partial = check(driver.cuMemAlloc(grid * 8))
        self.d_result = check(driver.cuMemAlloc(8))

    def reduce_args(self, first=0, count=None):
        count = self.n - first if count is None else count
        # an address computed here is passed as a plain c_void_p value, packed by copy; a binding
        # object (None as its type) would be passed through its storage, which must stay alive
        d_in = int(self.d_in) + 4 * first
        return ((d_in, self.d_partial, count, self.grid),
                (ctypes.c_void_p, None, ctypes.c_size_t, ctypes.c_size_t))

    def final_args(self):
        return ((self.d_partial, self.d_result, self.grid), (None, None, ctypes.c_size_t))

    def free(self):
        del self.h_in, self.h_result
        check(driver.cuMemFreeHost(self.h_in_ptr))
        check(driver.cuMemFreeHost(self.h_result_ptr))
        for d in (self.d_in, self.d_partial, self.d_result):
            check(driver.cuMemFree(d))


def build_graph(r, ctx, seen_by_host_node):
    """The graph of the reduction, node by node. Returns (graph, reduce node, host callback)."""
    graph = check(driver.cuGraphCreate(0))

    copy_in = driver.CUDA_MEMCPY3D()
    copy_in.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    copy_in.srcHost = r.h_in_ptr
    copy_in.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    copy_in.dstDevice = r.d_in
    copy_in.WidthInBytes = r.n * 4
    copy_in.Height = 1
    copy_in.Depth = 1
    copy_in_node = check(driver.cuGraphAddMemcpyNode(graph, None, 0, copy_in, ctx))

    zero_partial = driver.CUDA_MEMSET_NODE_PARAMS()
    zero_partial.dst = r.d_partial
    zero_partial.value = 0
    zero_partial.elementSize = 4
    zero_partial.width = r.grid * 2  # doubles, as pairs of 32-bit words
    zero_partial.height = 1
    zero_partial.pitch = 0
    zero_partial_node = check(driver.cuGraphAddMemsetNode(graph, None, 0, zero_partial, ctx))

    reduce_node = check(driver.cuGraphAddKernelNode(
        graph, [copy_in_node, zero_partial_node], 2,
        kernel_node_params(r.reduce, r.grid, THREADS_PER_BLOCK, r.reduce_args())))

    zero_result = driver.CUDA_MEMSET_NODE_PARAMS()
    zero_result.dst = r.d_result
    zero_result.value = 0
    zero_result.elementSize = 4
    zero_result.width = 2
    zero_result.height = 1
    zero_result_node = check(driver.cuGraphAddMemsetNode(graph, None, 0, zero_result, ctx))

    final_node = check(driver.cuGraphAddKernelNode(
        graph, [reduce_node, zero_result_node], 2,
        kernel_node_params(r.reduce_final, 1, THREADS_PER_BLOCK, r.final_args())))

    copy_out = driver.CUDA_MEMCPY3D()
    copy_out.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    copy_out.srcDevice = r.d_result
    copy_out.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    copy_out.dstHost = r.h_result_ptr
    copy_out.WidthInBytes = 8
    copy_out.Height = 1
    copy_out.Depth = 1
    copy_out_node = check(driver.cuGraphAddMemcpyNode(graph, [final_node], 1, copy_out, ctx))

    # the host node runs on a driver thread once the copy is done; it reads the pinned result
    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def result_ready(_user_data):
        seen_by_host_node.append(float(r.h_result[0]))

    host = driver.CUDA_HOST_NODE_PARAMS()
    host.fn = driver.CUhostFn(ctypes.cast(result_ready, ctypes.c_void_p).value)
    host.userData = 0
    check(driver.cuGraphAddHostNode(graph, [copy_out_node], 1, host))
    return graph, reduce_node, result_ready


def capture_graph(r, streams, events, count):
    """The same work captured from two streams, the reduction covering the first `count` inputs
    (the whole input is copied each time, so that only kernel parameters differ between captures)."""
    s1, s2 = streams
    fork, join = events
    check(driver.cuStreamBeginCapture(s1, driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    check(driver.cuEventRecord(fork, s1))
    check(driver.cuStreamWaitEvent(s2, fork, 0))
    check(driver.cuMemcpyHtoDAsync(r.d_in, r.h_in_ptr, r.n * 4, s1))
    check(driver.cuMemsetD32Async(r.d_partial, 0, r.grid * 2, s2))
    check(driver.cuEventRecord(join, s2))
    check(driver.cuStreamWaitEvent(s1, join, 0))
    check(driver.cuLaunchKernel(r.reduce, r.grid, 1, 1, THREADS_PER_BLOCK, 1, 1, 0, s1,
                                r.reduce_args(0, count), 0))
    check(driver.cuMemsetD32Async(r.d_result, 0, 2, s1))
    check(driver.cuLaunchKernel(r.reduce_final, 1, 1, 1, THREADS_PER_BLOCK, 1, 1, 0, s1,
                                r.final_args(), 0))
    check(driver.cuMemcpyDtoHAsync(r.h_result_ptr, r.d_result, 8, s1))
    return check(driver.cuStreamEndCapture(s1))


def main():
    ptx = compile_source(REDUCE, PTX_ARCH, fmt="ptx", name=b"simpleCudaGraphs.cu")
    print(f"NVRTC compiled reduce and reduceFinal to {len(ptx)} bytes of PTX (compute_{PTX_ARCH})")

    dev, ctx = select_device(0)
    print(f"CUDA graphs on {device_name(dev)}")
    module = check(driver.cuModuleLoadData(ptx))
    n = 1 << 22
    grid = 128
    r = Reduction(module, n, grid)
    stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    rng = np.random.default_rng(6)
    ok = True

    def report(what, got, expected):
        nonlocal ok
        good = close(got, expected)
        ok = ok and good
        print(f"  {what}: {got:.6f}, expected {expected:.6f}: {'ok' if good else 'WRONG RESULT'}")

    # 1. node by node
    print(f"1. graph built node by node: {n} floats, {grid} blocks of {THREADS_PER_BLOCK} threads")
    seen = []
    graph, reduce_node, callback = build_graph(r, ctx, seen)
    _, num_nodes = check(driver.cuGraphGetNodes(graph, 0))
    print(f"  the graph has {num_nodes} nodes")
    ok = ok and num_nodes == 7
    graph_exec = check(driver.cuGraphInstantiate(graph, 0))
    for i in range(GRAPH_LAUNCH_ITERATIONS):
        r.h_in[:] = rng.random(n, dtype=np.float32)  # the memcpy node reads the input at launch
        check(driver.cuGraphLaunch(graph_exec, stream))
        check(driver.cuStreamSynchronize(stream))
        report(f"launch {i + 1}", float(r.h_result[0]), float(r.h_in.sum(dtype=np.float64)))
    host_ok = len(seen) == GRAPH_LAUNCH_ITERATIONS and close(seen[-1], float(r.h_result[0]))
    ok = ok and host_ok
    print(f"  the host node ran {len(seen)} times, last seeing {seen[-1] if seen else None}: "
          f"{'ok' if host_ok else 'WRONG RESULT'}")

    clone = check(driver.cuGraphClone(graph))
    clone_exec = check(driver.cuGraphInstantiate(clone, 0))
    check(driver.cuGraphLaunch(clone_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    report("cloned graph", float(r.h_result[0]), float(r.h_in.sum(dtype=np.float64)))

    # point the instantiated reduce node at the middle half of the input
    first, count = n // 4, n // 2
    check(driver.cuGraphExecKernelNodeSetParams(
        graph_exec, reduce_node,
        kernel_node_params(r.reduce, grid, THREADS_PER_BLOCK, r.reduce_args(first, count))))
    check(driver.cuGraphLaunch(graph_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    report(f"after cuGraphExecKernelNodeSetParams (elements {first}..{first + count - 1})",
           float(r.h_result[0]), float(r.h_in[first:first + count].sum(dtype=np.float64)))

    # 2. stream capture
    print("2. graph captured from two streams")
    s1 = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    s2 = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    fork = check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    join = check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    captured = capture_graph(r, (s1, s2), (fork, join), n)
    _, num_captured = check(driver.cuGraphGetNodes(captured, 0))
    print(f"  the captured graph has {num_captured} nodes")
    captured_exec = check(driver.cuGraphInstantiate(captured, 0))
    r.h_in[:] = rng.random(n, dtype=np.float32)
    for i in range(GRAPH_LAUNCH_ITERATIONS):
        check(driver.cuGraphLaunch(captured_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    report(f"{GRAPH_LAUNCH_ITERATIONS} launches", float(r.h_result[0]), float(r.h_in.sum(dtype=np.float64)))

    # capture again, reducing a shorter input; the topology is the same and only a kernel's
    # parameters differ, so the executable graph can take the new graph's parameters
    short = n // 3
    recaptured = capture_graph(r, (s1, s2), (fork, join), short)
    err, info = driver.cuGraphExecUpdate(captured_exec, recaptured)
    print(f"  cuGraphExecUpdate: {err.name}, {info.result.name if info is not None and info.result is not None else None}")
    check((err,))
    check(driver.cuGraphLaunch(captured_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    report(f"after cuGraphExecUpdate (first {short} elements)", float(r.h_result[0]),
           float(r.h_in[:short].sum(dtype=np.float64)))

    for e in (captured_exec, clone_exec, graph_exec):
        check(driver.cuGraphExecDestroy(e))
    for g in (recaptured, captured, clone, graph):
        check(driver.cuGraphDestroy(g))
    del callback  # kept alive until the graphs that call it are gone
    for e in (fork, join):
        check(driver.cuEventDestroy(e))
    for s in (s1, s2, stream):
        check(driver.cuStreamDestroy(s))
    r.free()
    check(driver.cuModuleUnload(module))
    release_device(dev)
    print("CUDA graphs: " + ("all results ok" if ok else "WRONG RESULT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
