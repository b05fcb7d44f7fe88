"""Lists the properties of every CUDA device, port of the CUDA sample deviceQuery.

For each device the runtime's cudaGetDeviceProperties is printed field by field: the loop walks the
public fields of cuda.bindings.runtime.cudaDeviceProp in declaration order, so every field the
bindings expose is shown (the sample prints a hand-picked subset). The driver and runtime versions
come first; with two or more devices the peer-to-peer access matrix follows, as in the sample. A
few properties are cross-checked against the driver API's cuDeviceGetAttribute/cuDeviceTotalMem.

Exit status: 0 when every device was queried and the cross-checks agree, 1 otherwise, 3 when no
CUDA device is available.
"""
import enum
import inspect
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.toolkit import rt_check, runtime_device_count  # noqa: E402
from cuda.bindings import driver, runtime  # noqa: E402


def property_fields():
    """Names of cudaDeviceProp's public fields, in the order the C struct declares them."""
    return [name for name, attr in vars(runtime.cudaDeviceProp).items()
            if not name.startswith("_") and inspect.isdatadescriptor(attr)]


def c_string(b):
    return b.split(b"\0", 1)[0].decode(errors="replace")


def format_uuid(raw):
    h = raw.hex()
    return f"GPU-{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def format_value(name, value):
    if name == "name":
        return c_string(value)
    if name == "uuid":
        return format_uuid(bytes(value.bytes))
    if isinstance(value, (bytes, bytearray)):
        return value.hex() or "(empty)"
    if isinstance(value, list):
        return "(" + ", ".join(str(v) for v in value) + ")"
    if isinstance(value, int) and name in ("totalGlobalMem", "totalConstMem", "sharedMemPerBlock",
                                           "sharedMemPerMultiprocessor", "sharedMemPerBlockOptin",
                                           "reservedSharedMemPerBlock", "l2CacheSize",
                                           "persistingL2CacheMaxSize", "memPitch"):
        if value >= 1 << 20:
            return f"{value} bytes ({value / (1 << 20):.0f} MiB)"
        return f"{value} bytes"
    if isinstance(value, enum.Enum):
        return f"{value.name} ({int(value.value)})"
    return str(value)


def cross_check(dev, prop):
    """Compares a few properties with the driver API; returns a list of disagreements."""
    attr = driver.CUdevice_attribute
    cu_dev = check(driver.cuDeviceGet(dev))
    pairs = [
        ("major", attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
        ("minor", attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
        ("multiProcessorCount", attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        ("warpSize", attr.CU_DEVICE_ATTRIBUTE_WARP_SIZE),
        ("maxThreadsPerBlock", attr.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        ("l2CacheSize", attr.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
        ("pciBusID", attr.CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
        ("concurrentManagedAccess", attr.CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS),
    ]
    bad = []
    for field, a in pairs:
        want = check(driver.cuDeviceGetAttribute(a, cu_dev))
        if int(getattr(prop, field)) != int(want):
            bad.append(f"{field} = {getattr(prop, field)}, cuDeviceGetAttribute says {want}")
    total = check(driver.cuDeviceTotalMem(cu_dev))
    if int(prop.totalGlobalMem) != int(total):
        bad.append(f"totalGlobalMem = {prop.totalGlobalMem}, cuDeviceTotalMem says {total}")
    name = c_string(check(driver.cuDeviceGetName(256, cu_dev)))
    if c_string(prop.name) != name:
        bad.append(f"name = {c_string(prop.name)!r}, cuDeviceGetName says {name!r}")
    if prop.totalGlobalMem <= 0 or prop.multiProcessorCount <= 0 or prop.major < 1:
        bad.append("implausible properties (no memory, no multiprocessors or compute capability 0)")
    return bad


def version_text(v):
    return f"{v // 1000}.{(v % 1000) // 10}"


def main():
    print("device_query: CUDA device properties (runtime API)\n")
    count = runtime_device_count(1)
    driver_version = rt_check(runtime.cudaDriverGetVersion())
    runtime_version = rt_check(runtime.cudaRuntimeGetVersion())
    check(driver.cuInit(0))
    print(f"Detected {count} CUDA capable device(s)")
    print(f"CUDA driver version / runtime version: {version_text(driver_version)} / "
          f"{version_text(runtime_version)}")

    fields = [f for f in property_fields() if f != "reserved"]  # `reserved` is padding
    width = max(len(f) for f in fields)
    problems = []
    for dev in range(count):
        rt_check(runtime.cudaSetDevice(dev))
        prop = rt_check(runtime.cudaGetDeviceProperties(dev))
        print(f"\nDevice {dev}: \"{c_string(prop.name)}\" (compute capability {prop.major}.{prop.minor}), "
              f"{len(fields)} cudaDeviceProp fields:")
        for f in fields:
            print(f"  {f:<{width}} : {format_value(f, getattr(prop, f))}")
        for b in cross_check(dev, prop):
            problems.append(f"device {dev}: {b}")

    if count >= 2:
        print("\nPeer-to-peer access (cudaDeviceCanAccessPeer):")
        for a in range(count):
            for b in range(count):
                if a != b:
                    can = rt_check(runtime.cudaDeviceCanAccessPeer(a, b))
                    print(f"  GPU{a} -> GPU{b}: {'Yes' if can else 'No'}")

    print(f"\ndeviceQuery, CUDA Driver = CUDART, CUDA Driver Version = {version_text(driver_version)}, "
          f"CUDA Runtime Version = {version_text(runtime_version)}, NumDevs = {count}")
    for p in problems:
        print("MISMATCH: " + p)
    print(f"Result = {'PASS' if not problems else 'FAIL'}")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
