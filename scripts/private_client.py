"""A compiled client of the private C layers (cuda.bindings._internal.*, _bindings.*): a small
C++ Cython module that cimports the release's driver, NVRTC, nvJitLink and NVVM layers and
`_internal.utils`, built against the .pxd files of a package, then imported and called on the
cuda.bindings that Python finds first.

    python scripts/private_client.py [--pxd-root DIR] [--work DIR] [--gpu]

--pxd-root: the folder holding `cuda/bindings/*.pxd` to compile against: the cuda.bindings on
sys.path (default), or NVIDIA's package of the same release installed elsewhere (`pip install
--target DIR cuda-bindings==13.0.3`), which is what a client built for NVIDIA's package sees.
Importing the module binds every function it uses by name and signature string; a difference
fails the import. The calls: NVRTC compiles a kernel through the layer, nvJitLink and NVVM give
their versions, the utils converters fill C++ containers from Python objects; the driver layer
gives the driver's version, and with --gpu also initialises the driver, counts and names the
devices and allocates and frees device memory. Without a driver, the driver call must raise the
loader's error through the layer (the `except` value a client tests). The last line printed is a
one-line summary; the exit status is 1 if any check failed.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))      # the generator's table of layers, the header recipe

TEMPLATE = """
# distutils: language = c++
# cython: language_level=3
from libcpp.vector cimport vector
cimport cuda.bindings.{driver} as drv
cimport cuda.bindings.{nvrtc} as rtc
cimport cuda.bindings._internal.nvjitlink as jit
cimport cuda.bindings._internal.nvvm as vm
from cuda.bindings._internal cimport utils


def driver_version():
    cdef int v = 0
    cdef int err
    with nogil:
        err = drv._cuDriverGetVersion(&v)
    return err, v


def driver_work():
    # cuInit, the devices and their names, one allocation: all through the layer
    cdef int n = 0, err
    cdef drv.CUdevice dev
    cdef char name[128]
    cdef drv.CUcontext ctx
    cdef drv.CUdeviceptr p = 0
    with nogil:
        err = drv._cuInit(0)
    if err:
        return ("cuInit", err)
    with nogil:
        err = drv._cuDeviceGetCount(&n)
        if err == 0:
            err = drv._cuDeviceGet(&dev, 0)
        if err == 0:
            err = drv._cuDeviceGetName(name, 128, dev)
        if err == 0:
            err = drv._cuDevicePrimaryCtxRetain(&ctx, dev)
        if err == 0:
            err = drv._cuCtxSetCurrent(ctx)
        if err == 0:
            err = drv._cuMemAlloc_v2(&p, 1 << 20)
        if err == 0:
            err = drv._cuMemsetD8_v2(p, 7, 1 << 20)
        if err == 0:
            err = drv._cuMemFree_v2(p)
        if err == 0:
            err = drv._cuDevicePrimaryCtxRelease_v2(dev)
    return ("ok" if err == 0 else "failed", err, n, name.decode(), p != 0)


def nvrtc_compile():
    cdef rtc.nvrtcProgram prog = NULL
    cdef int major = 0, minor = 0
    cdef size_t size = 0
    cdef const char* src = b'extern "C" __global__ void k(float* x) {{ x[threadIdx.x] *= 2.0f; }}'
    cdef const char* opts[1]
    opts[0] = b"--gpu-architecture=compute_90"
    cdef int err
    with nogil:
        err = rtc._nvrtcVersion(&major, &minor)
        if err == 0:
            err = rtc._nvrtcCreateProgram(&prog, src, b"k.cu", 0, NULL, NULL)
        if err == 0:
            err = rtc._nvrtcCompileProgram(prog, 1, opts)
        if err == 0:
            err = rtc._nvrtcGetPTXSize(prog, &size)
        if prog != NULL:
            rtc._nvrtcDestroyProgram(&prog)
    return err, (major, minor), size, rtc._nvrtcGetErrorString(rtc.NVRTC_SUCCESS).decode()


def library_versions():
    cdef unsigned int jmajor = 0, jminor = 0
    cdef int vmajor = 0, vminor = 0
    cdef int e1, e2
    with nogil:
        e1 = jit._nvJitLinkVersion(&jmajor, &jminor)
        e2 = vm._nvvmVersion(&vmajor, &vminor)
    return (e1, jmajor, jminor), (e2, vmajor, vminor)


def utils_converters(ints, strings, buf):
    cdef utils.nullable_unique_ptr[vector[int]] a
    cdef utils.nested_resource[char] s
    cdef int* unused_int = NULL
    cdef char* unused_char = NULL
    utils.get_resource_ptr(a, ints, unused_int)
    cdef int* data = <int*>a.data()
    got = [data[i] for i in range(len(ints))]
    utils.get_nested_resource_ptr(s, strings, unused_char)
    cdef char** texts = <char**>s.ptrs.data()
    words = [texts[i].decode() for i in range(len(strings))]
    cdef void* address = utils.get_buffer_pointer(buf, len(buf))
    return got, words, <size_t>address, bool(utils.is_nested_sequence([[1], [2]])), bool(utils.is_nested_sequence([1, 2]))
