"""A loop that runs on the device: a CUDA graph with a conditional WHILE node whose condition a
kernel sets, through the driver API.

API area: conditional graph nodes: cuGraphConditionalHandleCreate, cuGraphAddNode with a
CU_GRAPH_NODE_TYPE_CONDITIONAL node (CU_GRAPH_COND_TYPE_WHILE) whose body graph the driver
returns in conditional.phGraph_out, kernel nodes added with cuGraphAddNode, a body filled by
stream capture into an existing graph (cuStreamBeginCaptureToGraph); and run-time linking with the
driver's linker (cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete), since the kernels
call the device runtime's cudaGraphSetConditional, which lives in libcudadevrt.a.

It follows the two WHILE-loop graphs of the CUDA sample graphConditionalNodes (a runtime-API
program), the loop's kernels here counting their runs in device memory so that the host can check
them:
  1. a do-while loop: a WHILE node whose handle starts each launch at 1, so the body runs at least
     once; the body (two counting kernels and the loop kernel, captured from a stream into the
     body graph) runs until the loop kernel has counted a device counter down to zero and set
     the condition to 0. Launched with the counter at 10: the body must run 10 times.
  2. a while loop, built node by node: kernel A -> WHILE [ kernel C ] -> kernel D. A and C
     count the counter down and set the condition to whether it is still non-zero, so the body
     is skipped when the counter starts at 0. Launched with 0 (C never runs) and with 10 (A runs
     once and C nine times), D running once each time.
Needs libcudadevrt.a of NVRTC's CUDA release (a CUDA toolkit or NVIDIA's nvidia-cuda-runtime
wheel).

Run: python examples/3_CUDA_Features/graph_conditional_loop.py
Exit status: 0 when every count is right, 1 otherwise, 3 when no CUDA device or no
libcudadevrt.a is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, device_arch, release_device, requirement_not_met, select_device  # noqa: E402
from common import cu13  # noqa: E402
from common.drv_helpers import cudadevrt_path, device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

LOOP_KERNELS = b"""
// the device runtime's (libcudadevrt) setter of a conditional node's value
extern "C" __device__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);

// c[0]: the loop counter; c[1]: runs of the loop kernels; c[2]: runs of the other body kernels;
// c[3]: runs of the kernel after the loop. Every kernel runs as one thread.

extern "C" __global__ void doWhileEmptyKernel(int *c)
{
    c[2] += 1;
}

// counts the counter down; the do-while loop ends when it reaches zero
extern "C" __global__ void doWhileLoopKernel(int *c, cudaGraphConditionalHandle handle)
{
    c[1] += 1;
    if (--c[0] == 0)
        cudaGraphSetConditional(handle, 0);
}

// counts a non-zero counter down and sets the condition to "counter still non-zero"
extern "C" __global__ void capturedWhileKernel(int *c, cudaGraphConditionalHandle handle)
{
    c[1] += 1;
    if (c[0] != 0)
        c[0] -= 1;
    cudaGraphSetConditional(handle, c[0] != 0 ? 1u : 0u);
}

