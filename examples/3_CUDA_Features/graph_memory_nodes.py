"""Allocating and freeing memory inside CUDA graphs, the Python twin of the CUDA sample
graphMemoryNodes. API area: graph memory nodes (cudaGraphAddMemAllocNode /
cudaGraphAddMemFreeNode), stream-ordered allocation captured into a graph (cudaMallocAsync /
cudaFreeAsync under cudaStreamBeginCapture), kernel and memcpy graph nodes, and the lifetime of
graph allocations outside their graph.

The work: square an input array, then negate the squares, with the input, the squares and the
negated squares allocated and freed along the way (the negated squares may reuse the input's
virtual address once the input is freed). It runs six ways:
  1. in a stream (two streams joined by events), with cudaMallocAsync / cudaFreeAsync;
  2. as a graph captured from exactly that stream work;
  3. as a graph built node by node (alloc, memcpy, kernel and free nodes);
  4. as that graph without the final free, so the negated squares outlive the graph launch: a
     kernel launched after the graph validates them on the device, then cudaFree frees them;
  5. the same graph launched again, the negated squares freed with cudaFreeAsync;
  6. launched once more, the negated squares freed by a second graph holding only a free node.
Every run is validated against numpy on the host (the sample checks runs 5 and 6 on the device
only); runs 4-6 also by the validating kernel, which compares with a reference array computed by
numpy and sets a flag in managed memory.

Run: python examples/3_CUDA_Features/graph_memory_nodes.py
Exit status: 0 when every run validates, 1 otherwise, 3 when no CUDA device with memory pools
(and a driver of CUDA 11.4 or newer) is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, requirement_not_met  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels)
from common.toolkit import host_array  # noqa: E402
from cuda.bindings import runtime  # noqa: E402

THREADS_PER_BLOCK = 512
ALLOWABLE_VARIANCE = 1.0e-6
NUM_ELEMENTS = 8000000

KERNELS = b"""
#define ALLOWABLE_VARIANCE 1.e-6f

// the square of each input element
extern "C" __global__ void squareArray(const float *input, float *output, int numElements)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < numElements)
        output[idx] = input[idx] * input[idx];
}

// the negative of each input element
extern "C" __global__ void negateArray(const float *input, float *output, int numElements)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < numElements)
        output[idx] = input[idx] * -1;
}

struct negSquareArrays {
    float *input;
    float *square;
    float *negSquare;
    int numElements;
    size_t bytes;
    size_t numBlocks;
};

// sets *foundValidationFailure when d_negSquare differs from the reference (passed by value)
extern "C" __global__ void validateGPU(float *d_negSquare, negSquareArrays devRefArrays,
                                       bool *foundValidationFailure)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < devRefArrays.numElements) {
        float ref = devRefArrays.negSquare[idx];
        float diff = d_negSquare[idx] - ref;
        diff *= diff;
        ref *= ref;
        if (diff / ref > ALLOWABLE_VARIANCE)
            *foundValidationFailure = true;
    }
}
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "graphMemoryNodes.cu")


class NegSquareArrays(ctypes.Structure):
    """The kernel's struct negSquareArrays, for passing by value."""
    _fields_ = [
        ("input", ctypes.c_void_p),
        ("square", ctypes.c_void_p),
        ("negSquare", ctypes.c_void_p),
        ("numElements", ctypes.c_int),
        ("bytes", ctypes.c_size_t),
        ("numBlocks", ctypes.c_size_t),
    ]