"""

SETUP = """
import sys
from setuptools import Extension, setup
from Cython.Build import cythonize
root, include, stubs = sys.argv[1], sys.argv[2], sys.argv[3]
ext = Extension("private_client", ["private_client.pyx"], include_dirs=[include, stubs, root], language="c++")
setup(name="private_client", ext_modules=cythonize([ext], include_path=[root], language_level=3, quiet=True),
      script_args=["build_ext", "--inplace"])
"""


def layers(release):
    """The module paths of the release's driver and NVRTC layers (the generator's table)."""
    from codegen.overrides import TWIN_STYLE
    private = TWIN_STYLE[release]["private"]
    return private["driver"][0], private["nvrtc"][0]


def build(root, release, work):
    """The client compiled against the .pxd files under root; returns the extension's path."""
    from headers import fetch
    driver, nvrtc = layers(release)
    work.mkdir(parents=True, exist_ok=True)
    (work / "private_client.pyx").write_text(textwrap.dedent(TEMPLATE.format(driver=driver, nvrtc=nvrtc)))
    (work / "setup.py").write_text(SETUP)
    env = dict(os.environ, PYTHONPATH="")      # setuptools and Cython only: no cuda.bindings needed
    # the stand-ins of headers/stubs: the GL/EGL/VDPAU headers and cudaProfiler.h, which NVIDIA's
    # cydriver.pxd includes
    proc = subprocess.run([sys.executable, "setup.py", str(root), str(fetch.include_dir(release)),
                           str(REPO / "headers" / "stubs")],
                          cwd=work, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise SystemExit(f"building the client against {root} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}")
    return next(work.glob("private_client*.so"))


def load(path):
    spec = importlib.util.spec_from_file_location("private_client", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def checks(client, gpu, driver_only=False):
    """(name, passed, detail) of each call (`driver_only`: not those of NVRTC, nvJitLink and NVVM,
    on a machine without the release's libraries of them)."""
    out = []
    if not driver_only:
        out += _library_checks(client)
    buf = bytearray(8)
    got, words, address, nested, flat = client.utils_converters([3, 1, 4], ["ab", "c"], buf)
    import ctypes
    out.append(("utils", got == [3, 1, 4] and words == ["ab", "c"] and nested and not flat
                and address == ctypes.addressof(ctypes.c_char.from_buffer(buf)), f"{got} {words}"))
    try:
        status, version = client.driver_version()
    except Exception as e:      # no driver: the loader's error comes through the layer
        out.append(("driver", not gpu and type(e).__name__ == "NotSupportedError", f"{type(e).__name__}: {e}"))
    else:
        out.append(("driver", status == 0 and version >= 12000, f"status {status}, driver {version}"))
    if gpu:
        result = client.driver_work()
        out.append(("driver work", result[0] == "ok" and result[2] >= 1 and result[4], str(result)))
    return out


def _library_checks(client):
    from cuda.bindings import nvjitlink, nvrtc, nvvm
    out = []
    err, version, ptx, text = client.nvrtc_compile()
    out.append(("nvrtc", err == 0 and ptx > 0 and version == nvrtc.nvrtcVersion()[1:] and text == "NVRTC_SUCCESS",
                f"status {err}, NVRTC {version}, {ptx} bytes of PTX"))
    (e1, *jv), (e2, *vv) = client.library_versions()
    out.append(("nvjitlink/nvvm", e1 == 0 and e2 == 0 and tuple(jv) == nvjitlink.version()
                and tuple(vv) == nvvm.version(), f"nvJitLink {jv}, NVVM {vv}"))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pxd-root", help="the folder holding cuda/bindings/*.pxd (default: the cuda.bindings on sys.path)")
    ap.add_argument("--work", help="where to build (default: a temporary folder)")
    ap.add_argument("--gpu", action="store_true", help="also call the driver for real")
    ap.add_argument("--driver-only", action="store_true",
                    help="leave out the NVRTC, nvJitLink and NVVM calls (no such library of the release here)")
    a = ap.parse_args(argv)
    import cuda.bindings
    release = cuda.bindings.__cuda_version__
    ours = Path(cuda.bindings.__file__).resolve().parents[2]
    root = Path(a.pxd_root).resolve() if a.pxd_root else ours
    work = Path(a.work or tempfile.mkdtemp(prefix="private_client."))
    client = load(build(root, release, work))
    results = checks(client, a.gpu, a.driver_only)
    for name, passed, detail in results:
        print(f"{'ok  ' if passed else 'FAIL'} {name}: {detail}")
    failed = [n for n, p, _ in results if not p]
    summary = {"release": release, "built_against": str(root), "imported_on": str(Path(cuda.bindings.__file__).parent),
               "checks": len(results), "failed": failed, "driver_only": a.driver_only}
    print("private_client:", json.dumps(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
