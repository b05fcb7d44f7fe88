"""Other Cython code can `cimport` our C-level modules (a C compiler and Cython are needed; no GPU).

A tiny extension is written to a temporary folder, built against the installed `cuda/bindings/*.pxd`
and the CUDA headers from `headers.fetch.include_dir()`, then imported and called.
"""
import glob
import importlib.util
import os
import sys
import textwrap
from pathlib import Path

import pytest

from _support import REPO_ROOT, run_python

PYX = textwrap.dedent(
    """
    # cython: language_level=3
    from cuda.bindings cimport cynvrtc
    from cuda.bindings cimport cydriver
    from cuda.bindings cimport cyruntime
    from cuda.bindings cimport cynvvm


    def nvrtc_version():
        cdef int major = -1
        cdef int minor = -1
        cdef cynvrtc.nvrtcResult err
        with nogil:
            err = cynvrtc.nvrtcVersion(&major, &minor)
        if err != cynvrtc.NVRTC_SUCCESS:
            raise RuntimeError("nvrtcVersion returned %d" % <int>err)
        return (major, minor)


    def nvvm_version():
        cdef int major = -1
        cdef int minor = -1
        cdef cynvvm.nvvmProgram prog = NULL
        cdef cynvvm.nvvmResult err
        with nogil:
            err = cynvvm.nvvmVersion(&major, &minor)
        if err != cynvvm.NVVM_SUCCESS:
            raise RuntimeError("nvvmVersion returned %d" % <int>err)
        with nogil:
            err = cynvvm.nvvmCreateProgram(&prog)
            if err == cynvvm.NVVM_SUCCESS:
                err = cynvvm.nvvmDestroyProgram(&prog)
        return (major, minor, <int>err, prog == NULL, cynvvm.nvvmGetErrorString(cynvvm.NVVM_ERROR_INVALID_IR))


    def driver_version():
        # compiled against cydriver; called only where a driver is present
        cdef int version = 0
        cdef cydriver.CUresult err
        with nogil:
            err = cydriver.cuDriverGetVersion(&version)
        return (<int>err, version, <int>cydriver.CUDA_SUCCESS)


    def egl_frame_fill(size_t address):
        # CUeglFrame is declared by cydriver.pxd itself (no EGL headers needed): write one through
        # that declaration; the caller reads it back through the layout taken from cudaEGL.h
        cdef cydriver.CUeglFrame* f = <cydriver.CUeglFrame*>address
        f.frame.pArray[2] = <cydriver.CUarray><size_t>0x1230
        f.width = 640
        f.height = 480
        f.depth = 1
        f.pitch = 2560
        f.planeCount = 2
        f.numChannels = 4
        f.frameType = cydriver.CU_EGL_FRAME_TYPE_PITCH
        f.eglColorFormat = cydriver.CU_EGL_COLOR_FORMAT_ARGB
        f.cuFormat = cydriver.CU_AD_FORMAT_FLOAT
        return sizeof(cydriver.CUeglFrame)


    def runtime_egl_frame_fill(size_t address):
        cdef cyruntime.cudaEglFrame* f = <cyruntime.cudaEglFrame*>address
        f.frame.pPitch[1].pitch = 77
        f.planeDesc[2].channelDesc.y = 8
        f.planeDesc[2].reserved[3] = 5
        f.planeCount = 3
        f.frameType = cyruntime.cudaEglFrameTypePitch
        f.eglColorFormat = cyruntime.cudaEglColorFormatARGB
        return sizeof(cyruntime.cudaEglFrame)


    def interop_function_types():
        # the interop functions held in pointers typed as a client spells their types
        cdef cydriver.CUresult (*connect)(cydriver.CUeglStreamConnection*, cydriver.EGLStreamKHR) except ?cydriver.CUDA_ERROR_NOT_FOUND nogil
        cdef cydriver.CUresult (*register_image)(cydriver.CUgraphicsResource*, cydriver.GLuint, cydriver.GLenum, unsigned int) except ?cydriver.CUDA_ERROR_NOT_FOUND nogil
        cdef cydriver.CUresult (*gl_devices)(unsigned int*, cydriver.CUdevice*, unsigned int, cydriver.CUGLDeviceList) except ?cydriver.CUDA_ERROR_NOT_FOUND nogil
        connect = cydriver.cuEGLStreamConsumerConnect
        register_image = cydriver.cuGraphicsGLRegisterImage
        gl_devices = cydriver.cuGLGetDevices
        cdef cyruntime.cudaStreamAttrID attr = cyruntime.cudaLaunchAttributePriority
        cdef cyruntime.cudaKernelNodeAttrValue value
        value.priority = 3
        return connect != NULL and register_image != NULL and gl_devices != NULL, <int>attr, value.priority


    cdef extern from "<stdio.h>":
        ctypedef struct FILE
        FILE* stderr
        int fprintf(FILE*, const char*, ...)


    cdef class CallAtExit:
        # calls an NVRTC entry point from its __dealloc__, run at module teardown, after the
        # interpreter has shut down (as a client's C++ destructors do at process exit)
        def __dealloc__(self):
            cdef int n = -1
            cdef cynvrtc.nvrtcResult err = cynvrtc.nvrtcGetNumSupportedArchs(&n)
            fprintf(stderr, "at exit: status %d\\n", <int>err)


    from cpython.exc cimport PyErr_SetObject


    cdef int _call_with_error_pending() except -1:
        # as a client's C++ destructor does while an error propagates: the first call of an entry
        # point (its resolution runs Python code) made while an exception is set
        cdef size_t size = 0
        PyErr_SetObject(ValueError, "kept")
        cynvrtc.nvrtcGetPCHHeapSize(&size)
        return -1


    def call_with_error_pending():
        _call_with_error_pending()


    _kept = []


    def call_at_exit():
        _kept.append(CallAtExit())


    def runtime_helpers():
        cdef cyruntime.cudaExtent e = cyruntime.make_cudaExtent(1, 2, 3)
        cdef cyruntime.cudaPos p = cyruntime.make_cudaPos(4, 5, 6)
        cdef cyruntime.cudaPitchedPtr q = cyruntime.make_cudaPitchedPtr(NULL, 7, 8, 9)
        cdef int version = 0
        cdef cyruntime.cudaError_t err
        with nogil:
            err = cyruntime.getLocalRuntimeVersion(&version)
        return ((e.width, e.height, e.depth), (p.x, p.y, p.z), (q.pitch, q.xsize, q.ysize),
                (<int>err, version))
    """
)

