"""Helpers for the examples that port the runtime-API CUDA samples.

What the samples take from `helper_cuda.h` and from the C++ half of `cuda_runtime.h`, written in
Python:
  * find_cuda_device(): `findCudaDevice` (count the devices, pick one, cudaSetDevice, say which);
  * dim3(): the `dim3` constructor with default 1s;
  * build_library() / get_kernels(): what nvcc and `<<<>>>` do for a C program: the kernels are
    compiled by NVRTC for the device's architecture, loaded with cudaLibraryLoadData, and each
    is looked up by name with cudaLibraryGetKernel; the cudaKernel_t is what the examples hand
    to cudaLaunchKernel, cudaFuncSetAttribute, cudaOccupancy* and kernel graph nodes;
  * cores_per_sm(): `_ConvertSMVer2Cores`;
  * occupancy_max_potential_block_size(): `cudaOccupancyMaxPotentialBlockSize`, a template in
    cuda_runtime.h (header code, so not a library function the bindings could wrap), built on
    cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags as the template is.

Examples put the `examples/` folder on sys.path and `from common.rt_helpers import ...`.
"""
from cuda.bindings import runtime

from . import check, compile_source, requirement_not_met
from .toolkit import cuda_include_options, runtime_device_count


def find_cuda_device(ordinal: int = 0) -> int:
    """Make device `ordinal` current (cudaSetDevice) and print its name and compute capability;
    exits with 'requirement not met' when there is no such device."""
    runtime_device_count(ordinal + 1)
    check(runtime.cudaSetDevice(ordinal))
    prop = check(runtime.cudaGetDeviceProperties(ordinal))
    print(f'GPU Device {ordinal}: "{prop_name(prop)}" with compute capability {prop.major}.{prop.minor}')
    return ordinal


def prop_name(prop: runtime.cudaDeviceProp) -> str:
    """cudaDeviceProp.name as text (the field is a NUL-padded char array)."""
    return prop.name.split(b"\0", 1)[0].decode(errors="replace")


def dim3(x: int, y: int = 1, z: int = 1) -> runtime.dim3:
    d = runtime.dim3()
    d.x, d.y, d.z = x, y, z
    return d


def device_arch(dev: int) -> str:
    """"90" for a device of compute capability 9.0 (NVRTC's --gpu-architecture=sm_90)."""
    prop = check(runtime.cudaGetDeviceProperties(dev))
    return f"{prop.major}{prop.minor}"


def include_options(headers: tuple[str, ...]) -> list[bytes]:
    """NVRTC `-I` options for a CUDA include folder holding every one of `headers`; exits with
    'requirement not met' when none is found."""
    options = cuda_include_options(required=headers)
    if options is None:
        requirement_not_met(f"the CUDA headers {', '.join(headers)} for NVRTC (set CUDA_HOME to a "
                            "CUDA toolkit, or install nvidia-cuda-runtime and nvidia-cuda-cccl)")
    return options


def compile_cubin(source: bytes, arch: str, name: str, headers: tuple[str, ...] = (),
                  options: tuple[bytes, ...] = ()) -> bytes:
    """NVRTC: `source` as a CUBIN for sm_ARCH (C++17; `-I` options for `headers` when given)."""
    opts = [b"-std=c++17", *options]
    if headers:
        opts += include_options(headers)
    return compile_source(source, arch, fmt="cubin", name=name.encode(), options=opts)


def build_library(cubin: bytes) -> runtime.cudaLibrary_t:
    """cudaLibraryLoadData of a compiled image (no JIT or library options)."""
    return check(runtime.cudaLibraryLoadData(cubin, None, None, 0, None, None, 0))


def get_kernels(library: runtime.cudaLibrary_t, *names: str) -> list[runtime.cudaKernel_t]:
    return [check(runtime.cudaLibraryGetKernel(library, n.encode())) for n in names]


# cores per multiprocessor by compute capability (what helper_cuda.h's table says)
_CORES_PER_SM = {
    (3, 0): 192, (3, 2): 192, (3, 5): 192, (3, 7): 192, (5, 0): 128, (5, 2): 128, (5, 3): 128,
    (6, 0): 64, (6, 1): 128, (6, 2): 128, (7, 0): 64, (7, 2): 64, (7, 5): 64, (8, 0): 64,
    (8, 6): 128, (8, 7): 128, (8, 9): 128, (9, 0): 128, (10, 0): 128, (10, 1): 128, (10, 3): 128,
    (11, 0): 128, (12, 0): 128, (12, 1): 128,
}


def cores_per_sm(major: int, minor: int) -> int:
    """CUDA cores per multiprocessor; an architecture not in the table counts as the newest one
    listed (as the C helper does)."""
    if (major, minor) in _CORES_PER_SM:
        return _CORES_PER_SM[(major, minor)]
    return _CORES_PER_SM[max(_CORES_PER_SM)]


def occupancy_max_potential_block_size(func: runtime.cudaKernel_t, dynamic_smem: int = 0,
                                       block_size_limit: int = 0, flags: int = 0) -> tuple[int, int]:
    """(minGridSize, blockSize): the block size with the highest occupancy (threads resident
    per multiprocessor) and the grid size that fills the device with such blocks.

    Block sizes from the largest allowed down to one warp, a warp at a time, are tried with
    cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags; the first with the highest occupancy
    wins (so a larger block wins a tie), and the search stops early at full occupancy.
    """
    dev = check(runtime.cudaGetDevice())
    attr = runtime.cudaDeviceAttr
    max_threads_per_sm = check(runtime.cudaDeviceGetAttribute(attr.cudaDevAttrMaxThreadsPerMultiProcessor, dev))
    warp_size = check(runtime.cudaDeviceGetAttribute(attr.cudaDevAttrWarpSize, dev))
    dev_max_block = check(runtime.cudaDeviceGetAttribute(attr.cudaDevAttrMaxThreadsPerBlock, dev))
    sm_count = check(runtime.cudaDeviceGetAttribute(attr.cudaDevAttrMultiProcessorCount, dev))
    func_max_block = check(runtime.cudaFuncGetAttributes(func)).maxThreadsPerBlock

    limit = min(dev_max_block, func_max_block)
    if block_size_limit > 0:
        limit = min(limit, block_size_limit)
    best_block, best_blocks_per_sm, best_occupancy = 0, 0, 0
    aligned = (limit + warp_size - 1) // warp_size * warp_size
    while aligned > 0:
        block = min(limit, aligned)
        blocks_per_sm = check(runtime.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            func, block, dynamic_smem, flags))
        if blocks_per_sm * block > best_occupancy:
            best_block, best_blocks_per_sm, best_occupancy = block, blocks_per_sm, blocks_per_sm * block
        if best_occupancy == max_threads_per_sm:
            break
        aligned -= warp_size
    return best_blocks_per_sm * sm_count, best_block
