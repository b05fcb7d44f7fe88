"""The probe list, generated from the generator's model so that every name is covered.

A probe is `[id, op, *args]`; probes are bundled in groups (one function, one class, one struct, an
enum family...), and each group runs in a freshly forked worker (see probe.py), so state left by
one group never reaches another.  Arguments are *descriptors*, plain JSON lists that the worker
turns into Python values inside the package under test (`probe.value`):

  ["int", n] ["float", x] ["str", s] ["b", s] (bytes of s)  ["none"] ["obj"] (an object())
  ["bytes"|"numpy"|"ctypes", n]   a zeroed buffer of n bytes of that kind
  ["addr"]               the address of a zeroed buffer the worker owns
  ["cls", Name, *args]   Name(*args) from the module under test;  ["enum", Name, Member]
  ["inst", Name, anon]   a struct instance (a view of a zeroed buffer for anonymous ones)
  ["np_uint64", n]       a numpy scalar
  ["list", [descs]]      ["mod", lib, desc] (desc evaluated in another module)
  ["ctx", what]          an NVRTC program / nvJitLink handle / NVVM program / PTX made by the worker
  ["sizedbuf", sizefn, desc]  a bytearray as large as sizefn(desc) says

Probe ids are `<lib>.<family>.<Name>[.<member>].<what>`; families: name, const, enum, handle,
struct, field, fn.  Field ids carry the field's category (`CUDA_MEMCPY2D_st.srcHost:voidp.set=int`)
and the argument sweep ids the parameter's conversion (`cuMemAlloc.bytesize:scalar=float`), so
differences group by kind.
"""
import concurrent.futures
import json
import multiprocessing
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from codegen import libs as _libs  # noqa: E402  (the generator's table of libraries: data only)

# The modules probed.  What each is comes from the generator's table of libraries (codegen/libs.py):
# its style ("tuple": functions return (status, outputs...) under their C names; "snake":
# snake_case functions raising the module's exception, enums renamed), C prefix and status type.
# A module of that table joins the suite by being named here with the probe families to run on it
# (tests/test_conformance.py reports one test per family); where its functions need real objects
# to work on (a program, a linker), their values go in BASE below and in probe.context.
_TUPLE_FAMILIES = ("name", "const", "enum", "handle", "struct", "field", "fn")
_SNAKE_FAMILIES = ("name", "enum", "fn")
# the struct-style modules (cuFile, NVML, nvFatbin, cuDLA): their struct classes are the `record`
# family (construction, numpy dtype, fields and what each reads and takes)
_RECORD_FAMILIES = ("name", "enum", "record", "fn")
CORE = ("driver", "runtime", "nvrtc", "nvjitlink", "nvvm")
RECORDS = ("nvfatbin", "cufile", "nvml", "cudla")
PROBED = CORE + RECORDS
# The struct-style modules NVIDIA's package of each release has (its twin, run.TWINS: 12.9.10 has
# cufile, nvfatbin and nvml, 13.0.3 cufile, 13.5.0 all four): the ones probed for that release.
RECORDS_IN = {"12.9": ("nvfatbin", "cufile", "nvml"), "13.0": ("cufile",), "13.5": RECORDS}
# the models built in one process (the driver's, the runtime's and NVML's are the slow ones)
PARTS = [["driver"], ["runtime"], ["nvrtc", "nvjitlink", "nvvm", "nvfatbin", "cufile", "cudla"], ["nvml"]]


def _module(lib):
    L = _libs.LIBS[lib]
    snake = L.get("snake")
    style = "records" if snake and snake.get("records") else "snake" if snake else "tuple"
    return {"style": style, "prefix": L["prefix"], "status": L["status"],
            "enums": dict(snake.get("enums", {})) if snake else {},
            "families": {"tuple": _TUPLE_FAMILIES, "snake": _SNAKE_FAMILIES, "records": _RECORD_FAMILIES}[style]}


def libs_for(release):
    """The modules probed for CUDA `release`: the five, and the struct-style ones its twin has."""
    return CORE + tuple(lib for lib in RECORDS if lib in RECORDS_IN.get(release, ()))


def _build_release():
    try:
        from cuda.bindings import __cuda_version__
        return __cuda_version__
    except Exception:           # no build importable: every family is listed
        return None


MODULES = {lib: _module(lib) for lib in PROBED}
LIBS = libs_for(_build_release()) if _build_release() else PROBED
SNAKE = {lib: m["prefix"] for lib, m in MODULES.items() if m["style"] == "snake"}
assert sorted(sum(PARTS, [])) == sorted(PROBED), "every probed module's model is built in one part"
# NVIDIA's _v2 modules (_v2.driver, _v2.nvrtc) appear in its 13.4 releases: a release whose twin
# has them gets their probes (v2probe.py: every public name, and every function called with each
# parameter as each of a few values), reported as the families of lib `v2_driver` and `v2_nvrtc`
V2_FROM = (13, 4)
V2_LIBS = ("v2_driver", "v2_nvrtc")
V2_FAMILIES = ("name", "fn")


