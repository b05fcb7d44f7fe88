"""Helpers for the examples that port the CUDA samples: finding the CUDA headers NVRTC needs for
`#include <cooperative_groups.h>`, runtime-API device checks, numpy views of raw host memory and
host-side atomics (libatomic) for the system-wide atomics example.

Examples put the `examples/` folder on sys.path and `from common import toolkit`.
"""
import ctypes
import ctypes.util
import glob
import os
import sys

import numpy as np

from typing import Any, overload

from . import CudaError, T, U, V, check, requirement_not_met


# --- CUDA headers for NVRTC ----------------------------------------------------------------------

def _candidate_include_dirs():
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root:
            yield os.path.join(root, "include")
    # NVIDIA's pip wheels: site-packages/nvidia/cu13/include (cooperative groups come with
    # nvidia-cuda-runtime, <nv/target> with nvidia-cuda-cccl under include/cccl)
    for entry in sys.path:
        if entry and os.path.isdir(entry):
            yield os.path.join(entry, "nvidia", "cu13", "include")
    yield "/usr/local/cuda/include"
    yield from sorted(glob.glob("/usr/local/cuda-1[23]*/include"), reverse=True)


def _cuda_major(inc):
    """The CUDA major release of the headers in `inc` (cuda.h's CUDA_VERSION), or None."""
    try:
        with open(os.path.join(inc, "cuda.h"), encoding="latin-1") as f:
            for line in f:
                if line.startswith("#define CUDA_VERSION "):
                    return int(line.split()[2]) // 1000
    except (OSError, ValueError, IndexError):
        pass
    return None


def cuda_include_options(required=("cooperative_groups.h", "nv/target", "cuda/std/type_traits")):
    """NVRTC `-I` options (bytes) for one CUDA toolkit's headers (its include folder and, where
    present, the `cccl/` folder inside it), or None when no candidate has all of `required`.
    A folder whose headers are of another CUDA major than NVRTC's is passed over: NVRTC 12
    cannot compile CUDA 13's headers."""
    from cuda.bindings import nvrtc
    v = nvrtc.nvrtcVersion()
    major = v[1] if v[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS else None
    seen = set()
    for inc in _candidate_include_dirs():
        inc = os.path.realpath(inc)
        if inc in seen or not os.path.isdir(inc):
            continue
        seen.add(inc)
        if major is not None and _cuda_major(inc) not in (None, major):
            continue
        dirs = [d for d in (inc, os.path.join(inc, "cccl")) if os.path.isdir(d)]
        if all(any(os.path.exists(os.path.join(d, name)) for d in dirs) for name in required):
            return [b"-I" + d.encode() for d in dirs]
    return None


# --- runtime API -----------------------------------------------------------------------------------

def runtime_device_count(wanted: int = 1) -> int:
    """Number of CUDA devices the runtime sees; exits with 'requirement not met' below `wanted`."""
    from cuda.bindings import runtime
    try:
        err, count = runtime.cudaGetDeviceCount()
    except RuntimeError as e:  # no CUDA runtime library
        requirement_not_met(f"no CUDA device (the CUDA runtime could not be loaded: {e})")
    if int(err) != 0 or count is None:
        _, text = runtime.cudaGetErrorString(err)
        requirement_not_met(f"no CUDA device (cudaGetDeviceCount returned {err.name}: "
                            f"{text.decode() if text else '?'})")
    if count < wanted:
        requirement_not_met(f"{wanted} CUDA device{'s' if wanted > 1 else ''} needed, found {count}")
    return count


@overload
def rt_check(result: tuple[Any]) -> None: ...
@overload
def rt_check(result: tuple[Any, T | None]) -> T: ...
@overload
def rt_check(result: tuple[Any, T | None, U | None]) -> tuple[T, U]: ...
@overload
def rt_check(result: tuple[Any, T | None, U | None, V | None]) -> tuple[T, U, V]: ...
def rt_check(result: tuple[Any, ...]) -> Any:
    """check() for runtime calls, with the runtime's own error text."""
    from cuda.bindings import runtime
    err = result[0]
    if int(err) != 0:
        _, text = runtime.cudaGetErrorString(err)
        raise CudaError(f"{err.name}: {text.decode() if text else '?'}")
    return check(result)


# --- host memory -------------------------------------------------------------------------------------

def host_array(address, count, dtype):
    """A numpy array viewing `count` items of `dtype` at a raw host address (pinned or managed
    memory); the caller keeps the memory alive."""
    dtype = np.dtype(dtype)
    buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(int(address))
    return np.frombuffer(buf, dtype=dtype, count=count)


# --- host atomics ------------------------------------------------------------------------------------

class HostAtomics:
    """Sequentially consistent 32-bit atomic read-modify-write operations on host memory, through
    GCC's libatomic (`__atomic_fetch_add_4` and friends); `None` from load() when it is missing."""

    SEQ_CST = 5

    def __init__(self, lib):
        # (getattr: a name starting with two underscores would be mangled inside a class body)
        u32, vp, i = ctypes.c_uint32, ctypes.c_void_p, ctypes.c_int
        self._fn = {}
        for op, argtypes, restype in [
            ("fetch_add", [vp, u32, i], u32), ("fetch_sub", [vp, u32, i], u32),
            ("fetch_and", [vp, u32, i], u32), ("fetch_or", [vp, u32, i], u32),
            ("fetch_xor", [vp, u32, i], u32), ("exchange", [vp, u32, i], u32),
            ("load", [vp, i], u32), ("compare_exchange", [vp, vp, u32, i, i], ctypes.c_bool),
        ]:
            f = getattr(lib, f"__atomic_{op}_4")
            f.argtypes, f.restype = argtypes, restype
            self._fn[op] = f
        self._expected = ctypes.c_uint32()

    @classmethod
    def load(cls):
        name = ctypes.util.find_library("atomic") or "libatomic.so.1"
        try:
            return cls(ctypes.CDLL(name))
        except (OSError, AttributeError):
            return None

    def fetch_add(self, addr, v):
        return self._fn["fetch_add"](addr, v & 0xFFFFFFFF, self.SEQ_CST)

    def fetch_sub(self, addr, v):
        return self._fn["fetch_sub"](addr, v & 0xFFFFFFFF, self.SEQ_CST)

    def fetch_and(self, addr, v):
        return self._fn["fetch_and"](addr, v & 0xFFFFFFFF, self.SEQ_CST)

    def fetch_or(self, addr, v):
        return self._fn["fetch_or"](addr, v & 0xFFFFFFFF, self.SEQ_CST)

    def fetch_xor(self, addr, v):
        return self._fn["fetch_xor"](addr, v & 0xFFFFFFFF, self.SEQ_CST)

    def exchange(self, addr, v):
        return self._fn["exchange"](addr, v & 0xFFFFFFFF, self.SEQ_CST)

    def load_u32(self, addr):
        return self._fn["load"](addr, self.SEQ_CST)

    def compare_exchange(self, addr, expected, desired):
        """Store `desired` if the value is `expected`; returns the value seen (as atomicCAS does)."""
        self._expected.value = expected & 0xFFFFFFFF
        self._fn["compare_exchange"](addr, ctypes.addressof(self._expected), desired & 0xFFFFFFFF,
                                     self.SEQ_CST, self.SEQ_CST)
        return self._expected.value

    def update(self, addr, fn):
        """Atomically replace the value v by fn(v) with a compare-and-swap loop; returns the old v."""
        old = self.load_u32(addr)
        while True:
            seen = self.compare_exchange(addr, old, fn(old))
            if seen == old:
                return old
            old = seen
