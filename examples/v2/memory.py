"""Device and page-locked host memory with the second API, `cuda.bindings._v2.driver`: allocate,
copy host to device and back, fill with memset (8- and 32-bit), copy device to device, read the
free and total memory, and free everything again. Pointers are plain ints; host buffers are numpy
arrays (any buffer, or an int address, does).

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common.v2_helpers import (device_name, first_device, release_primary_context,  # noqa: E402
                               use_primary_context)
import cuda.bindings._v2.driver as driver  # noqa: E402

MiB = 1 << 20


def main():
    dev = first_device(0)
    use_primary_context(dev)
    total_device = driver.device_total_mem_v2(dev)
    free_before, total = driver.mem_get_info_v2()

    n = 4 * MiB // 4                              # 4 MiB of uint32
    src = np.arange(n, dtype=np.uint32)
    d_x = driver.mem_alloc_v2(src.nbytes)
    d_y = driver.mem_alloc_v2(src.nbytes)
    free_after, _ = driver.mem_get_info_v2()
    checks = {}

    # host -> device -> device -> host
    driver.memcpy_htod_v2(d_x, src, src.nbytes)
    driver.memcpy_dtod_v2(d_y, d_x, src.nbytes)
    back = np.zeros_like(src)
    driver.memcpy_dtoh_v2(back, d_y, back.nbytes)
    checks["copies host -> device -> device -> host"] = bool((back == src).all())

    # memset: 32-bit words over the whole buffer, then bytes over the first 100 of them
    driver.memset_d32_v2(d_x, 0xCAFEF00D, n)
    driver.memset_d8_v2(d_x, 0x11, 400)
    driver.memcpy_dtoh_v2(back, d_x, back.nbytes)
    checks["memset_d32 and memset_d8"] = bool((back[:100] == 0x11111111).all() and (back[100:] == 0xCAFEF00D).all())

    # page-locked host memory: an int address, seen from numpy through ctypes
    pinned = driver.mem_alloc_host_v2(src.nbytes)
    view = np.ctypeslib.as_array((ctypes.c_uint32 * n).from_address(pinned))
    view[:] = src[::-1]
    driver.memcpy_htod_v2(d_y, pinned, src.nbytes)     # the address itself is a host pointer
    driver.memcpy_dtoh_v2(back, d_y, back.nbytes)
    checks["copies from page-locked memory"] = bool((back == src[::-1]).all())
    driver.mem_free_host(pinned)

    driver.mem_free_v2(d_x)
    driver.mem_free_v2(d_y)
    free_end, _ = driver.mem_get_info_v2()
    checks["device memory reported"] = total == total_device and free_after <= free_before and free_end <= total

    print(f"{device_name(dev)}: {total / MiB:.0f} MiB, {free_before / MiB:.0f} MiB free; "
          f"two buffers of {src.nbytes / MiB:.0f} MiB allocated and freed")
    for what, good in checks.items():
        print(f"  {what}: {'ok' if good else 'WRONG'}")
    release_primary_context(dev)
    good = all(checks.values())
    print("ok" if good else "WRONG RESULT")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
