"""Stage 4, the Python API: per library `<lib>.pyx` (enums, handle, integer and struct classes as
data, and one thin tuple-returning wrapper per function; the snake_case layer from
`emit_snake.py` where the library has that style)."""
import re

from . import docstrings
from . import overrides as ov
from .common import (F_ENUM, F_F, F_I, F_U, HEADER, bare, cytype, extra_enums, public_function, public_param,
                     record_type, records_style, repr_omits, returns_struct, struct_of, twin_style, twin_value,
                     type_names)
from .emit_snake import emit_snake_api
from .libs import helpers, module, of
from .model import SCALARS
from .pyapi import snake_docstring, snake_refs, tuple_docstring


def emit_py(model):
    """<lib>.pyx of a tuple-style library (driver, runtime, NVRTC; nvJitLink and NVVM with their
    snake_case layer): the enum and struct tables, the handle and integer classes, the constants,
    the attribute tables and one wrapper per function."""
    L = of(model)
    if records_style(L):
        return _emit_records_module(model)
    o = _tuple_imports(model, L)
    # ---- enums: specs only; the IntEnum classes are made on first use (cuda.bindings._base._Lazy,
    # docs/design.md "Lazy classes")
    o += _enum_table([(e.name, e.aliases, [(n, twin_value(model, "enums", int(v))) for n, v in e.members])
                      for e in model.enums] + [(n, (), m) for n, m in extra_enums(model)])
    o += _int_classes(model)
    # ---- structs: (name, union, first field index, field specs, aliases); classes made on first use
    # One text line per struct (name|union|first field|alias:parent,...|field;...): see _Lazy.
    block, layout = _layout(model, model.structs)
    o += block
    o += _struct_table([(s.name, s, ",".join(f"{_ident(a)}:{_ident(parent)}" for a, parent in s.aliases
                                               if a != s.name),    # dim3: typedef struct dim3 dim3
                         [(_ident(ft.name), ft.kind, ft.count, _ident(ft.cls), ft.ekind, _count_ident(ft.countname))
                          for ft in fts]) for s, fts in layout])
    o.append(f"_STRUCT_DEFAULTS = {struct_defaults(model)!r}   # field values of a new struct other than 0")
    omits = {s.name: repr_omits(model, s) for s in model.structs if repr_omits(model, s)}
    if omits:
        o.append(f"_STRUCT_REPR_OMITS = {omits!r}   # fields a struct's repr leaves out, as NVIDIA's")
    o += _set_together_methods(model)
    o += [_new_lazy(model), ""]
    if has_enum_docs(model):
        o += [f'_L.enum_docs = "cuda.bindings._enumdocs_{model.lib}"   # the enums\' __doc__, read on first use', ""]
    # ---- constants
    for n, v in model.defines:
        o.append(f"{n} = {twin_value(model, 'defines', v)!r}")
    o.append("")
    # ---- sizeof and the status fast path: hand-written, shared by every module
    o += [f"cdef str _STATUS_NAME = {L['status']!r}", 'include "_module_common.pxi"', ""]
    o += _classes_at_import(len(model.enums) + len(extra_enums(model)), model.structs)
    o += _attr_tables(model)
    # ---- functions
    refs = docstrings.Refs(model)
    _check_buffer_extent(model)
    for fn in model.functions:
        if fn.python:
            o.extend(_emit_function(model, fn, "cy" + model.lib + ".", L, refs))
    o.extend(_emit_helpers(model))
    o.append("")
    check_lazy_refs(o, model)
    return "\n".join(o) + "\n"


def _tuple_imports(model, L):
    """The first lines of a tuple-style module: what it cimports."""
    o = [HEADER.format(ver=model.cuda),
         "# cython: language_level=3, boundscheck=False, wraparound=False, binding=True",
         f'"""Python bindings of the CUDA {model.lib} API (generated from the CUDA {model.cuda} headers)."""',
         f"from cuda.bindings cimport cy{model.lib}",
         "from cuda.bindings._base cimport (_Handle, _IntValue, _iv, _Struct, _Buf, _hptr, _href, _vptr, _sval, _wbuf,",
         "    _new_handle, _new_int, _new_struct, _enum, _as_bytes, _array, _from_array, _strlist, _voidpp,",
         "    _jitvalues, _kparams, _attr_in, _attr_out, _attr_size, _attr_bufs, _attr_values, _bufptr, _Buf_new,",
         "    _check_count, _bptr, _library_handle, _arg_error, _vsized,",
         "    _structs, _Lazy, _new_lazy)",
         "from cpython.bytes cimport PyBytes_FromStringAndSize",
         "from cpython.long cimport PyLong_FromVoidPtr, PyLong_AsVoidPtr",
         "from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, intptr_t, uintptr_t",
         "from libc.stdlib cimport malloc, free",
         "from libc.string cimport memcpy",
         ""]
    utils = (["FunctionNotFoundError as _FunctionNotFoundError"] if any(fn.size_query for fn in model.functions) else []) + (
        ["with_detail as _with_detail"] if L.get("snake") and any(f.startswith(L["prefix"]) for f in ov.ERROR_LOG) else [])
    if utils:
        o.insert(-1, f"from cuda.bindings._internal.utils import {', '.join(utils)}")
    if L.get("snake"):
        o.insert(-1, "from cuda.bindings._base cimport (_live, _consume, _fresh, _cstrs, _cstr_address, _cstr_of, _utf8,\n"
                     "    _SizeMap)")
    if _kept_roles(model):
        o.insert(-1, "from cuda.bindings._base cimport _keep_until_release, _release_kept")
    if model.funcptrs:
        o.insert(-1, "from cuda.bindings._base cimport _FuncPtr, _FuncType")
    if any(p.conv == "handle_ref" and bare(p.ctype) in ov.LIBRARY_HANDLES for fn in model.functions for p in fn.params):
        o.insert(-1, "from cuda.bindings._base cimport _library_ref")
    return o[:-1] + _buffer_error_lines(model, L) + [""]


def _buffer_error_lines(model, L):
    """The module's _BUFFER_ERROR, where its twin converts buffers with one helper (the snake
    entry's `buffers`): that helper's message, by release (TWIN_STYLE `buffer_error`)."""
    if not (L.get("snake") or {}).get("buffers"):
        return []
    return ["from cuda.bindings._base cimport _twin_error",
            f"_BUFFER_ERROR = {twin_style(model)['buffer_error']!r}"]


def has_enum_docs(model):
    """Whether the module gets an _enumdocs_<lib>.py (enum_docs_module)."""
    return not of(model).get("snake") and any(e.doc or e.member_docs for e in model.enums)


def enum_docs_module(model):
    """_enumdocs_<lib>.py of a tuple-style library without a snake_case layer (driver, runtime,
    NVRTC): each enum's docstring and its members', from the headers' comments, or None where no
    enum has one.  The class's is laid out as NVIDIA's package lays it out (the text indented on
    lines of its own; none where the header has no comment); a member's is its comment and a
    newline.  cuda.bindings._base._EnumDoc reads the table on first use of an enum's __doc__."""
    if not has_enum_docs(model):
        return None
    refs = docstrings.Refs(model)
    rows = []
    for e in model.enums:
        text = docstrings.enum_text(e.doc, refs) if e.doc else ""
        # an enum without a comment: NVIDIA's layout around no text
        cls = "\n    " + text.replace("\n", "\n    ") + "\n    " if text else "\n\n    "
        members = {n: docstrings.enum_text(d, refs, 80) + "\n" for n, _ in e.members if (d := e.member_docs.get(n))}
        rows.append(f"    {e.name!r}: ({cls!r}, {{")
        rows += [f"        {n!r}: {d!r}," for n, d in members.items()]
        rows.append("    }),")
    return "\n".join([
        HEADER.format(ver=model.cuda).rstrip("\n"),
        f'"""The docstrings of the enum classes of cuda.bindings.{model.lib} and of their members: the',
        "comments of the CUDA headers.  Read on first use of an enum's __doc__ (cuda.bindings._base._EnumDoc):",
        'importing the module and making its enums cost no docstrings."""',
        "",
        "ENUMS = {", *rows, "}", ""])


def _enum_table(rows):
    """_ENUMS, one text line per enum (name|aliases|MEMBER=value,...): see _Lazy's docstring.
    `rows`: [(name, aliases, [(member, value)])]."""
    o = ["_ENUMS = ("]
    for name, aliases, members in rows:
        line = "|".join([_ident(name), ",".join(map(_ident, aliases)),
                         ",".join(f"{_ident(n)}={int(v)}" for n, v in members)])
        o.append(f'    "{line}\\n"')
    if len(o) == 1:
        o.append('    ""')
    return o + [")", ""]


def handle_base(model, name, parent):
    """The base class of handle or function pointer class `name` (`parent`: the typedef it names):
    that class, the peer NVIDIA's package derives it from (resolve: `bases`, as the cimported
    module's class: `_driver.CUstream`), _FuncType for a C function type given by its address
    (VdpGetProcAddress), _FuncPtr for a function pointer, else _Handle."""
    base = model.resolved.bases.get(name)
    if parent or base:
        return parent or "_{}.{}".format(*base.split("."))
    if name in model.functypes:
        return "_FuncType"
    return "_FuncPtr" if (name, parent) in model.funcptrs else "_Handle"


def _int_classes(model):
    """Handles, integer typedefs and function pointers.  Handle and integer types are extension
    types (cdef classes): the wrappers create them on every call that returns one, and a static
    type allocates much faster than a heap type (a class derived from another module's is one too:
    that module's .pxd declares it, emit_class_pxd)."""
    o = [f"from cuda.bindings cimport {lib} as _{lib}" for lib in sorted({b.split(".")[0] for b in model.resolved.bases.values()})]
    for name, parent in model.handles + model.funcptrs:
        o.append(f"cdef class {name}({handle_base(model, name, parent)}):")
        o.append(f'    """{"Function pointer" if (name, parent) in model.funcptrs else "Handle"} type {name} (an opaque C pointer)."""')
        o.append("    pass")
    for name, parent, cy, size, k in model.inttds:
        o.append(f"cdef class {name}({parent or '_IntValue'}):")
        o.append(f'    """C integer type {name} ({cy})."""')
        if not parent:
            o.append(f"    _c_size = {size}")
            o.append(f"    _c_signed = {k == 'i'}")
        else:
            o.append("    pass")
    return o + [""]


def emit_class_pxd(model, names):
    """`<lib>.pxd`: the handle classes `names` of a tuple-style module, which another module's
    classes derive from (runtime.cudaStream_t from driver.CUstream: resolve's `bases`), declared
    so that the other module cimports them and its classes stay static types."""
    o = [HEADER.format(ver=model.cuda), "# cython: language_level=3",
         f"# The {model.lib} module's handle classes that other modules' classes derive from.",
         "from cuda.bindings._base cimport _Handle, _FuncPtr, _FuncType", ""]
    for name, parent in model.handles + model.funcptrs:
        if name in names:
            o += [f"cdef class {name}({handle_base(model, name, parent)}):", "    pass", ""]
    return "\n".join(o)


def _layout(model, structs):
    """The `cdef extern` block in which the compiler gives the offset and size of each Python field
    of `structs` (and the size of what it points to, where the _Lazy table needs it) and the size
    of each struct, and [(struct, its Python fields)] in that order."""
    off, size, psize, ssize, layout = [], [], [], [], []
    for s in structs:
        if s.host:
            top, path = s.host.split("|")
            base = f"(({top}*)0)->{path}"
        else:
            top, path, base = s.ctype, "", None
        fts = model.resolved.fields[s.name]
        for ft in fts:
            fpath = f"{path}.{ft.field.name}" if path else ft.field.name
            off.append(f"offsetof({top}, {fpath}) - offsetof({top}, {path})" if s.host else f"offsetof({top}, {fpath})")
            size.append(f"sizeof((({top}*)0)->{fpath})")
            psize.append(f"sizeof(*((({top}*)0)->{fpath}))" if ft.psize else "0")
        ssize.append(f"sizeof({base})" if s.host else f"sizeof({top})")
        layout.append((s, fts))
    lib, nfields = model.lib, max(len(off), 1)
    o = ["cdef extern from *:", '    """', "    #include <stddef.h>"]
    for name, exprs in (("off", off), ("fsize", size), ("psize", psize), ("ssize", ssize)):
        o.append(f"    static const size_t __cb_{lib}_{name}[] = {{{', '.join(exprs) or '0'}}};")
    o.append('    """')
    o += [f"    const size_t __cb_{lib}_{name}[{nfields}]" for name in ("off", "fsize", "psize")]
    o += [f"    const size_t __cb_{lib}_ssize[{max(len(layout), 1)}]", ""]
    return o, layout


def _struct_table(rows):
    """_STRUCTS, one text line per struct (name|union|first field|aliases|field;...), the fields'
    specs joined by `:`; `rows`: [(class name, struct, aliases text, [field spec])]."""
    o = ["_STRUCTS = ("]
    first = 0
    for name, s, aliases, specs in rows:
        fields = ";".join(":".join(str(x) for x in spec) for spec in specs)
        o.append(f'    "{name}|{int(bool(s.union))}|{first}|{aliases}|{fields}\\n"')
        first += len(specs)
    if not rows:
        o.append('    ""')
    return o + [")"]