def has_v2(release):
    """Whether NVIDIA's twin of CUDA `release` has cuda.bindings._v2 (run.has_v2 checks its files)."""
    return tuple(int(x) for x in release.split(".")[:2]) >= V2_FROM


FAMILIES = [(lib, fam) for lib in LIBS for fam in MODULES[lib]["families"]]
if _build_release() is None or has_v2(_build_release()):
    FAMILIES += [(lib, fam) for lib in V2_LIBS for fam in V2_FAMILIES]
BUF = 16384                       # size of every buffer a probe passes (larger than any output)
KERNEL = ('extern "C" __global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n'
          'template <typename T> __global__ void t(T *x) { x[0] = T(); }\n')
# the NVVM probes' module: *x = *x * 2.0f, NVVM IR 2.0 (typed pointers, as libNVVM 13.0 reads it)
NVVM_IR = ('target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-'
           'f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"\n'
           'target triple = "nvptx64-nvidia-cuda"\n'
           'define void @k(float* %x) {\n  %v = load float, float* %x\n  %w = fmul float %v, 2.0\n'
           '  store float %w, float* %x\n  ret void\n}\n'
           '!nvvm.annotations = !{!0}\n!0 = !{void (float*)* @k, !"kernel", i32 1}\n'
           '!nvvmir.version = !{!1}\n!1 = !{i32 2, i32 0, i32 3, i32 2}\n')

# the values swept through every parameter of every function, one parameter at a time (and, for
# text parameters, "swapped": the base text as the other string type, bytes <-> str)
SWEEP = ("int", "handle", "none", "bytes", "numpy", "ctypes", "str", "float", "object")
# the values set into every struct field
FIELD_VALUES = ("int", "float", "neg", "big", "enum", "handle", "struct", "list_int", "list_handle",
                "list_struct", "bytes", "none", "str", "object")
_FLOATS = ("float", "double")
_HANDLES = {"driver": ("CUstream", "CUevent"), "runtime": ("cudaStream_t", "cudaEvent_t")}


# ---------------------------------------------------------------------------------------------
# the model

def _records_py(m):
    """What the generator names in a struct-style module (`py` of its model dict): the enums with
    their members (those of the #define groups too), the struct classes with their dtype and the
    fields they show, and each function's Python name and inputs (name, type, C parameter)."""
    from codegen import overrides as ov
    from codegen.common import counted_fields, public_function, record_names
    from codegen.pyapi import public_inputs
    from codegen.resolve import resolve
    L = _libs.LIBS[m.lib]
    resolve(m)
    rn = record_names(m)
    enums = [[py, [[n, int(v)] for n, v in members]] for _, py, members in rn.enums]
    enums += [[py, [[n, int(v)] for n, v in members]] for py, members in ov.DEFINE_ENUMS_OF(m)]
    hide = set(L["snake"].get("hide_structs", ()))
    dtype_of = {c: d for d, c in rn.dtypes.items()}
    by_name = {n: s for s in m.structs for n in [s.name] + [a for a, _ in s.aliases]}
    classes = []
    for s in m.structs:
        if s.name in hide or any(a in hide for a, _ in s.aliases) or rn.cls[s.name].startswith("_"):
            continue
        hidden = counted_fields(s, m.cuda)
        shown = [f for f in s.fields
                 if None not in f.dims and f.name not in hidden and (s.name, f.name) not in ov.HIDDEN_FIELDS]
        views = []
        for f in shown:
            inner = by_name.get(f.ctype) if f.cls == "struct" and not f.ptr else None
            sub = _plain_field(inner.fields) if inner else None
            if sub:
                views.append([rn.fields[s.name][f.name], 0 if f.dims else None, rn.fields[inner.name][sub]])
        classes.append([rn.cls[s.name], dtype_of.get(rn.cls[s.name], ""), [rn.fields[s.name][f.name] for f in shown],
                        views])
    functions = {fn.name: [public_function(fn, L), [[n, t, c] for n, t, c, _ in public_inputs(m, fn)]]
                 for fn in m.functions if fn.python}
    constants = [py for c, py in ov.PUBLIC_CONSTANTS.get(m.lib, {}).items() if c in dict(m.defines)]
    return {"enums": enums, "classes": classes, "functions": functions, "constants": constants}


def _plain_field(fields):
    """The first field of a struct that holds one integer (a scalar, no array, no pointer), by its C
    name (as model objects or model dicts): what a view probe writes through; None if it has none."""
    for g in fields:
        get = g.get if isinstance(g, dict) else lambda k, g=g: getattr(g, k)
        if get("cls") == "scalar" and not get("dims") and not get("ptr") and get("ctype") not in _FLOATS:
            return get("name")
    return None


def _build_one(release, libs):
    from codegen import model, parse
    from headers.fetch import include_dir
    inc = include_dir(release)
    out = {}
    for lib in libs:
        m = model.build(parse.read(inc, lib), lib)
        m.cuda = release
        out[lib] = json.loads(m.to_json())
        if MODULES[lib]["style"] == "records":
            out[lib]["py"] = _records_py(m)
    return out


