"""The libraries the generator binds: everything it needs to know about each, in one table.

Every other module of the generator reads the libraries from here; adding a library means adding
its entry (and, where its API needs them, entries in overrides.py).  Data only, plus a few
accessors.  The keys of an entry:

Reading the headers (parse.py):
  headers          the header files pyclibrary reads, in order
  typedef_headers  headers read for the ABI version of each entry point (`PFN_cuMemAlloc_v3020`)
  macros           macros predefined for this library's headers (besides the target ABI's), where
                   they come from headers the parser does not read
  replace          header text pyclibrary cannot follow -> what the C preprocessor makes of it
                   (each with its reason); parse.COMMON_REPLACE holds those of every library
  interop          the graphics interop headers among `headers` -> the GL/EGL/VDPAU headers each
                   needs: the parser reads the stand-ins of headers/stubs before them, the model
                   declares their types at the Cython level, and the .pxd includes each only when
                   the compiler finds what it needs

The generated modules:
  title            what the reference pages call the library
  header           the header the `cdef extern` blocks of cy<lib>.pxd name
  prefix           the C prefix of its function names
  status           the status type its functions return
  notfound         the value returned, with a Python exception set, when an entry point cannot be
                   resolved: the cdef functions' `except ?` value, which a compiled client checks by
                   the reference package's value (the C-API signature strings do not carry it), so
                   it is the reference's; -42 is the reference's value outside nvJitLink's and
                   NVVM's enums
  shutdown         returned, with no exception, by a call whose entry point was never resolved when
                   it comes after the interpreter has shut down (a client's C++ destructors at
                   process exit): there is no loader to ask any more; a status that is not
                   `notfound`, so no caller looks for an exception
  lacking          (the driver only) returned, with no exception, by a call whose entry point the
                   loaded library lacks (a driver older than the headers); the loader warns once per
                   function, saying which driver it needs.  The other libraries raise
                   FunctionNotFoundError instead
  checked          the exception class of its module in cuda.bindings.checked (the tuple-style
                   modules: checked/<lib>.py is generated for each library that has one)
  char_buffers     a non-const `char*` parameter is a buffer the caller sizes and the library fills
                   (NVRTC's and nvJitLink's getters: `nvrtcGetPTX(prog, ptx)`), not a C string;
                   it takes a bytes object too, filled in place, as the reference's examples pass
  helpers          the module's Python-level functions that no entry point makes: the make_*
                   functions of overrides.MAKE_FUNCTIONS (the header's inline functions) and those
                   of overrides.CALL_FUNCTIONS[lib] (getLocalRuntimeVersion)
  v2               (the driver, NVRTC) the library's second module, cuda.bindings._v2.<lib>, in the
                   struct style: its settings, the keys of `snake` (libs.config gives a module of
                   variant "v2" these as its `snake`); `status_required`: the status subclasses take
                   the status as an argument (NVML's default to theirs); `builtin_prefix`: an
                   exception class named as a Python builtin (TimeoutError) takes it
                   (DriverTimeoutError); `message`: "error_string", the library's text for the
                   status (nvrtcGetErrorString), else the Result member's name and value; `v2_names`:
                   the classes are named in CamelCase (names.camel_class, overrides.V2_NAMES);
                   `show_counts`: a struct's count fields are attributes too; `twin_release`: the
                   release of NVIDIA's package whose module this one matches in every build
                   (overrides.TWIN_STYLE: _v2 came with 13.4; its 13.5.0)
  snake            the library's Python module follows the reference's snake_case style (nvJitLink,
                   NVVM): the tuple-returning wrappers are private (`_nvvmVersion`), and a thin layer
                   of snake_case functions (`version`) returns the outputs and raises `error` (a
                   class of the module) on failure; handles are plain ints (`what` names one in
                   messages, `title` the library); `enums` are Python-level enums named without the
                   C prefix (nvvmResult -> Result, NVVM_SUCCESS -> SUCCESS); `buffers`: the
                   reference converts every buffer argument with one helper, whose ValueError
                   (overrides.TWIN_STYLE `buffer_error`) a refused buffer raises here too

The order of LIBS is the order the reference pages, the changelog and the checked modules list
the libraries in; GENERATED is the order `python -m codegen` generates them in (and
codegen/REPORT.md's sections).
"""

import functools
import re


def _xmacro_enum(m):
    """cufile.h's status enum, whose members an X-macro table lists (`CUFILE_OP(code, name, text)`
    lines of `#define CUFILEOP_STATUS_ENTRIES`), as a plain enum: the table is kept, the enum body
    written out."""
    table = m.group(1)
    members = re.findall(r"CUFILE_OP\(\s*([^,]+?)\s*,\s*(\w+)\s*,", table)
    body = "".join(f"    {name} = {code},\n" for code, name in members)
    return table + "typedef enum CUfileOpError {\n" + body + "} CUfileOpError;"


_GL = ["GL/gl.h"]
_EGL = ["EGL/egl.h", "EGL/eglext.h"]
_VDPAU = ["vdpau/vdpau.h"]

