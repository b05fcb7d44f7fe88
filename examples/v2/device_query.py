"""A device query with the second API, `cuda.bindings._v2.driver`: the driver's version, then for
every device its name, memory, compute capability, a few attributes, UUID and PCI bus id; and how
a failed call looks: an exception of a class named after the status (a DriverError), whose
`status` is the driver's result, and the driver's own name and text for it.

Exit status: 0 when every query answers consistently, 1 otherwise, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common.v2_helpers import device_name, first_device  # noqa: E402
import cuda.bindings._v2.driver as driver  # noqa: E402

ATTRIBUTES = ("MULTIPROCESSOR_COUNT", "MAX_THREADS_PER_BLOCK", "WARP_SIZE", "CLOCK_RATE",
              "GLOBAL_MEMORY_BUS_WIDTH", "L2_CACHE_SIZE", "UNIFIED_ADDRESSING", "CONCURRENT_MANAGED_ACCESS")


def main():
    first_device(0)                       # exits with status 3 when there is none
    version = driver.driver_get_version()
    count = driver.device_get_count()
    print(f"CUDA driver {version // 1000}.{version % 1000 // 10}, {count} device(s)")
    ok = version >= 12000

    for ordinal in range(count):
        dev = driver.device_get(ordinal)
        attr = driver.DeviceAttribute
        major = driver.device_get_attribute(attr.COMPUTE_CAPABILITY_MAJOR, dev)
        minor = driver.device_get_attribute(attr.COMPUTE_CAPABILITY_MINOR, dev)
        total = driver.device_total_mem_v2(dev)
        uuid = driver.device_get_uuid_v2(dev)           # a Uuid struct: its 16 bytes are at uuid.ptr
        uuid_hex = ctypes.string_at(uuid.ptr, 16).hex()
        bus_id = driver.device_get_pci_bus_id(16, dev).split(b"\0", 1)[0].decode()
        print(f"device {ordinal}: {device_name(dev)}, compute capability {major}.{minor}, "
              f"{total / 2 ** 30:.1f} GiB, PCI {bus_id}, UUID {uuid_hex}")
        for name in ATTRIBUTES:
            print(f"  {name.lower()}: {driver.device_get_attribute(getattr(attr, name), dev)}")
        ok = ok and major >= 5 and total > 0 and len(bus_id) >= 12 and uuid_hex != "0" * 32

    # errors: asking for a device past the last raises InvalidDeviceError, a DriverError
    try:
        driver.device_get(count)
        print(f"WRONG: device_get({count}) succeeded")
        ok = False
    except driver.DriverError as e:
        status = driver.Result(e.status)
        print(f"device_get({count}) raised {type(e).__name__}: status {status.name} = "
              f"{driver.get_error_name(status)} ({driver.get_error_string(status)})")
        ok = ok and isinstance(e, driver.InvalidDeviceError) and status == driver.Result.ERROR_INVALID_DEVICE
    print("ok" if ok else "WRONG RESULT")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