# a module of no struct classes and at most this many enums makes them at import (_Lazy.make_all)
FEW_ENUMS = 8


def _classes_at_import(n_enums, structs):
    """`_L.make_all()` for a module of a few enums and no structs (nvJitLink, NVVM, nvFatbin,
    NVRTC before 13.5): its classes cost well under 1 ms to make, and without a module `__getattr__`
    CPython 3.11+ specialises `module.name` lookups (about 20 ns a call less)."""
    if structs or n_enums > FEW_ENUMS:
        return []
    return ["_L.make_all()   # a few enums: made now, and no module __getattr__ (_Lazy.make_all)", ""]


def _new_lazy(model):
    """The module's _Lazy, over its tables."""
    lib = model.lib
    return (f"cdef _Lazy _L = _new_lazy(globals(), __name__, _ENUMS, _STRUCTS, __cb_{lib}_off, "
            f"__cb_{lib}_fsize, __cb_{lib}_psize, __cb_{lib}_ssize)")


def _set_together_methods(model):
    """Methods that set list fields sharing one count field together (overrides.COUNTED_TOGETHER),
    and _STRUCT_METHODS, which gives them to their classes."""
    o, methods = [], {}
    for sname, group in sorted(ov.COUNTED_TOGETHER.items()):
        if sname in model.resolved.classes:
            mname = "set_" + "_".join(group)
            o.append(f"def _{sname}_{mname}(self, {', '.join(group)}):")
            count = next(f.count for st in model.structs if st.name == sname for f in st.fields if f.name == group[0])
            o.append(f'    """Give {" and ".join(group)} their lists, of one length, which goes into {count}: the '
                     f'C side reads that many items of each, so none of them is set alone."""')
            o.append(f"    _L.set_together(self, ({', '.join(f'({g!r}, {g})' for g in group)}))")
            methods.setdefault(sname, {})[mname] = f"_{sname}_{mname}"
    o.append("_STRUCT_METHODS = {" + ", ".join(
        f"{k!r}: {{" + ", ".join(f"{mn!r}: {fn}" for mn, fn in v.items()) + "}" for k, v in methods.items()) + "}")
    return o


def _attr_tables(model):
    """The attribute tables: each enum member's value type, for the functions whose values an
    attribute argument types (overrides.ATTRIBUTE_TYPES)."""
    o = []
    enum_by = {e.name: e for e in model.enums}
    used_attr = sorted({p.extra["enum"] for fn in model.functions for p in fn.params if p.conv in ("attr", "attr_list")})
    for en in used_attr:
        table = ov.ATTRIBUTE_TYPES.get(en, {})
        e = enum_by.get(en)
        items = {}
        if e:
            for n, v in e.members:
                t = table.get(n, table.get("*"))
                if t:
                    items[int(v)] = _attr_code(model, t)
        o.append(f"cdef dict _ATTR_{en} = {items!r}")
    o.append("")
    return o


def struct_defaults(model):
    """The field values of a newly made struct other than 0, by struct name: those of
    overrides.STRUCT_DEFAULTS, and those of each struct member's own type, as dotted paths
    (`gridDim.x`), nested to any depth, as C++ constructs a struct's members
    (cudaKernelNodeParams' dim3 members are (1, 1, 1), as in the reference).  Not inside a union:
    C++ constructs no member of a union, named or anonymous, and the reference leaves them zero
    too (cudaGraphNodeParams.kernel.gridDim is (0, 0, 0)).  Nor in the structs that NVIDIA's package
    of the release makes zeroed (TWIN_STYLE `zeroed_structs`)."""
    zeroed = twin_style(model).get("zeroed_structs", ())
    by_name = {}
    for s in model.structs:
        by_name[s.name] = s
        for a, _ in s.aliases:
            by_name[a] = s
    memo = {}

    def of(s):
        if s.name not in memo:
            memo[s.name] = {}            # a struct cannot hold itself, but stay finite if it did
            out = {}
            if not s.union:
                out.update(ov.STRUCT_DEFAULTS.get(s.name, {}))
                for f in s.fields:
                    if f.cls == "struct" and f.ptr == 0 and not f.dims and not f.in_union and f.ctype in by_name:
                        out.update({f"{f.name}.{k}": v for k, v in of(by_name[f.ctype]).items()})
            memo[s.name] = out
        return memo[s.name]

    return {s.name: of(s) for s in model.structs if of(s) and s.name not in zeroed}


def _emit_helpers(model):
    o = []
    if of(model).get("snake"):
        o.extend(emit_snake_api(model))
    if helpers(model.lib):
        refs = docstrings.Refs(model)
        docs = {f.name: f.doc for f in model.functions}
        for name, (cls, params, fields) in sorted(ov.MAKE_FUNCTIONS.items()):
            types = model.resolved.helpers[name]
            o.append(f"def {name}({', '.join(params)}):")
            o.append('    """' + docstrings.quoted(docstrings.render(
                docs[name], list(zip(params, types, params)), [("", cls, None)],
                names={a: a for a in params}, refs=refs)) + '\n    """')
            o.append(f"    s = _L.cls({cls!r})()")
            o.append("    cdef int _p = 0")
            o.append("    try:")       # a field's error names the argument, as _conversions does
            for i, (a, f) in enumerate(zip(params, fields)):
                if i:
                    o.append(f"        _p = {i}")
                o.append(f"        s.{f} = {a}")
            o.append("    except (TypeError, ValueError, OverflowError):")
            o.append(f"        raise _arg_error({name!r}, {tuple(params)!r}, _p) from None")
            o.append("    return s")
            o.append("")
        o.append("def getLocalRuntimeVersion():")
        o.append('    """' + docstrings.quoted(docstrings.render(
            "\\brief The version of the CUDA runtime library these bindings loaded.\n\n"
            "::cudaRuntimeGetVersion of that library.\n\n\\sa ::cudaRuntimeGetVersion",
            [], [("", "cudaError_t", None), ("version", "int", "1000 * major + 10 * minor.")],
            refs=refs, status="cudaError_t")) + '\n    """')
        o.append("    return cudaRuntimeGetVersion()")
        o.append("")
    return o


def _attr_code(model, t):
    inttd = {n: (size, k) for n, _, cy, size, k in model.inttds}
    handles = {n for n, _ in model.handles}
    enums = {e.name for e in model.enums}
    structs = {s.name for s in model.structs} | {a for s in model.structs for a, _ in s.aliases}
    if t == "bool":
        return "b"
    if t == "void*":
        return "p"
    if t.startswith("char["):
        return "c" + t[5:-1]
    if t.endswith("[]"):
        return "*" + _attr_code(model, t[:-2])
    if t in SCALARS:
        cy, size, k = SCALARS[t]
        return f"{k}{size}"
    if t in inttd:
        size, k = inttd[t]
        return f"{k}{size}:{t}"
    if t in handles:
        return f"h:{t}"
    if t in enums:
        return f"e:{t}"
    if t in structs:
        return f"s:{t}"
    raise ValueError(f"unknown attribute type {t}")


def _elem(model, p):
    """(kind code, class name, element C size expr) for arrays of p's base type."""
    cat = p.cls
    b = bare(p.ctype)
    if cat == "scalar":
        cy, size, k = SCALARS[b]
        return f"{k}{size}", "None", str(size)
    if cat == "enum":
        return "e", f"_L.cls({b!r})", "4"
    if cat == "inttd":
        for n, _, cy, size, k in model.inttds:
            if n == b:
                return f"{k}{size}", b, str(size)
    if cat in ("handle", "funcptr"):
        return "h", b, "sizeof(void*)"
    if cat == "struct":
        return "s", f"_L.cls({b!r})", f"sizeof(cy{model.lib}.{b})"
    return "h", "None", "sizeof(void*)"


def _to_py(model, p, var, mod):
    """Python value from the C local `var` of p's base type."""
    cat = p.cls
    b = bare(p.ctype)
    if cat == "scalar":
        return var
    if cat == "enum":
        return f"_enum(_L.cls({b!r})._value2member_map_, None, <long long>{var})"
    if cat == "inttd":
        for n, _, cy, size, k in model.inttds:
            if n == b:
                return f"_new_int({b}, <unsigned long long>{var}, {size}, {k == 'i'})"
    if cat in ("handle", "funcptr"):
        return f"_new_handle({b}, <void*>{var})"
    return var


def _read_inttd(py, c, ctype):
    """Lines reading an integer-typedef argument into the C local c: an integer object is read
    directly, None is 0, anything else goes through Cython's checked conversion."""
    return [f"if isinstance({py}, _IntValue):", f"    {c} = <{ctype}>_iv(<_IntValue>{py})",
            f"elif {py} is None:", f"    {c} = 0", "else:", f"    {c} = {py}"]


def _check_buffer_extent(model):
    """The BUFFER_EXTENT entries of this model's functions name `void*` parameters of theirs
    (that each entry names a function of some library, codegen.__main__.generate checks)."""
    for fn in model.functions:
        if fn.name in ov.BUFFER_EXTENT:
            pv = {p.name for p in fn.params if p.role == "in" and p.conv in ("voidp", "unknown")}
            wrong = sorted(set(ov.BUFFER_EXTENT[fn.name]) - pv)
            if wrong:
                raise ValueError(f"BUFFER_EXTENT[{fn.name!r}] names no void* parameter {wrong}")


# ------------------------------------------------------------------------------------- wrappers
#
# A wrapper is assembled from one _Piece per parameter, made by the function that the parameter's
# role and conversion select (_PIECES; the struct-style modules' own first, _RECORD_PIECES).

class _Wrapper:
    """What the pieces of one function's wrapper read: the model, the function, the C-API module
    (`mod`: "cy<lib>."), the library's entry and whether its module is in the struct style (`nv`:
    cuFile, NVML, nvFatbin, cuDLA; their record names are `rn`)."""

    def __init__(self, model, fn, mod, L):
        self.model, self.fn, self.mod, self.L = model, fn, mod, L
        self.nv = records_style(L)
        self.rn = model.resolved.records
        self.byname = {q.name: q for q in fn.params}

    def val(self, name):
        """The body's value of parameter `name` (C name): the C local of a converted scalar or
        enum, the argument itself otherwise; a name that is no parameter is returned as it is."""
        q = self.byname.get(name)
        if q is None:
            return name
        return f"c_{q.name}" if q.role == "in" and q.conv in ("scalar", "enum") else q.pyname

    def cy(self, ctype, ptr=0, const=False):
        """A C type as the wrapper spells it: the library's own types qualified (`cydriver.`)."""
        return cytype(ctype, ptr, const, self.mod)

    def c_call(self, stmt):
        """The C call, with the GIL released unless a table says it need not be."""
        name = self.fn.name
        if name in ov.KEEP_GIL:     # a non-blocking lookup: see the table's reasons
            return f"    {stmt}"
        if name in ov.KEEP_GIL_UNLESS:
            # the GIL is kept only for the argument values lockprobe found lock-free (see the table)
            arg = self.val(ov.KEEP_GIL_UNLESS[name][0])
            return (f"    if {_keep_gil_test(self.model, name, arg)}:\n        {stmt}\n"
                    f"    else:\n        with nogil:\n            {stmt}")
        return f"    with nogil:\n        {stmt}"


class _Piece:
    """What one parameter adds to its wrapper:

    * `pyparams`: the Python parameters it takes (none, one, or a struct's fields);
    * `cdecls`: C declarations, which come first;
    * the conversions, in four passes (`scalars`, whose C values the others may read, `first`,
      `pre`, `late`), each line tagged with the parameter it reads, so that a conversion error can
      name it (_conversions);
    * `after`: lines between the conversions and the call, which may fail on their own;
    * `arg`: the C call's argument; `outs`: what the wrapper returns for it;
    * `size_check`: (size query, C name, Python name) of a buffer the call fills, checked against
      the size the library gives;
    * the struct-style modules': `setters`, struct fields set from arguments ((argument,
      assignment, struct)), and `two_call`, arrays sized by asking the library first;
    * `fast`: where every tagged conversion and setter of the piece has a form that cannot raise
      for an int argument in range, [(declarations, condition, assignment or None)] (_int_fast,
      _conversions' fast path); None where it has none."""
    LISTS = ("pyparams", "cdecls", "scalars", "first", "pre", "late", "after", "outs", "setters",
             "size_check", "two_call")

    def __init__(self, p):
        self.tag = p if p.role in ("in", "inout") else None
        self.c, self.py = "c_" + p.name, p.pyname
        self.arg = ""
        self.fast = None
        for name in self.LISTS:
            setattr(self, name, [])

    def decl(self, line, tag, into=None):
        """A `cdef` line; one with an initializer, given a tag, is split into its declaration and
        an assignment among the conversions (`into`, else `first`)."""
        m = re.match(r"cdef (.+?) (\w+) = (.*)$", line)
        if tag is None or not m:
            self.cdecls.append(line)
        else:
            self.cdecls.append(f"cdef {m[1]} {m[2]}")
            (self.first if into is None else into).append((tag, f"{m[2]} = {m[3]}"))


def _piece(w, p):
    """Parameter p's piece, by its role and conversion (a hidden parameter's whatever it is)."""
    key = (p.role, "*" if p.role == "hidden" else p.conv)
    make = (w.nv and _RECORD_PIECES.get(key)) or _PIECES.get(key)
    if make is None:
        raise ValueError(f"{w.fn.name}: no {'input' if p.role == 'in' else 'output'} conversion {p.conv}")
    return make(w, p)


