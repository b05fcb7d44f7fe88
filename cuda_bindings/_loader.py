"""Finds the C libraries and their entry points, on first use of each function.

Importing cuda.bindings never loads a library.  The first call of a function resolves its symbol
once; later calls go straight to the stored pointer.

* The driver (libcuda.so.1) comes from the system loader.  Symbols come from cuGetProcAddress at
  the ABI version the headers declare (cudaTypedefs.h), so an old symbol name never shadows the
  declared signature; a plain dlsym of the versioned C name is the fallback.
* CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1 selects the per-thread default stream variants
  (_ptds/_ptsz); unset, empty, "0" or "false" means the legacy default stream.
* The runtime, NVRTC, nvJitLink, NVVM, nvFatbin, cuFile, NVML and cuDLA are looked up by
  `_libpaths.locate` (NVIDIA's cuda-pathfinder first, then the pip wheels, $CONDA_PREFIX,
  $CUDA_PATH/$CUDA_HOME and the system loader; only a library of this build's CUDA major), and
  their entry points by a plain dlsym of the C name.
A library's bindings are part of a build when its symbol table (`_symbols_<lib>.py`) is.
A missing library raises NotSupportedError, naming what was looked for and where; a missing symbol
FunctionNotFoundError (both RuntimeErrors, from cuda.bindings._internal.utils) with NVIDIA's
message and, as there, no note: what was looked for and where is its `detail` attribute
(CUDA_BINDINGS_ERROR_NOTES=1 shows it as a PEP 678 note too); except
that a driver function the installed driver lacks (a driver older than the headers) makes the call
return CUDA_ERROR_NOT_FOUND, with one FunctionNotFoundWarning per function that says which driver
it needs.
"""
import ctypes
import os
import sys
import warnings

from ._internal.utils import FunctionNotFoundError, FunctionNotFoundWarning, NotSupportedError, with_detail
from ._version import CUDA_MAJOR, CUDA_VERSION, PTDS_ANY_VALUE, __cuda_version__

_libs = {}
_getproc = None
_lacking = set()    # the driver functions the loaded driver lacks (see symbol)
# The flags the driver's entry points are asked with: CU_GET_PROC_ADDRESS_DEFAULT, as NVIDIA's
# package asks (the driver takes it as the legacy default stream for a caller not built for
# per-thread streams, and hands out the very functions CU_GET_PROC_ADDRESS_LEGACY_STREAM gives:
# benchmarks/getproc_flags.c); the per-thread ones where CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM
# is set.
_CU_GET_PROC_ADDRESS_DEFAULT = 0
_CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2
#: Each library by the loader's name (the symbol tables' `lib`): the driver's file name, or the
#: name `_libpaths` (and cuda-pathfinder) know it by.
_SONAMES = {"driver": "libcuda.so.1", "nvrtc": "nvrtc", "nvjitlink": "nvJitLink", "runtime": "cudart",
            "nvvm": "nvvm", "nvfatbin": "nvfatbin", "cufile": "cufile", "nvml": "nvml", "cudla": "cudla"}
#: The release whose build first has bindings for a library some builds lack (for messages).
_FIRST_BUILD = {"cudla": "13.5"}


def per_thread_default_stream():
    """CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM as a switch, read as NVIDIA's twin of this
    build's release reads it.  _version.PTDS_ANY_VALUE (13.0.3): any value but the empty one
    selects the per-thread variants, "0" and "false" included.  Otherwise (12.9.10, 13.5.0:
    int(value) != 0, a word a ValueError): utils.envvar_bool, the same for every integer ("1",
    "2" select them; unset, empty, "0" do not) and a reading for the words too ("true", "on";
    "false", "off")."""
    if PTDS_ANY_VALUE:
        return bool(os.environ.get("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM"))
    from .utils._envvar import envvar_bool
    return envvar_bool("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", False)


def in_build(lib):
    """Whether this build has bindings for `lib`: its symbol table `_symbols_<lib>.py` is part of
    it (cuDLA's only in 13.5 builds)."""
    if lib not in _SONAMES:
        return False
    name = f"{__package__}._symbols_{lib}"
    if name in sys.modules:
        return True
    import importlib.util
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def not_in_build(lib):
    """Why this build has no bindings for `lib` (a sentence)."""
    first = _FIRST_BUILD.get(lib)
    return (f"this build of cuda.bindings (CUDA {__cuda_version__}) has no {lib} bindings"
            + (f"; they come with the CUDA {first} build" if first else ""))


