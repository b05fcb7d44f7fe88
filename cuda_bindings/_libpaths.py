"""Where the CUDA libraries that the bindings open come from.

``locate(libname)`` finds NVRTC, nvJitLink, NVVM, the CUDA runtime, nvFatbin, cuFile, NVML or
cuDLA (``libname`` is cuda-pathfinder's name: "nvrtc", "nvJitLink", "nvvm", "cudart",
"nvfatbin", "cufile", "nvml", "cudla"):

1. NVIDIA's ``cuda-pathfinder`` is asked first (imported on the first lookup, never at import of
   cuda.bindings), so a library is found wherever NVIDIA's own package finds it: the pip wheels in
   site-packages, ``$CONDA_PREFIX``, a library already loaded, the system loader,
   ``$CUDA_PATH``/``$CUDA_HOME``, the toolkit next to the runtime (NVVM). NVML, a part of the
   driver, is looked for through the system loader only.
2. What it found is accepted only if it belongs to this build's CUDA major: a pathfinder that
   offers ``libnvrtc.so.12`` to a CUDA 13 build (it looks for both majors) is passed over. The
   major is read from the file name where it carries one (``libnvrtc.so.13``), else from where the
   file lies (``nvidia/cu13/lib``, ``nvidia/cuda_nvcc/nvvm/lib64``, a toolkit's
   ``version.json``); a file of unknown major is accepted.
3. Where pathfinder finds nothing (or is not installed, or offers another major, or does not know
   the library), the library of this major is looked for here: its pip wheel's folder under each
   ``sys.path`` entry, ``$CONDA_PREFIX``, ``$CUDA_PATH`` and ``$CUDA_HOME`` (``lib64``, ``lib``;
   NVVM in ``nvvm/lib64``), then the system loader, by the exact file name of this major.

Every place looked at, and why a candidate was passed over, goes into the result's ``tried`` list,
for the loader's error messages and ``python -m cuda.bindings``. ``find(libname)`` gives
``(path_or_None, tried)``.
"""
import os
import platform
import sys
from typing import NamedTuple

from ._version import CUDA_MAJOR

#: Per CUDA major release: each library's file name, the pip wheel that ships it (None: none
#: does), whether that wheel's version follows CUDA's (``nvidia-cuda-nvrtc~=13.0``; cuFile has
#: its own numbering), and its folder inside that wheel (under site-packages).
LIBRARIES = {
    13: {"nvrtc": ("libnvrtc.so.13", "nvidia-cuda-nvrtc", True, "nvidia/cu13/lib"),
         "nvJitLink": ("libnvJitLink.so.13", "nvidia-nvjitlink", True, "nvidia/cu13/lib"),
         "cudart": ("libcudart.so.13", "nvidia-cuda-runtime", True, "nvidia/cu13/lib"),
         "nvvm": ("libnvvm.so.4", "nvidia-nvvm", True, "nvidia/cu13/lib"),
         "nvfatbin": ("libnvfatbin.so.13", "nvidia-nvfatbin", True, "nvidia/cu13/lib"),
         "cufile": ("libcufile.so.0", "nvidia-cufile", False, "nvidia/cu13/lib"),
         "cudla": ("libcudla.so.1", "nvidia-cudla", True, "nvidia/cu13/lib"),
         "nvml": ("libnvidia-ml.so.1", None, False, None)},
    12: {"nvrtc": ("libnvrtc.so.12", "nvidia-cuda-nvrtc-cu12", True, "nvidia/cuda_nvrtc/lib"),
         "nvJitLink": ("libnvJitLink.so.12", "nvidia-nvjitlink-cu12", True, "nvidia/nvjitlink/lib"),
         "cudart": ("libcudart.so.12", "nvidia-cuda-runtime-cu12", True, "nvidia/cuda_runtime/lib"),
         "nvvm": ("libnvvm.so.4", "nvidia-cuda-nvcc-cu12", True, "nvidia/cuda_nvcc/nvvm/lib64"),
         "nvfatbin": ("libnvfatbin.so.12", "nvidia-nvfatbin-cu12", True, "nvidia/nvfatbin/lib"),
         "cufile": ("libcufile.so.0", "nvidia-cufile-cu12", False, "nvidia/cufile/lib"),
         "cudla": ("libcudla.so.1", None, False, None),
         "nvml": ("libnvidia-ml.so.1", None, False, None)},
}
#: Other names a library's file has where it is looked for (the CUDA 12 nvcc wheel's NVVM is
#: libnvvm.so only), after the one above.
OTHER_NAMES = {12: {"nvvm": ("libnvvm.so",)}, 13: {}}
SONAMES = {k: v[0] for k, v in LIBRARIES[CUDA_MAJOR].items()}
FILE_NAMES = {k: (v[0],) + OTHER_NAMES[CUDA_MAJOR].get(k, ()) for k, v in LIBRARIES[CUDA_MAJOR].items()}
WHEELS = {k: v[1] for k, v in LIBRARIES[CUDA_MAJOR].items() if v[1]}
#: Wheels whose version is CUDA's (``~=13.0`` installs one of this release's minor line).
CUDA_VERSIONED_WHEELS = {k for k, v in LIBRARIES[CUDA_MAJOR].items() if v[2]}
WHEEL_LIBS = {k: os.path.join(*v[3].split("/")) for k, v in LIBRARIES[CUDA_MAJOR].items() if v[3]}
#: Folders under $CUDA_PATH / $CUDA_HOME / $CONDA_PREFIX, where a library is not in lib64 or lib.
HOME_SUBDIRS = {"nvvm": (os.path.join("nvvm", "lib64"),)}
#: Libraries that come with the NVIDIA driver: only the system loader is asked.
DRIVER_LIBS = {"nvml"}
DRIVER_SONAME = "libcuda.so.1"