def _hidden(w, p):
    """A value the call writes and the wrapper does not return (an attribute's size)."""
    x = _Piece(p)
    x.cdecls.append(f"cdef {w.cy(p.ctype, p.ptr - 1)} {x.c} = 0")
    x.arg = f"&{x.c}"
    return x


def _scalar(w, p):
    x = _Piece(p)
    x.pyparams.append(f"{x.py}={p.extra['default']!r}" if "default" in p.extra else x.py)
    x.decl(f"cdef {SCALARS[bare(p.ctype)][0]} {x.c} = {x.py}", x.tag, x.scalars)
    x.arg = x.c
    fast = _int_fast(bare(p.ctype), x.py, x.c)
    x.fast = fast and [fast]
    return x


def _enum(w, p):
    x = _Piece(p)
    x.pyparams.append(x.py)
    x.decl(f"cdef long long {x.c} = {x.py}", x.tag, x.scalars)
    x.arg = f"<{w.cy(p.ctype)}>{x.c}"
    x.fast = [([], f"_int_ll({x.py}, &{x.c})", None)]
    return x


def _int_fast(ctype, py, target, cast=None):
    """(declarations, condition, assignment) that put the int argument `py` into `target`, of C
    integer type `ctype` (a key of SCALARS), where it is an int in that type's range, and cannot
    raise (_base._int_fits); None for a type that is no integer (a float, a bool: Cython takes
    any object's truth for a bint)."""
    sc = SCALARS.get(ctype)
    if sc is None or sc[2] not in ("i", "u") or sc[0] == "bint":
        return None
    cy, size, kind = sc
    t = f"f_{py}"
    if kind == "i" and size == 8:
        cond = f"_int_ll({py}, &{t})"
    else:
        bits = 8 * size
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind == "i" else (0, min((1 << bits) - 1, (1 << 63) - 1))
        cond = f"_int_fits({py}, &{t}, {lo}, {hi})"
    return [f"cdef long long {t}"], cond, f"{target} = {cast if cast is not None else f'<{cy}>'}{t}"


def _inttd(w, p):
    """An integer typedef object (CUdevice, CUdeviceptr) is read directly; anything else goes
    through Cython's checked conversion to the C type."""
    x = _Piece(p)
    sc = [t for t in w.model.inttds if t[0] == bare(p.ctype)][0]
    x.pyparams.append(x.py)
    x.cdecls.append(f"cdef {sc[2]} {x.c}")
    x.pre.extend((x.tag, line) for line in _read_inttd(x.py, x.c, sc[2]))
    x.arg = f"<{w.cy(p.ctype)}>{x.c}"
    return x


def _handle(w, p):
    x = _Piece(p)
    x.pyparams.append(x.py)
    x.cdecls.append(f"cdef void* {x.c}")
    x.pre.append((x.tag, f"_hptr({x.py}, &{x.c})"))
    if w.nv and bare(p.ctype) not in ov.LIBRARY_HANDLES:
        # (a handle _live checks: the check too, which then moves to the slow path)
        live = p in _checked_handles(w.model, w.fn)
        x.fast = [([], f"_live_int({x.py}, &{x.c}, &_CONSUMED)" if live else f"_hptr_int({x.py}, &{x.c})", None)]
    if bare(p.ctype) in ov.LIBRARY_HANDLES:
        check = f"_library_handle({x.c}, {x.py!r}, {ov.LIBRARY_HANDLES[bare(p.ctype)]!r})"
        first = ov.HANDLE_READ_UNLESS_NULL.get((w.fn.name, p.name))
        if first:       # (after every conversion: the other argument's C value is known)
            x.late.append((x.tag, f"if c_{first} != NULL: {check}"))
        else:
            x.pre.append((x.tag, check))
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>{x.c}"
    return x


def _handle_ref(w, p):
    """A handle object's own value is what the call reads and may update; in the tuple-style
    modules an int is the address of the handle (None: NULL), in the others its value (_href)."""
    x = _Piece(p)
    x.pyparams.append(x.py)
    x.cdecls.append(f"cdef void* {x.c}")
    x.decl(f"cdef void** r_{p.name} = _href({x.py}, &{x.c})", x.tag)
    if bare(p.ctype) in ov.LIBRARY_HANDLES:
        x.pre.append((x.tag, f"_library_ref(r_{p.name}, {x.py!r}, {ov.LIBRARY_HANDLES[bare(p.ctype)]!r})"))
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>r_{p.name}"
    return x


def _struct_val(w, p):
    x = _Piece(p)
    x.pyparams.append(x.py)
    x.decl(f"cdef void* p_{p.name} = _sval({x.py}, sizeof({w.cy(p.ctype)}))", x.tag)
    x.arg = f"(<{w.cy(p.ctype)}*>p_{p.name})[0]"
    return x


def _null_options_ok(w):
    """Whether the library reports a NULL option (an item 0 of an options list) rather than crash
    on it (overrides.NULL_OPTION_CRASHES)."""
    return w.model.cuda not in ov.NULL_OPTION_CRASHES.get(w.fn.name, ())


def _block(w, p, expr):
    """An argument converted into a block (`a_<name>`, made by `expr`) whose address the call takes."""
    x = _Piece(p)
    x.pyparams.append(x.py)
    x.decl(f"cdef _Buf a_{p.name} = {expr}", x.tag)
    x.decl(f"cdef void* p_{p.name} = _bufptr(a_{p.name})", x.tag)
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>p_{p.name}"
    return x


def _struct_ptr(w, p):
    return _block(w, p, f"_structs({p.pyname}, sizeof(cy{w.model.lib}.{bare(p.ctype)}))")


def _array(w, p):
    kind, _, es = _elem(w.model, p)
    return _block(w, p, f"_array({p.pyname}, {kind!r}, {es})")


def _strlist(w, p):
    if not w.L.get("snake"):
        return _block(w, p, f"_strlist({p.pyname})")
    # options as NVIDIA's nvJitLink, NVVM and nvFatbin take them: the int address of a C string
    # array (0: NULL), or a sequence of str and C string addresses, checked against its count
    # (_base._cstrs); None is NULL too (NVIDIA's refuses it)
    x, py, n = _Piece(p), p.pyname, p.name
    cp = p.extra.get("count_param")
    count = w.val(cp) if cp else 0
    x.pyparams.append(py)
    x.cdecls += [f"cdef _Buf a_{n} = None", f"cdef void* p_{n} = NULL"]
    # (an address the library reads: checked, unless the count says it reads nothing there)
    x.pre += [(x.tag, line) for line in (f"if type({py}) is int:",
                                         f"    p_{n} = _cstr_address({py}) if {count} else PyLong_AsVoidPtr({py})",
                                         f"elif {py} is not None:",
                                         f"    a_{n} = _cstrs({py}, {count}, {_null_options_ok(w)})",
                                         f"    p_{n} = _bufptr(a_{n})")]
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>p_{n}"
    return x


def _jitvalues(w, p):
    return _block(w, p, f"_jitvalues({p.pyname})")


def _address_or_block(w, p, convert, sets_pointer=False):
    """None and a non-negative int address need no conversion object; anything else is converted
    by `convert` into a block (_voidpp), or, `sets_pointer`, into the pointer it sets and the block
    it returns only where it packed one (_kparams: a buffer of pointers is passed as it is)."""
    x, py, n = _Piece(p), p.pyname, p.name
    x.pyparams.append(py)
    x.cdecls += [f"cdef _Buf a_{n} = None", f"cdef void* p_{n} = NULL"]
    convert_lines = ([f"    a_{n} = {convert}({py}, &p_{n})"] if sets_pointer else
                     [f"    a_{n} = {convert}({py})", f"    p_{n} = _bufptr(a_{n})"])
    x.pre += [(x.tag, line) for line in [f"if type({py}) is int and {py} >= 0:",
                                         f"    p_{n} = PyLong_AsVoidPtr({py})",
                                         f"elif {py} is not None:"] + convert_lines]
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>p_{n}"
    return x


def _voidpp(w, p):
    return _address_or_block(w, p, "_voidpp")


def _kparams(w, p):
    return _address_or_block(w, p, "_kparams", sets_pointer=True)


def _null_buffer(w, p, null_int, convert, null, shown_size, written):
    """Lines converting the buffer argument of a snake_case or struct-style module by `convert`,
    where NVIDIA's package passes some values on as NULL (`null`: the C lines that make the
    argument NULL): None in the releases whose twin does so (TWIN_STYLE `none_is_null`; 13.0.3
    refuses it with ValueError, and so does ours there), the int 0 where `null_int`; an entry point
    that crashes on a NULL buffer (overrides.NULL_CRASHES) refuses both (ValueError).  In the
    libraries whose twin converts its buffers with one helper (the snake entry's `buffers`), a
    refused buffer raises that helper's ValueError, its message (TWIN_STYLE `buffer_error`, which
    shows `shown_size`, and whether the buffer is `written`) as there, without a note as there; what
    ours found wrong is the error's `detail` attribute (_twin_error)."""
    py = p.pyname
    crashes = w.fn.name in ov.NULL_CRASHES
    nulls = [f"{py} is None"] if twin_style(w.model).get("none_is_null") else []
    nulls += [f"(type({py}) is int and {py} == 0)"] if null_int else []
    lines, checks = [], []
    if crashes:
        lines += [f"if {py} is None or (type({py}) is int and {py} == 0): raise ValueError("
                  f"'{w.fn.name} crashes on a NULL buffer: pass a buffer of the size its size query says')"]
    elif not twin_style(w.model).get("none_is_null"):
        checks += [f"if {py} is None: raise ValueError('expected a buffer or an int address, not None')"]
    if nulls and not crashes:
        checks += [f"if {' or '.join(nulls)}:"] + ["    " + c for c in null] + ["else:", "    " + convert]
    else:
        checks.append(convert)
    if not (w.L.get("snake") or {}).get("buffers"):
        return lines + checks
    adj = "writable " if written else ""
    return lines + ["try:"] + ["    " + c for c in checks] + [
        "except (TypeError, ValueError):",
        f"    raise _twin_error(_BUFFER_ERROR.format(adj={adj!r}, size={shown_size}))"]


def _voidp(w, p):
    x = _Piece(p)
    x.pyparams.append(x.py)
    x.cdecls.append(f"cdef void* {x.c}")
    if w.L.get("snake"):
        # nvJitLink and NVVM read `size` bytes of their input: no handle object, and a buffer
        # must hold that many bytes; an int is an address (0: NULL), and so, where NVIDIA's
        # package takes it, is None (the library then reports NULL)
        size = w.val(p.extra.get("size")) or "0"
        x.pre += [(x.tag, line) for line in _null_buffer(w, p, False, f"_bptr({x.py}, &{x.c}, {size})", [f"{x.c} = NULL"],
                                                           size, False)]
    elif p.name in ov.BUFFER_EXTENT.get(w.fn.name, {}):
        size = re.sub(r"\w+", lambda m: w.val(m[0]), ov.BUFFER_EXTENT[w.fn.name][p.name])
        written = p.name in ov.WRITTEN_BUFFERS
        x.pre.append((x.tag, f"_vsized({x.py}, &{x.c}, {size}, {written})"))
    else:
        x.pre.append((x.tag, f"_vptr({x.py}, &{x.c})"))
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>{x.c}"
    return x


def _cstr(w, p):
    x, py = _Piece(p), p.pyname
    x.pyparams.append(py)
    if (w.fn.name, p.name) in ov.CSTR_ADDRESS:
        # the int address of a C string, where NVIDIA's package takes one; str and bytes too
        x.cdecls += [f"cdef object b_{p.name} = None", f"cdef const char* {x.c}"]
        x.pre += [(x.tag, f"if type({py}) is int:"),
                  (x.tag, f"    {x.c} = <const char*>_cstr_address({py})"),
                  (x.tag, "else:"),
                  (x.tag, f"    b_{p.name} = _cstr_of({py})"),
                  (x.tag, f"    {x.c} = _utf8(b_{p.name})")]
    elif w.L.get("snake"):   # the reference's nvJitLink and NVVM take str; bytes work too
        # a str's own UTF-8 form, not an encoded copy (_utf8)
        x.decl(f"cdef object b_{p.name} = _cstr_of({py})", x.tag)
        x.decl(f"cdef const char* {x.c} = _utf8(b_{p.name})", x.tag)
    else:
        x.decl(f"cdef bytes b_{p.name} = _as_bytes({py}, False)", x.tag)
        x.decl(f"cdef const char* {x.c} = <char*>b_{p.name}", x.tag)
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>{x.c}"
    return x