def load_models(release, jobs=2):
    """{lib: model dict} of CUDA `release` (a version pinned in headers/pins.json), as
    `python -m codegen --dump-model` writes them (built in up to `jobs` processes), for the modules
    probed for that release (libs_for); a struct-style module's dict also has `py` (_records_py)."""
    wanted = libs_for(release)
    parts = [tuple(lib for lib in libs if lib in wanted) for libs in PARTS]
    parts = [p for p in parts if p]
    if jobs <= 1:
        return _build_one(release, wanted)
    out = {}
    ctx = multiprocessing.get_context("fork")      # the workers need this module's sys.path
    with concurrent.futures.ProcessPoolExecutor(min(jobs, len(parts)), mp_context=ctx) as ex:
        for d in ex.map(_build_one, [release] * len(parts), parts):
            out.update(d)
    return out


def _strip(ctype):
    return re.sub(r"^(struct|union|enum)\s+", "", ctype)


def snake(name):
    """nvJitLinkGetLinkedPtxSize -> get_linked_ptx_size, nvvmIRVersion -> ir_version (the
    reference's spelling in its nvjitlink and nvvm modules)."""
    name = next(name[len(p):] for p in SNAKE.values() if name.startswith(p))
    return re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


class Lib:
    """One library's model, with the lookups the probe builders need."""

    def __init__(self, lib, m):
        self.lib, self.m = lib, m
        self.enums = {}                       # any enum name or alias -> Enum dict
        for e in m["enums"]:
            for n in [e["name"]] + e["aliases"]:
                self.enums[_strip(n)] = e
        self.structs = {}
        for s in m["structs"]:
            for n in [s["name"]] + [a for a, _ in s["aliases"]]:
                self.structs[n] = s
        self.inttd_size = {n: size for n, _, _, size, _ in m["inttds"]}
        self.classes = {n for n, _ in m["handles"] + m["funcptrs"]} | set(self.inttd_size)

    def enum_py(self, e):
        """(Python class name, member name map) of an enum; the snake_case modules rename both."""
        if MODULES[self.lib]["style"] == "records":
            raise ValueError("a struct-style module's enums come from its `py` names (record_groups)")
        if self.lib not in SNAKE:
            return _strip(e["name"]), {k: k for k, _ in e["members"]}
        names = [k for k, _ in e["members"]]
        cls, prefix = MODULES[self.lib]["enums"][e["name"]]
        return cls, {k: k[len(prefix):] for k in names}

    def enum_member(self, ctype, index=0):
        e = self.enums.get(_strip(ctype))
        if e is None or not e["members"]:
            return ["int", 0]
        cls, names = self.enum_py(e)
        key = e["members"][min(index, len(e["members"]) - 1)][0]
        return ["enum", _strip(ctype) if self.lib not in SNAKE else cls, names[key]]

    def foreign_handle(self, avoid=""):
        if self.lib in _HANDLES:
            a, b = _HANDLES[self.lib]
            return ["cls", b if avoid == a else a, ["int", 16]]
        if self.lib == "nvrtc":        # (its own class again, except where that is the class probed)
            return (["mod", "driver", ["cls", "CUstream", ["int", 16]]] if avoid == "nvrtcProgram"
                    else ["cls", "nvrtcProgram", ["int", 0]])
        return ["mod", "driver", ["cls", "CUstream", ["int", 0]]]

    def item(self, cls, ctype):
        """A representative value of one item of C type `ctype` (category `cls`)."""
        ctype = _strip(ctype)
        if cls == "enum":
            return self.enum_member(ctype)
        if cls in ("handle", "funcptr"):
            return ["cls", ctype, ["int", 16]] if ctype in self.classes else ["int", 16]
        if cls == "inttd":
            return ["cls", ctype, ["int", 1]] if ctype in self.classes else ["int", 1]
        if cls == "struct":
            return ["cls", ctype] if ctype in self.structs else ["none"]
        return ["float", 1.0] if ctype in _FLOATS else ["int", 1]


# ---------------------------------------------------------------------------------------------
# functions

# base values that the model cannot know: NVRTC and nvJitLink run for real, on a tiny program
BASE = {
    ("nvrtcCreateProgram", "src"): ["b", KERNEL], ("nvrtcCreateProgram", "name"): ["b", "k.cu"],
    ("nvrtcCreateProgram", "numHeaders"): ["int", 0],
    ("nvrtcCreateProgram", "headers"): ["list", []], ("nvrtcCreateProgram", "includeNames"): ["list", []],
    ("nvrtcCompileProgram", "prog"): ["ctx", "prog_new"],
    ("nvrtcCompileProgram", "options"): ["list", [["b", "--gpu-architecture=compute_90"]]],
    ("nvrtcDestroyProgram", "prog"): ["ctx", "prog_new"],
    ("nvrtcAddNameExpression", "prog"): ["ctx", "prog_new"],
    ("nvrtcAddNameExpression", "name_expression"): ["b", "t<float>"],
    ("nvrtcGetLoweredName", "name_expression"): ["b", "t<int>"],
    ("nvrtcSetFlowCallback", "callback"): ["int", 0],
    ("nvJitLinkCreate", "options"): ["list", [["str", "-arch=sm_90"]]],
    ("nvJitLinkAddData", "data"): ["ctx", "ptx"], ("nvJitLinkAddData", "size"): ["ctx", "ptx_size"],
    ("nvJitLinkAddData", "name"): ["str", "k.ptx"],
    ("nvJitLinkAddFile", "fileName"): ["ctx", "ptx_file"],
    ("nvvmCompileProgram", "options"): ["list", [["str", "-arch=compute_90"]]],
    ("nvvmVerifyProgram", "options"): ["list", [["str", "-arch=compute_90"]]],
    ("nvvmGetErrorString", "result"): ["enum", "Result", "ERROR_COMPILATION"],
}
for _f in ("nvvmAddModuleToProgram", "nvvmLazyAddModuleToProgram"):
    BASE.update({(_f, "buffer"): ["ctx", "nvvm_ir"], (_f, "size"): ["ctx", "nvvm_ir_size"], (_f, "name"): ["str", "k.ll"]})