class Located(NamedTuple):
    """Where a library was found: ``path`` (None: not found), ``via`` (how: "cuda-pathfinder
    (site-packages)", "pip wheel", "$CUDA_HOME", "system loader", ...), ``tried`` (every place
    looked at, with why it was passed over) and ``other_major`` (files of another CUDA major that
    were found and passed over, as ``(path, major)``)."""
    path: "str | None"
    via: str
    tried: list
    other_major: list


def _load(soname):
    """Ask the system loader for ``soname``: ``(path, None)``, or ``(None, complaint)``.

    ``path`` is the file the loader opened when it can be told, else ``soname`` itself.
    """
    import ctypes

    try:
        lib = ctypes.CDLL(soname)
    except OSError as e:
        return None, str(e) or "not found"
    return _opened_path(lib) or soname, None


def _opened_path(lib):
    """The path a ``ctypes.CDLL`` was opened from (glibc's ``dlinfo``), or None."""
    import ctypes

    class LinkMap(ctypes.Structure):
        _fields_ = [("l_addr", ctypes.c_void_p), ("l_name", ctypes.c_char_p)]

    RTLD_DI_LINKMAP = 2
    for libc_name in (None, "libdl.so.2"):
        try:
            dlinfo = ctypes.CDLL(libc_name).dlinfo
            break
        except (OSError, AttributeError):
            continue
    else:
        return None
    lmap = ctypes.POINTER(LinkMap)()
    if dlinfo(ctypes.c_void_p(lib._handle), RTLD_DI_LINKMAP, ctypes.byref(lmap)) != 0 or not lmap:
        return None
    name = lmap.contents.l_name
    return os.fsdecode(name) if name else None


def _pathfinder(libname):
    """Ask cuda-pathfinder for ``libname`` (it loads what it finds): ``(path, how)`` or
    ``(None, why not)``; ``how`` and ``why`` start with its name and version."""
    import importlib
    try:
        pf = importlib.import_module("cuda.pathfinder")
        load = pf.load_nvidia_dynamic_lib
    except (ImportError, AttributeError):
        return None, "cuda-pathfinder: not installed (`pip install cuda-pathfinder`)"
    who = f"cuda-pathfinder {getattr(pf, '__version__', '?')}"
    try:
        loaded = load(libname)
    except Exception as e:  # its own errors, a failed dlopen (RuntimeError), a failed probe
        text = str(e).strip().splitlines()[0] if str(e).strip() else ""
        kind = type(e).__name__
        if kind == "DynamicLibUnknownError" or text.startswith("Unknown library name"):
            return None, f"{who}: does not know {libname!r} (a newer cuda-pathfinder does)"
        if kind in ("DynamicLibNotFoundError", "DynamicLibNotAvailableError"):
            return None, f"{who}: not found"
        return None, f"{who}: {kind}: {text[:300]}"
    path = getattr(loaded, "abs_path", None)
    if not path:
        return None, f"{who}: loaded it but could not tell from where"
    via = getattr(loaded, "found_via", None)
    return path, who + (f": {via}" if via else "")


def _toolkit_major(folder):
    """The CUDA major of the toolkit holding ``folder`` (its ``version.json``, up to three levels
    up), or None."""
    import json

    d = os.path.abspath(folder)
    for _ in range(3):
        d = os.path.dirname(d)
        vj = os.path.join(d, "version.json")
        if os.path.isfile(vj):
            try:
                with open(vj, encoding="utf-8") as f:
                    return int(str(json.load(f)["cuda"]["version"]).split(".")[0])
            except (OSError, ValueError, KeyError, TypeError):
                return None
    return None


def major_of(path, libname):
    """The CUDA major the library file at ``path`` belongs to, where it can be told, else None:
    from its file name where the majors' names differ (``libnvrtc.so.12``), else from where it
    lies (a pip wheel's folder of one major, a toolkit's ``version.json``)."""
    names = {m: t[libname][0] for m, t in LIBRARIES.items() if libname in t}
    if len(set(names.values())) == len(names):
        bases = [os.path.basename(path)]
        try:
            bases.append(os.path.basename(os.path.realpath(path)))
        except OSError:
            pass
        for base in bases:
            for m, so in names.items():
                if base == so or base.startswith(so + "."):
                    return m
    folder = os.path.dirname(os.path.abspath(path))
    for m, t in LIBRARIES.items():
        rel = t.get(libname, (None,) * 4)[3]
        if rel and folder.replace(os.sep, "/").endswith("/" + rel):
            return m
    return _toolkit_major(folder)