def library(lib):
    """The ctypes handle of `lib`, loading it on first use."""
    h = _libs.get(lib)
    if h is not None:
        return h
    if lib == "driver":
        try:
            h = ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        except OSError as e:
            raise NotSupportedError(
                f"libcuda.so.1 (the NVIDIA driver library) could not be loaded from the system "
                f"loader path: {e}. cuda.bindings.driver needs an installed NVIDIA driver.") from None
    else:
        from . import _libpaths
        found = _libpaths.locate(_SONAMES[lib])
        if found.path is None:
            raise NotSupportedError(_not_found(lib, found))
        path = found.path
        if lib == "nvrtc" and os.path.isabs(path):
            # NVRTC opens its builtins library by name at compile time; the wheels give it no
            # search path, so load it first from the same folder.
            import glob
            for b in sorted(glob.glob(os.path.join(glob.escape(os.path.dirname(path)), "libnvrtc-builtins.so.*"))):
                try:
                    ctypes.CDLL(b, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
                    break
                except OSError:
                    pass
        try:
            h = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        except OSError as e:
            home = [f"${v}" for v in ("CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX")
                    if os.environ.get(v) and path.startswith(os.path.join(os.environ[v], ""))]
            raise NotSupportedError(
                f"the {lib} library could not be loaded from {path}"
                + (f" (found through {home[0]})" if home else "") + f": {e}. The file is damaged or not a "
                f"library for this machine: " + (f"set {home[0]} to a working CUDA {CUDA_MAJOR} toolkit, or unset it and "
                                                  f"install the library with {_wheel(lib) or 'its installer'}" if home
                                                  else _reinstall_hint(lib))) from None
    _libs[lib] = h
    return h


def _not_found(lib, found):
    """The message for a library `_libpaths.locate` did not find: what, why, what to do, where."""
    from . import _libpaths
    soname = _libpaths.SONAMES[_SONAMES[lib]]
    msg = f"the {lib} library ({soname}) was not found: "
    if found.other_major:
        path, major = found.other_major[0]
        msg += (f"{path} is a CUDA {major} library, and these bindings are built for CUDA {__cuda_version__}, "
                f"which needs the CUDA {CUDA_MAJOR} one ({soname}); ")
    if lib == "cudla" and _libpaths.machine() != "aarch64":
        msg += (f"cuDLA is for DLA hardware only (NVIDIA Jetson and DRIVE, aarch64); there is no {soname} for "
                f"{_libpaths.machine() or 'this architecture'}, so cuda.bindings.cudla cannot load on this machine")
    else:
        msg += _install_hint(lib)
    return msg + ". Looked in: " + "; ".join(found.tried)


def _wheel(lib):
    """The pip command that installs `lib`: "`pip install nvidia-cuda-nvrtc~=13.0` (or ...)", or
    None where no pip wheel has it."""
    from . import _libpaths
    name = _SONAMES.get(lib)
    wheel = _libpaths.WHEELS.get(name)
    if not wheel:
        return None
    spec = f"{wheel}~={__cuda_version__}" if name in _libpaths.CUDA_VERSIONED_WHEELS else wheel
    return f"`pip install {spec}` (or `pip install cuda-bindings[all]`)"


def _install_hint(lib):
    """What to install for a missing library."""
    if lib == "nvml":
        return ("NVML comes with the NVIDIA driver (no pip wheel has it): install the NVIDIA driver, or add the "
                "folder that holds libnvidia-ml.so.1 to the system loader's path (ldconfig, LD_LIBRARY_PATH)")
    wheel = _wheel(lib)
    if lib == "cudla":
        return ("cuDLA comes with JetPack and DRIVE OS" + (f"; install it with {wheel}" if wheel else "")
                + f", or set CUDA_HOME to a CUDA {CUDA_MAJOR} toolkit for this machine")
    return f"install it with {wheel or 'its installer'}, or set CUDA_HOME to a CUDA {CUDA_MAJOR} toolkit"


def _reinstall_hint(lib):
    if lib == "nvml":
        return "reinstall the NVIDIA driver (NVML comes with it)"
    wheel = _wheel(lib)
    return f"reinstall it with {wheel}" if wheel else "reinstall it"


# Each library's version query: its name and how many ints it writes (one: 1000 * major + 10 *
# minor; two: major and minor).  cuFileGetVersion's status is a struct whose first int is 0 on
# success.  NVML's needs nvmlInit, cuDLA's has its own numbering: the driver's version speaks for NVML.
_VERSION_QUERIES = {"driver": ("cuDriverGetVersion", 1), "runtime": ("cudaRuntimeGetVersion", 1),
                    "nvrtc": ("nvrtcVersion", 2), "nvjitlink": ("nvJitLinkVersion", 2),
                    "nvvm": ("nvvmVersion", 2), "nvfatbin": ("nvFatbinVersion", 2),
                    "cufile": ("cuFileGetVersion", 1)}


def _reported_version(lib, h):
    """The ints a loaded library's version query writes, or None where it has none or it fails."""
    if lib not in _VERSION_QUERIES:
        return None
    name, n = _VERSION_QUERIES[lib]
    try:
        f = getattr(h, name)
        v = [ctypes.c_int(0) for _ in range(n)]
        f.restype = ctypes.c_int
        if f(*[ctypes.byref(x) for x in v]) != 0:
            return None
    except (AttributeError, OSError):
        return None
    return [x.value for x in v]


def _library_version(lib, h):
    """The version a loaded library reports, as text ("CUDA 13.0", "NVVM 2.0", "cuFile 1.15"),
    or None."""
    v = _reported_version(lib, h)
    if v is None:
        return None
    if len(v) == 1:
        return f"cuFile {v[0] // 1000}.{v[0] % 1000 // 10}" if lib == "cufile" else _cuda(v[0])
    return f"{'NVVM ' if lib == 'nvvm' else 'CUDA '}{v[0]}.{v[1]}"


def _library_lacks(lib, h):
    """Why a loaded library (not the driver) lacks an entry point: the version it reports and what
    to install."""
    if lib == "nvml":
        try:
            v = _reported_version("driver", library("driver"))
        except Exception:  # a message: no driver to ask is no reason to fail here
            v = None
        return ((f"the NVIDIA driver is {_cuda(v[0])} (cuDriverGetVersion = {v[0]}); " if v and v[0] > 0 else "")
                + f"the function is newer than this NVML (or the library is damaged): these bindings are built "
                f"from the CUDA {__cuda_version__} headers; NVML comes with the NVIDIA driver: install a newer driver")
    v = _library_version(lib, h)
    head = ((f"this library reports {v}; " if v else "") + "the function is newer than the library (or the "
            f"library is damaged): these bindings are built from the CUDA {__cuda_version__} headers; ")
    if lib == "cudla":
        wheel = _wheel(lib)
        return head + "install a newer cuDLA: it comes with JetPack and DRIVE OS" + (f", or {wheel}" if wheel else "")
    return (head + f"install a newer one with {_wheel(lib) or 'its installer'}, or set CUDA_HOME to a newer "
            f"CUDA {CUDA_MAJOR} toolkit")


def _driver_getproc():
    global _getproc
    if _getproc is None:
        h = library("driver")
        try:
            f = h.cuGetProcAddress_v2
        except AttributeError:
            _getproc = False
        else:
            f.restype = ctypes.c_int
            f.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                          ctypes.c_uint64, ctypes.POINTER(ctypes.c_int)]
            _getproc = f
    return _getproc