# Where our model's reading of a parameter differs from the reference's, the base call uses the
# reference's shape (the reference is the oracle; ours then shows the difference once, at .base):
# "list" wraps the model's single item in a list, "item" passes one item instead of a list.
REF_SHAPE = {
    ("cuGraphicsMapResources", "resources"): "item", ("cuGraphicsUnmapResources", "resources"): "item",
    ("cudaGraphicsMapResources", "resources"): "item", ("cudaGraphicsUnmapResources", "resources"): "item",
    ("cuTexRefSetBorderColor", "pBorderColor"): "item",
    ("cuMemMapArrayAsync", "mapInfoList"): "list", ("cuMemPoolSetAccess", "map"): "list",
    ("cuMemSetAccess", "desc"): "list", ("cuStreamBatchMemOp", "paramArray"): "list",
    ("cudaMemPoolSetAccess", "descList"): "list",
    ("cuCtxCreate_v3", "paramsArray"): "list",
    ("cuDevSmResourceSplit", "groupParams"): "list", ("cudaDevSmResourceSplit", "groupParams"): "list",
    ("cudaStreamSetAttribute", "value"): ["cls", "cudaStreamAttrValue"],
    ("cudaGraphKernelNodeSetAttribute", "value"): ["cls", "cudaKernelNodeAttrValue"],
}
for _f in ("GraphAddDependencies", "GraphRemoveDependencies"):
    REF_SHAPE[("cu" + _f, "edgeData")] = REF_SHAPE[("cuda" + _f, "edgeData")] = "list"
for _f in ("GraphAddNode", "StreamBeginCaptureToGraph", "StreamUpdateCaptureDependencies"):
    REF_SHAPE[("cu" + _f, "dependencyData")] = REF_SHAPE[("cuda" + _f, "dependencyData")] = "list"

# nvJitLink and NVVM calls that change their handle get a fresh one (an NVVM program holding the
# module); the getters share a linked / compiled one
_FRESH_LINKER = {"nvJitLinkAddData", "nvJitLinkAddFile", "nvJitLinkComplete", "nvJitLinkDestroy"}
_FRESH_PROGRAM = {"nvvmAddModuleToProgram", "nvvmLazyAddModuleToProgram", "nvvmCompileProgram",
                  "nvvmVerifyProgram", "nvvmDestroyProgram"}


def _ref_shape(fname, pname):
    """REF_SHAPE's entry; a versioned entry point (12.9's cuGraphAddNode_v2) is shaped as its
    unversioned name."""
    return REF_SHAPE.get((fname, pname), REF_SHAPE.get((re.sub(r"_v\d+$", "", fname), pname)))


def base_value(L, fn, p):
    key = (fn["name"], p["name"])
    if key in BASE:
        return BASE[key]
    shape = _ref_shape(*key)
    if isinstance(shape, list):
        return shape
    if shape:
        v = model_value(L, fn, p)
        return ["list", [v]] if shape == "list" else v[1][0]
    return model_value(L, fn, p)


def model_value(L, fn, p):
    conv, cls, ctype = p["conv"], p["cls"], p["ctype"]
    if L.lib == "nvrtc" and ctype == "nvrtcProgram":
        return ["ctx", "prog"]
    if L.lib == "nvjitlink" and ctype == "nvJitLinkHandle":
        return ["ctx", "linker_new" if fn["name"] in _FRESH_LINKER else "linker"]
    if L.lib == "nvvm" and ctype == "nvvmProgram":
        return ["ctx", "nvvm_prog_new" if fn["name"] in _FRESH_PROGRAM else "nvvm_prog"]
    if L.lib == "nvjitlink" and cls == "enum":
        return ["enum", "InputType", "PTX"]
    if conv == "buf_w":
        size_fn = fn["name"] + "Size"
        if L.lib in SNAKE:
            size_fn = snake(size_fn)
        return ["sizedbuf", size_fn, ["ctx", {"nvjitlink": "linker", "nvvm": "nvvm_prog"}.get(L.lib, "prog")]]
    if conv in ("cstr", "strlist"):
        one = ["str", "x"] if L.lib in SNAKE else ["b", "x"]
        return one if conv == "cstr" else ["list", [one]]
    jit = any(q["conv"] == "jitvalues" for q in fn["params"])   # option lists: left empty
    if conv == "voidp":
        return ["addr"]
    if conv == "attr":               # the value's type depends on the attribute: any getPtr() object
        return ["mod", "driver", ["cls", "cuuint64_t", ["int", 1]]]
    if conv == "voidpp":
        return ["int", 0] if p["name"] == "extra" else ["list", [["addr"]]]
    if conv in ("kparams", "unknown"):
        return ["none"]
    if conv == "jitvalues" or (conv == "array" and jit):
        return ["list", []]
    if jit and conv == "scalar" and p["name"].startswith("num"):
        return ["int", 0]
    if conv == "array":
        return ["list", [L.item(cls, ctype)]]
    if conv in ("struct_ptr", "struct_val"):
        return L.item("struct", ctype)
    return L.item(cls, ctype)


