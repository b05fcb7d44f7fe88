"""Where the CUDA libraries that the bindings open would come from.

``find(libname)`` looks for NVRTC, nvJitLink or the CUDA runtime, in this order:

1. ``nvidia/cu13/lib/<soname>`` under each ``sys.path`` entry (NVIDIA's pip wheels);
2. ``$CUDA_HOME`` then ``$CUDA_PATH``, in ``lib64`` and ``lib``;
3. the bare soname, i.e. whatever the system loader finds (checked by loading it).

It returns ``(path_or_None, tried)``: the path to pass to ``dlopen`` (the bare soname in case 3)
and the list of places looked at, for error messages. Only the standard library is used, and
``ctypes`` only when the system loader has to be asked.
"""
import os
import sys

SONAMES = {
    "nvrtc": "libnvrtc.so.13",
    "nvJitLink": "libnvJitLink.so.13",
    "cudart": "libcudart.so.13",
}
DRIVER_SONAME = "libcuda.so.1"
WHEEL_LIB = os.path.join("nvidia", "cu13", "lib")


def _loadable(soname):
    """None if the system loader opens ``soname``, else the loader's complaint."""
    import ctypes

    try:
        ctypes.CDLL(soname)
    except OSError as e:
        return str(e) or "not found"
    return None


def loaded_path(soname):
    """The file a library already loaded into this process came from (Linux), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(None, 5)[-1]
                if os.path.basename(path).startswith(soname):
                    return path
    except OSError:
        pass
    return None


def find(libname):
    """Locate ``libname`` ("nvrtc", "nvJitLink" or "cudart"). Returns ``(path_or_None, tried)``."""
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
        path = os.path.join(entry, WHEEL_LIB, soname)
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
        for sub in ("lib64", "lib"):
            path = os.path.join(home, sub, soname)
            tried.append(path)
            if os.path.isfile(path):
                return path, tried
    problem = _loadable(soname)
    tried.append(f"{soname} via the system loader" + (f" ({problem})" if problem else ""))
    return (soname, tried) if problem is None else (None, tried)


def find_driver():
    """Whether the system loader finds the driver library. Returns ``(path_or_None, tried)``.

    The path is the file actually loaded when it can be told, else the soname.
    """
    tried = []
    problem = _loadable(DRIVER_SONAME)
    tried.append(f"{DRIVER_SONAME} via the system loader" + (f" ({problem})" if problem else ""))
    if problem is None:
        return loaded_path(DRIVER_SONAME) or DRIVER_SONAME, tried
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
