"""Where the CUDA libraries that the bindings open would come from.

``find(libname)`` looks for NVRTC, nvJitLink, NVVM or the CUDA runtime, in this order:

1. the library's folder of NVIDIA's pip wheels under each ``sys.path`` entry (CUDA 13:
   ``nvidia/cu13/lib``; CUDA 12: one folder per wheel, ``nvidia/cuda_nvrtc/lib`` and so on);
2. ``$CUDA_HOME`` then ``$CUDA_PATH``, in ``lib64`` and ``lib`` (NVVM: ``nvvm/lib64``, where
   the toolkit keeps it);
3. whatever the system loader finds for the bare soname (checked by loading it).

It returns ``(path_or_None, tried)``: the path to pass to ``dlopen`` (in case 3 the file the
loader opened, or the bare soname where that cannot be told) and the list of places looked at,
for error messages. Only the standard library is used, and
``ctypes`` only when the system loader has to be asked.
"""
import os
import sys

from ._version import CUDA_MAJOR

#: Per CUDA major release: each library's file name, the pip wheel that ships it (for messages
#: that say what to install) and its folder inside that wheel (under site-packages).
LIBRARIES = {
    13: {"nvrtc": ("libnvrtc.so.13", "nvidia-cuda-nvrtc", "nvidia/cu13/lib"),
         "nvJitLink": ("libnvJitLink.so.13", "nvidia-nvjitlink", "nvidia/cu13/lib"),
         "cudart": ("libcudart.so.13", "nvidia-cuda-runtime", "nvidia/cu13/lib"),
         "nvvm": ("libnvvm.so.4", "nvidia-nvvm", "nvidia/cu13/lib")},
    12: {"nvrtc": ("libnvrtc.so.12", "nvidia-cuda-nvrtc-cu12", "nvidia/cuda_nvrtc/lib"),
         "nvJitLink": ("libnvJitLink.so.12", "nvidia-nvjitlink-cu12", "nvidia/nvjitlink/lib"),
         "cudart": ("libcudart.so.12", "nvidia-cuda-runtime-cu12", "nvidia/cuda_runtime/lib"),
         "nvvm": ("libnvvm.so.4", "nvidia-cuda-nvcc-cu12", "nvidia/cuda_nvcc/nvvm/lib64")},
}
SONAMES = {k: v[0] for k, v in LIBRARIES[CUDA_MAJOR].items()}
WHEELS = {k: v[1] for k, v in LIBRARIES[CUDA_MAJOR].items()}
WHEEL_LIBS = {k: os.path.join(*v[2].split("/")) for k, v in LIBRARIES[CUDA_MAJOR].items()}
#: Folders under $CUDA_HOME / $CUDA_PATH, where a library is not in the toolkit's lib64 or lib.
HOME_SUBDIRS = {"nvvm": (os.path.join("nvvm", "lib64"),)}
DRIVER_SONAME = "libcuda.so.1"


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


def find(libname):
    """Locate ``libname`` ("nvrtc", "nvJitLink", "nvvm" or "cudart"). Returns ``(path_or_None, tried)``."""
    try:
        soname = SONAMES[libname]
    except KeyError:
        raise ValueError(f"unknown library {libname!r}; known: {', '.join(SONAMES)}") from None
    tried = []
    seen = set()
    for entry in sys.path:
        entry = entry or os.getcwd()
        if not os.path.isdir(entry):
            continue
        path = os.path.join(entry, WHEEL_LIBS[libname], soname)
        if path in seen:
            continue
        seen.add(path)
        tried.append(path)
        if os.path.isfile(path):
            return path, tried
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if not home:
            tried.append(f"${var} (not set)")
            continue
        if not os.path.isdir(home):
            tried.append(f"${var}={home} (no such folder)")
            continue
        for sub in HOME_SUBDIRS.get(libname, ("lib64", "lib")):
            path = os.path.join(home, sub, soname)
            if os.path.isfile(path):
                tried.append(path)
                return path, tried
            tried.append(path + _other_versions(os.path.dirname(path), soname))
    path, problem = _load(soname)
    tried.append(f"{soname} via the system loader" + (f" ({problem})" if problem else ""))
    return path, tried


def _other_versions(folder, soname):
    """" (absent; the folder has libnvrtc.so.12)" where another major version of the library
    lies in `folder`: a toolkit of another CUDA major."""
    import glob
    stem = soname[:soname.index(".so.") + 4]
    others = sorted(os.path.basename(p) for p in glob.glob(os.path.join(glob.escape(folder), stem + "*"))
                    if os.path.basename(p).split(".so.")[1].split(".")[0] != soname.split(".so.")[1])
    return f" (absent; the folder has {', '.join(others)}: another CUDA version)" if others else ""


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
