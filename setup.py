"""Build the ``cuda.bindings`` package: one Cython extension per ``cuda_bindings/*.pyx``.

Metadata lives in pyproject.toml; this file only describes the extensions.

* The CUDA 13.0 headers come from ``headers.fetch.include_dir()`` (pinned NVIDIA wheels, an
  installed wheel set, completed with the pinned ``nvidia-cuda-crt`` wheel when it lacks
  ``crt/``, or ``$CUDA_BINDINGS_INCLUDE_DIR``); they are looked up only when there is something
  to compile. Offline, ``$CUDA_BINDINGS_WHEEL_DIR`` names a folder with the pinned wheel files.
* The source folder ``cuda_bindings/`` is installed as ``cuda.bindings``; ``cuda`` stays a
  namespace package (there is no ``cuda/__init__.py``).
* Cython sees the sources as ``cuda/bindings/*`` (through ``build/cython-include``), so both
  ``from cuda.bindings cimport cydriver`` and ``from . cimport cydriver`` resolve.
* ``$CUDA_BINDINGS_CFLAGS`` adds C compiler flags after the defaults (later flags win).
"""
import os
import shlex
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # for ``headers`` under an isolated PEP 517 build

SRC = "cuda_bindings"
PACKAGE = "cuda.bindings"
DEFAULT_CFLAGS = [
    "-O2",
    "-g0",
    "-Wno-unused-function",
    "-Wno-unused-variable",
    "-Wno-unused-but-set-variable",
    "-Wno-unused-label",
]


def _jobs():
    return os.cpu_count() or 1


def _cflags():
    return DEFAULT_CFLAGS + shlex.split(os.environ.get("CUDA_BINDINGS_CFLAGS", ""))


def _extensions():
    return [
        Extension(
            f"{PACKAGE}.{pyx.stem}",
            [f"{SRC}/{pyx.name}"],
            include_dirs=[SRC],  # the CUDA include dir is added at build time
            libraries=["dl"],
            extra_compile_args=_cflags(),
        )
        for pyx in sorted((ROOT / SRC).glob("*.pyx"))
    ]


def _cython_include_dir():
    """A folder where the sources appear as ``cuda/bindings``, for Cython's cimport lookup."""
    top = ROOT / "build" / "cython-include"
    link = top / "cuda" / "bindings"
    src = ROOT / SRC
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() and link.resolve() == src.resolve():
        return str(top)
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.is_dir():
        shutil.rmtree(link)
    try:
        link.symlink_to(src, target_is_directory=True)
    except OSError:  # no symlinks here: copy what cimport reads
        link.mkdir()
        for f in src.iterdir():
            if f.suffix in (".pxd", ".pxi") or f.name == "__init__.py":
                shutil.copy2(f, link / f.name)
    return str(top)


class BuildExt(build_ext):
    """Cythonize lazily (only when building), add the CUDA headers, compile in parallel."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = _jobs()

    def run(self):
        if self.extensions:
            from Cython.Build import cythonize

            from headers.fetch import include_dir

            cuda_include = str(include_dir())
            print(f"CUDA headers: {cuda_include}")
            for ext in self.extensions:
                if cuda_include not in ext.include_dirs:
                    ext.include_dirs.insert(0, cuda_include)
                # stand-ins for the GL/EGL/VDPAU headers the CUDA interop headers include
                stubs = str(ROOT / "headers" / "stubs")
                if stubs not in ext.include_dirs:
                    ext.include_dirs.insert(1, stubs)
            translated = cythonize(
                self.extensions,
                language_level=3,
                nthreads=_jobs(),
                include_path=[_cython_include_dir(), SRC],
                force=self.force,
            )
            # Keep the Extension objects that finalize_options prepared; take the C sources.
            c_sources = {ext.name: ext.sources for ext in translated}
            for ext in self.extensions:
                ext.sources = c_sources[ext.name]
        super().run()


setup(
    packages=[PACKAGE, f"{PACKAGE}._bindings", f"{PACKAGE}._internal", f"{PACKAGE}.checked"],
    package_dir={PACKAGE: SRC},
    package_data={PACKAGE: ["*.pxd", "*.pyi", "py.typed"], f"{PACKAGE}.checked": ["*.pyi"]},
    include_package_data=False,
    ext_modules=_extensions(),
    cmdclass={"build_ext": BuildExt},
    zip_safe=False,
)