_COPIED = ("array", "attr", "jitvalues", "strlist", "kparams", "cstr", "voidpp", "value_inout")


def _reg_kind(L, fn, p):
    """How the stub's record of an argument register is shown: ["int", bytes] for values,
    ["ptr"] for the caller's own buffer or struct (its label), ["ptr", "copy"] where a temporary
    is as right as the caller's storage (NULL shown only when the caller passed None)."""
    callback = any(q["cls"] == "funcptr" for q in fn["params"])   # may be wrapped in a trampoline
    if (p["role"] in ("out", "hidden") or p["conv"] in _COPIED or (callback and p["cls"] in ("funcptr", "void"))
            or _ref_shape(fn["name"], p["name"]) == "list"):
        return ["ptr", "copy"]
    if p["ptr"] or p["conv"] not in ("scalar", "enum", "inttd", "handle"):
        return ["ptr"]               # the caller's buffer or struct must be what the C call sees
    if p["cls"] == "enum":
        return ["int", 4]
    if p["cls"] == "inttd":
        return ["int", L.inttd_size.get(p["ctype"], 8)]
    if p["cls"] == "scalar":
        from codegen.model import SCALARS       # (the model's own table of C scalar sizes)
        return ["int", SCALARS.get(p["ctype"], (None, 8))[1]]
    return ["int", 8]


def registers(L, fn):
    """[register, param name, kind, index among the Python arguments or -1] for the first six
    integer-class C parameters (x86-64 System V)."""
    out = []
    ins = [p["name"] for p in fn["params"] if p["role"] in ("in", "inout")]
    for p in fn["params"]:
        if p["conv"] == "struct_val" or len(out) == 6:
            break                      # by-value structs: the rest of the layout is not tracked
        if p["cls"] == "scalar" and p["ctype"] in _FLOATS and not p["ptr"]:
            continue                   # passed in an xmm register
        arg = ins.index(p["name"]) if p["name"] in ins else -1
        out.append([len(out), p["pyname"], _reg_kind(L, fn, p), arg])
    return out


def _swapped(d):
    """The same text as the other string type (bytes <-> str), in a list or not."""
    if d[0] == "list":
        return ["list", [_swapped(x) for x in d[1]]]
    return [{"b": "str", "str": "b"}.get(d[0], d[0]), *d[1:]]


# the forms of a C argument that NVIDIA's package accepts by the parameter's C type, beyond SWEEP:
# a pointer given as an int address (of a real buffer, beyond the first page) or as 0 (NULL), text
# as bytes or str, an array as an empty, a one-item and a three-item list, a struct array as a
# struct-class object of 0, 1 and 3 items, an enum as a member and as a plain int
_POINTERS = ("voidp", "cstr", "buf_w", "array", "strlist", "struct_ptr", "jitvalues", "voidpp", "kparams",
             "records_io", "value_ref", "unknown")


def arg_forms(L, p, base, record_cls=None):
    """{form: descriptor} for one input parameter (a model dict; None for a struct-style field
    argument, which takes a number) whose base value is `base`; `record_cls` is the struct class of
    a struct-style module's struct-array argument."""
    out = {}
    if p is None:
        return out
    if p["ptr"] or p["conv"] in _POINTERS:
        out["addr"], out["null"] = ["addr"], ["int", 0]
    if p["conv"] == "cstr":
        out["text_b"], out["text_s"] = ["b", "x"], ["str", "x"]
    if p["conv"] in ("array", "strlist", "jitvalues") or (base and base[0] == "list"):
        item = base[1][0] if base and base[0] == "list" and base[1] else (
            ["str", "x"] if p["conv"] == "strlist" else L.item(p["cls"], p["ctype"]))
        out["empty"], out["one"], out["three"] = ["list", []], ["list", [item]], ["list", [item] * 3]
    if record_cls:
        for n in (0, 1, 3):
            out[f"rec{n}"] = ["cls", record_cls, ["int", n]]
    if p["conv"] == "enum" and base and base[0] == "enum":
        out["member"] = base
    return out