def _buf_w(w, p):
    """A buffer the call fills: any writable buffer, or bytes filled in place (the reference's
    `b" " * size`, _wbuf); in the snake_case modules an address too."""
    x, py, n = _Piece(p), p.pyname, p.name
    x.pyparams.append(py)
    x.cdecls += [f"cdef void* {x.c}", f"cdef Py_ssize_t n_{n}"]
    convert = f"_wbuf({py}, &{x.c}, &n_{n}, {bool(w.L.get('snake'))})"
    if w.L.get("snake"):
        # NULL as NVIDIA's package passes it (the library reports it): its size is not checked
        nulls = [f"{x.c} = NULL", f"n_{n} = <Py_ssize_t>(<size_t>-1 >> 1)"]
        x.pre += [(x.tag, line) for line in _null_buffer(w, p, True, convert, nulls, -1, True)]
    else:
        x.pre.append((x.tag, convert))
    if w.fn.size_query:
        x.size_check.append((w.fn.size_query, n, py))
    if "size" in p.extra:
        # at least as many bytes as the size argument says (read once every input is)
        q = w.byname[p.extra["size"]]
        cexpr = f"c_{q.name}" if q.role in ("out", "inout") else w.val(q.name)
        x.late.append((x.tag, f"if n_{n} < <Py_ssize_t>{cexpr}: raise ValueError("
                              f"f'holds {{n_{n}}} bytes, fewer than {q.pyname} = {{{cexpr}}}')"))
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>{x.c}"
    return x


def _attr_in(w, p):
    x = _Piece(p)
    x.pyparams.append(x.py)
    a = p.extra["attr"]
    x.decl(f"cdef _Buf a_{p.name} = _attr_in({x.py}, _ATTR_{p.extra['enum']}.get(int({w.val(a)}), 'u8'), _L)", x.tag)
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>a_{p.name}.ptr"
    x.pre += [(x.tag, f"c_{q.name} = a_{p.name}.size") for q in w.fn.params if q.role == "hidden"]
    return x


def _value_out(w, p):
    """A value the call writes (an in/out one is set from its argument first)."""
    x, py = _Piece(p), p.pyname
    t, base_t = w.cy(p.ctype, p.ptr - 1), w.cy(p.ctype)
    room = ov.WRITTEN_ITEMS.get((w.fn.name, p.name))
    if room:        # the library writes that many: room for them, the first returned
        x.cdecls.append(f"cdef {t} {x.c}_all[{room}]")
        x.cdecls.append(f"{x.c}_all[0] = <{t}>0")
        x.arg = f"{x.c}_all"
        x.outs.append(_nv_value(w.model, p, f"{x.c}_all[0]") if w.nv else _to_py(w.model, p, f"{x.c}_all[0]", w.mod))
        return x
    x.cdecls.append(f"cdef {t} {x.c} = <{t}>0")   # what a call that writes nothing returns
    if p.role == "inout" and p.cls == "inttd" and not w.nv:
        return _inttd_inout(w, p, x)
    if p.role == "inout":
        x.pyparams.append(f"{py}={p.extra['default']!r}" if "default" in p.extra else py)
        if p.cls in ("handle", "funcptr"):
            x.cdecls.append(f"cdef void* h_{p.name}")
            x.pre += [(x.tag, f"_hptr({py}, &h_{p.name})"), (x.tag, f"{x.c} = <{base_t}>h_{p.name}")]
        elif p.cls == "enum":
            x.pre.append((x.tag, f"{x.c} = <{base_t}><long long>{py}"))
        elif p.cls == "inttd":
            x.pre.extend((x.tag, line) for line in _read_inttd(py, x.c, t))
        else:
            x.pre.append((x.tag, f"{x.c} = {py}"))
    x.arg = f"&{x.c}"
    x.outs.append(_nv_value(w.model, p, x.c) if w.nv else _to_py(w.model, p, x.c, w.mod))
    return x


def _inttd_inout(w, p, x):
    """An integer-typedef value the call reads and updates (an auto-advancing log iterator), as
    NVIDIA's tuple-style package takes it: an object of its class is passed by its own storage
    (the call updates it, and it is what the call returns), None is NULL (the call returns None
    for it); ours also takes a plain value (an int), passed by reference, returned as a new object."""
    py, cls, t = p.pyname, bare(p.ctype), w.cy(p.ctype, p.ptr - 1)
    x.pyparams.append(f"{py}={p.extra['default']!r}" if "default" in p.extra else py)
    x.cdecls.append(f"cdef {t}* r_{p.name} = &{x.c}")
    x.pre += [(x.tag, line) for line in (
        f"if isinstance({py}, {cls}):", f"    r_{p.name} = <{t}*>(<_IntValue>{py})._p",
        f"elif {py} is None:", f"    r_{p.name} = NULL", "else:", f"    {x.c} = {py}")]
    x.arg = f"r_{p.name}"
    x.outs.append(f"(None if r_{p.name} == NULL else {py} if r_{p.name} != &{x.c} else "
                  f"{_to_py(w.model, p, x.c, w.mod)})")
    return x


def _struct_out(w, p):
    x = _Piece(p)
    x.cdecls.append(f"cdef _Struct s_{p.name} = _new_struct(_L.cls({bare(p.ctype)!r}))")
    x.arg = f"<{w.cy(p.ctype, p.ptr)}>s_{p.name}._ptr"
    x.outs.append(f"s_{p.name}")
    return x


def _voidp_out(w, p):
    x = _Piece(p)
    x.cdecls.append(f"cdef void* {x.c} = NULL")
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>&{x.c}"
    x.outs.append(f"PyLong_FromVoidPtr({x.c})")
    return x


def _voidp_out_val(w, p):
    x = _Piece(p)
    x.cdecls.append(f"cdef unsigned long long {x.c} = 0")
    x.arg = f"<void*>&{x.c}"
    x.outs.append(x.c)
    return x


def _cstr_out(w, p):
    x = _Piece(p)
    x.cdecls.append(f"cdef const char* {x.c} = NULL")
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>&{x.c}"
    x.outs.append(f"(<bytes>{x.c} if {x.c} != NULL else None)")
    return x


def _strbuf(w, p):
    """A string the call writes into a buffer as long as its length argument says."""
    x, n = _Piece(p), p.name
    ln = p.extra["len"]
    lpy, lv, tag = ov.RENAME.get(ln, ln), w.val(ln), w.byname[ln]
    x.pre.append((tag, f"if {lv} < 0: raise ValueError(f'{lpy} cannot be negative: {{{lv}}}')"))
    x.cdecls.append(f"cdef _Buf a_{n}")
    x.pre.append((tag, f"a_{n} = _Buf_new({lv})"))
    x.arg = f"<char*>a_{n}.ptr"
    x.outs.append(f"_text(<char*>a_{n}.ptr, {lv})" if w.nv else f"PyBytes_FromStringAndSize(<char*>a_{n}.ptr, {lv})")
    return x


def _count_expr(w, p, x):
    """(C expression, tag) of the number of items of p, an output array: its fixed count, one the
    library is asked for (`call:`), or its count parameter's value (whose tag the lines take)."""
    cnt = p.extra["count"]
    if isinstance(cnt, int):
        return str(cnt), x.tag
    if cnt.startswith("call:"):
        cexpr = f"n_{p.name}"
        x.cdecls.append(f"cdef int {cexpr} = 0")
        x.pre.append((x.tag, f"_st_raise(cy{w.model.lib}.{cnt[5:]}(&{cexpr}))"))
        return cexpr, x.tag
    q = w.byname[cnt]
    return (f"c_{cnt}" if q.role in ("out", "inout") else w.val(cnt)), q


def _array_out(w, p):
    """An array the call fills, allocated after every input is converted (the count may be an
    in/out), returned as a list (bytes for char, the struct-style modules' records or numbers)."""
    x, n = _Piece(p), p.name
    kind, cls, es = _elem(w.model, p)
    cexpr, tag = _count_expr(w, p, x)
    cnt = p.extra["count"]
    if isinstance(cnt, str) and not cnt.startswith("call:") and w.byname[cnt].role == "inout":
        x.cdecls += [f"cdef _Buf a_{n}", f"cdef void* p_{n}", f"cdef size_t req_{n}"]
        x.late += [(tag, f"a_{n} = _Buf_new((<Py_ssize_t>{cexpr}) * {es}) if {cexpr} else None"),
                   (tag, f"p_{n} = _bufptr(a_{n})"), (tag, f"req_{n} = {cexpr}")]
        x.arg = f"<{w.cy(p.ctype, p.ptr)}>p_{n}"
        # never read more items than the buffer holds, whatever count comes back
        cexpr = f"({cexpr} if {cexpr} < req_{n} else req_{n})"
    elif w.nv and kind != "s" and bare(p.ctype) != "char":
        return _numbers_out(w, p, x, cexpr, tag)
    else:
        x.cdecls.append(f"cdef _Buf a_{n}")
        x.late.append((tag, f"a_{n} = _Buf_new((<Py_ssize_t>{cexpr}) * {es})"))
        x.arg = f"<{w.cy(p.ctype, p.ptr)}>a_{n}.ptr"
    if bare(p.ctype) == "char":
        x.outs.append(f"PyBytes_FromStringAndSize(<char*>_bufptr(a_{n}), {cexpr})")
    elif w.nv and kind == "s":
        x.outs.append(f"_records_of(_L.cls({w.rn.cls[bare(p.ctype)]!r}), _bufptr(a_{n}), {cexpr})")
    elif w.nv:
        x.outs.append(_numbers_result(w, f"_numbers_of(_bufptr(a_{n}), {cexpr}, {_np_format(w.model, p)!r})"))
    else:
        x.outs.append(f"_from_array(_bufptr(a_{n}), {cexpr}, {kind!r}, {cls}, {es})")
    return x


def _numbers_out(w, p, x, cexpr, tag):
    """Numbers, as many as a count the caller chooses (struct-style modules): a numpy array the
    library fills, returned as it is (no copy; pages it does not write cost nothing, whatever the
    count)."""
    n = p.name
    x.cdecls += [f"cdef object n_{n}", f"cdef void* p_{n}"]
    x.late += [(tag, f"n_{n} = _numbers_new(<Py_ssize_t>({cexpr}), {_np_format(w.model, p)!r})"),
               (tag, f"p_{n} = _numbers_ptr(n_{n})")]
    x.arg = f"<{w.cy(p.ctype, p.ptr)}>p_{n}"
    x.outs.append(_numbers_result(w, f"n_{n}"))
    return x


def _numbers_result(w, expr):
    """How a struct-style function returns the numpy array of numbers `expr`: as NVIDIA's package
    does, a Cython memoryview of it (_records._memview), or a Cython array holding a copy where it
    returns one (overrides.ARRAY_RESULT)."""
    return f"_view_array({expr})" if w.fn.name in ov.ARRAY_RESULT else f"_memview({expr})"


def _array_ref_out(w, p):
    """An array the library allocates and returns the address of."""
    x = _Piece(p)
    kind, cls, es = _elem(w.model, p)
    cexpr, _ = _count_expr(w, p, x)
    x.cdecls.append(f"cdef void* {x.c} = NULL")
    x.arg = f"<{w.cy(p.ctype, p.ptr)}>&{x.c}"
    x.outs.append(f"_from_array({x.c}, {cexpr}, {kind!r}, {cls}, {es})")
    return x


def _attr_out(w, p):
    x, n = _Piece(p), p.name
    a = p.extra["attr"]
    size = w.val(p.extra["size"]) or "0"  # the caller's data size
    tag = w.byname.get(p.extra["size"], w.byname[a])
    x.decl(f"cdef str code_{n} = _ATTR_{p.extra['enum']}.get(int({w.val(a)}), 'u8')", w.byname[a])
    x.decl(f"cdef _Buf a_{n} = _Buf_new(max(_attr_size(code_{n}), <Py_ssize_t>{size}))", tag)
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>a_{n}.ptr"
    x.outs.append(f"_attr_out(a_{n}.ptr, code_{n}, _L, {size})")
    x.pre += [(tag, f"c_{q.name} = a_{n}.size") for q in w.fn.params if q.role == "hidden"]
    return x


def _attr_list(w, p):
    x, n = _Piece(p), p.name
    v = {k: w.val(a) for k, a in p.extra.items()}
    x.cdecls.append(f"cdef list v_{n} = []")
    x.decl(f"cdef _Buf a_{n} = _attr_bufs({v['attr']}, _ATTR_{v['enum']}, "
           f"{v['sizes'] or 'None'}, {v['count']}, v_{n})", w.byname[p.extra["attr"]])
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>a_{n}.ptr"
    x.outs.append(f"_attr_values(v_{n}, _L)")
    return x


# ---- the struct-style modules' own (cuFile, NVML, nvFatbin, cuDLA)

def _fixed(w, p):
    """A value the wrapper passes itself (by reference for fixed_ref and count_ref)."""
    x = _Piece(p)
    x.cdecls.append(f"cdef {w.cy(p.ctype)} {x.c} = {p.extra.get('value', 0)}")
    x.arg = x.c if p.conv == "fixed" else f"&{x.c}"
    return x


def _value_ref(w, p):
    x = _Piece(p)
    x.pyparams.append(x.py)
    x.decl(f"cdef {w.cy(p.ctype)} {x.c} = {x.py}", x.tag, x.scalars)
    x.arg = f"&{x.c}"
    return x