def _base_name(name):
    """`name` without a version suffix (cuStreamGetCtx_v2 -> cuStreamGetCtx)."""
    head, sep, tail = name.rpartition("_v")
    return head if sep and tail.isdigit() else name


def symbol(lib, entry, lacking_ok=False, ptds=None):
    """Address of one entry point.  entry = (API name, ABI version, per-thread suffix,
    per-thread ABI version, C symbol).  With `lacking_ok` (the driver's calls), an entry point
    the loaded library lacks gives 0, and a FunctionNotFoundWarning the first time.  `ptds`: the
    per-thread default stream variant (where the entry point has one): True for the runtime's
    `_ptds` private layer; None: as CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM says."""
    name, version, suffix, ptds_version, csym = entry
    if lacking_ok and name in _lacking:
        return 0
    h = library(lib)
    tried = []
    per_thread = per_thread_default_stream() if ptds is None else ptds
    ptds = bool(suffix) and per_thread
    if lib == "driver":
        gp = _driver_getproc()
        if gp:
            p = ctypes.c_void_p()
            status = ctypes.c_int(0)
            ver = (ptds_version if ptds else version) or CUDA_VERSION
            # every entry point is asked for with the per-thread flag where that is chosen, as
            # NVIDIA's asks: the driver knows which have a per-thread variant (13.5's
            # cuStreamGetCaptureInfo_v2, which cuda.h gives no per-thread name, has one:
            # PFN_cuStreamGetCaptureInfo_v11030_ptsz)
            flags = _CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM if per_thread else _CU_GET_PROC_ADDRESS_DEFAULT
            # cuGetProcAddress knows a function by its base name, the ABI version picking the
            # variant: cuStreamGetCtx at 12050 is cuStreamGetCtx_v2 (no typedef name of the
            # headers ends in _vN before its version)
            asked = _base_name(name)
            r = gp(asked.encode(), ctypes.byref(p), ver, flags, ctypes.byref(status))
            if r == 0 and status.value == 0 and p.value:
                return p.value
            tried.append(f"cuGetProcAddress({asked!r}, version {ver}) -> error {r}, status {status.value}")
    csym = csym + suffix if ptds else csym
    try:
        fn = getattr(h, csym)
    except AttributeError:
        tried.append(f"dlsym({csym!r})")
        where = "libcuda.so.1" if lib == "driver" else getattr(h, "_name", lib)
        why = _driver_too_old(h, version) if lib == "driver" else _library_lacks(lib, h)
        msg = (f'Function "{name}" not found in {where} ({"; ".join(tried)}); '
               + (why or f"the installed driver may be older than the CUDA {__cuda_version__} headers"))
        if lacking_ok:
            _lacking.add(name)
            warnings.warn(msg + "; the call returns CUDA_ERROR_NOT_FOUND", FunctionNotFoundWarning, stacklevel=2)
            return 0
        # NVIDIA's message, word for word, and no note (NVIDIA's raises it bare); where we looked
        # and what to install is the error's `detail`
        raise with_detail(FunctionNotFoundError(f"function {name} is not found"), "detail", msg) from None
    return ctypes.cast(fn, ctypes.c_void_p).value