def function_group(L, fn):
    name = snake(fn["name"]) if L.lib in SNAKE else fn["name"]
    pid = f"{L.lib}.fn.{name}"
    ins = [p for p in fn["params"] if p["role"] in ("in", "inout")]
    args = [base_value(L, fn, p) for p in ins]
    opts = {"values": True}
    if L.lib == "driver":
        opts["stub"] = registers(L, fn)
    probes = [[f"{pid}.sig", "sig", name], [f"{pid}.base", "call", name, args, opts]]
    if L.lib == "driver":
        probes.append([f"{pid}.success", "call", name, args, dict(opts, status=0, values=False)])
    sweep = {"int": ["int", 1], "none": ["none"], "bytes": ["bytes", BUF], "numpy": ["numpy", BUF],
             "ctypes": ["ctypes", BUF], "str": ["str", "x"], "float": ["float", 1.5], "object": ["obj"]}
    for i, p in enumerate(ins):
        kinds = SWEEP + (("swapped",) if p["conv"] in ("cstr", "strlist") else ())
        for kind in kinds:
            v = (L.foreign_handle(_strip(p["ctype"])) if kind == "handle" else _swapped(args[i]) if kind == "swapped"
                 else sweep[kind])
            probes.append([f"{pid}.{p['pyname']}:{p['conv']}={kind}", "call", name, args[:i] + [v] + args[i + 1:],
                           opts])
        for kind, v in arg_forms(L, p, args[i]).items():
            probes.append([f"{pid}.{p['pyname']}:{p['conv']}={kind}", "call", name, args[:i] + [v] + args[i + 1:],
                           opts])
    return {"g": pid, "lib": L.lib, "probes": probes}


# ---------------------------------------------------------------------------------------------
# classes: handles, integer typedefs, function pointers

def class_group(L, name, size):
    pid = f"{L.lib}.handle.{name}"
    other = L.foreign_handle(name)
    mk = lambda *a: ["cls", name, *a]       # noqa: E731
    probes = [[f"{pid}.new({label})", "new", name, args] for label, args in (
        ("", []), ("int", [["int", 5]]), ("neg", [["int", -1]]), ("big", [["int", 2 ** 64]]),
        ("none", [["none"]]), ("float", [["float", 1.5]]), ("str", [["str", "5"]]), ("object", [["obj"]]),
        ("same", [mk(["int", 7])]), ("other", [other]), ("numpy", [["np_uint64", 7]]))]
    probes += [[f"{pid}.ptr", "view", name, size, ""],
               [f"{pid}.getPtr", "getptr", mk(["int", 5]), size]]
    for op in ("int", "index", "repr", "hash", "bool", "eq_same", "eq_int", "eq_other", "ne_same"):
        probes.append([f"{pid}.{op}", "unary", mk(["int", 5]), op, other])
    return {"g": pid, "lib": L.lib, "probes": probes}


# ---------------------------------------------------------------------------------------------
# structs and unions

def field_value(L, f, kind):
    own = {"enum": f["cls"] == "enum", "handle": f["cls"] in ("handle", "inttd", "funcptr"),
           "struct": f["cls"] in ("struct", "structptr")}
    if kind == "enum":
        return L.enum_member(f["ctype"], 1) if own["enum"] else L.enum_member(MODULES[L.lib]["status"], 1)
    if kind == "handle":
        return L.item(f["cls"], f["ctype"]) if own["handle"] else L.foreign_handle()
    if kind == "struct":
        s = L.structs.get(f["ctype"]) if own["struct"] else None
        if s:
            return ["inst", f["ctype"], bool(s["host"])]
        return {"driver": ["inst", "CUuuid", False], "runtime": ["inst", "dim3", False]}.get(
            L.lib, ["mod", "driver", ["inst", "CUuuid", False]])
    if kind == "list_handle":
        h = field_value(L, f, "handle")
        return ["list", [h, h]]
    if kind == "list_struct":
        return ["list", [field_value(L, f, "struct")]]
    return {"int": ["int", 1], "float": ["float", 2.5], "neg": ["int", -1], "big": ["int", 2 ** 64],
            "list_int": ["list", [["int", 1], ["int", 2]]], "bytes": ["b", "ab"], "none": ["none"],
            "str": ["str", "s"], "object": ["obj"]}[kind]


def struct_group(L, s, name):
    """Probes for one struct class `name` (the struct itself or one of its aliases)."""
    pid = f"{L.lib}.struct.{name}"
    anon = bool(s["host"])
    probes = [[f"{pid}.new()", "new", name, []],
              [f"{pid}.new(int)", "new", name, [["int", 5]]],
              [f"{pid}.new(same)", "new", name, [["inst", name, anon]]],
              [f"{pid}.ptr", "view", name, 0, s["fields"][0]["name"] if s["fields"] else ""],
              [f"{pid}.getPtr", "getptr", ["inst", name, anon], 0],
              [f"{pid}.sizeof", "sizeof", name]]
    for op in ("int", "index", "repr", "hash", "eq_same"):
        probes.append([f"{pid}.{op}", "unary", ["inst", name, anon], op, ["none"]])
    if name != s["name"]:       # an alias: a subclass of (or the same class as) its struct
        probes.append([f"{pid}.alias", "alias", name, s["name"]])
        return {"g": pid, "lib": L.lib, "probes": probes}
    for f in s["fields"]:
        fid = f"{L.lib}.field.{name}.{f['name']}:{f['cls']}"
        probes.append([f"{fid}.get", "fget", name, anon, f["name"]])
        inner = L.structs.get(f["ctype"]) if f["cls"] == "struct" and not f["ptr"] else None
        sub = _plain_field(inner["fields"]) if inner else None
        if sub:       # a nested struct, or one item of an array of structs: a view, or a copy
            probes.append([f"{fid}.view", "fview", name, anon, f["name"], 0 if f["dims"] else None, sub])
        for kind in FIELD_VALUES:
            probes.append([f"{fid}.set={kind}", "fset", name, anon, f["name"], f["count"],
                           field_value(L, f, kind)])
    return {"g": pid, "lib": L.lib, "probes": probes}


