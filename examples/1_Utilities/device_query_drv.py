"""Lists the properties of every CUDA device through the driver API, port of the CUDA sample
deviceQueryDrv.

API area: device management: cuInit, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName,
cuDeviceGetAttribute (one CU_DEVICE_ATTRIBUTE_* at a time), cuDeviceTotalMem, cuDriverGetVersion,
and cuDeviceCanAccessPeer between devices.

The properties are printed as the sample prints them (the few whose runtime counterparts CUDA 13
deprecated or dropped, such as the clock rates, only when the driver still reports them). Then, since a listing checks nothing by
itself, a few facts are cross-checked: the warp size is 32 and the block limits fit in the
threads-per-block limit; cuDeviceGetPCIBusId names the same PCI domain, bus and device as the
attributes, and cuDeviceGetByPCIBusId maps it back to the device; cuDeviceGetUuid is not all
zero; and cuMemGetInfo (in the device's primary context) reports the same total memory as
cuDeviceTotalMem, with no more free than that.

Run: python examples/1_Utilities/device_query_drv.py
Exit status: 0 when every device was listed and the cross-checks hold, 1 otherwise, 3 when no CUDA
device is available.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, requirement_not_met  # noqa: E402
from cuda.bindings import driver  # noqa: E402

A = driver.CUdevice_attribute

# CUDA cores per multiprocessor by compute capability (as _ConvertSMVer2CoresDRV tabulates it)
CORES_PER_SM = {
    (3, 0): 192, (3, 2): 192, (3, 5): 192, (3, 7): 192, (5, 0): 128, (5, 2): 128, (5, 3): 128,
    (6, 0): 64, (6, 1): 128, (6, 2): 128, (7, 0): 64, (7, 2): 64, (7, 5): 64, (8, 0): 64,
    (8, 6): 128, (8, 7): 128, (8, 9): 128, (9, 0): 128, (10, 0): 128, (10, 1): 128, (10, 3): 128,
    (11, 0): 128, (12, 0): 128, (12, 1): 128,
}

COMPUTE_MODES = {
    0: "Default (multiple host threads can use ::cudaSetDevice() with device simultaneously)",
    1: "Exclusive (only one host thread in one process is able to use ::cudaSetDevice() with this device)",
    2: "Prohibited (no host thread can use ::cudaSetDevice() with this device)",
    3: "Exclusive Process (many threads in one process is able to use ::cudaSetDevice() with this device)",
}


def cores_per_sm(major, minor):
    if (major, minor) in CORES_PER_SM:
        return CORES_PER_SM[(major, minor)]
    newest = max(CORES_PER_SM)
    print(f"  MapSMtoCores for SM {major}.{minor} is undefined. Default to use {CORES_PER_SM[newest]} Cores/SM")
    return CORES_PER_SM[newest]


def c_string(b):
    return b.split(b"\0", 1)[0].decode(errors="replace")


def get_attribute(attr, dev):
    """getCudaAttribute<int>: one attribute of the device."""
    return check(driver.cuDeviceGetAttribute(attr, dev))


def optional_attribute(attr, dev):
    """An attribute whose runtime counterpart CUDA 13 deprecated or dropped (clock rates, overlap,
    kernel timeout, multi-device cooperative launch): None, not a failure, if the driver no
    longer reports it."""
    err, value = driver.cuDeviceGetAttribute(attr, dev)
    return value if err == driver.CUresult.CUDA_SUCCESS else None


def yes_no_na(v):
    return "n/a (not reported by the driver)" if v is None else yes_no(v)


def yes_no(v):
    return "Yes" if v else "No"


def query_device(dev):
    """Print one device's properties (the sample's loop body); return the failed cross-checks."""
    major = get_attribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
    minor = get_attribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
    name = c_string(check(driver.cuDeviceGetName(256, dev)))
    print(f'\nDevice {int(dev)}: "{name}"')

    driver_version = check(driver.cuDriverGetVersion())
    print(f"  CUDA Driver Version:                           {driver_version // 1000}.{(driver_version % 100) // 10}")
    print(f"  CUDA Capability Major/Minor version number:    {major}.{minor}")

    total_global_mem = check(driver.cuDeviceTotalMem(dev))
    print(f"  Total amount of global memory:                 {total_global_mem / 1048576.0:.0f} MBytes "
          f"({total_global_mem} bytes)")

    sm_count = get_attribute(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)
    cores = cores_per_sm(major, minor)
    print(f"  ({sm_count:2d}) Multiprocessors, ({cores:3d}) CUDA Cores/MP:     {cores * sm_count} CUDA Cores")
    clock_rate = optional_attribute(A.CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev)
    if clock_rate is not None:
        print(f"  GPU Max Clock rate:                            {clock_rate * 1e-3:.0f} MHz ({clock_rate * 1e-6:0.2f} GHz)")
    memory_clock = optional_attribute(A.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev)
    if memory_clock is not None:
        print(f"  Memory Clock rate:                             {memory_clock * 1e-3:.0f} MHz")
    bus_width = get_attribute(A.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev)
    print(f"  Memory Bus Width:                              {bus_width}-bit")
    l2_cache_size = get_attribute(A.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev)
    if l2_cache_size:
        print(f"  L2 Cache Size:                                 {l2_cache_size} bytes")

    tex1d = get_attribute(A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, dev)
    tex2d = [get_attribute(a, dev) for a in (A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
                                             A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT)]
    tex3d = [get_attribute(a, dev) for a in (A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
                                             A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
                                             A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH)]
    print(f"  Max Texture Dimension Sizes                    1D=({tex1d}) 2D=({tex2d[0]}, {tex2d[1]}) "
          f"3D=({tex3d[0]}, {tex3d[1]}, {tex3d[2]})")
    tex1d_layered = [get_attribute(a, dev) for a in (A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH,
                                                     A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS)]
    print(f"  Maximum Layered 1D Texture Size, (num) layers  1D=({tex1d_layered[0]}), {tex1d_layered[1]} layers")
    tex2d_layered = [get_attribute(a, dev) for a in (A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH,
                                                     A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT,
                                                     A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS)]
    print(f"  Maximum Layered 2D Texture Size, (num) layers  2D=({tex2d_layered[0]}, {tex2d_layered[1]}), "
          f"{tex2d_layered[2]} layers")

    print(f"  Total amount of constant memory:               "
          f"{get_attribute(A.CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, dev)} bytes")
    print(f"  Total amount of shared memory per block:       "
          f"{get_attribute(A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev)} bytes")
    print(f"  Total number of registers available per block: "
          f"{get_attribute(A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, dev)}")
    warp_size = get_attribute(A.CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev)
    print(f"  Warp size:                                     {warp_size}")
    print(f"  Maximum number of threads per multiprocessor:  "
          f"{get_attribute(A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev)}")
    max_threads_per_block = get_attribute(A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev)
    print(f"  Maximum number of threads per block:           {max_threads_per_block}")
    block_dim = [get_attribute(a, dev) for a in (A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                                 A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                                 A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)]
    print(f"  Max dimension size of a thread block (x,y,z): ({block_dim[0]}, {block_dim[1]}, {block_dim[2]})")
    grid_dim = [get_attribute(a, dev) for a in (A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                                A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                                A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)]
    print(f"  Max dimension size of a grid size (x,y,z):    ({grid_dim[0]}, {grid_dim[1]}, {grid_dim[2]})")
    print(f"  Texture alignment:                             "
          f"{get_attribute(A.CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, dev)} bytes")
    print(f"  Maximum memory pitch:                          {get_attribute(A.CU_DEVICE_ATTRIBUTE_MAX_PITCH, dev)} bytes")

    gpu_overlap = optional_attribute(A.CU_DEVICE_ATTRIBUTE_GPU_OVERLAP, dev)
    async_engines = get_attribute(A.CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, dev)
    print(f"  Concurrent copy and kernel execution:          {yes_no(gpu_overlap or async_engines)} with "
          f"{async_engines} copy engine(s)")
    print(f"  Run time limit on kernels:                     "
          f"{yes_no_na(optional_attribute(A.CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, dev))}")
    print(f"  Integrated GPU sharing Host Memory:            {yes_no(get_attribute(A.CU_DEVICE_ATTRIBUTE_INTEGRATED, dev))}")
    print(f"  Support host page-locked memory mapping:       "
          f"{yes_no(get_attribute(A.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, dev))}")
    print(f"  Concurrent kernel execution:                   "
          f"{yes_no(get_attribute(A.CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, dev))}")
    print(f"  Alignment requirement for Surfaces:            "
          f"{yes_no(get_attribute(A.CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT, dev))}")
    ecc = get_attribute(A.CU_DEVICE_ATTRIBUTE_ECC_ENABLED, dev)
    print(f"  Device has ECC support:                        {'Enabled' if ecc else 'Disabled'}")
    print(f"  Device supports Unified Addressing (UVA):      "
          f"{yes_no(get_attribute(A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev))}")
    print(f"  Device supports Managed Memory:                {yes_no(get_attribute(A.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, dev))}")
    print(f"  Device supports Compute Preemption:            "
          f"{yes_no(get_attribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED, dev))}")
    print(f"  Supports Cooperative Kernel Launch:            "
          f"{yes_no(get_attribute(A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev))}")
    print(f"  Supports MultiDevice Co-op Kernel Launch:      "
          f"{yes_no_na(optional_attribute(A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, dev))}")
    pci = [get_attribute(a, dev) for a in (A.CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, A.CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
                                           A.CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)]
    print(f"  Device PCI Domain ID / Bus ID / location ID:   {pci[0]} / {pci[1]} / {pci[2]}")
    compute_mode = get_attribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev)
    print("  Compute Mode:")
    print(f"     < {COMPUTE_MODES.get(compute_mode, 'Unknown')} >")

    # --- cross-checks --------------------------------------------------------------------------
    failed = []
    if warp_size != 32:
        failed.append(f"warp size {warp_size}, expected 32")
    if not (0 < block_dim[0] <= max_threads_per_block and 0 < block_dim[2] <= max_threads_per_block):
        failed.append(f"block dimensions {block_dim} against {max_threads_per_block} threads per block")
    if sm_count <= 0 or not name:
        failed.append(f"{sm_count} multiprocessors, name {name!r}")

    # "domain:bus:device.function", hexadecimal
    bus_id = c_string(check(driver.cuDeviceGetPCIBusId(64, dev)))
    parsed = [int(part, 16) for part in bus_id.replace(".", ":").split(":")]
    same_device = check(driver.cuDeviceGetByPCIBusId(bus_id.encode()))
    if parsed[:3] != pci or int(same_device) != int(dev):
        failed.append(f"PCI bus id {bus_id!r} (attributes: {pci}) maps to device {int(same_device)}")
    uuid = bytes(check(driver.cuDeviceGetUuid(dev)).bytes)
    if len(uuid) != 16 or not any(uuid):
        failed.append(f"UUID {uuid.hex()}")

    ctx = check(driver.cuDevicePrimaryCtxRetain(dev))
    check(driver.cuCtxSetCurrent(ctx))
    free, total = check(driver.cuMemGetInfo())
    check(driver.cuCtxSetCurrent(None))
    check(driver.cuDevicePrimaryCtxRelease(dev))
    if total != total_global_mem or free > total:
        failed.append(f"cuMemGetInfo: {free} free of {total} bytes, cuDeviceTotalMem: {total_global_mem}")
    print(f"  Cross-checks (PCI bus id {bus_id}, UUID GPU-{uuid.hex()[:8]}..., {free >> 20} MiB free): "
          + ("ok" if not failed else "FAILED: " + "; ".join(failed)))
    return failed


def main():
    print(f"{sys.argv[0]} Starting...\n")
    print("CUDA Device Query (Driver API) statically linked version ")
    try:
        res = driver.cuInit(0)
    except RuntimeError as e:
        requirement_not_met(f"no CUDA device (the driver could not be loaded: {e})")
    if int(res[0]) != 0:
        requirement_not_met(f"no CUDA device (cuInit returned {res[0]!r})")
    device_count = check(driver.cuDeviceGetCount())
    if device_count == 0:
        print("There are no available device(s) that support CUDA")
        requirement_not_met("no CUDA device (cuDeviceGetCount found none)")
    print(f"Detected {device_count} CUDA Capable device(s)")

    failed = []
    devices = [check(driver.cuDeviceGet(i)) for i in range(device_count)]
    for dev in devices:
        failed += query_device(dev)

    # with two or more GPUs, peer-to-peer access between every pair
    if device_count >= 2:
        for d0 in devices:
            for d1 in devices:
                if int(d0) == int(d1):
                    continue
                can_access_peer = check(driver.cuDeviceCanAccessPeer(d0, d1))
                name0 = c_string(check(driver.cuDeviceGetName(256, d0)))
                name1 = c_string(check(driver.cuDeviceGetName(256, d1)))
                print(f"> Peer-to-Peer (P2P) access from {name0} (GPU{int(d0)}) -> {name1} (GPU{int(d1)}) : "
                      f"{yes_no(can_access_peer)}")

    print("Result = " + ("PASS" if not failed else "FAIL"))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