class HostArrays:
    """The host side of negSquareArrays: numpy arrays."""

    def __init__(self, rng):
        self.rng = rng
        self.num_elements = NUM_ELEMENTS
        self.bytes = NUM_ELEMENTS * 4
        self.num_blocks = (NUM_ELEMENTS + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        self.input = rng.random(NUM_ELEMENTS, dtype=np.float32)
        self.square = rng.random(NUM_ELEMENTS, dtype=np.float32)
        self.neg_square = rng.random(NUM_ELEMENTS, dtype=np.float32)

    def reset_outputs(self):
        self.square[:] = self.rng.random(NUM_ELEMENTS, dtype=np.float32)
        self.neg_square[:] = self.rng.random(NUM_ELEMENTS, dtype=np.float32)


class Sample:
    def __init__(self, kernels, device, host):
        self.square_array, self.negate_array, self.validate_gpu = kernels
        self.device = device
        self.host = host
        self.failures = 0

    def kernel_args(self, d_in, d_out):
        return ((d_in, d_out, self.host.num_elements), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))

    def launch(self, kernel, args, stream):
        check(runtime.cudaLaunchKernel(kernel, dim3(self.host.num_blocks), dim3(THREADS_PER_BLOCK), args, 0, stream))

    def create_free_graph(self, d_ptr):
        graph = check(runtime.cudaGraphCreate(0))
        check(runtime.cudaGraphAddMemFreeNode(graph, None, 0, d_ptr))
        graph_exec = check(runtime.cudaGraphInstantiate(graph, 0))
        check(runtime.cudaGraphDestroy(graph))
        return graph_exec

    def create_negate_squares_graph_explicitly(self, keep_neg_square=False):
        """The graph, node by node:

            alloc d_input
                  |
            alloc d_square
                  |
            memcpy input to device
                  |
            squareArray kernel ------------> memcpy d_square to host
                  |                                   |
            free d_input                              |
                  |                                   |
            alloc d_negSquare                         |
                  |                                   |
            negateArray kernel ------------> free d_square
                  |
            memcpy d_negSquare to host
                  |
            free d_negSquare   (left out with keep_neg_square: then d_negSquare is returned)
        """
        host = self.host
        alloc_params = runtime.cudaMemAllocNodeParams()
        alloc_params.bytesize = host.bytes
        alloc_params.poolProps.allocType = runtime.cudaMemAllocationType.cudaMemAllocationTypePinned
        alloc_params.poolProps.location.id = self.device
        alloc_params.poolProps.location.type = runtime.cudaMemLocationType.cudaMemLocationTypeDevice

        kernel_node_params = runtime.cudaKernelNodeParams()
        kernel_node_params.gridDim = dim3(host.num_blocks, 1, 1)
        kernel_node_params.blockDim = dim3(THREADS_PER_BLOCK, 1, 1)
        kernel_node_params.sharedMemBytes = 0
        kernel_node_params.extra = None

        graph = check(runtime.cudaGraphCreate(0))

        # the allocation's address is known when the node is added: it comes back in dptr
        alloc_node_input = check(runtime.cudaGraphAddMemAllocNode(graph, None, 0, alloc_params))
        d_input = alloc_params.dptr
        # to keep the graph simple, the second allocation depends on the first
        alloc_node_square = check(runtime.cudaGraphAddMemAllocNode(graph, [alloc_node_input], 1, alloc_params))
        d_square = alloc_params.dptr

        # the copy writes d_input, so it depends on its allocation (here through alloc_node_square)
        copy_node_input = check(runtime.cudaGraphAddMemcpyNode1D(
            graph, [alloc_node_square], 1, d_input, host.input, host.bytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))

        kernel_node_params.func = self.square_array
        kernel_node_params.kernelParams = self.kernel_args(d_input, d_square)
        square_kernel_node = check(runtime.cudaGraphAddKernelNode(graph, [copy_node_input], 1, kernel_node_params))

        copy_node_square = check(runtime.cudaGraphAddMemcpyNode1D(
            graph, [square_kernel_node], 1, host.square, d_square, host.bytes,
            runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))

        # d_input is freed once the kernel reading it is done
        free_node_input = check(runtime.cudaGraphAddMemFreeNode(graph, [square_kernel_node], 1, d_input))

        # allocated after the free of d_input, so CUDA may give it d_input's virtual address
        alloc_node_neg_square = check(runtime.cudaGraphAddMemAllocNode(graph, [free_node_input], 1, alloc_params))
        d_neg_square = alloc_params.dptr
        if d_neg_square == d_input:
            print("Check verified that d_negSquare and d_input share a virtual address.")

        kernel_node_params.func = self.negate_array
        kernel_node_params.kernelParams = self.kernel_args(d_square, d_neg_square)
        negate_kernel_node = check(runtime.cudaGraphAddKernelNode(graph, [alloc_node_neg_square], 1, kernel_node_params))

        node_dependencies = [copy_node_square, negate_kernel_node]
        check(runtime.cudaGraphAddMemFreeNode(graph, node_dependencies, len(node_dependencies), d_square))

        copy_node_neg_square = check(runtime.cudaGraphAddMemcpyNode1D(
            graph, [negate_kernel_node], 1, host.neg_square, d_neg_square, host.bytes,
            runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))

        if not keep_neg_square:
            check(runtime.cudaGraphAddMemFreeNode(graph, [copy_node_neg_square], 1, d_neg_square))

        graph_exec = check(runtime.cudaGraphInstantiate(graph, 0))
        check(runtime.cudaGraphDestroy(graph))
        return graph_exec, (d_neg_square if keep_neg_square else None)

    def do_negate_squares_in_stream(self, stream1, keep_neg_square=False):
        """The same work in streams:

            stream1                              stream2
            alloc d_input
            alloc d_square
            memcpy input to device
            squareArray kernel
            record squareKernelComplete --> wait squareKernelComplete
            free d_input                         |
            alloc d_negSquare                    memcpy d_square to host
            negateArray kernel                   |
            record negateKernelComplete --> wait negateKernelComplete
            memcpy d_negSquare to host           free d_square
            free d_negSquare (unless kept)       |
            wait squareFree <------------------- record squareFree
        """
        host = self.host
        stream2 = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
        square_kernel_complete = check(runtime.cudaEventCreate())
        negate_kernel_complete = check(runtime.cudaEventCreate())
        square_free = check(runtime.cudaEventCreate())

        # virtual addresses are assigned when cudaMallocAsync is called, so nothing is gained by
        # allocating in two streams
        d_input = check(runtime.cudaMallocAsync(host.bytes, stream1))
        d_square = check(runtime.cudaMallocAsync(host.bytes, stream1))

        check(runtime.cudaMemcpyAsync(d_input, host.input, host.bytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice, stream1))
        self.launch(self.square_array, self.kernel_args(d_input, d_square), stream1)
        check(runtime.cudaEventRecord(square_kernel_complete, stream1))

        check(runtime.cudaStreamWaitEvent(stream2, square_kernel_complete, 0))
        check(runtime.cudaMemcpyAsync(host.square, d_square, host.bytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream2))

        check(runtime.cudaFreeAsync(d_input, stream1))
        d_neg_square = check(runtime.cudaMallocAsync(host.bytes, stream1))
        self.launch(self.negate_array, self.kernel_args(d_square, d_neg_square), stream1)
        check(runtime.cudaEventRecord(negate_kernel_complete, stream1))
        check(runtime.cudaMemcpyAsync(host.neg_square, d_neg_square, host.bytes,
                                      runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream1))
        if not keep_neg_square:
            check(runtime.cudaFreeAsync(d_neg_square, stream1))

        check(runtime.cudaStreamWaitEvent(stream2, negate_kernel_complete, 0))
        check(runtime.cudaFreeAsync(d_square, stream2))
        check(runtime.cudaEventRecord(square_free, stream2))

        check(runtime.cudaStreamWaitEvent(stream1, square_free, 0))

        check(runtime.cudaStreamDestroy(stream2))
        for e in (square_kernel_complete, negate_kernel_complete, square_free):
            check(runtime.cudaEventDestroy(e))
        return d_neg_square if keep_neg_square else None

    def create_negate_squares_graph_with_stream_capture(self):
        stream = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
        check(runtime.cudaStreamBeginCapture(stream, runtime.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
        self.do_negate_squares_in_stream(stream)
        graph = check(runtime.cudaStreamEndCapture(stream))
        graph_exec = check(runtime.cudaGraphInstantiate(graph, 0))
        check(runtime.cudaStreamDestroy(stream))
        check(runtime.cudaGraphDestroy(graph))
        return graph_exec


def validate_host(host, found_validation_failure):
    """Every negated square within the sample's relative variance of -(input^2), by numpy."""
    ref = host.input * host.input * np.float32(-1)
    diff = host.neg_square - ref
    with np.errstate(divide="ignore", invalid="ignore"):
        bad = (diff * diff) / (ref * ref) > ALLOWABLE_VARIANCE
    if bool(np.any(bad)):
        found_validation_failure[0] = 1


def check_validation_failure(found_validation_failure, sample):
    if found_validation_failure[0]:
        print("Validation FAILURE!\n")
        found_validation_failure[0] = 0
        sample.failures += 1
    else:
        print("Validation PASSED!\n")


def main():
    rng = np.random.default_rng()
    device = find_cuda_device(0)

    driver_version = check(runtime.cudaDriverGetVersion())
    print(f"Driver version is: {driver_version // 1000}.{(driver_version % 100) // 10}")
    if driver_version < 11040:
        requirement_not_met("graph memory nodes need a driver of CUDA 11.4 or newer")
    if not check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrMemoryPoolsSupported, device)):
        requirement_not_met("the device does not support memory pools")
    print("Setting up sample.")

    library = build_library(compile_kernels(device_arch(device)))
    kernels = get_kernels(library, "squareArray", "negateArray", "validateGPU")

    host = HostArrays(rng)
    sample = Sample(kernels, device, host)
    # the reference, on the host and on the device; the device-side failure flag
    ref_neg_square = -(host.input * host.input)
    d_ref_neg_square = check(runtime.cudaMalloc(host.bytes))
    check(runtime.cudaMemcpy(d_ref_neg_square, ref_neg_square, host.bytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
    device_ref_arrays = NegSquareArrays(negSquare=d_ref_neg_square, numElements=host.num_elements, bytes=host.bytes)
    flag_ptr = check(runtime.cudaMallocManaged(1, runtime.cudaMemAttachGlobal))
    found_validation_failure = host_array(flag_ptr, 1, np.uint8)
    found_validation_failure[0] = 0

    stream = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    print("Setup complete.\n")

    def validate_gpu(d_neg_square):
        args = ((d_neg_square, device_ref_arrays, flag_ptr), (ctypes.c_void_p, NegSquareArrays, ctypes.c_void_p))
        sample.launch(sample.validate_gpu, args, stream)

    print("Running negateSquares in a stream.")
    sample.do_negate_squares_in_stream(stream)
    check(runtime.cudaStreamSynchronize(stream))
    print("Validating negateSquares in a stream...")
    validate_host(host, found_validation_failure)
    check_validation_failure(found_validation_failure, sample)
    host.reset_outputs()

    print("Running negateSquares in a stream-captured graph.")
    graph_exec = sample.create_negate_squares_graph_with_stream_capture()
    check(runtime.cudaGraphLaunch(graph_exec, stream))
    check(runtime.cudaStreamSynchronize(stream))
    print("Validating negateSquares in a stream-captured graph...")
    validate_host(host, found_validation_failure)
    check_validation_failure(found_validation_failure, sample)
    host.reset_outputs()
    check(runtime.cudaGraphExecDestroy(graph_exec))

    print("Running negateSquares in an explicitly constructed graph.")
    graph_exec, _ = sample.create_negate_squares_graph_explicitly()
    check(runtime.cudaGraphLaunch(graph_exec, stream))
    check(runtime.cudaStreamSynchronize(stream))
    print("Validating negateSquares in an explicitly constructed graph...")
    validate_host(host, found_validation_failure)
    check_validation_failure(found_validation_failure, sample)
    host.reset_outputs()
    check(runtime.cudaGraphExecDestroy(graph_exec))

    # Each of the three runs below frees d_negSquare outside the graph; until then, work outside
    # the graph (the validating kernel) can use it.
    print("Running negateSquares with d_negSquare freed outside the stream.")
    graph_exec, d_neg_square = sample.create_negate_squares_graph_explicitly(keep_neg_square=True)
    assert d_neg_square is not None
    check(runtime.cudaGraphLaunch(graph_exec, stream))
    validate_gpu(d_neg_square)
    # cudaFree is synchronous: the stream must be done with d_negSquare first
    check(runtime.cudaStreamSynchronize(stream))
    check(runtime.cudaFree(d_neg_square))
    print("Validating negateSquares with d_negSquare freed outside the stream...")
    validate_host(host, found_validation_failure)
    check_validation_failure(found_validation_failure, sample)
    host.reset_outputs()

    print("Running negateSquares with d_negSquare freed outside the graph.")
    check(runtime.cudaGraphLaunch(graph_exec, stream))
    validate_gpu(d_neg_square)
    check(runtime.cudaFreeAsync(d_neg_square, stream))
    check(runtime.cudaStreamSynchronize(stream))
    print("Validating negateSquares with d_negSquare freed outside the graph...")
    validate_host(host, found_validation_failure)
    check_validation_failure(found_validation_failure, sample)
    host.reset_outputs()

    print("Running negateSquares with d_negSquare freed in a different graph.")
    graph_exec_free_c = sample.create_free_graph(d_neg_square)
    check(runtime.cudaGraphLaunch(graph_exec, stream))
    validate_gpu(d_neg_square)
    check(runtime.cudaGraphLaunch(graph_exec_free_c, stream))
    check(runtime.cudaStreamSynchronize(stream))
    print("Validating negateSquares with d_negSquare freed in a different graph...")
    validate_host(host, found_validation_failure)
    check_validation_failure(found_validation_failure, sample)

    print("Cleaning up sample.")
    del found_validation_failure
    check(runtime.cudaGraphExecDestroy(graph_exec))
    check(runtime.cudaGraphExecDestroy(graph_exec_free_c))
    check(runtime.cudaStreamDestroy(stream))
    check(runtime.cudaFree(flag_ptr))
    check(runtime.cudaFree(d_ref_neg_square))
    check(runtime.cudaLibraryUnload(library))
    print("Cleanup complete. Exiting sample.")
    print(f"{6 - sample.failures} of 6 runs validated" + ("" if sample.failures == 0 else ": WRONG RESULT"))
    return 0 if sample.failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
