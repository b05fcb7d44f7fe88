"""More helpers for the examples: CUDA runtime device selection, event timing, and finding the
CUDA header folders that NVRTC needs for `#include <cuda_pipeline_primitives.h>` and friends.

NVRTC brings no CUDA headers of its own beyond the built-in device functions: a kernel that
includes a CUDA header needs `-I` options naming a folder that holds it. Such folders come with a
CUDA toolkit (`$CUDA_HOME/include`, `/usr/local/cuda/include`) or with NVIDIA's runtime wheel
(`site-packages/nvidia/cu13/include`). Since CUDA 13 the C++ library headers (`<cuda/...>`,
`<nv/target>`, used by `<cooperative_groups.h>`) sit in a `cccl` folder beside them.
"""
import os

from cuda.bindings import driver, runtime

from .toolkit import _candidate_include_dirs, cuda_include_options
from . import check, requirement_not_met


def select_runtime_device(ordinal=0):
    """Make device `ordinal` current for the runtime (and its primary context for the driver).

    Exits with EXIT_REQUIREMENT_NOT_MET when there is no usable CUDA device.
    """
    try:
        res = runtime.cudaGetDeviceCount()
    except RuntimeError as e:
        requirement_not_met(f"no CUDA device (the CUDA runtime could not be used: {e})")
    if int(res[0]) != 0:
        _, text = runtime.cudaGetErrorString(res[0])
        text = f": {text.decode()}" if text else ""
        requirement_not_met(f"no CUDA device (cudaGetDeviceCount returned {res[0].name}{text})")
    count = res[1]
    if count is None or count <= ordinal:
        requirement_not_met(f"no CUDA device (found {count}, wanted device {ordinal})")
    check(runtime.cudaSetDevice(ordinal))
    return ordinal


def device_name(dev):
    return check(driver.cuDeviceGetName(256, dev)).split(b"\0", 1)[0].decode()


class EventTimer:
    """Times the work queued on a stream between start() and stop() with two CUDA events."""

    def __init__(self):
        self.begin = check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DEFAULT))
        self.end = check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DEFAULT))

    def start(self, stream):
        check(driver.cuEventRecord(self.begin, stream))

    def stop(self, stream):
        """Record the end event, wait for it, return the elapsed milliseconds."""
        check(driver.cuEventRecord(self.end, stream))
        check(driver.cuEventSynchronize(self.end))
        return check(driver.cuEventElapsedTime(self.begin, self.end))

    def destroy(self):
        check(driver.cuEventDestroy(self.begin))
        check(driver.cuEventDestroy(self.end))


def cuda_include_roots():
    """Candidate CUDA include folders, best first (only those that exist)."""
    seen, found = set(), []
    for root in _candidate_include_dirs():
        root = os.path.realpath(root)
        if root not in seen and os.path.isdir(root):
            seen.add(root)
            found.append(root)
    return found


def include_options_for(*headers):
    """NVRTC `-I` options for the first include folder that holds every one of `headers`
    (looking in its `cccl` subfolder too), or None when no folder has them all."""
    return cuda_include_options(required=headers)
