"""Thread block clusters and distributed shared memory, launched with cuLaunchKernelEx.

API area: launch configurations with attributes (CUlaunchConfig + CUlaunchAttribute:
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION and CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE),
cuLaunchKernelEx, cluster occupancy queries (cuOccupancyMaxPotentialClusterSize,
cuOccupancyMaxActiveClusters) and cuFuncSetAttribute for non-portable cluster sizes. Needs compute
capability 9.0.

cuda-samples has no driver-API program for clusters; this one follows the CUDA Programming
Guide's distributed shared memory example: a histogram whose bins are spread over the shared
memory of the blocks of a cluster. Every block counts its share of the input into whichever
block of its cluster owns the bin (a pointer into that block's shared memory from
__cluster_map_shared_rank, updated with atomicAdd), the cluster synchronises, and each block adds
its bins to the result in global memory. The histogram is built with clusters of 2, 4, 8 and, where
the device allows it, 16 blocks; each is compared with numpy's bincount, and the cluster index and
rank every block saw are compared with what the launch configuration implies.

Run: python examples/3_CUDA_Features/cluster_launch.py
Exit status: 0 on correct results, 1 on a wrong one, 3 when no device of compute capability 9.0
or newer is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, release_device, requirement_not_met, select_device  # noqa: E402
from common.drv_helpers import device_name, require_compute_capability  # noqa: E402
from cuda.bindings import driver  # noqa: E402

CLUSTER_HIST_KERNEL = b"""
// A histogram of nbins bins (input values 0 .. nbins - 1) held in the shared memory of the blocks
// of each cluster, bins_per_block bins per block; blockInfo gets, for each block, the cluster
// index, the block's rank in its cluster and the cluster's size, as the block saw them.
extern "C" __global__ void clusterHist(int *bins, int nbins, int bins_per_block, const int *input,
                                       size_t array_size, unsigned int *blockInfo)
{
    extern __shared__ int smem[];
    const unsigned int rank = __clusterRelativeBlockRank();

    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
        smem[i] = 0;
    // every block of the cluster has zeroed its bins before any block counts into them
    __cluster_barrier_arrive();
    __cluster_barrier_wait();

    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < array_size;
         i += (size_t)blockDim.x * gridDim.x) {
        int bin = min(max(input[i], 0), nbins - 1);
        int *owner = (int *)__cluster_map_shared_rank(smem, bin / bins_per_block);
        atomicAdd(owner + bin % bins_per_block, 1);
    }
    // no block leaves (its shared memory) while others may still count into it
    __cluster_barrier_arrive();
    __cluster_barrier_wait();

    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
        atomicAdd(&bins[rank * bins_per_block + i], smem[i]);
    if (threadIdx.x == 0) {
        blockInfo[3 * blockIdx.x + 0] = __clusterIdx().x;
        blockInfo[3 * blockIdx.x + 1] = rank;
        blockInfo[3 * blockIdx.x + 2] = __clusterSizeInBlocks();
    }
}
"""

NBINS = 2048
THREADS = 256
BLOCKS = 128          # a multiple of every cluster size tried
ARRAY_SIZE = 1 << 24


def launch_config(blocks, threads, shared_bytes, stream, cluster_size=None):
    """A CUlaunchConfig with a 1D cluster shape and the 'spread' scheduling preference (no
    attributes without a cluster size)."""
    config = driver.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = blocks, 1, 1
    config.blockDimX, config.blockDimY, config.blockDimZ = threads, 1, 1
    config.sharedMemBytes = shared_bytes
    config.hStream = stream
    if cluster_size is None:
        return config
    cluster_dim = driver.CUlaunchAttribute()
    cluster_dim.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    cluster_dim.value.clusterDim.x = cluster_size
    cluster_dim.value.clusterDim.y = 1
    cluster_dim.value.clusterDim.z = 1
    policy = driver.CUlaunchAttribute()
    policy.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
    policy.value.clusterSchedulingPolicyPreference = driver.CUclusterSchedulingPolicy.CU_CLUSTER_SCHEDULING_POLICY_SPREAD

    config.attrs = [cluster_dim, policy]
    config.numAttrs = 2
    return config


def main():
    dev, _ctx = select_device(0)
    major, minor = require_compute_capability(dev, 9, 0, "thread block clusters")
    if not check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, dev)):
        requirement_not_met(f"device 0 ({device_name(dev)}) does not support cluster launch")
    print(f"Thread block clusters on {device_name(dev)} (compute capability {major}.{minor})")

    cubin = compile_source(CLUSTER_HIST_KERNEL, f"{major}{minor}", fmt="cubin", name=b"clusterHist.cu")
    module = check(driver.cuModuleLoadData(cubin))
    kernel = check(driver.cuModuleGetFunction(module, b"clusterHist"))
    stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))

    rng = np.random.default_rng(90)
    h_input = rng.integers(0, NBINS, size=ARRAY_SIZE, dtype=np.int32)
    expected = np.bincount(h_input, minlength=NBINS)
    d_input = check(driver.cuMemAlloc(h_input.nbytes))
    # (on the stream: a copy from pageable memory may return before the data has landed, and the
    # non-blocking stream does not wait for the legacy default stream)
    check(driver.cuMemcpyHtoDAsync(d_input, h_input, h_input.nbytes, stream))
    d_bins = check(driver.cuMemAlloc(NBINS * 4))
    d_info = check(driver.cuMemAlloc(BLOCKS * 3 * 4))

    # clusters of more than 8 blocks are not portable: the kernel has to opt in, and the device
    # says how large a cluster of this kernel can be
    sizes = [2, 4, 8]
    res = driver.cuFuncSetAttribute(
        kernel, driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
    if res[0] == driver.CUresult.CUDA_SUCCESS:
        probe = launch_config(BLOCKS, THREADS, NBINS // 16 * 4, stream)
        max_cluster = check(driver.cuOccupancyMaxPotentialClusterSize(kernel, probe))
        print(f"cuOccupancyMaxPotentialClusterSize: clusters of up to {max_cluster} blocks")
        if max_cluster >= 16:
            sizes.append(16)
    else:
        print(f"non-portable cluster sizes not available ({res[0].name})")

    ok = True
    for cluster_size in sizes:
        bins_per_block = NBINS // cluster_size
        config = launch_config(BLOCKS, THREADS, bins_per_block * 4, stream, cluster_size)
        active = check(driver.cuOccupancyMaxActiveClusters(kernel, config))

        check(driver.cuMemsetD32Async(d_bins, 0, NBINS, stream))
        check(driver.cuMemsetD32Async(d_info, 0xFFFFFFFF, BLOCKS * 3, stream))
        args = ((d_bins, NBINS, bins_per_block, d_input, ARRAY_SIZE, d_info),
                (None, ctypes.c_int, ctypes.c_int, None, ctypes.c_size_t, None))
        check(driver.cuLaunchKernelEx(config, kernel, args, None))

        h_bins = np.empty(NBINS, dtype=np.int32)
        h_info = np.empty((BLOCKS, 3), dtype=np.uint32)
        check(driver.cuMemcpyDtoHAsync(h_bins, d_bins, h_bins.nbytes, stream))
        check(driver.cuMemcpyDtoHAsync(h_info, d_info, h_info.nbytes, stream))
        check(driver.cuStreamSynchronize(stream))

        block = np.arange(BLOCKS)
        expected_info = np.stack([block // cluster_size, block % cluster_size,
                                  np.full(BLOCKS, cluster_size)], axis=1)
        hist_ok = bool(np.array_equal(h_bins, expected))
        info_ok = bool(np.array_equal(h_info, expected_info))
        ok = ok and hist_ok and info_ok
        print(f"  clusters of {cluster_size:2d} blocks ({bins_per_block} bins each, {active} clusters can be "
              f"resident): histogram {'ok' if hist_ok else 'WRONG'}, cluster index/rank/size per block "
              f"{'ok' if info_ok else 'WRONG'}")

    for d in (d_input, d_bins, d_info):
        check(driver.cuMemFree(d))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    print("Cluster launch: " + ("all results ok" if ok else "WRONG RESULT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