def _records_scalar(w, p):
    """A number, or (overrides.IMPLICIT_COUNT) the length of the struct array it counts (a struct
    object of the module), which the caller does not pass."""
    if "implicit" not in p.extra:
        x = _scalar(w, p)
        if (w.fn.name, p.name) in ov.REFUSED_VALUES:     # a value NVIDIA's package refuses itself
            cond, status = ov.REFUSED_VALUES[(w.fn.name, p.name)]
            x.after += [f"if {cond.format(x.c)}:", f"    _raise(cy{w.model.lib}.{status})"]
        return x
    x = _Piece(p)
    counted = w.byname[p.extra["implicit"]]
    arr = counted.pyname
    x.cdecls.append(f"cdef {SCALARS[bare(p.ctype)][0]} {x.c} = 0")
    if counted.conv == "records_io":
        # made into a struct object already (from a sequence of field ids, say)
        x.pre.append((counted, f"{x.c} = len(r_{counted.name})"))
    else:
        x.pre.append((counted, f"if not isinstance({arr}, _Record): raise TypeError('{arr} must be a "
                               f"{w.rn.cls[bare(counted.ctype)]}, whose length is the count')"))
        x.pre.append((counted, f"{x.c} = len(<_Record>{arr})"))
    x.arg = x.c
    return x


def _record_struct_ptr(w, p):
    """A struct object of the module (one, or an array of them), an address, or None."""
    x = _Piece(p)
    x.pyparams.append(x.py)
    x.decl(f"cdef void* p_{p.name} = _record_ptr({x.py}, _L.cls({w.rn.cls[bare(p.ctype)]!r}), {x.py!r})", x.tag)
    x.arg = f"<{w.cy(p.ctype, p.ptr, p.const)}>p_{p.name}"
    return x


def _new_record(w, p):
    """The declarations of `s_<p>`, a new record of p's struct (or of the newer version NVIDIA's
    package passes instead: overrides.OUTPUT_VERSION), its `version` set."""
    ctype = record_type(w.model, p)
    o = [f"cdef _Record s_{p.name} = {_one_record(w.rn, w.rn.cls[bare(ctype)])}"]
    ver = _struct_version(w.model, ctype, w.mod)
    if ver:
        o.append(f"(<unsigned int*>s_{p.name}._ptr)[0] = {ver}")
    return o


def _struct_args(w, p):
    """A struct filled from the function's own arguments (overrides.STRUCT_ARGS), returning a field
    of it, the struct, or nothing."""
    st = struct_of(w.model, p.ctype)
    out = p.extra["output"]
    stack = _stack_fields(w.model, st, [path for _, path in p.extra["inputs"]], out)
    if stack is not None:
        return _struct_args_on_stack(w, p, stack)
    x = _Piece(p)
    x.cdecls += _new_record(w, p)
    allocated = {}
    for arg, path in p.extra["inputs"]:
        x.pyparams.append(arg)
        if path.startswith("alloc:"):
            # an array of `arg` items for a pointer field (kept: it may be what the call returns),
            # and its count field
            _, fld, n = path.split(":")
            f = next(f for f in st.fields if w.rn.fields[st.name][f.name] == fld)
            allocated[fld] = f"a_{fld}"
            x.cdecls.append(f"cdef object a_{fld} = None")
            x.setters.append((arg, f"a_{fld} = _new_record(_L.cls({w.rn.cls[f.ctype]!r}), <unsigned int>{arg})", None))
            x.setters.append((arg, f"{fld} = a_{fld}", f"s_{p.name}"))
            x.setters.append((arg, f"{n} = {arg}", f"s_{p.name}"))
        elif path.startswith("bytes:"):
            x.setters.append((arg, _bytes_into(w, p, st, path, arg), None))
        else:
            x.setters.append((arg, f"{path} = {arg}", f"s_{p.name}"))
    x.arg = f"<{w.cy(p.ctype, p.ptr)}>s_{p.name}._ptr"
    outs = out if isinstance(out, (list, tuple)) else [out] if out else []
    items = [f"s_{p.name}" if o == "*" else _bytes_of(w, p, st, o) if o.startswith("bytes:") else
             allocated.get(o, f"s_{p.name}.{o}") for o in outs if not o.startswith("asked:")]
    if items:
        x.outs.append(items[0] if len(items) == 1 else f"({', '.join(items)})")
    return x


def _byte_field(w, p, st, path):
    """(C expression of the struct's field, C expression of its count field or None) of a
    "bytes:FIELD[:COUNT]" path of overrides.STRUCT_ARGS (Python field names)."""
    cname = {py: c for c, py in w.rn.fields[st.name].items()}
    parts = path.split(":")[1:]
    struct = f"(<cy{w.model.lib}.{bare(p.ctype)}*>s_{p.name}._ptr)"
    return f"{struct}.{cname[parts[0]]}", f"{struct}.{cname[parts[1]]}" if len(parts) > 1 else None


def _bytes_into(w, p, st, path, arg):
    """The statement copying the bytes of `arg` (any buffer, or a sequence of byte values) into an
    unsigned char array field, at most its size, and setting its count field to how many."""
    field, count = _byte_field(w, p, st, path)
    copy = f"_bytes_into(<unsigned char*>{field}, sizeof({field}), {arg}, {count is not None})"
    return f"{count} = {copy}" if count else copy


def _bytes_of(w, p, st, path):
    """The bytes of an unsigned char array field the call filled, as many as its count field says."""
    field, count = _byte_field(w, p, st, path)
    n = f"min(<size_t>{count}, sizeof({field}))" if count else f"sizeof({field})"
    return f"PyBytes_FromStringAndSize(<char*>{field}, {n})"


def _struct_args_on_stack(w, p, stack):
    """Only numbers in and out: a C struct on the stack, as the reference does it."""
    x = _Piece(p)
    _stack_struct(w.model, p, w.mod, x.cdecls)
    fast = []
    for arg, path in p.extra["inputs"]:
        field, cast, ctype = stack[path]
        x.pyparams.append(arg)
        x.setters.append((arg, f"{field} = {cast}{arg}", f"s_{p.name}"))
        fast.append(ctype and _int_fast(ctype, arg, f"s_{p.name}.{field}", cast or None))
    x.fast = fast if all(fast) else None
    x.arg = f"&s_{p.name}"
    out = p.extra["output"]
    if out:
        x.outs.append(f"s_{p.name}.{stack[out][0]}")
    return x


def _records_io(w, p):
    """The module's struct object (filled in place), or a list of its first field's values; one of
    no item is returned at once, without a call (as NVIDIA's package does)."""
    x = _Piece(p)
    cls = w.rn.cls[bare(p.ctype)]
    x.pyparams.append(x.py)
    x.decl(f"cdef _Record r_{p.name} = _records_in({x.py}, _L.cls({cls!r}), {p.extra['field']!r})", x.tag)
    x.pre.append((x.tag, f"if len(r_{p.name}) == 0: return r_{p.name}"))
    x.arg = f"<{w.cy(p.ctype, p.ptr)}>r_{p.name}._ptr"
    if p.role == "inout":
        x.outs.append(f"r_{p.name}")
    return x


def _union_by_attribute(w, p):
    """A union the call fills with the member an attribute argument selects (overrides.
    UNION_BY_ATTRIBUTE), as NVIDIA's package reads it: a number, or a list of the structs of an
    array the wrapper makes room for, as many as another attribute says."""
    attr, numbers, arrays, item = ov.UNION_BY_ATTRIBUTE[(w.fn.name, p.name)]
    x, u, d, a = _Piece(p), f"u_{p.name}", f"d_{p.name}", w.val(attr)
    cls = w.rn.cls[item]
    x.cdecls += [f"cdef {w.cy(p.ctype)} {u}", f"memset(&{u}, 0, sizeof({u}))", f"cdef object {d} = None"]
    x.after += [f"if {a} in {tuple(arrays)}:",
                f"    {d} = _new_record(_L.cls({cls!r}), {public_function(w.fn, w.L)}("
                f"{w.byname[w.fn.params[0].name].pyname}, {dict((k, v[1]) for k, v in arrays.items())!r}[{a}]))"]
    for value, (member, _) in arrays.items():
        x.after += [f"    if {a} == {value}: {u}.{member} = <{w.cy(item)}*>(<_Record>{d})._ptr"]
    # an attribute of no member: NVIDIA's message, ours (naming the argument) the error's `detail`
    x.pre += [(w.byname[attr], f"if {a} not in {tuple(numbers) + tuple(arrays)}: raise _as_twin("
                               f"ValueError(f'Unknown attribute type: {{{a}}}'), 'no member of the union is of that attribute')")]
    x.arg = f"&{u}"
    x.outs.append(f"([{d}[i] for i in range(len({d}))] if {d} is not None else {u}.{next(iter(numbers.values()))})")
    return x


def _record_struct_out(w, p):
    """A struct the call fills: a record, or (one number of it: overrides.UNWRAP_OUTPUT) a C
    struct on the stack, as the reference does it."""
    if (w.fn.name, p.name) in ov.UNION_BY_ATTRIBUTE:
        return _union_by_attribute(w, p)
    x = _Piece(p)
    unwrap = p.extra.get("unwrap")
    stack = unwrap and _stack_fields(w.model, struct_of(w.model, p.ctype), [], unwrap)
    if stack:
        _stack_struct(w.model, p, w.mod, x.cdecls)
        x.arg = f"&s_{p.name}"
        x.outs.append(f"s_{p.name}.{stack[unwrap][0]}")
        return x
    x.cdecls += _new_record(w, p)
    x.arg = f"<{w.cy(p.ctype, p.ptr)}>s_{p.name}._ptr"
    x.outs.append(f"s_{p.name}.{unwrap}" if unwrap else f"s_{p.name}")
    return x


def _record_strbuf(w, p):
    """A string the library writes into a buffer of the documented size (unless the caller gives
    the length)."""
    ln = p.extra.get("len")
    if ln and w.byname[ln].conv not in ("fixed", "fixed_ref"):
        return _strbuf(w, p)
    x = _Piece(p)
    x.cdecls.append(f"cdef _Buf a_{p.name} = _Buf_new({p.extra['size']})")
    x.arg = f"<char*>a_{p.name}.ptr"
    if w.fn.name in ov.CHAR_RESULT:
        x.outs.append(f"(<char*>a_{p.name}.ptr)[0]")
    else:
        x.outs.append(f"_text(<char*>a_{p.name}.ptr, {p.extra['size']})")
    return x


def _record_array_out(w, p):
    """An output array: handles into room for a bound the library gives (overrides.ARRAY_CAPACITY),
    an array sized by asking the library first (_nv_two_call), or as the other modules'."""
    if "capacity" in p.extra:
        return _array_in_capacity(w, p)
    if not p.extra.get("two_call"):
        return _array_out(w, p)
    x = _Piece(p)
    kind, _, es = _elem(w.model, p)
    x.two_call.append((p, kind, es))
    x.arg = f"__ARRAY_{p.name}__"
    x.outs.append(f"__OUT_{p.name}__")
    return x


def _array_in_capacity(w, p):
    """Handles, as many as the library says it wrote, into room for as many as the bound it gives
    first (overrides.ARRAY_CAPACITY)."""
    x, name = _Piece(p), p.name
    kind, _, es = _elem(w.model, p)
    assert kind == "h", (w.fn.name, name)
    n = f"c_{p.extra['count']}"
    x.cdecls += [f"cdef {w.cy(w.byname[p.extra['count']].ctype)} cap_{name} = 0", f"cdef _Buf a_{name}"]
    bound = p.extra["capacity"].format(n=f"&cap_{name}")
    # (room for none: none, without the call, as NVIDIA's package returns them)
    x.after += [f"err = cy{w.model.lib}.{bound}", "if err != 0:", "    _raise(err)",
                f"if cap_{name} == 0:", f"    return _handles_view(NULL, 0)",
                f"a_{name} = _Buf_new((<Py_ssize_t>cap_{name} + 1) * {es})"]
    x.arg = f"<{w.cy(p.ctype, p.ptr)}>a_{name}.ptr"
    x.outs.append(f"_handles_view(<void**>a_{name}.ptr, {n} if {n} < cap_{name} else cap_{name})")
    return x


# (role, conversion) -> the function making that parameter's piece (a hidden parameter: "*")
_PIECES = {
    ("hidden", "*"): _hidden,
    ("in", "scalar"): _scalar, ("in", "enum"): _enum, ("in", "inttd"): _inttd,
    ("in", "handle"): _handle, ("in", "handle_ref"): _handle_ref, ("in", "struct_val"): _struct_val,
    ("in", "struct_ptr"): _struct_ptr, ("in", "voidp"): _voidp, ("in", "unknown"): _voidp,
    ("in", "cstr"): _cstr, ("in", "buf_w"): _buf_w, ("in", "array"): _array, ("in", "strlist"): _strlist,
    ("in", "voidpp"): _voidpp, ("in", "jitvalues"): _jitvalues, ("in", "kparams"): _kparams,
    ("in", "attr"): _attr_in,
    ("out", "value_out"): _value_out, ("inout", "value_inout"): _value_out, ("out", "struct_out"): _struct_out,
    ("out", "voidp_out"): _voidp_out, ("out", "voidp_out_val"): _voidp_out_val, ("out", "cstr_out"): _cstr_out,
    ("out", "strbuf"): _strbuf, ("out", "array_out"): _array_out, ("out", "array_ref_out"): _array_ref_out,
    ("out", "attr"): _attr_out, ("out", "attr_list"): _attr_list,
}
# the struct-style modules' own, looked up first
_RECORD_PIECES = {
    ("in", "fixed"): _fixed, ("in", "fixed_ref"): _fixed, ("in", "count_ref"): _fixed,
    ("in", "value_ref"): _value_ref, ("in", "struct_args"): _struct_args, ("in", "scalar"): _records_scalar,
    ("in", "struct_ptr"): _record_struct_ptr, ("inout", "records_io"): _records_io, ("in", "records_io"): _records_io,
    ("out", "struct_out"): _record_struct_out, ("out", "strbuf"): _record_strbuf,
    ("out", "array_out"): _record_array_out,
}