def _cuda(v):
    return f"CUDA {v // 1000}.{v % 1000 // 10}"


#: The first driver branch of each CUDA release, where NVIDIA's release notes name it.
DRIVER_BRANCHES = {12000: "R525", 12010: "R530", 12020: "R535", 12030: "R545", 12040: "R550",
                   12050: "R555", 12060: "R560", 12080: "R570", 12090: "R575", 13000: "R580"}


def needs(version):
    """ "a driver for CUDA 13.0 (R580) or newer": what runs the calls of CUDA `version`."""
    branch = DRIVER_BRANCHES.get(version)
    return f"a driver for {_cuda(version)}" + (f" ({branch})" if branch else "") + " or newer"


def _driver_too_old(h, since):
    """Why the driver lacks an entry point that CUDA `since` (the ABI version of the symbol table)
    introduced, from the version the driver reports; None where it reports none."""
    v = _reported_version("driver", h)
    if v is None or v[0] <= 0:
        return None
    v = v[0]        # 1000 * major + 10 * minor
    if since > v:
        return (f"it needs {needs(since)}, and this driver is {_cuda(v)} (cuDriverGetVersion = {v}): "
                f"install a newer NVIDIA driver (these bindings are built for CUDA {__cuda_version__}; "
                f"every call they offer runs on {needs(CUDA_VERSION)})")
    return (f"this driver reports {_cuda(v)} (cuDriverGetVersion = {v}), which should have it "
            f"(since {_cuda(since)}): the library is damaged or not NVIDIA's driver")


def inspector(lib):
    """`(_inspect_function_pointers, _inspect_function_pointer)` for `lib`, as the reference
    package's private modules offer them (cuda.bindings._bindings.cydriver, ...): a dict of
    every entry point's address keyed by "__" and its C symbol (nvJitLink's without the version
    suffix), 0 where the loaded library lacks it, and one lookup in that dict (KeyError for a name
    it does not hold).  The library is loaded by the first call (NotSupportedError if it is
    absent).  For a library this build has no bindings for, ImportError (the private module that
    calls this is then absent, as in the reference package's builds without it)."""
    if not in_build(lib):
        raise ImportError(not_in_build(lib) + f" (no {__package__}._symbols_{lib})",
                          name=f"{__package__}._internal.{lib}")
    table = None

    def _inspect_function_pointers():
        nonlocal table
        if table is None:
            import importlib
            entries = importlib.import_module(f"{__package__}._symbols_{lib}").SYMBOLS
            library(lib)
            found = {}
            for entry in entries:
                key = "__" + (entry[0] if lib == "nvjitlink" else entry[4])
                try:
                    found[key] = symbol(lib, entry)
                except FunctionNotFoundError:
                    found[key] = 0
            table = found
        return dict(table)

    def _inspect_function_pointer(name):
        if table is None:
            _inspect_function_pointers()
        return table[name]

    return _inspect_function_pointers, _inspect_function_pointer