def _other_versions(folder, soname):
    """" (absent; the folder has libnvrtc.so.12: another CUDA version)" where another major
    version of the library lies in `folder`: a toolkit of another CUDA major."""
    import glob
    stem = soname[:soname.index(".so.") + 4]
    own = soname.split(".so.")[1]
    others = sorted(os.path.basename(p) for p in glob.glob(os.path.join(glob.escape(folder), stem + "*"))
                    if os.path.basename(p).split(".so.")[1].split(".")[0] != own)
    return f" (absent; the folder has {', '.join(others)}: another CUDA version)" if others else ""


def _accept(path, libname, tried, other, where):
    """Whether the file found at ``path`` is of this build's CUDA major (or of unknown major);
    one that is not goes into ``other`` and ``tried``."""
    m = major_of(path, libname)
    if m is None or m == CUDA_MAJOR:
        return True
    other.append((path, m))
    tried.append(f"{path} ({where}: a CUDA {m} library; this build is for CUDA {CUDA_MAJOR})")
    return False


def _first_file(folder, libname):
    """The first of the library's file names (FILE_NAMES) that is a file in `folder`, or None."""
    for name in FILE_NAMES[libname]:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def locate(libname):
    """Find ``libname``: a ``Located`` (see the module's docstring for the order)."""
    try:
        soname = SONAMES[libname]
    except KeyError:
        raise ValueError(f"unknown library {libname!r}; known: {', '.join(SONAMES)}") from None
    tried = []
    other = []
    path, how = _pathfinder(libname)
    if path is None:
        tried.append(how)
    elif _accept(path, libname, tried, other, f"found by {how}"):
        tried.append(f"{path} (found by {how})")
        return Located(path, how, tried, other)

    if libname not in DRIVER_LIBS:
        seen = set()
        wheel_dir = WHEEL_LIBS.get(libname)
        for entry in sys.path if wheel_dir else ():
            entry = entry or os.getcwd()
            if not os.path.isdir(entry):
                continue
            path = os.path.join(entry, wheel_dir, soname)
            if path in seen:
                continue
            seen.add(path)
            path = _first_file(os.path.dirname(path), libname)
            if path and _accept(path, libname, tried, other, "pip wheel"):
                tried.append(path)
                return Located(path, "pip wheel", tried, other)
            if not path:
                tried.append(os.path.join(entry, wheel_dir, soname))
        for var in ("CONDA_PREFIX", "CUDA_PATH", "CUDA_HOME"):
            home = os.environ.get(var)
            if not home:
                if var != "CONDA_PREFIX":
                    tried.append(f"${var} (not set)")
                continue
            if not os.path.isdir(home):
                tried.append(f"${var}={home} (no such folder)")
                continue
            for sub in HOME_SUBDIRS.get(libname, ("lib64", "lib")):
                path = _first_file(os.path.join(home, sub), libname)
                if path and _accept(path, libname, tried, other, f"${var}"):
                    tried.append(path)
                    return Located(path, f"${var}", tried, other)
                if not path:
                    folder = os.path.join(home, sub)
                    tried.append(os.path.join(folder, soname) + _other_versions(folder, soname))
    path, problem = _load(soname)
    if path is not None and (not os.path.isabs(path) or _accept(path, libname, tried, other, "system loader")):
        tried.append(f"{soname} via the system loader")
        return Located(path, "system loader", tried, other)
    if path is None:
        tried.append(f"{soname} via the system loader" + (f" ({problem})" if problem else ""))
    return Located(None, "", tried, other)


def find(libname):
    """Locate ``libname``: ``(path_or_None, tried)`` (see ``locate``)."""
    found = locate(libname)
    return found.path, found.tried


def machine():
    """This machine's architecture, as ``platform.machine()`` says it ("x86_64", "aarch64")."""
    return platform.machine()


def find_driver():
    """Whether the system loader finds the driver library. Returns ``(path_or_None, tried)``."""
    path, problem = _load(DRIVER_SONAME)
    tried = [f"{DRIVER_SONAME} via the system loader" + (f" ({problem})" if problem else "")]
    if path:
        return path, tried
    try:
        import ctypes.util

        hint = ctypes.util.find_library("cuda")
    except Exception as e:  # find_library may run external tools; never fail here
        hint = f"error: {e}"
    tried.append(f"ctypes.util.find_library('cuda') -> {hint}")
    return None, tried


def describe_driver():
    """One line saying where ``libcuda.so.1`` comes from, or why it was not found."""
    path, tried = find_driver()
    if path:
        return f"{DRIVER_SONAME}: {path}"
    return f"{DRIVER_SONAME}: not found (tried: {'; '.join(tried)})"
