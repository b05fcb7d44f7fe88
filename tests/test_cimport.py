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


    def nvrtc_version():
        cdef int major = -1
        cdef int minor = -1
        cdef cynvrtc.nvrtcResult err
        with nogil:
            err = cynvrtc.nvrtcVersion(&major, &minor)
        if err != cynvrtc.NVRTC_SUCCESS:
            raise RuntimeError("nvrtcVersion returned %d" % <int>err)
        return (major, minor)


    def driver_version():
        # compiled against cydriver; called only where a driver is present
        cdef int version = 0
        cdef cydriver.CUresult err
        with nogil:
            err = cydriver.cuDriverGetVersion(&version)
        return (<int>err, version, <int>cydriver.CUDA_SUCCESS)
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

    return str(fetch.include_dir())


@pytest.fixture(scope="module")
def probe_module(tmp_path_factory):
    import cuda.bindings

    package_dir = Path(cuda.bindings.__file__).resolve().parent
    site_dir = package_dir.parent.parent
    for name in ("cynvrtc.pxd", "cydriver.pxd"):
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
    return module


def test_cimport_cynvrtc_call_without_gil(probe_module):
    assert probe_module.nvrtc_version() == (13, 0)


@pytest.mark.gpu
def test_cimport_cydriver_call(probe_module):
    err, version, success = probe_module.driver_version()
    assert err == success == 0
    assert version >= 13000