def _count_checks(w):
    """Conversion lines checking that an input list has as many items as its count argument says
    (a struct pointer is a list only when given one: one struct is not counted)."""
    out = []
    for p in w.fn.params:
        cp = p.extra.get("count_param") if p.role == "in" else None
        if cp and not (p.conv == "strlist" and w.L.get("snake")):      # (_cstrs checks its count)
            py, cpy = p.pyname, ov.RENAME.get(cp, cp)
            check = f"_check_count({py}, {w.val(cp)}, {py!r}, {cpy!r})"
            out.append((p, f"if isinstance({py}, (list, tuple)): {check}" if p.conv == "struct_ptr" else check))
    return out


def _emit_function(model, fn, mod, L, refs):
    """The wrapper of fn: its head, the declarations and conversions of its parameters' pieces,
    the C call and what it returns."""
    w = _Wrapper(model, fn, mod, L)
    pieces = [_piece(w, p) for p in fn.params]

    def joined(name):
        return [y for x in pieces for y in getattr(x, name)]
    args = [x.arg for x in pieces]
    counts = _count_checks(w)
    steps = joined("scalars") + joined("first") + joined("pre") + counts + joined("late")
    if w.nv:
        # the struct fields set from the arguments, in the conversions' try block (one, not one each)
        setters = joined("setters")
        if setters and joined("after"):
            raise ValueError(f"{fn.name}: struct fields set from arguments would now run before its "
                             "post-conversion lines; _conversions would have to place them after those")
        converting = [x for x in pieces if x.setters or any(tag is not None for n in ("scalars", "first", "pre", "late")
                                                              for tag, _ in getattr(x, n))]
        fast = None
        if converting and not counts and all(x.fast for x in converting):
            fast = [f for x in converting for f in x.fast]
        checks = _nv_handle_checks(model, fn, L)
        o = _wrapper_head(w, joined("pyparams"), refs, [] if fast else checks)
        o += ["    " + d for d in joined("cdecls")]
        o += _conversions(model, fn, L, steps, setters, fast, checks)
        o += ["    " + line for line in joined("after")]
        return o + _nv_call_and_return(w, args, joined("outs"), joined("size_check"), joined("two_call"))
    o = _wrapper_head(w, joined("pyparams"), refs)
    o += ["    " + d for d in joined("cdecls")]
    o += _conversions(model, fn, L, steps)
    o += ["    " + line for line in joined("after")]
    if fn.ret != L["status"]:
        return o + _value_return(w, args)
    return o + _status_return(w, args, joined("outs"), joined("size_check"))


def _wrapper_head(w, pyparams, refs, checks=()):
    """The def line, the docstring, the handle checks (struct-style: `checks`, _nv_handle_checks)
    and the local that takes what the C function returns."""
    model, fn, L = w.model, w.fn, w.L
    sig = ", ".join(pyparams)
    if w.nv:
        o = [f"def {public_function(fn, L)}({sig}):",
             '    """' + docstrings.quoted(snake_docstring(model, fn, refs)) + '\n    """']
        o.extend(checks)
    else:
        o = [f"def {'_' if L.get('snake') else ''}{fn.name}({sig}):",
             '    """' + tuple_docstring(model, fn, refs) + '\n    """']
    if w.nv and fn.ret != L["status"]:
        o.append(f"    cdef {_nv_ret_type(model, fn)} r")
        if fn.name in ov.ERRNO_FAILURE:
            o.append("    cdef int errno_ = 0")
    elif fn.ret != L["status"] and returns_struct(fn, model):
        o.append(f"    cdef cy{model.lib}.{bare(fn.ret)} r")
        o.append(f"    cdef _Struct s_r = _new_struct(_L.cls({bare(fn.ret)!r}))")
    elif fn.ret != L["status"]:
        # a function that returns a string, not a status (nvrtcGetErrorString)
        o.append("    cdef const char* r")
    else:
        o.append(f"    cdef cy{model.lib}.{L['status']} err")
    return o


def _value_return(w, args):
    """The call of a tuple-style function that returns a value, not a status (a struct, a string)."""
    fn, lib = w.fn, w.model.lib
    o = [w.c_call(f"r = cy{lib}.{fn.name}({', '.join(args)})")]
    if returns_struct(fn, w.model):
        o.append("    memcpy(s_r._ptr, &r, sizeof(r))")
        o.append("    return (_ok(), s_r)")
    else:
        o.append("    return (_ok(), <bytes>r if r != NULL else None)")
    o.append("")
    return o


def _status_return(w, args, outs, size_check):
    """The call of a tuple-style function returning a status, and (status, outputs...)."""
    fn, lib = w.fn, w.model.lib
    o = []
    for szf, pname, py in size_check:
        # (a library without the size query lacks the getter too: the getter's call says which,
        # as NVIDIA's package does)
        o.append(f"    cdef size_t need_{pname} = 0")
        h = fn.params[0]
        o.append("    try:")
        o.append(f"        asked_{pname} = cy{lib}.{szf}(<cy{lib}.{bare(h.ctype)}>c_{h.name}, &need_{pname}) == 0")
        o.append("    except _FunctionNotFoundError:")
        o.append(f"        asked_{pname} = False")
        o.append(f"    if asked_{pname} and <size_t>n_{pname} < need_{pname}:")
        o.append(f"        raise ValueError(f'{py} has {{n_{pname}}} bytes; {fn.name} needs {{need_{pname}}}')")
    o.append(w.c_call(f"err = cy{lib}.{fn.name}({', '.join(args)})"))
    kept = _kept_roles(w.model).get(fn.name)
    if kept and kept[0] == "release":
        # the handle is released: what its creating call kept for it may go
        o.append(f"    if err == 0:\n        _release_kept({kept[1]!r}, <void*>c_{kept[2]})")
    if not outs:
        o.append("    return _st1(err)")
    else:
        o.append("    if err != 0:")
        o.append("        return (_st(err), " + ", ".join(["None"] * len(outs)) + ("," if len(outs) == 1 else "") + ")")
        if kept and kept[0] == "keep":
            # the library goes on using these arguments until the handle is released
            held = ", ".join(f"a_{n}" for n in kept[3]) + ("," if len(kept[3]) == 1 else "")
            o.append(f"    _keep_until_release({kept[1]!r}, <void*>c_{kept[2]}, ({held}))")
        o.append("    return (_ok(), " + ", ".join(outs) + ("," if len(outs) == 1 else "") + ")")
    o.append("")
    return o


def _kept_roles(model):
    """overrides.KEEP_UNTIL_RELEASE for this module's functions: function -> ("keep", handle type,
    handle output, kept inputs) for a creating call, ("release", handle type, handle parameter)
    for its releasing call.  The kept inputs must be converted ones (`a_<name>`), and the handle
    the releasing call takes is its parameter of the handle's type."""
    fns = {f.name: f for f in model.functions if f.python}
    out = {}
    for name, (handle, release, inputs, _) in ov.KEEP_UNTIL_RELEASE.items():
        if name not in fns:
            continue
        by = {p.name: p for p in fns[name].params}
        h = by[handle]
        if h.conv != "value_out" or h.cls != "handle":
            raise ValueError(f"KEEP_UNTIL_RELEASE[{name!r}]: {handle} is not a handle output")
        bad = [n for n in inputs if by[n].conv not in ("array", "jitvalues", "voidpp", "strlist")]
        if bad:
            raise ValueError(f"KEEP_UNTIL_RELEASE[{name!r}]: {bad} are not converted arrays")
        rel = [p for p in fns[release].params if p.ctype == h.ctype and p.ptr == 0 and p.role == "in"]
        if len(rel) != 1:
            raise ValueError(f"KEEP_UNTIL_RELEASE[{name!r}]: {release} takes no one {h.ctype}")
        out[name] = ("keep", bare(h.ctype), handle, inputs)
        out[release] = ("release", bare(h.ctype), rel[0].name)
    return out


# _p from here on names a struct field set from an argument (_conversions' setters), not a parameter
SETTER_BASE = 1000


def _conversions(model, fn, L, steps, setters=(), fast=None, checks=()):
    """The body lines converting the arguments: `steps` is [(parameter or None, line)] in order.
    The lines tagged with a parameter run in one try block; a TypeError, ValueError or
    OverflowError there is raised again, of the same class, with a message that names the
    function and the parameter being converted (`_arg_error`), as Python's own functions do:
    "cuMemAlloc() argument 'bytesize': an integer is required".  Untagged lines (a count the
    library is asked for) come first, outside it.  `setters` (struct-style: (argument,
    assignment, record) for a struct field set from an argument) run last in the same block; an
    error there names the argument as "fn() argument 'name': <the error>".

    The try block saves and restores the thread's exception state: 3-4 ns a call, a tenth of
    what NVML's shortest calls cost.  So a struct-style function whose every conversion has a
    form that cannot raise for an int in range (`fast`: [(declarations, condition, assignment)],
    _Piece.fast) tries those first, and takes the try block (and the handle checks `checks`,
    which the fast conditions include) only where one of them does not hold."""
    o = ["    " + line for tag, line in steps if tag is None]
    tagged = [(tag, line) for tag, line in steps if tag is not None]
    if not tagged and not setters:
        return o
    order = [p for p in fn.params if p.role in ("in", "inout")]
    names = tuple(public_param(p, L) for p in order)
    shown = public_function(fn, L)
    indexed = len(order) > 1 or bool(setters)
    if indexed:
        o.append("    cdef int _p = 0")
    pad = "    "
    if fast:
        o += [f"    {d}" for decls, _, _ in fast for d in decls]
        conds = " and ".join(cond for _, cond, _ in fast)
        lines = [f"        {line}" for _, _, line in fast if line]
        if lines:
            o += [f"    if {conds}:"] + lines + ["    else:"]
        else:       # (the conditions set the C values themselves)
            o.append(f"    if not ({conds}):" if " and " in conds else f"    if not {conds}:")
        o += ["    " + c for c in checks]
        pad = "        "
    body = [f"{pad}try:"]
    at = 0
    for tag, line in tagged:
        i = order.index(tag)
        if i != at:
            body.append(f"{pad}    _p = {i}")
            at = i
        body.append(f"{pad}    {line}")
    for k, (arg, assignment, rec) in enumerate(setters):
        body.append(f"{pad}    _p = {SETTER_BASE + k}")
        body.append(f"{pad}    {rec}.{assignment}" if rec else f"{pad}    {assignment}")
    if setters:
        body.append(f"{pad}except (TypeError, ValueError, OverflowError) as e:")
        body.append(f"{pad}    if _p >= {SETTER_BASE}:")
        body.append(f"{pad}        raise e.__class__(f\"{shown}() argument '{{{tuple(a for a, _, _ in setters)!r}[_p - {SETTER_BASE}]}}': "
                    f"{{e}}\") from None")
    else:
        body.append(f"{pad}except (TypeError, ValueError, OverflowError):")
    body.append(f"{pad}    raise _arg_error({shown!r}, {names!r}, {'_p' if indexed else 0}) from None")
    return o + body


def _keep_gil_test(model, fname, arg):
    """A C condition on `arg` that holds for the enum members KEEP_GIL_UNLESS allows: every member
    of the headers' enum except the excluded ones, written as value ranges."""
    _, enum_name, excluded, _ = ov.KEEP_GIL_UNLESS[fname]
    e = next(x for x in model.enums if x.name == enum_name)
    bad = {int(v) for n, v in e.members if n in excluded}
    vals = sorted({int(v) for n, v in e.members} - bad)
    ranges = []
    for v in vals:
        if ranges and v == ranges[-1][1] + 1:
            ranges[-1][1] = v
        else:
            ranges.append([v, v])
    return " or ".join(f"{arg} == {a}" if a == b else f"{a} <= {arg} <= {b}" for a, b in ranges)


def _count_ident(spec):
    """A count field spec (common.count_spec: name, then `!` or `&a,b`) for the _Lazy table."""
    m = re.fullmatch(r"(\w*)(!|&(\w+(?:,\w+)*))?", spec)
    if not m:
        raise ValueError(f"not a count field spec: {spec!r}")
    return spec


def _ident(name):
    """A name as it goes into a _Lazy text table: a C identifier (or empty), so it cannot hold
    one of the table's separators."""
    if name and not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise ValueError(f"not an identifier: {name!r}")
    return name


def _lazy_names(model):
    names = type_names(model)
    names.update(n for n, _ in extra_enums(model))
    return names


_TRIPLE = '"' * 3
_STRING = re.compile(r"""[rbfRBF]*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")""")
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")