extern "C" __global__ void capturedWhileEmptyKernel(int *c)
{
    c[3] += 1;
}
"""

LOG_SIZE = 8192


def link_with_cudadevrt(ptx, devrt):
    """The driver's linker: the relocatable PTX plus libcudadevrt.a, into a loaded module."""
    info_log = ctypes.create_string_buffer(LOG_SIZE)
    error_log = ctypes.create_string_buffer(LOG_SIZE)
    jit = driver.CUjit_option
    options = [jit.CU_JIT_INFO_LOG_BUFFER, jit.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
               jit.CU_JIT_ERROR_LOG_BUFFER, jit.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
    # void *optionVals[]: the log sizes are output options, which the driver updates in this
    # array until cuLinkDestroy, so it is a C array that lives as long as the link state (a list
    # would be copied into an array that lasts only for the cuLinkCreate call)
    values = (ctypes.c_void_p * len(options))(ctypes.addressof(info_log), LOG_SIZE,
                                              ctypes.addressof(error_log), LOG_SIZE)
    state = check(driver.cuLinkCreate(len(options), options, values))
    try:
        check(driver.cuLinkAddData(state, driver.CUjitInputType.CU_JIT_INPUT_PTX, ptx, len(ptx),
                                   b"graphConditionalLoop.ptx", 0, None, None))
        check(driver.cuLinkAddFile(state, driver.CUjitInputType.CU_JIT_INPUT_LIBRARY, devrt, 0, None, None))
        err, cubin, size = driver.cuLinkComplete(state)
        if err != driver.CUresult.CUDA_SUCCESS or cubin is None:
            print(error_log.value.decode(errors="replace"))
            check((err,))
        assert cubin is not None
        print(f"> linked with {os.path.basename(devrt.decode())}: {size} bytes of CUBIN")
        # the linker owns the image: load it before cuLinkDestroy
        module = check(driver.cuModuleLoadData(cubin))
    finally:
        check(driver.cuLinkDestroy(state))
        del values  # (only now)
    return module


def kernel_node(func, args):
    """CUgraphNodeParams of a one-thread kernel node."""
    params = driver.CUgraphNodeParams()
    params.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
    params.kernel.func = func
    params.kernel.gridDimX = params.kernel.gridDimY = params.kernel.gridDimZ = 1
    params.kernel.blockDimX = params.kernel.blockDimY = params.kernel.blockDimZ = 1
    params.kernel.sharedMemBytes = 0
    params.kernel.kernelParams = args
    return params


def while_node(handle, ctx):
    """CUgraphNodeParams of a WHILE node with one body graph."""
    params = driver.CUgraphNodeParams()
    params.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    params.conditional.handle = handle
    params.conditional.type = driver.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_WHILE
    params.conditional.size = 1
    params.conditional.ctx = ctx
    return params


def run(graph_exec, stream, d_counts, start):
    """Launch with the counter at `start`; returns the four counts."""
    counts = np.array([start, 0, 0, 0], dtype=np.int32)
    # the copy goes on the graph's stream: that orders it before the launch
    check(driver.cuMemcpyHtoDAsync(d_counts, counts, counts.nbytes, stream))
    check(driver.cuGraphLaunch(graph_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    check(driver.cuMemcpyDtoH(counts, d_counts, counts.nbytes))
    return [int(v) for v in counts]


def simple_do_while_graph(module, ctx, stream, d_counts):
    print("simpleDoWhileGraph: Building graph...")
    empty = check(driver.cuModuleGetFunction(module, b"doWhileEmptyKernel"))
    loop = check(driver.cuModuleGetFunction(module, b"doWhileLoopKernel"))
    graph = check(driver.cuGraphCreate(0))

    # the condition starts every launch at 1: the body runs before the first test
    handle = check(driver.cuGraphConditionalHandleCreate(graph, ctx, 1, driver.CU_GRAPH_COND_ASSIGN_DEFAULT))
    c_params = while_node(handle, ctx)
    check(cu13.cuGraphAddNode(graph, None, None, 0, c_params))
    body = c_params.conditional.phGraph_out[0]  # filled in by the driver

    capture_stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    check(driver.cuStreamBeginCaptureToGraph(capture_stream, body, None, None, 0,
                                             driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    for _ in range(2):
        check(driver.cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, capture_stream, ((d_counts,), (None,)), None))
    check(driver.cuLaunchKernel(loop, 1, 1, 1, 1, 1, 1, 0, capture_stream,
                                ((d_counts, handle), (None, None)), None))
    check(driver.cuStreamEndCapture(capture_stream))
    check(driver.cuStreamDestroy(capture_stream))
    _, body_nodes = check(driver.cuGraphGetNodes(body, 0))
    print(f"  body graph: {body_nodes} kernel nodes captured from a stream")

    graph_exec = check(driver.cuGraphInstantiate(graph, 0))
    print("Host: Launching graph with loop counter set to 10")
    counts = run(graph_exec, stream, d_counts, 10)
    expected = [0, 10, 20, 0]
    ok = counts == expected
    print(f"  counter, loop kernel runs, other body kernel runs: {counts[:3]}, expected {expected[:3]}: "
          f"{'ok' if ok else 'WRONG'}")

    check(driver.cuGraphExecDestroy(graph_exec))
    check(driver.cuGraphDestroy(graph))
    print("simpleDoWhileGraph: Complete\n")
    return ok


def while_graph(module, ctx, stream, d_counts):
    print("whileGraph: Building graph A -> WHILE [ C ] -> D...")
    step = check(driver.cuModuleGetFunction(module, b"capturedWhileKernel"))
    tail = check(driver.cuModuleGetFunction(module, b"capturedWhileEmptyKernel"))
    graph = check(driver.cuGraphCreate(0))

    # no default value: kernel A sets the condition before the WHILE node tests it
    handle = check(driver.cuGraphConditionalHandleCreate(graph, ctx, 0, 0))
    step_args = ((d_counts, handle), (None, None))
    node_a = check(cu13.cuGraphAddNode(graph, None, None, 0, kernel_node(step, step_args)))
    c_params = while_node(handle, ctx)
    node_b = check(cu13.cuGraphAddNode(graph, [node_a], None, 1, c_params))
    body = c_params.conditional.phGraph_out[0]
    check(cu13.cuGraphAddNode(body, None, None, 0, kernel_node(step, step_args)))
    check(cu13.cuGraphAddNode(graph, [node_b], None, 1, kernel_node(tail, ((d_counts,), (None,)))))

    node_type = check(driver.cuGraphNodeGetType(node_b))
    _, n_nodes = check(driver.cuGraphGetNodes(graph, 0))
    print(f"  {n_nodes} nodes, the second of type {node_type.name}")

    graph_exec = check(driver.cuGraphInstantiate(graph, 0))
    ok = True
    for start, expected in ((0, [0, 1, 0, 1]), (10, [0, 10, 0, 1])):
        print(f"Host: Launching graph with loop counter set to {start}")
        counts = run(graph_exec, stream, d_counts, start)
        good = counts == expected
        ok = ok and good
        print(f"  counter {counts[0]}, A and C ran {counts[1]} times, D ran {counts[3]} time(s); "
              f"expected {expected[0]}, {expected[1]}, {expected[3]}: {'ok' if good else 'WRONG'}")

    check(driver.cuGraphExecDestroy(graph_exec))
    check(driver.cuGraphDestroy(graph))
    print("whileGraph: Complete\n")
    return ok


def main():
    dev, ctx = select_device(0)
    print(f"Conditional graph nodes on {device_name(dev)}")
    devrt = cudadevrt_path()
    if devrt is None:
        requirement_not_met("libcudadevrt.a (from a CUDA toolkit or the nvidia-cuda-runtime wheel) of "
                            "NVRTC's CUDA release was not found; set CUDA_HOME")
    # relocatable code: cudaGraphSetConditional is resolved by the link with libcudadevrt.a
    ptx = compile_source(LOOP_KERNELS, device_arch(dev), fmt="ptx", name=b"graphConditionalLoop.cu",
                         options=[b"-rdc=true"])
    module = link_with_cudadevrt(ptx, devrt)

    stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    d_counts = check(driver.cuMemAlloc(4 * ctypes.sizeof(ctypes.c_int)))
    ok = simple_do_while_graph(module, ctx, stream, d_counts)
    ok = while_graph(module, ctx, stream, d_counts) and ok

    check(driver.cuMemFree(d_counts))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    print("Conditional graph loops: " + ("all counts ok" if ok else "WRONG RESULT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