# ---------------------------------------------------------------------------------------------
# enums, constants, names

def enum_probes(L, e):
    cls, names = L.enum_py(e)
    pid = f"{L.lib}.enum.{cls}"
    members = {names[k]: v for k, v in e["members"]}
    first = e["members"][0][1] if e["members"] else 0
    probes = [[f"{pid}.members", "members", cls],
              [f"{pid}.lookup", "call_cls", cls, [["int", first]]],
              [f"{pid}.unknown", "call_cls", cls, [["int", 0x7FFF0123]]],
              [f"{pid}.type", "mro", cls]]
    if members:
        probes.append([f"{pid}.repr", "unary", ["enum", cls, next(iter(members))], "repr", ["none"]])
    for a in e["aliases"]:
        probes.append([f"{L.lib}.enum.{_strip(a)}.alias", "alias", _strip(a), cls])
    return probes


# ---------------------------------------------------------------------------------------------
# the struct-style modules (cuFile, NVML, nvFatbin, cuDLA)

# values that the model cannot know: nvFatbin works on a real handle and real PTX
RECORD_BASE = {
    ("nvfatbin", "code"): ["ctx", "ptx"], ("nvfatbin", "size"): ["ctx", "ptx_size"],
    ("nvfatbin", "arch"): ["str", "90"], ("nvfatbin", "identifier"): ["str", "k"],
    ("nvfatbin", "options_cmd_line"): ["str", ""], ("nvfatbin", "options"): ["list", []],
    ("nvfatbin", "options_count"): ["int", 0],
}
HANDLE = 0x10000      # a handle the stand-in libraries take (beyond the first page, which ours refuses)
# releases whose twin takes a struct argument only as an address (NVIDIA's 13.0.3 cufile: intptr_t;
# ours takes the struct object or its address): the base call passes an address there
STRUCTS_BY_ADDRESS = ("13.0",)


def _record_value(lib, fname, name, typ, p, classes, enums, by_address=False):
    """A valid value for one input of a struct-style module's function, from its name and type."""
    if (lib, name) in RECORD_BASE:
        if lib == "nvfatbin" and name == "size" and fname == "size":
            return ["ctx", "fatbin"]
        return RECORD_BASE[(lib, name)]
    first = typ.split(" | ")[0].strip()
    if p is not None and p["conv"] == "voidp":
        return ["addr"]             # memory given by address, as both packages take it
    if p is not None and p["cls"] == "handle" and "int" in typ:
        if lib == "nvfatbin":
            return ["ctx", "fatbin_new" if fname == "destroy" else "fatbin"]
        return ["int", HANDLE]
    if first in classes:
        return ["addr"] if by_address else ["cls", first]
    if first in enums and enums[first]:
        return ["enum", first, enums[first][0][0]]
    if p is not None and p["conv"] == "cstr" and "int" in typ.split(" | "):
        return ["addr"]             # text NVIDIA's package takes as a C string's address only
    if first == "str" or "str" in typ.split(" | "):
        return ["str", "x"]
    if first in ("Buffer", "bytes", "bytearray"):
        return ["sizedbuf", "size", ["ctx", "fatbin"]] if lib == "nvfatbin" and name == "buffer" else ["bytes", BUF]
    if first.startswith(("Sequence", "list")):
        # an array NVIDIA's package takes only as an address (its intptr_t): an address
        return ["addr"] if p is not None and p["conv"] == "array" and "int" in typ.split(" | ") else ["list", []]
    return ["int", 0]