def check_lazy_refs(lines, model):
    """Fail if generated code names an enum or struct class as a bare global: those classes exist
    only once `_L` has made them, so code must ask `_L.cls(name)` (a bare name would be a
    NameError at call time, which only that call would reveal)."""
    lazy = _lazy_names(model)
    in_doc = False
    for line in "\n".join(lines).splitlines():
        if in_doc:
            if _TRIPLE in line:
                in_doc = False
            continue
        code = line
        if code.count(_TRIPLE) == 1:
            in_doc = True
            code = code.split(_TRIPLE, 1)[0]
        elif code.count(_TRIPLE) >= 2:
            code = code.split(_TRIPLE, 1)[0] + code.rsplit(_TRIPLE, 1)[1]
        code = _STRING.sub("''", code)
        code = code.split("#", 1)[0]
        for m in _IDENT.finditer(code):
            if m.group(1) in lazy:
                raise ValueError(f"generated code names the lazy class {m.group(1)!r} directly: {line.strip()}")


# ------------------------------------------------------------------------------------- struct-style modules

def _nv_value(model, p, var):
    """A struct-style module's Python value of an output's C local: handles and pointers as ints,
    enums and integer types as ints (as the reference package returns them)."""
    if p.cls in ("handle", "funcptr"):
        return f"PyLong_FromVoidPtr(<void*>{var})"
    if p.cls in ("enum", "inttd"):
        return f"<long long>{var}"
    return var


def _one_record(rn, cls):
    """Cython expression: a new zeroed record of one struct of class `cls` (by its index in the
    module's layout tables where it has one: no name look-up, no size read from the class)."""
    if cls in rn.slot:
        return f"_new_record_at(_L, {rn.slot[cls]}, {cls!r})"
    return f"_new_record(_L.cls({cls!r}), 1)"


def _stack_fields(model, st, inputs, output):
    """For a struct a wrapper fills from number arguments and returns one number of (or nothing):
    {Python field name: (C field name, cast for the argument, C integer type or None)} of the
    fields it sets and reads,
    or None where one of them is no plain number (an enum is taken as an input only: as output
    it would be its class's member, which the record's field makes)."""
    by_py = {ft.name: ft for ft in model.resolved.fields[st.name]}
    out = {}
    for path, is_out in [(x, False) for x in inputs] + ([(output, True)] if output and output != "*" else []):
        ft = by_py.get(path)
        if ft is None or st.union:
            return None
        if ft.kind in (F_I, F_U, F_F):
            out[path] = (ft.field.name, "", bare(ft.field.ctype) if ft.kind != F_F else None)
        elif ft.kind == F_ENUM and not is_out:
            out[path] = (ft.field.name, f"<{cytype(ft.field.ctype, 0, False, 'cy' + model.lib + '.')}><int>", "int")
        else:
            return None
    return out if output != "*" else None


def _stack_struct(model, p, mod, cdecls):
    """Declares the zeroed C struct `s_<p>` a struct parameter points to, its `version` set."""
    cdecls.append(f"cdef {cytype(p.ctype, p.ptr - 1, False, mod)} s_{p.name}")
    cdecls.append(f"memset(&s_{p.name}, 0, sizeof(s_{p.name}))")
    ver = _struct_version(model, p.ctype, mod)
    if ver:
        cdecls.append(f"s_{p.name}.version = {ver}")


def _struct_version(model, ctype, mod):
    """The value a versioned struct's `version` member is set to before a call fills the struct
    (NVML: `nvmlMemory_v2` for nvmlMemory_v2_t, the header's NVML_STRUCT_VERSION, which is
    `sizeof(nvmlMemory_v2_t) | 2 << 24`), as Cython text, or None."""
    name = bare(ctype)
    s = struct_of(model, ctype)
    if s is None or not s.fields or s.fields[0].name != "version":
        return None
    values = dict(model.defines)
    exprs = dict(model.sizeof_defines)
    for n in [name] + [a for a, _ in s.aliases] + [s.name]:
        macro = n[:-2] if n.endswith("_t") else n
        if macro in values and isinstance(values[macro], int):
            return str(values[macro])
        if macro in exprs:
            # the C expression in Cython's spelling: casts in <>, no integer suffixes, the types
            # of the C-API module
            e = re.sub(r"\((unsigned int|int)\)", r"<\1>", exprs[macro])
            e = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", e)
            return re.sub(r"sizeof\((\w+)\)", lambda m: f"sizeof({cytype(m.group(1), 0, False, mod)})", e)
    return None


def _np_format(model, p):
    """The numpy format of one item of an array output of scalars."""
    b = bare(p.ctype)
    if p.cls == "enum":
        return "<i4"
    if p.cls == "inttd":
        for n, _, cy, size, k in model.inttds:
            if n == b:
                return f"<{k}{size}"
    if p.cls in ("handle", "funcptr"):
        return "<u8"
    cy, size, k = SCALARS[b]
    return f"<{k}{size}"


def _nv_ret_type(model, fn):
    """The Cython type of the C return value of a function that returns no status."""
    if fn.ret == "void":
        return "int"
    b = bare(fn.ret)
    if b in SCALARS and b != "char":      # `char` is a string: the parser drops the `*` of returns
        return SCALARS[b][0]
    return "const char*"


def _checked_handles(model, fn):
    """The handle parameters of fn that its library crashes on when they are none (a value in the
    first page, one that a destroy call consumed): overrides.handle_check."""
    handles = {n for n, _ in model.handles}
    return [p for p in fn.params if p.role in ("in", "inout") and bare(p.ctype) in handles
            and p.conv in ("handle", "handle_ref") and ov.handle_check(fn.name, bare(p.ctype)) == "crash"]


def _nv_handle_checks(model, fn, L):
    """Lines refusing a handle argument the library would crash on: None, a value in the first page,
    one that a destroy call consumed (docs/design.md, "nvJitLink's and NVVM's style"); a handle the
    library itself checks is passed on (overrides.HANDLE_CHECKS)."""
    what = L["snake"]["what"]
    return [f"    _live({p.pyname}, &_CONSUMED, {p.pyname!r}, {what!r})" for p in _checked_handles(model, fn)]


def _nv_call_and_return(w, call_args, outs, size_check, two_call):
    """The C call of a struct-style function, the raise on a failed status, what it returns."""
    model, fn, L = w.model, w.fn, w.L
    if two_call:
        return _nv_two_call(w, call_args, outs, two_call)
    o = _nv_size_checks(w, size_check) + _asked_size_forgotten(w)
    call = f"cy{model.lib}.{fn.name}({', '.join(call_args)})"
    checked = {p.name for p in _checked_handles(model, fn)} | {
        p.name for p in fn.params if (fn.name, p.name) in ov.CONSUMES
        and ov.handle_check(fn.name, bare(p.ctype)) == "crash"}
    consumed = [p.pyname for p in fn.params if p.name in checked and (p.conv == "handle_ref"
                or (fn.name, p.name) in ov.CONSUMES)]
    if fn.ret != L["status"]:
        return o + _nv_value_return(w, call, consumed)
    asked = [(p, p.extra["output"]) for p in fn.params if p.conv == "struct_args"
             and isinstance(p.extra["output"], str) and p.extra["output"].startswith("asked:")]
    if asked:
        return o + _asked_bytes_return(w, call, *asked[0])
    o.append(w.c_call(f"err = {call}"))
    if fn.name in ov.STATUS_RESULT:
        o.append("    return <int>err")
        o.append("")
        return o
    status_struct = returns_struct(fn, model)
    o.append(f"    if {'err.err != 0' if status_struct else 'err != 0'}:")
    o.append(f"        _raise({'err.err, err.cu_err' if status_struct else 'err'})")
    o.extend(f"    _consume({n}, &_CONSUMED)" for n in consumed)
    o += _asked_size_kept(w)
    handles = {n for n, _ in model.handles}
    outs = list(outs)
    for i, p in enumerate([q for q in fn.params if q.role in ("out", "inout")]):
        if bare(p.ctype) in handles and i < len(outs) and p.conv not in ("array_out", "array_ref_out"):
            # a new handle is no longer a destroyed one (the library may reuse the address); the
            # int is made once, for the look-up and the return
            o.append(f"    h_out{i} = {outs[i]}")
            o.append(f"    _fresh(h_out{i}, &_CONSUMED)")
            outs[i] = f"h_out{i}"
    return o + _nv_return(outs)


def _asked_bytes_return(w, call, p, path):
    """The two calls of a function filling a struct with bytes the caller sizes by asking first
    (STRUCT_ARGS "asked:DATA:SIZE"): with DATA NULL, which sets SIZE; then with room for that many,
    returned as bytes, as NVIDIA's package does."""
    st = struct_of(w.model, p.ctype)
    data, size = _byte_field(w, p, st, path)
    insufficient = w.L["snake"]["insufficient"]
    return [w.c_call(f"err = {call}"),
            f"    if err != 0 and err != cy{w.model.lib}.{insufficient}:", "        _raise(err)",
            f"    cdef _Buf b_{p.name} = _Buf_new({size})",
            f"    {data} = b_{p.name}.ptr",
            w.c_call(f"err = {call}"),
            "    if err != 0:", "        _raise(err)",
            f"    return PyBytes_FromStringAndSize(<char*>b_{p.name}.ptr, min(<Py_ssize_t>{size}, b_{p.name}.size))", ""]


def _nv_size_checks(w, size_check):
    """Lines refusing a buffer smaller than what the call writes into it, as its size query says;
    where asking changes the library's state (overrides.STATEFUL_SIZE_QUERY), as the size the
    caller asked for last says (none asked for: no check, and the library reports it)."""
    fn, lib, o = w.fn, w.model.lib, []
    for szf, pname, py in size_check:
        h = fn.params[0]
        msg = (f"        raise ValueError(f'{py}: the buffer has {{n_{pname}}} bytes; {public_function(fn, w.L)} "
               f"writes {{need_{pname}}}')")
        if fn.name in ov.STATEFUL_SIZE_QUERY:
            o += [f"    cdef size_t need_{pname} = 0",
                  f"    if _sizemap_get(&_ASKED_SIZES, c_{h.name}, &need_{pname}) and <size_t>n_{pname} < need_{pname}:",
                  msg]
            continue
        o += [f"    cdef size_t need_{pname} = 0",
              f"    if cy{lib}.{szf}(<cy{lib}.{bare(h.ctype)}>c_{h.name}, &need_{pname}) == 0 "
              f"and <size_t>n_{pname} < need_{pname}:", msg]
    return o


def _asked_size_kept(w):
    """After a size query whose answer a getter checks its buffer against (STATEFUL_SIZE_QUERY):
    the answer, kept by the handle's value."""
    if w.fn.name not in {q for q, _ in ov.STATEFUL_SIZE_QUERY.values()}:
        return []
    h, out = w.fn.params[0], next(q for q in w.fn.params if q.role == "out")
    return [f"    _sizemap_put(&_ASKED_SIZES, c_{h.name}, c_{out.name})"]


def _asked_size_forgotten(w):
    """Before a destroy call of a handle whose size was asked for (STATEFUL_SIZE_QUERY): the answer
    forgotten (a later handle may have the same value)."""
    if w.fn.name not in {d for _, d in ov.STATEFUL_SIZE_QUERY.values()}:
        return []
    h = next(q for q in w.fn.params if q.conv == "handle_ref")
    return [f"    _sizemap_del(&_ASKED_SIZES, r_{h.name}[0])"]


def _nv_value_return(w, call, consumed):
    """The call of a struct-style function that returns a value, not a status, and its return:
    where it reports a failure as -1 and errno (overrides.ERRNO_FAILURE), the module's exception
    of errno, as NVIDIA's package raises it; None where NVIDIA's package of the release returns
    nothing (TWIN_STYLE returns_none)."""
    fn = w.fn
    if fn.name in ov.ERRNO_FAILURE:
        o = [w.c_call(f"r = {call}; errno_ = errno"), "    if r == -1:",
             f"        raise {w.L['snake']['error']}(errno_)"]
    else:
        o = [w.c_call(call if fn.ret == "void" else f"r = {call}")]
    o.extend(f"    _consume({n}, &_CONSUMED)" for n in consumed)
    if fn.ret == "void" or fn.name in twin_style(w.model).get("returns_none", ()):
        o.append("    return None")
    elif bare(fn.ret) in SCALARS and bare(fn.ret) != "char":
        o.append("    return r")
    else:
        o.append("    return _text0(r)")
    o.append("")
    return o


def _nv_return(outs):
    """A struct-style function's return: None, one value or a tuple."""
    if not outs:
        return ["    return None", ""]
    if len(outs) == 1:
        return [f"    return {outs[0]}", ""]
    return [f"    return ({', '.join(outs)})", ""]


