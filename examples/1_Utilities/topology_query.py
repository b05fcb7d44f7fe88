"""How the GPUs and the CPU are linked, the Python twin of the CUDA sample topologyQuery. API area:
peer-to-peer attributes (cudaDeviceGetP2PAttribute) and device attributes
(cudaDeviceGetAttribute) of the system topology.

For every ordered pair of GPUs that can access each other's memory, whether native atomics work
across the link and the link's performance rank; then, for every GPU, whether atomics on host
memory are native. (With one GPU only the GPU <-> CPU part has anything to show.)

Checked: each runtime answer equals the driver API's own (cuDeviceGetP2PAttribute,
cuDeviceGetAttribute), and access support equals cudaDeviceCanAccessPeer.

Run: python examples/1_Utilities/topology_query.py
Exit status: 0 when the answers agree, 1 otherwise, 3 when no CUDA device is available.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.toolkit import runtime_device_count  # noqa: E402
from cuda.bindings import driver, runtime  # noqa: E402

P2P = runtime.cudaDeviceP2PAttr
DRV_P2P = driver.CUdevice_P2PAttribute
DRIVER_P2P = {
    P2P.cudaDevP2PAttrAccessSupported: DRV_P2P.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
    P2P.cudaDevP2PAttrPerformanceRank: DRV_P2P.CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
    P2P.cudaDevP2PAttrNativeAtomicSupported: DRV_P2P.CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
}


def main():
    device_count = runtime_device_count(1)
    check(driver.cuInit(0))
    disagreements = []

    def p2p_attribute(attr, device1, device2):
        value = check(runtime.cudaDeviceGetP2PAttribute(attr, device1, device2))
        from_driver = check(driver.cuDeviceGetP2PAttribute(DRIVER_P2P[attr], check(driver.cuDeviceGet(device1)),
                                                           check(driver.cuDeviceGet(device2))))
        if value != from_driver:
            disagreements.append(f"{attr.name} GPU{device1} -> GPU{device2}: runtime {value}, driver {from_driver}")
        return value

    # device <-> device links
    for device1 in range(device_count):
        for device2 in range(device_count):
            if device1 == device2:
                continue
            access_supported = p2p_attribute(P2P.cudaDevP2PAttrAccessSupported, device1, device2)
            perf_rank = p2p_attribute(P2P.cudaDevP2PAttrPerformanceRank, device1, device2)
            atomic_supported = p2p_attribute(P2P.cudaDevP2PAttrNativeAtomicSupported, device1, device2)
            can_access = check(runtime.cudaDeviceCanAccessPeer(device1, device2))
            if bool(can_access) != bool(access_supported):
                disagreements.append(f"GPU{device1} -> GPU{device2}: cudaDeviceCanAccessPeer {can_access}, "
                                     f"cudaDevP2PAttrAccessSupported {access_supported}")
            if access_supported:
                print(f"GPU{device1} <-> GPU{device2}:")
                print(f"  * Atomic Supported: {'yes' if atomic_supported else 'no'}")
                print(f"  * Perf Rank: {perf_rank}")

    # device <-> host links
    for device in range(device_count):
        atomic_supported = check(runtime.cudaDeviceGetAttribute(
            runtime.cudaDeviceAttr.cudaDevAttrHostNativeAtomicSupported, device))
        from_driver = check(driver.cuDeviceGetAttribute(
            driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, check(driver.cuDeviceGet(device))))
        if atomic_supported != from_driver:
            disagreements.append(f"host native atomics GPU{device}: runtime {atomic_supported}, driver {from_driver}")
        print(f"GPU{device} <-> CPU:")
        print(f"  * Atomic Supported: {'yes' if atomic_supported else 'no'}")

    for d in disagreements:
        print(f"DISAGREEMENT: {d}")
    print(f"{device_count} GPU(s): runtime and driver answers " + ("agree" if not disagreements else "DISAGREE"))
    return 0 if not disagreements else 1


if __name__ == "__main__":
    sys.exit(main())