def record_function_group(L, fn):
    py = L.m["py"]
    name, inputs = py["functions"][fn["name"]]
    classes = {c[0] for c in py["classes"]}
    enums = {e: m for e, m in py["enums"]}
    params = {p["name"]: p for p in fn["params"]}
    pid = f"{L.lib}.fn.{name}"
    by_address = L.m.get("cuda") in STRUCTS_BY_ADDRESS
    args = [_record_value(L.lib, name, n, t, params.get(c), classes, enums, by_address) for n, t, c in inputs]
    # the stand-in libraries write nothing, so an output is what the package's own buffer held:
    # its type is compared, not its value
    opts = {"values": False}
    probes = [[f"{pid}.sig", "sig", name], [f"{pid}.base", "call", name, args, opts]]
    sweep = {"int": ["int", 1], "none": ["none"], "bytes": ["bytes", BUF], "numpy": ["numpy", BUF],
             "ctypes": ["ctypes", BUF], "str": ["str", "x"], "float": ["float", 1.5], "object": ["obj"]}
    for i, (n, t, c) in enumerate(inputs):
        conv = params[c]["conv"] if c in params else "field"
        for kind in SWEEP:
            if kind == "handle":
                continue
            probes.append([f"{pid}.{n}:{conv}={kind}", "call", name, args[:i] + [sweep[kind]] + args[i + 1:], opts])
        p = params.get(c)
        rec = _strip(t.split(" | ")[0]) if p is not None and p["conv"] in ("struct_ptr", "records_io") else None
        for kind, v in arg_forms(L, p, args[i], rec if rec in classes else None).items():
            probes.append([f"{pid}.{n}:{conv}={kind}", "call", name, args[:i] + [v] + args[i + 1:], opts])
    # each call its own made-up handle: a call that destroys one (module_unload, handle_deregister)
    # makes ours refuse it afterwards, in the same process
    for k, pr in enumerate(probes):
        if pr[1] == "call":
            pr[3] = [["int", HANDLE + 0x100 * k] if a == ["int", HANDLE] else a for a in pr[3]]
    return {"g": pid, "lib": L.lib, "probes": probes}


_RECORD_SET = {"int": ["int", 1], "neg": ["int", -1], "big": ["int", 2 ** 64], "float": ["float", 2.5],
               "str": ["str", "s"], "none": ["none"], "list_int": ["list", [["int", 1], ["int", 2]]], "object": ["obj"]}


def record_groups(L):
    """The enum and record probes of a struct-style module."""
    py = L.m["py"]
    misc = []
    for cls, members in py["enums"]:
        pid = f"{L.lib}.enum.{cls}"
        misc += [[f"{pid}.members", "members", cls],
                 [f"{pid}.lookup", "call_cls", cls, [["int", members[0][1] if members else 0]]],
                 [f"{pid}.unknown", "call_cls", cls, [["int", 0x7FFF0123]]],
                 [f"{pid}.type", "mro", cls]]
    misc += [[f"{L.lib}.const.{k}", "const", k] for k in py.get("constants", [])]
    out = [{"g": f"{L.lib}.enum", "lib": L.lib, "probes": misc}]
    for cls, dtype, fields, views in py["classes"]:
        pid = f"{L.lib}.record.{cls}"
        probes = [[f"{pid}.new()", "rnew", cls, []], [f"{pid}.new(2)", "rnew", cls, [["int", 2]]],
                  [f"{pid}.new(-1)", "rnew", cls, [["int", -1]]], [f"{pid}.new(str)", "rnew", cls, [["str", "2"]]],
                  [f"{pid}.len", "rlen", cls], [f"{pid}.fields", "rfields", cls], [f"{pid}.sizeof", "sizeof", cls],
                  [f"{pid}.from_data", "rfromdata", cls, dtype], [f"{pid}.eq", "req", cls]]
        if dtype:
            probes.append([f"{pid}.dtype", "rdtype", dtype])
        for f in fields:
            probes.append([f"{pid}.{f}.get", "rget", cls, f])
            for kind, v in _RECORD_SET.items():
                probes.append([f"{pid}.{f}.set={kind}", "rset", cls, f, v])
        for f, index, sub in views:
            probes.append([f"{pid}.{f}.view", "rview", cls, f, index, sub])
        out.append({"g": pid, "lib": L.lib, "probes": probes})
    return out


def groups(models):
    """Every probe group for every library, from the models ({lib: model dict})."""
    out = []
    for lib in [x for x in PROBED if x in models]:
        L = Lib(lib, models[lib])
        m = L.m
        if MODULES[lib]["style"] == "records":
            out.append({"g": f"{lib}.name", "lib": lib, "probes": [[f"{lib}.name", "names"]]})
            out += record_groups(L)
            out += [record_function_group(L, fn) for fn in m["functions"] if fn["python"]]
            continue
        out.append({"g": f"{lib}.name", "lib": lib, "probes": [[f"{lib}.name", "names"]]})
        misc = [[f"{lib}.const.{k}", "const", k] for k, _ in m["defines"]]
        for e in m["enums"]:
            misc += enum_probes(L, e)
        out.append({"g": f"{lib}.enum", "lib": lib, "probes": misc})
        if MODULES[lib]["style"] == "tuple":
            sizes = {n: size for n, _, _, size, _ in m["inttds"]}
            for n, _ in m["handles"] + m["funcptrs"] + [(n, "") for n in sizes]:
                out.append(class_group(L, n, sizes.get(n, 8)))
            for s in m["structs"]:
                for name in dict.fromkeys([s["name"]] + [a for a, _ in s["aliases"]]):
                    out.append(struct_group(L, s, name))
        for fn in m["functions"]:
            if fn["python"]:
                out.append(function_group(L, fn))
    return out


def write(models, path):
    gs = groups(models)
    Path(path).write_text(json.dumps({"buf": BUF, "kernel": KERNEL, "nvvm_ir": NVVM_IR,
                                      "libs": [lib for lib in PROBED if lib in models], "groups": gs}))
    return sum(len(g["probes"]) for g in gs)