def _emit_records_module(model):
    """<lib>.pyx of a struct-style library (cuFile, NVML, nvFatbin, cuDLA; docs/library-modules.md):
    the enums by the reference's short names, the struct classes (cuda.bindings._records), the
    exception class(es), and one snake_case function per entry point that returns its outputs and
    raises on a failed status."""
    L = of(model)
    cfg = L["snake"]
    rn = model.resolved.records
    o = [HEADER.format(ver=model.cuda),
         "# cython: language_level=3, boundscheck=False, wraparound=False, binding=True",
         f'"""{L["title"]}: Python bindings generated from the CUDA {model.cuda} headers, in the style of '
         f'NVIDIA\'s cuda.bindings.{model.lib}."""',
         f"from cuda.bindings cimport cy{model.lib}",
         "from cuda.bindings._base cimport (_Buf, _hptr, _href, _vptr, _wbuf, _as_bytes, _array, _strlist, _bufptr,",
         "    _Buf_new, _check_count, _bptr, _arg_error, _vsized, _library_handle, _Lazy, _new_lazy, _live, _consume, _fresh, _cstrs,",
         "    _Handle, _IntValue, _iv, _Struct, _enum, _bytes_into, _cstr_address, _as_twin, _cstr_of, _utf8,",
         "    _SizeMap, _sizemap_put, _sizemap_get, _sizemap_del, _int_fits, _int_ll, _hptr_int, _live_int)",
         "from cuda.bindings._records cimport (_Record, _new_record, _new_record_at, _record_ptr, _text, _text0, _records_of,",
         "    _numbers_of, _numbers_new, _numbers_ptr, _records_in, _memview, _handles_view, _view_array)",
         "from libc.errno cimport errno",
         "from cpython.bytes cimport PyBytes_FromStringAndSize",
         "from cpython.long cimport PyLong_FromVoidPtr, PyLong_AsVoidPtr",
         "from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, intptr_t, uintptr_t",
         "from libc.string cimport memcpy, memset",
         "from posix.types cimport off_t",
         "from cuda.bindings import _records",
         *_buffer_error_lines(model, L),
         ""]
    # ---- enums: by their short names; made on first use
    o += _enum_table([(py, (), members) for _, py, members in rn.enums] +
                     [(py, (), members) for py, members in ov.DEFINE_ENUMS_OF(model)])
    o += _records_tables(model)
    for n, v in ov.PUBLIC_CONSTANTS.get(module(model), {}).items():
        o.append(f"{v} = {dict(model.defines)[n]!r}")
    o.append("")
    o += [f"cdef str _STATUS_NAME = {rn.status!r}", 'include "_module_common.pxi"', ""]
    o += _classes_at_import(len(rn.enums) + len(ov.DEFINE_ENUMS_OF(model)), rn.layout)
    o.extend(_records_errors(model))
    o.append("cdef _SizeMap _CONSUMED   # the handles a destroy call consumed (_base's C map, as a set)")
    if any(f.name in ov.STATEFUL_SIZE_QUERY for f in model.functions):
        o.append("cdef _SizeMap _ASKED_SIZES   # handle -> the size its size query gave last (_base's C map)")
    o.append("")
    refs = snake_refs(model)
    _check_buffer_extent(model)
    for fn in model.functions:
        if fn.python:
            o.extend(_emit_function(model, fn, "cy" + model.lib + ".", L, refs))
    o.append("")
    return "\n".join(o) + "\n"


def _records_tables(model):
    """A struct-style module's struct layout (from the compiler), its _STRUCTS lines (one per
    struct: name|union|first field|(no aliases)|name:kind:count:class:item kind:count field:flags;...),
    its numpy dtypes and its _Lazy, which makes the struct classes with cuda.bindings._records."""
    rn = model.resolved.records
    block, layout = _layout(model, rn.layout)
    o = block + _struct_table([(rn.cls[st.name], st, "", [
        (ft.name, ft.kind, ft.count, ft.cls, ft.ekind, ft.countname, ft.flags | (0 if ft.shown else 1))
        for ft in fts]) for st, fts in layout])
    made = {rn.cls[st.name] for st, _ in layout}
    dtypes = ",".join(f"{d}:{c}" for d, c in rn.dtypes.items() if c in made)
    o.append(f'_DTYPES = "{dtypes}"')
    o.append(_new_lazy(model))
    numpy_records = ov.NUMPY_RECORDS.get(model.cuda, {}).get(model.lib)
    o.append(f"_L.records = _records._Space(_DTYPES, {of(model)['snake'].get('imports', {})!r}, "
             f"{None if numpy_records is None else ','.join(numpy_records)!r})")
    if model.lib in twin_style(model).get("int_enum_libs", ()):
        o.append("_L.int_enums = True      # enum.IntEnum here, as NVIDIA's package of this release has them")
    o.append("")
    return o


def _records_errors(model):
    """The exception class(es) of a struct-style module and `_raise`, which raises the one of a
    status (LIBS[lib]["snake"]: `error`; `message`: how the message is made, and for NVML one
    subclass per status), check_status, and the status helpers."""
    cfg = of(model)["snake"]
    status_py = model.resolved.records.status
    o = [f"class {cfg['error']}(Exception):",
         f'    """A failed {cfg["title"]} call: `status` is the {status_py} value."""',
         ""]
    if cfg.get("message") == "cufile":
        o = _cufile_errors(model, o)
    elif cfg.get("per_status"):
        o = _status_errors(model, o)
    else:
        o += ["    def __init__(self, status):",
              "        self.status = status",
              f"        s = _L.cls({status_py!r})(status)     # ValueError for a value it lacks, as NVIDIA's",
              "        super().__init__(f'{s.name} ({int(s)})')",
              "",
              "    def __reduce__(self):",
              "        return (type(self), (self.status,))",
              "",
              "",
              "cdef object _raise(long long status) except *:",
              f"    raise {cfg['error']}(status)",
              ""]
    if "check_status" in cfg:
        o += ["",
              "def check_status(status):",
              f'    """Raise the exception of a {status_py} value; return {cfg["check_status"]!r} when it is success',
              f'    (a value {status_py} lacks: ValueError, as NVIDIA\'s)."""',
              "    cdef long long s = _status_arg(status)",
              "    if s != 0:",
              "        try:",
              "            _raise(s)",
              "        except ValueError as e:",
              "            raise ValueError(f'status: {e}') from None",
              f"    return {cfg['check_status']!r}",
              ""]
    return o + ["",
                "cdef long long _status_arg(object status) except? -1:",
                '    """A status given to check_status: an integer, or an error naming the argument."""',
                "    try:",
                "        return status",
                "    except (TypeError, ValueError, OverflowError) as e:",
                "        raise e.__class__(f\"status: {e}\") from None",
                "",
                "",
                "def _status_name(long long status):",
                f'    """The {status_py} member name of a status (its number where it names none)."""',
                "    try:",
                f"        return _L.cls({status_py!r})(status).name",
                "    except ValueError:",
                "        return str(status)",
                ""]


def _cufile_errors(model, cls):
    """cuFile's exception (`cls`, its first lines): its text for the status and the CUDA status
    it reports besides."""
    err = of(model)["snake"]["error"]
    return ["def _status_text(long long status):",
            '    """cuFile\'s text for a status (cufile.h\'s cufileop_status_error)."""',
            "    if not -2**31 <= status < 2**31:",
            "        return 'unknown status'",
            f"    return _text0(cy{model.lib}.cufileop_status_error(<cy{model.lib}.CUfileOpError>status))",
            "",
            "",
            "def _cuda_status_name(long long status):",
            '    """The CUresult member name of a CUDA status (its number where it names none)."""',
            "    try:",
            "        from cuda.bindings.driver import CUresult",
            "        return CUresult(status).name",
            "    except (ImportError, ValueError):",
            "        return str(status)",
            "",
            ""] + cls + [
            "    def __init__(self, status, cuda_error=None):",
            "        self.status = status",
            "        self.cuda_error = cuda_error",
            f"        s = _L.cls({model.resolved.records.status!r})(status)     # ValueError for a value it lacks, as NVIDIA's",
            "        msg = f'{s.name} ({int(s)}): {_status_text(int(s))}'",
            "        if cuda_error:",
            "            msg += f'; CUDA status: {_cuda_status_name(cuda_error)} ({int(cuda_error)})'",
            "        super().__init__(msg)",
            "",
            "    def __reduce__(self):",
            "        return (type(self), (self.status, self.cuda_error))",
            "",
            "",
            "cdef object _raise(int status, long long cuda_error) except *:",
            f"    raise {err}(status, cuda_error if cuda_error != 0 else None)",
            ""]


def _status_errors(model, cls):
    """The exceptions of a module with one subclass per status (NVML, _v2; `cls`: the base class's
    first lines), named after it: ERROR_NOT_SUPPORTED -> NotSupportedError.  The message: the
    library's text for the status (`message` "library": nvmlErrorString, "error_string":
    nvrtcGetErrorString, which need no initialisation), else the Result member's name and value;
    the subclasses take the status (`status_required`) or default to theirs; check_status_size
    where a size query's status is no failure (`insufficient`)."""
    L = of(model)
    cfg, lib, err = L["snake"], model.lib, L["snake"]["error"]
    text = {"library": "ErrorString", "error_string": "GetErrorString"}.get(cfg.get("message"))
    if text:
        o = cls + ["    def __init__(self, status):",
                   "        self.status = int(status)",
                   "        super().__init__(_status_text(self.status))", ""]
    else:
        o = cls + ["    def __init__(self, status):",
                   "        self.status = status",
                   f"        s = _L.cls({model.resolved.records.status!r})(status)     # ValueError for a value it lacks, as NVIDIA's",
                   "        super().__init__(f'{s.name} ({int(s)})')", ""]
    o += ["    def __reduce__(self):",
          "        return (type(self), (self.status,))",
          "",
          ""]
    by_value = {}
    for sub, name, value in model.resolved.records.errors:
        by_value[value] = sub
        o += [f"class {sub}({err}):", f'    """{L["title"]} status {name} ({value})."""', ""]
        if not cfg.get("status_required"):
            o += ["    def __init__(self, status=None):",
                  f"        super().__init__({value} if status is None else status)", ""]
        else:
            o += ["    pass", ""]
        o.append("")
    for alias, sub in ov.ERROR_CLASS_ALIASES.get(module(model), {}).items():
        o.append(f"{alias} = {sub}")
    o += ["", f"cdef dict _ERRORS = {{{', '.join(f'{v}: {c}' for v, c in sorted(by_value.items()))}}}", "", ""]
    if text:
        o += ["def _status_text(long long status):",
              '    """The library\'s text for a status (its number where the library cannot say)."""',
              "    try:",
              "        if not -2**31 <= status < 2**31:",
              "            raise ValueError(status)",
              f"        return _text0(cy{lib}.{L['prefix']}{text}(<cy{lib}.{L['status']}>status))",
              "    except Exception:",
              "        return f'{_status_name(status)} ({status})'",
              "", ""]
    o += ["cdef object _raise(long long status) except *:",
          f"    raise _ERRORS.get(status, {err})(status)",
          ""]
    if "insufficient" in cfg:
        o += ["", "def check_status_size(status):",
              f'    """check_status, but {cfg["insufficient"][len(L["prefix"]) + 1:]} (the size query of a two-call function) is no failure."""',
              "    cdef long long s = _status_arg(status)",
              f"    if s != 0 and s != cy{lib}.{cfg['insufficient']}:",
              "        _raise(s)",
              "    return 0", ""]
    return o


def _nv_two_call(w, call_args, outs, arrays):
    """A struct-style function whose output arrays' size the library tells: called with a count of
    0 and no arrays first, then with arrays of that size (again while the library says they are too
    small: the count may grow between the calls).  The arrays come back as the module's struct
    class (structs) or numpy arrays (numbers), as many items as the library filled."""
    model, fn = w.model, w.fn
    cnt = arrays[0][0].extra["count"]
    insufficient = w.L["snake"]["insufficient"]
    first = [a if not a.startswith("__ARRAY_") else "NULL" for a in call_args]
    second = []
    for a in call_args:
        if a.startswith("__ARRAY_"):
            name = a[len("__ARRAY_"):-2]
            p = next(q for q in fn.params if q.name == name)
            second.append(f"<{w.cy(p.ctype, p.ptr)}>a_{name}.ptr")
        else:
            second.append(a)
    o = [f"    cdef unsigned int req_{cnt} = 0"]
    for p, kind, es in arrays:
        o.append(f"    cdef _Buf a_{p.name} = None")
    o.append(w.c_call(f"err = cy{model.lib}.{fn.name}({', '.join(first)})"))
    o.append(f"    if err != 0 and err != cy{model.lib}.{insufficient}:")
    o.append("        _raise(err)")
    o.append("    for _ in range(8):")
    o.append(f"        req_{cnt} = c_{cnt}")
    for p, kind, es in arrays:
        o.append(f"        a_{p.name} = _Buf_new(<Py_ssize_t>req_{cnt} * {es})")
    inner = w.c_call(f"err = cy{model.lib}.{fn.name}({', '.join(second)})").replace("\n", "\n    ")
    o.append("    " + inner)
    o.append(f"        if err != cy{model.lib}.{insufficient} or c_{cnt} <= req_{cnt}:")
    o.append("            break")
    o.append("    if err != 0:")
    o.append("        _raise(err)")
    o.append(f"    if c_{cnt} > req_{cnt}:")
    o.append(f"        c_{cnt} = req_{cnt}")
    res = []
    for out in outs:
        if out.startswith("__OUT_"):
            name = out[len("__OUT_"):-2]
            p, kind, es = next(x for x in arrays if x[0].name == name)
            if kind == "s":
                res.append(f"_records_of(_L.cls({w.rn.cls[bare(p.ctype)]!r}), a_{name}.ptr, c_{cnt})")
            else:
                res.append(_numbers_result(w, f"_numbers_of(a_{name}.ptr, c_{cnt}, {_np_format(model, p)!r})"))
        else:
            res.append(out)
    return o + _nv_return(res)