LIBS = {
    "driver": dict(
        title="CUDA driver API",
        headers=["cuda.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h"],
        # the profiler header is not shipped in the wheels: its two entry points come from
        # cudaProfilerTypedefs.h instead (see model.py); the interop headers' entry points have
        # their ABI versions in their own typedef headers
        typedef_headers=["cudaTypedefs.h", "cudaProfilerTypedefs.h", "cudaGLTypedefs.h", "cudaEGLTypedefs.h",
                         "cudaVDPAUTypedefs.h"],
        replace={
            # token pasting (_CONCAT_OUTER) is beyond pyclibrary; RESOURCE_ABI_VERSION is 1 in 13.0
            r"_CONCAT_OUTER\(CUdevResource_v,\s*RESOURCE_ABI_VERSION\)": "CUdevResource_v1",
        },
        interop={"cudaGL.h": _GL, "cudaEGL.h": _EGL, "cudaVDPAU.h": _VDPAU},
        header="cuda.h", prefix="cu", status="CUresult",
        notfound="CUDA_ERROR_NOT_FOUND", shutdown="CUDA_ERROR_DEINITIALIZED", lacking="CUDA_ERROR_NOT_FOUND",
        checked="CUDAError",
        v2=dict(error="DriverError", title="CUDA driver API (cuda.bindings._v2)", what="a CUDA handle", records=True,
                per_status=True, status_required=True, builtin_prefix="Driver", v2_names=True, show_counts=True,
                twin_release="13.5",
                type_prefixes=("CUDA_", "CU", "cl_"), member_prefixes=("CU_", "CUDA_"))),
    "runtime": dict(
        title="CUDA runtime API",
        headers=["driver_types.h", "vector_types.h", "surface_types.h", "texture_types.h",
                 "library_types.h", "device_types.h", "cuda_runtime_api.h", "driver_functions.h",
                 "cuda_gl_interop.h", "cuda_egl_interop.h", "cuda_vdpau_interop.h"],
        # macros the runtime headers take from crt/host_defines.h, which the parser does not read
        macros={"CUDARTAPI": "", "__host__": "", "__device__": "", "__cudart_builtin__": "",
                "CUDART_CB": "", "__CUDA_DEPRECATED": "", "CUDART_DEVICE": ""},
        replace={
            # an attribute macro from crt/host_defines.h, which the parser does not read
            r"__device_builtin__": "",
        },
        interop={"cuda_gl_interop.h": _GL, "cuda_egl_interop.h": _EGL, "cuda_vdpau_interop.h": _VDPAU},
        header="cuda_runtime_api.h", prefix="cuda", status="cudaError_t",
        notfound="cudaErrorCallRequiresNewerDriver", shutdown="cudaErrorCudartUnloading",
        checked="CUDARuntimeError", helpers=True),
    "nvrtc": dict(
        title="NVRTC (runtime compilation)",
        headers=["nvrtc.h"],
        header="nvrtc.h", prefix="nvrtc", status="nvrtcResult",
        notfound="NVRTC_ERROR_INVALID_INPUT", shutdown="NVRTC_ERROR_INTERNAL_ERROR",
        checked="NVRTCError", char_buffers=True,
        v2=dict(error="NvrtcError", title="NVRTC (cuda.bindings._v2)", what="an NVRTC program", records=True,
                per_status=True, status_required=True, message="error_string", builtin_prefix="Nvrtc", v2_names=True,
                show_counts=True, twin_release="13.5",
                type_prefixes=("nvrtc",), member_prefixes=("NVRTC_",))),
    "nvjitlink": dict(
        title="nvJitLink (JIT linking)",
        headers=["nvJitLink.h"],
        # 12.9's header keeps the codes of a later release behind NEW_ERROR_CODES (its #defines
        # spell them as existing codes); NVIDIA's 12.9.x binds them with the values CUDA 13 gives
        # them, as the header does with the macro defined (13.x headers do not look at it)
        macros={"NEW_ERROR_CODES": ""},
        header="nvJitLink.h", prefix="nvJitLink", status="nvJitLinkResult",
        notfound="<nvJitLinkResult>-42", shutdown="NVJITLINK_ERROR_INTERNAL", char_buffers=True,
        snake=dict(error="nvJitLinkError", title="nvJitLink", what="an nvJitLink handle", buffers=True,
                   enums={"nvJitLinkResult": ("Result", "NVJITLINK_"),
                          "nvJitLinkInputType": ("InputType", "NVJITLINK_INPUT_")})),
    "nvvm": dict(
        title="NVVM (libNVVM)",
        headers=["nvvm.h"],
        # NVVM has no internal-error status: a shut-down call reports CANCELLED
        header="nvvm.h", prefix="nvvm", status="nvvmResult",
        notfound="<nvvmResult>-42", shutdown="NVVM_ERROR_CANCELLED",
        snake=dict(error="nvvmError", title="NVVM", what="an NVVM program", buffers=True,
                   enums={"nvvmResult": ("Result", "NVVM_")})),
    "nvfatbin": dict(
        title="nvFatbin (fatbinary creation)",
        headers=["nvFatbin.h"],
        header="nvFatbin.h", prefix="nvFatbin", status="nvFatbinResult",
        notfound="<nvFatbinResult>-42", shutdown="NVFATBIN_ERROR_INTERNAL",
        snake=dict(error="nvFatbinError", title="nvFatbin", what="an nvFatbin handle", records=True, buffers=True,
                   enums={"nvFatbinResult": ("Result", "NVFATBIN_")})),
    "cufile": dict(
        title="cuFile (GPUDirect Storage)",
        headers=["cufile.h"],
        replace={
            # the status enum is an X-macro table (CUFILEOP_STATUS_ENTRIES) that pyclibrary does not
            # expand: its entries are written out as the preprocessor would
            r"(?s)(#define\s+CUFILEOP_STATUS_ENTRIES\b.*?)typedef enum CUfileOpError \{.*?\} CUfileOpError;": _xmacro_enum,
        },
        # types of cuda.h that cufile.h uses: taken from cydriver; POSIX types from Cython's posix/
        foreign={"CUstream": "handle", "CUresult": "enum"},
        pxd_imports=["from cuda.bindings.cydriver cimport CUstream, CUresult",
                     "from posix.types cimport off_t", "from posix.time cimport timespec",
                     'cdef extern from "<stdbool.h>":', "    ctypedef bint bool"],
        header="cufile.h", prefix="cuFile", status="CUfileError_t",
        notfound="*", shutdown="CU_FILE_INTERNAL_ERROR",
        snake=dict(error="cuFileError", title="cuFile", what="a cuFile handle", records=True, message="cufile",
                   status_enum="CUfileOpError", hide_structs=("CUfileError_t",),
                   type_prefixes=("CUfile", "CUFile", "cufile"), member_prefixes=("CU_FILE_", "CUFILE_"),
                   # the driver's CUresult, in which cuFile reports a CUDA error
                   imports={"pyCUresult": ("cuda.bindings.driver", "CUresult")})),
    "cudla": dict(
        title="cuDLA (deep learning accelerator)",
        headers=["cudla.h"],
        header="cudla.h", prefix="cudla", status="cudlaStatus",
        notfound="<cudlaStatus>-42", shutdown="cudlaErrorUnknown",
        # the C-API keeps the header's const qualifiers where they stand (`uint64_t const`,
        # `cudlaDevHandle *const`): the reference's signatures spell them so
        keep_const=True,
        snake=dict(error="CudlaError", title="cuDLA", what="a cuDLA handle", records=True, check_status=None,
                   type_prefixes=("cudla", "Cudla"), member_prefixes=("CUDLA_", "cudla"))),
    "nvml": dict(
        title="NVML (NVIDIA Management Library)",
        headers=["nvml.h"],
        header="nvml.h", prefix="nvml", status="nvmlReturn_t",
        notfound="<nvmlReturn_t>-42", shutdown="NVML_ERROR_UNINITIALIZED",
        snake=dict(error="NvmlError", title="NVML", what="an NVML handle", records=True, message="library",
                   per_status=True, builtin_prefix="Nvml", check_status=0, hide_lengths=True,
                   insufficient="NVML_ERROR_INSUFFICIENT_SIZE",
                   type_prefixes=("nvml",), member_prefixes=("NVML_",))),
}

