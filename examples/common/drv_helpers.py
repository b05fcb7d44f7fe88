"""Helpers for the driver-API ports of the CUDA samples: finding a device the way the samples'
findCudaDeviceDRV does (without making a context), compute-capability checks, and the CUDA device
runtime library (libcudadevrt.a) that kernels calling device-side runtime functions link with.
"""
import glob
import os
import sys

from cuda.bindings import driver, nvrtc

from . import check, requirement_not_met
from .toolkit import _cuda_major


def find_device(ordinal=0):
    """cuInit and the CUdevice of `ordinal`, with no context made (as findCudaDeviceDRV).

    Exits with "requirement not met" when there is no usable CUDA device."""
    try:
        res = driver.cuInit(0)
    except RuntimeError as e:
        requirement_not_met(f"no CUDA device (the driver could not be loaded: {e})")
    if int(res[0]) != 0:
        requirement_not_met(f"no CUDA device (cuInit returned {res[0]!r})")
    count = check(driver.cuDeviceGetCount())
    if count <= ordinal:
        requirement_not_met(f"no CUDA device (found {count}, wanted device {ordinal})")
    return check(driver.cuDeviceGet(ordinal))


def compute_capability(dev):
    attr = driver.CUdevice_attribute
    major = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    return major, minor


def require_compute_capability(dev, major, minor, what):
    """Exit with "requirement not met" unless `dev` has compute capability major.minor or newer."""
    have = compute_capability(dev)
    if have < (major, minor):
        requirement_not_met(f"{what} needs compute capability {major}.{minor} or newer, "
                            f"device {int(dev)} has {have[0]}.{have[1]}")
    return have


def device_name(dev):
    return check(driver.cuDeviceGetName(256, dev)).split(b"\0", 1)[0].decode()


def _nvrtc_major():
    v = nvrtc.nvrtcVersion()
    return v[1] if int(v[0]) == 0 else None


def _library_dirs():
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root:
            yield os.path.join(root, "lib64")
            yield os.path.join(root, "lib")
    # NVIDIA's runtime wheels: nvidia/cu13/lib (CUDA 13), nvidia/cuda_runtime/lib (CUDA 12)
    for entry in sys.path:
        if entry and os.path.isdir(entry):
            yield os.path.join(entry, "nvidia", "cu13", "lib")
            yield os.path.join(entry, "nvidia", "cuda_runtime", "lib")
    for root in ["/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-1[23]*"), reverse=True):
        yield os.path.join(root, "lib64")
        yield os.path.join(root, "lib")
        yield os.path.join(root, "targets", "x86_64-linux", "lib")


def _library_major(libdir):
    """The CUDA major of the toolkit or wheel holding `libdir`, from the cuda.h beside it."""
    for inc in (os.path.join(libdir, os.pardir, "include"),
                os.path.join(libdir, os.pardir, os.pardir, "include")):
        major = _cuda_major(os.path.realpath(inc))
        if major is not None:
            return major
    parts = os.path.realpath(libdir).split(os.sep)
    if "cu13" in parts:
        return 13
    if "cuda_runtime" in parts:
        return 12
    return None


def cudadevrt_path():
    """Path of libcudadevrt.a of NVRTC's CUDA major (bytes, as cuLinkAddFile takes it), or None."""
    want = _nvrtc_major()
    seen = set()
    for libdir in _library_dirs():
        path = os.path.realpath(os.path.join(libdir, "libcudadevrt.a"))
        if path in seen or not os.path.isfile(path):
            continue
        seen.add(path)
        major = _library_major(libdir)
        if want is None or major in (None, want):
            return path.encode()
    return None