SETUP = textwrap.dedent(
    """
    import sys
    from setuptools import Extension, setup
    from Cython.Build import cythonize

    site_dir, cuda_include = sys.argv[1], sys.argv[2]
    ext = Extension("cimport_probe", ["cimport_probe.pyx"], include_dirs=[cuda_include, site_dir])
    setup(
        name="cimport_probe",
        ext_modules=cythonize([ext], include_path=[site_dir], language_level=3, quiet=True),
        script_args=["build_ext", "--inplace"],
    )
    """
)


def cuda_include_dir():
    if str(REPO_ROOT) not in sys.path:
        sys.path.append(str(REPO_ROOT))
    from headers import fetch

    from cuda.bindings import __cuda_version__
    return str(fetch.include_dir(__cuda_version__))   # the headers of the build under test


@pytest.fixture(scope="module")
def probe_module(tmp_path_factory):
    import cuda.bindings

    package_dir = Path(cuda.bindings.__file__).resolve().parent
    site_dir = package_dir.parent.parent
    for name in ("cynvrtc.pxd", "cydriver.pxd", "cynvvm.pxd"):
        assert (package_dir / name).is_file(), f"{name} is not installed next to {cuda.bindings.__file__}"
    include = cuda_include_dir()
    assert os.path.isfile(os.path.join(include, "cuda.h")), f"no cuda.h in {include}"

    work = tmp_path_factory.mktemp("cimport")
    (work / "cimport_probe.pyx").write_text(PYX)
    (work / "setup.py").write_text(SETUP)
    proc = run_python(["setup.py", str(site_dir), include], cwd=str(work), timeout=900)
    assert proc.returncode == 0, f"building the cimport probe failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"
    built = glob.glob(str(work / "cimport_probe*.so")) + glob.glob(str(work / "cimport_probe*.pyd"))
    assert built, f"no extension built in {work}: {os.listdir(work)}"
    spec = importlib.util.spec_from_file_location("cimport_probe", built[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.path = built[0]
    return module


def test_cimport_cynvrtc_call_without_gil(probe_module):
    from cuda.bindings import nvrtc
    assert probe_module.nvrtc_version() == nvrtc.nvrtcVersion()[1:]     # the same library, called from C


def test_cimport_cynvvm_calls_without_gil(probe_module):
    # the C names and types as NVIDIA's cynvvm spells them (nvvmProgram, nvvmResult, NVVM_SUCCESS)
    assert probe_module.nvvm_version() == (2, 0, 0, True, b"NVVM_ERROR_INVALID_IR")


@pytest.mark.gpu
def test_cimport_cydriver_call(probe_module):
    err, version, success = probe_module.driver_version()
    assert err == success == 0
    assert version >= 13000


def test_cimport_interop_types_match_the_c_layout(probe_module):
    # the .pxd declares the EGL frame structs itself; the Python classes lay them out from the
    # C headers: the same bytes must read back
    from cuda.bindings import driver, runtime

    frame = driver.CUeglFrame()
    assert probe_module.egl_frame_fill(frame.getPtr()) == driver.sizeof(driver.CUeglFrame)
    assert int(frame.frame.pArray[2]) == 0x1230
    assert (frame.width, frame.height, frame.depth, frame.pitch, frame.planeCount, frame.numChannels) == \
        (640, 480, 1, 2560, 2, 4)
    assert int(frame.frameType) == int(driver.CUeglFrameType.CU_EGL_FRAME_TYPE_PITCH)
    assert int(frame.eglColorFormat) == int(driver.CUeglColorFormat.CU_EGL_COLOR_FORMAT_ARGB)
    assert int(frame.cuFormat) == int(driver.CUarray_format.CU_AD_FORMAT_FLOAT)

    rframe = runtime.cudaEglFrame()
    assert probe_module.runtime_egl_frame_fill(rframe.getPtr()) == runtime.sizeof(runtime.cudaEglFrame)
    assert rframe.frame.pPitch[1].pitch == 77
    assert rframe.planeDesc[2].channelDesc.y == 8
    if hasattr(rframe.planeDesc[2], "reserved"):     # hidden in the 13.5 build, as in NVIDIA's 13.5.0
        assert list(rframe.planeDesc[2].reserved) == [0, 0, 0, 5]
    assert rframe.planeCount == 3
    assert int(rframe.frameType) == int(runtime.cudaEglFrameType.cudaEglFrameTypePitch)
    assert int(rframe.eglColorFormat) == int(runtime.cudaEglColorFormat.cudaEglColorFormatARGB)


def test_cimport_interop_function_types(probe_module):
    from cuda.bindings import runtime

    ok, attr, priority = probe_module.interop_function_types()
    assert ok
    assert attr == int(runtime.cudaLaunchAttributeID.cudaLaunchAttributePriority)
    assert priority == 3


def test_cimport_runtime_helpers(probe_module):
    from cuda.bindings import runtime

    extent, pos, pitched, (err, version) = probe_module.runtime_helpers()
    assert (extent, pos, pitched) == ((1, 2, 3), (4, 5, 6), (7, 8, 9))
    # the version of the runtime library the bindings loaded, as the Python level reports it
    assert (err, version) == tuple(int(x) for x in runtime.getLocalRuntimeVersion())


def test_entry_point_first_called_after_shutdown_reports_a_status(probe_module):
    # the first call of an entry point resolves it through the Python-level loader; after the
    # interpreter has shut down there is none: the call must return a status (NVRTC's internal
    # error), not raise into C code or crash
    code = ("import importlib.util\n"
            f"spec = importlib.util.spec_from_file_location('cimport_probe', {probe_module.path!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "m.call_at_exit()\n")
    proc = run_python(code, timeout=60)
    from cuda.bindings import nvrtc
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"at exit: status {int(nvrtc.nvrtcResult.NVRTC_ERROR_INTERNAL_ERROR)}" in proc.stderr, proc.stderr[-3000:]
    assert "Exception ignored" not in proc.stderr, proc.stderr[-3000:]


def test_first_call_while_an_exception_is_pending_keeps_the_exception(probe_module):
    # cuda.core frees its NVRTC program (a C++ destructor) while its compile error propagates
    code = ("import importlib.util\n"
            f"spec = importlib.util.spec_from_file_location('cimport_probe', {probe_module.path!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "try:\n    m.call_with_error_pending()\n"
            "except BaseException as e:\n    print(type(e).__name__, e)\n")
    proc = run_python(code, timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ValueError kept", proc.stdout + proc.stderr[-3000:]