GENERATED = ("driver", "nvrtc", "runtime", "nvjitlink", "nvvm", "nvfatbin", "cufile", "cudla", "nvml")


@functools.lru_cache(maxsize=None)
def config(lib, variant=""):
    """LIBS[lib] as one of its modules sees it: variant "" is the library's own module; "v2" (the
    driver's and NVRTC's second API, cuda.bindings._v2.<lib>) is in the struct style, whose
    settings (the `snake` key that every struct-style module reads) are the entry's `v2`."""
    L = LIBS[lib]
    if not variant:
        return L
    out = {k: v for k, v in L.items() if k not in ("snake", "checked", "char_buffers", "helpers", "v2")}
    out["snake"] = L[variant]
    return out


def of(model):
    """config() of a model's library and variant."""
    return config(model.lib, model.variant)


def module(model):
    """The module of cuda.bindings a model is emitted as: `driver`, `_v2.driver`."""
    return f"_{model.variant}.{model.lib}" if model.variant else model.lib


def names():
    """Every library, in LIBS's order."""
    return tuple(LIBS)


def checked():
    """The libraries with a checked companion module (cuda.bindings.checked.<lib>)."""
    return tuple(lib for lib, L in LIBS.items() if "checked" in L)


def status_types():
    """The status type of every library."""
    return [L["status"] for L in LIBS.values()]


def helpers(lib):
    """Whether library lib's module has Python-level helpers that no entry point makes."""
    return bool(LIBS[lib].get("helpers"))


def interop_headers():
    """The graphics interop headers of every library (cudaGL.h, cuda_gl_interop.h, ...)."""
    return {h for L in LIBS.values() for h in L.get("interop", {})}
