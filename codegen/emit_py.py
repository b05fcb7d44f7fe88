"""Stage 3, the Python API: per library `<lib>.pyx` (enums, handle, integer and struct classes as
data, and one thin tuple-returning wrapper per function; the snake_case layer from
`emit_snake.py` where the library has that style)."""
import re

from . import docstrings, pytypes
from . import overrides as ov
from .common import (F_ENUM, F_F, F_I, F_U, HEADER, bare, counted_fields, cytype, extra_enums, field_spec,
                     public_function, public_param, py_field, record_field_spec, record_names, records_style,
                     returns_struct, status_error_classes, struct_of, twin_style, type_names)
from .emit_snake import emit_snake_api
from .libs import LIBS, helpers
from .model import SCALARS
from .pyapi import snake_docstring, snake_refs, tuple_docstring


def emit_py(model):
    L = LIBS[model.lib]
    if records_style(L):
        return _emit_records_module(model)
    mod = "cy" + model.lib + "."
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
    if L.get("snake"):
        o.insert(-1, "from cuda.bindings._base cimport _live, _consume")
    if _kept_roles(model):
        o.insert(-1, "from cuda.bindings._base cimport _keep_until_release, _release_kept")
    classes = set()
    # ---- enums: specs only; the IntEnum classes are made on first use (cuda.bindings._base._Lazy,
    # docs/design.md "Lazy classes")
    # One text line per enum (name|aliases|MEMBER=value,...): see _Lazy's docstring.
    o.append("_ENUMS = (")
    for name, aliases, members in [(e.name, e.aliases, e.members) for e in model.enums] + \
            [(n, (), m) for n, m in extra_enums(model)]:
        line = "|".join([_ident(name), ",".join(map(_ident, aliases)),
                         ",".join(f"{_ident(n)}={int(v)}" for n, v in members)])
        o.append(f'    "{line}\\n"')
    if o[-1] == "_ENUMS = (":
        o.append('    ""')
    o.append(")")
    o.append("")
    for e in model.enums:
        classes.add(e.name)
        classes.update(e.aliases)
    # ---- handles, integer typedefs, function pointers
    # Handle and integer types are extension types (cdef classes): the wrappers create them on
    # every call that returns one, and a static type allocates much faster than a heap type.
    for name, parent in model.handles + model.funcptrs:
        o.append(f"cdef class {name}({parent or '_Handle'}):")
        o.append(f'    """{"Function pointer" if (name, parent) in model.funcptrs else "Handle"} type {name} (an opaque C pointer)."""')
        o.append("    pass")
        classes.add(name)
    for name, parent, cy, size, k in model.inttds:
        o.append(f"cdef class {name}({parent or '_IntValue'}):")
        o.append(f'    """C integer type {name} ({cy})."""')
        if not parent:
            o.append(f"    _c_size = {size}")
            o.append(f"    _c_signed = {k == 'i'}")
        else:
            o.append("    pass")
        classes.add(name)
    o.append("")
    # ---- structs
    for s in model.structs:
        classes.add(s.name)
        for a, _ in s.aliases:
            classes.add(a)
    exprs_off, exprs_size, exprs_psize = [], [], []
    layout = []
    for s in model.structs:
        if s.host:
            top, path = s.host.split("|")
            base = f"(({top}*)0)->{path}"
        else:
            top, path, base = s.ctype, "", None
        specs = []
        for f in s.fields:
            if not py_field(model, s, f):
                continue    # padding sized by an expression (CUlaunchAttribute.pad), hidden reserved bytes
            kind, count, clsname, ekind, countname, psize = field_spec(model, s, f, classes)
            fpath = f"{path}.{f.name}" if path else f.name
            if s.host:
                exprs_off.append(f"offsetof({top}, {fpath}) - offsetof({top}, {path})")
            else:
                exprs_off.append(f"offsetof({top}, {fpath})")
            exprs_size.append(f"sizeof((({top}*)0)->{fpath})")
            exprs_psize.append(f"sizeof(*((({top}*)0)->{fpath}))" if psize else "0")
            specs.append((f.name, kind, count, clsname, ekind, countname))
        ssize = f"sizeof({base})" if s.host else f"sizeof({top})"
        layout.append((s, specs, ssize))
    nfields = max(len(exprs_off), 1)
    o.append("cdef extern from *:")
    o.append('    """')
    o.append("    #include <stddef.h>")
    o.append(f"    static const size_t __cb_{model.lib}_off[] = {{{', '.join(exprs_off) or '0'}}};")
    o.append(f"    static const size_t __cb_{model.lib}_fsize[] = {{{', '.join(exprs_size) or '0'}}};")
    o.append(f"    static const size_t __cb_{model.lib}_psize[] = {{{', '.join(exprs_psize) or '0'}}};")
    o.append(f"    static const size_t __cb_{model.lib}_ssize[] = {{{', '.join(x[2] for x in layout) or '0'}}};")
    o.append('    """')
    o.append(f"    const size_t __cb_{model.lib}_off[{nfields}]")
    o.append(f"    const size_t __cb_{model.lib}_fsize[{nfields}]")
    o.append(f"    const size_t __cb_{model.lib}_psize[{nfields}]")
    o.append(f"    const size_t __cb_{model.lib}_ssize[{max(len(layout), 1)}]")
    o.append("")
    # ---- structs: (name, union, first field index, field specs, aliases); classes made on first use
    # One text line per struct (name|union|first field|alias:parent,...|field;...): see _Lazy.
    o.append("_STRUCTS = (")
    first = 0
    for s, specs, ssize in layout:
        aliases = ",".join(f"{_ident(a)}:{_ident(parent)}" for a, parent in s.aliases
                           if a != s.name)  # dim3: typedef struct dim3 dim3
        fields = ";".join(":".join([_ident(n), str(k), str(c), _ident(cl), str(ek), _count_ident(cn)])
                          for n, k, c, cl, ek, cn in specs)
        o.append(f'    "{s.name}|{int(bool(s.union))}|{first}|{aliases}|{fields}\\n"')
        first += len(specs)
    if not layout:
        o.append('    ""')
    o.append(")")
    o.append(f"_STRUCT_DEFAULTS = {struct_defaults(model)!r}   # field values of a new struct other than 0")
    # methods that set list fields sharing one count field together (overrides.COUNTED_TOGETHER)
    methods = {}
    for sname, group in sorted(ov.COUNTED_TOGETHER.items()):
        if sname in classes:
            mname = "set_" + "_".join(group)
            o.append(f"def _{sname}_{mname}(self, {', '.join(group)}):")
            count = next(f.count for st in model.structs if st.name == sname for f in st.fields if f.name == group[0])
            o.append(f'    """Give {" and ".join(group)} their lists, of one length, which goes into {count}: the '
                     f'C side reads that many items of each, so none of them is set alone."""')
            o.append(f"    _L.set_together(self, ({', '.join(f'({g!r}, {g})' for g in group)}))")
            methods.setdefault(sname, {})[mname] = f"_{sname}_{mname}"
    o.append("_STRUCT_METHODS = {" + ", ".join(
        f"{k!r}: {{" + ", ".join(f"{mn!r}: {fn}" for mn, fn in v.items()) + "}" for k, v in methods.items()) + "}")
    o.append(f"cdef _Lazy _L = _new_lazy(globals(), __name__, _ENUMS, _STRUCTS, __cb_{model.lib}_off, "
             f"__cb_{model.lib}_fsize, __cb_{model.lib}_psize, __cb_{model.lib}_ssize)")
    o.append("")
    # ---- constants
    for n, v in model.defines:
        o.append(f"{n} = {v!r}")
    o.append("")
    # ---- sizeof and the status fast path: hand-written, shared by every module
    o.append(f"cdef str _STATUS_NAME = {L['status']!r}")
    o.append('include "_module_common.pxi"')
    o.append("")
    # ---- attribute tables
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
    # ---- functions
    refs = docstrings.Refs(model)
    _check_buffer_extent(model)
    for fn in model.functions:
        if fn.python:
            o.extend(_emit_function(model, fn, mod, L, refs))
    o.extend(_emit_helpers(model))
    o.append("")
    check_lazy_refs(o, model)
    return "\n".join(o) + "\n"


def struct_defaults(model):
    """The field values of a newly made struct other than 0, by struct name: those of
    overrides.STRUCT_DEFAULTS, and those of each struct member's own type, as dotted paths
    (`gridDim.x`), nested to any depth, as C++ constructs a struct's members
    (cudaKernelNodeParams' dim3 members are (1, 1, 1), as in the reference).  Not inside a union:
    C++ constructs no member of a union, named or anonymous, and the reference leaves them zero
    too (cudaGraphNodeParams.kernel.gridDim is (0, 0, 0))."""
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

    return {s.name: of(s) for s in model.structs if of(s)}


def _emit_helpers(model):
    o = []
    if LIBS[model.lib].get("snake"):
        o.extend(emit_snake_api(model))
    if helpers(model.lib):
        refs = docstrings.Refs(model)
        docs = {f.name: f.doc for f in model.functions}
        for name, (cls, params, fields) in sorted(ov.MAKE_FUNCTIONS.items()):
            types = pytypes.make_param_types(model, cls, fields)
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


def _emit_function(model, fn, mod, L, refs):
    o = []
    nv = records_style(L)       # cufile, nvml, nvfatbin, cudla: snake_case functions, written directly
    rn = record_names(model) if nv else None
    two_call, setters = [], []  # (struct-style) arrays sized by asking first; struct fields set from arguments
    pyparams, call_args, outs = [], [], []
    size_check = []
    byname = {q.name: q for q in fn.params}
    # Declarations come first; then the conversions, in four passes (`scalars`, whose C values
    # the others may read, `first`, `pre`, `late`), each line tagged with the parameter it reads,
    # so that a conversion error can name it (_conversions).  A `cdef` line with an initializer,
    # added with a tag, is split into its declaration and an assignment among the conversions.
    cdecls, scalars, first, pre, late = [], [], [], [], []
    after = []      # lines between the conversions and the call, which may fail on their own

    def val(name):
        """The body's value of parameter `name` (C name): the C local of a converted scalar or
        enum, the argument itself otherwise; a name that is no parameter is returned as it is."""
        q = byname.get(name)
        if q is None:
            return name
        return f"c_{q.name}" if q.role == "in" and q.conv in ("scalar", "enum") else q.pyname

    def decl(line, tag=None, into=first):
        m = re.match(r"cdef (.+?) (\w+) = (.*)$", line)
        if tag is None or not m:
            cdecls.append(line)
        else:
            cdecls.append(f"cdef {m[1]} {m[2]}")
            into.append((tag, f"{m[2]} = {m[3]}"))

    for p in fn.params:
        tag = p if p.role in ("in", "inout") else None
        c = "c_" + p.name
        py = p.pyname
        ct = cytype(p.ctype, p.ptr, p.const, mod)
        base_t = cytype(p.ctype, 0, False, mod)
        if p.role == "hidden":
            cdecls.append(f"cdef {cytype(p.ctype, p.ptr - 1, False, mod)} {c} = 0")
            call_args.append(f"&{c}")
            continue
        if p.role == "in":
            conv = p.conv
            if nv and conv in ("fixed", "fixed_ref", "count_ref"):
                t = cytype(p.ctype, 0, False, mod)
                cdecls.append(f"cdef {t} {c} = {p.extra.get('value', 0)}")
                call_args.append(c if conv == "fixed" else f"&{c}")
            elif nv and conv == "value_ref":
                t = cytype(p.ctype, 0, False, mod)
                pyparams.append(py)
                decl(f"cdef {t} {c} = {py}", tag, scalars)
                call_args.append(f"&{c}")
            elif nv and conv == "struct_args":
                st = struct_of(model, p.ctype)
                out = p.extra["output"]
                stack = _stack_fields(model, st, [path for _, path in p.extra["inputs"]], out, rn)
                if stack is not None:
                    # only numbers in and out: a C struct on the stack, as the reference does it
                    _stack_struct(model, p, mod, cdecls)
                    for arg, path in p.extra["inputs"]:
                        pyparams.append(arg)
                        setters.append((arg, f"{stack[path][0]} = {stack[path][1]}{arg}", f"s_{p.name}"))
                    call_args.append(f"&s_{p.name}")
                    if out:
                        outs.append(f"s_{p.name}.{stack[out][0]}")
                    continue
                cdecls.append(f"cdef _Record s_{p.name} = {_one_record(rn, rn.cls[bare(p.ctype)])}")
                ver = _struct_version(model, p.ctype, mod)
                if ver:
                    cdecls.append(f"(<unsigned int*>s_{p.name}._ptr)[0] = {ver}")
                for arg, path in p.extra["inputs"]:
                    pyparams.append(arg)
                    if path.startswith("alloc:"):
                        # an array of `arg` items for a pointer field, and its count field
                        _, fld, n = path.split(":")
                        f = next(x for x in st.fields if rn.fields[st.name][x.name] == fld)
                        setters.append((arg, f"{fld} = _new_record(_L.cls({rn.cls[f.ctype]!r}), {arg})", f"s_{p.name}"))
                        setters.append((arg, f"{n} = {arg}", f"s_{p.name}"))
                    else:
                        setters.append((arg, f"{path} = {arg}", f"s_{p.name}"))
                call_args.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>s_{p.name}._ptr")
                if out == "*":
                    outs.append(f"s_{p.name}")
                elif out:
                    outs.append(f"s_{p.name}.{out}")
            elif nv and "implicit" in p.extra:
                # the length of the struct array it counts (a struct object of the module)
                counted = byname[p.extra["implicit"]]
                arr = counted.pyname
                cdecls.append(f"cdef {SCALARS[bare(p.ctype)][0]} {c} = 0")
                if counted.conv == "records_io":
                    # made into a struct object already (from a sequence of field ids, say)
                    pre.append((counted, f"{c} = len(r_{counted.name})"))
                else:
                    pre.append((counted,
                                f"if not isinstance({arr}, _Record): raise TypeError('{arr} must be a "
                                f"{rn.cls[bare(counted.ctype)]}, whose length is the count')"))
                    pre.append((counted, f"{c} = len(<_Record>{arr})"))
                call_args.append(c)
            elif conv == "scalar":
                pyparams.append(f"{py}={p.extra['default']!r}" if "default" in p.extra else py)
                decl(f"cdef {SCALARS[bare(p.ctype)][0]} {c} = {py}", tag, scalars)
                call_args.append(c)
            elif conv == "enum":
                pyparams.append(py)
                decl(f"cdef long long {c} = {py}", tag, scalars)
                call_args.append(f"<{base_t}>{c}")
            elif conv == "inttd":
                # an integer typedef object (CUdevice, CUdeviceptr) is read directly; anything
                # else goes through Cython's checked conversion to the C type
                sc = [x for x in model.inttds if x[0] == bare(p.ctype)][0]
                pyparams.append(py)
                cdecls.append(f"cdef {sc[2]} {c}")
                pre.extend((tag, x) for x in _read_inttd(py, c, sc[2]))
                call_args.append(f"<{base_t}>{c}")
            elif conv == "handle":
                pyparams.append(py)
                cdecls.append(f"cdef void* {c}")
                pre.append((tag, f"_hptr({py}, &{c})"))
                if bare(p.ctype) in ov.LIBRARY_HANDLES:
                    pre.append((tag, f"_library_handle({c}, {py!r}, {ov.LIBRARY_HANDLES[bare(p.ctype)]!r})"))
                call_args.append(f"<{ct}>{c}")
            elif conv == "handle_ref":
                # a handle object's own value is what the call reads and may update
                pyparams.append(py)
                cdecls.append(f"cdef void* {c}")
                decl(f"cdef void** r_{p.name} = _href({py}, &{c})", tag)
                if bare(p.ctype) in ov.LIBRARY_HANDLES:
                    pre.append((tag, f"_library_handle(r_{p.name}[0], {py!r}, {ov.LIBRARY_HANDLES[bare(p.ctype)]!r})"))
                call_args.append(f"<{ct}>r_{p.name}")
            elif conv == "struct_val":
                pyparams.append(py)
                decl(f"cdef void* p_{p.name} = _sval({py}, sizeof({base_t}))", tag)
                call_args.append(f"(<{base_t}*>p_{p.name})[0]")
            elif conv == "struct_ptr" and nv:
                # a struct object of the module (one, or an array of them), an address, or None
                pyparams.append(py)
                decl(f"cdef void* p_{p.name} = _record_ptr({py}, _L.cls({rn.cls[bare(p.ctype)]!r}), {py!r})", tag)
                call_args.append(f"<{ct}>p_{p.name}")
            elif conv == "struct_ptr":
                pyparams.append(py)
                decl(f"cdef _Buf a_{p.name} = _structs({py}, sizeof(cy{model.lib}.{bare(p.ctype)}))", tag)
                decl(f"cdef void* p_{p.name} = _bufptr(a_{p.name})", tag)
                call_args.append(f"<{ct}>p_{p.name}")
            elif conv in ("voidp", "unknown"):
                pyparams.append(py)
                cdecls.append(f"cdef void* {c}")
                if L.get("snake"):
                    # nvJitLink and NVVM read `size` bytes of their input: no NULL, no handle
                    # object, and a buffer must hold that many bytes
                    size = val(p.extra.get("size")) or "0"
                    pre.append((tag, f"_bptr({py}, &{c}, {size})"))
                elif p.name in ov.BUFFER_EXTENT.get(fn.name, {}):
                    size = re.sub(r"\w+", lambda m: val(m[0]), ov.BUFFER_EXTENT[fn.name][p.name])
                    written = p.name in ov.WRITTEN_BUFFERS
                    pre.append((tag, f"_vsized({py}, &{c}, {size}, {written})"))
                else:
                    pre.append((tag, f"_vptr({py}, &{c})"))
                call_args.append(f"<{ct}>{c}")
            elif conv == "cstr":
                pyparams.append(py)
                if L.get("snake"):   # the reference's nvJitLink and NVVM take str; bytes work too
                    decl(f"cdef bytes b_{p.name} = (<str>{py}).encode() if isinstance({py}, str) else _as_bytes({py}, False)", tag)
                else:
                    decl(f"cdef bytes b_{p.name} = _as_bytes({py}, False)", tag)
                decl(f"cdef const char* {c} = <char*>b_{p.name}", tag)
                call_args.append(f"<{ct}>{c}")
            elif conv == "buf_w":
                pyparams.append(py)
                cdecls.append(f"cdef void* {c}")
                cdecls.append(f"cdef Py_ssize_t n_{p.name}")
                # nvJitLink, NVVM: addresses too; NVRTC's, nvJitLink's and NVVM's getters take
                # bytes too (the reference's `b" " * size`), not the CALLER_BUFFERS
                szf = fn.size_query
                take_bytes = "size" not in p.extra
                pre.append((tag, f"_wbuf({py}, &{c}, &n_{p.name}, {bool(L.get('snake'))}, {take_bytes})"))
                if szf:
                    size_check.append((szf, p.name, py))
                if "size" in p.extra:
                    # at least as many bytes as the size argument says (read once every input is)
                    q = byname[p.extra["size"]]
                    cexpr = f"c_{q.name}" if q.role in ("out", "inout") else val(q.name)
                    late.append((tag, f"if n_{p.name} < <Py_ssize_t>{cexpr}: raise ValueError("
                                      f"f'holds {{n_{p.name}}} bytes, fewer than {q.pyname} = {{{cexpr}}}')"))
                call_args.append(f"<{ct}>{c}")
            elif conv == "array":
                kind, cls, es = _elem(model, p)
                pyparams.append(py)
                decl(f"cdef _Buf a_{p.name} = _array({py}, {kind!r}, {es})", tag)
                decl(f"cdef void* p_{p.name} = _bufptr(a_{p.name})", tag)
                call_args.append(f"<{ct}>p_{p.name}")
            elif conv == "strlist":
                pyparams.append(py)
                decl(f"cdef _Buf a_{p.name} = _strlist({py})", tag)
                decl(f"cdef void* p_{p.name} = _bufptr(a_{p.name})", tag)
                call_args.append(f"<{ct}>p_{p.name}")
            elif conv == "voidpp":
                # None and a non-negative int address need no conversion object
                pyparams.append(py)
                cdecls.append(f"cdef _Buf a_{p.name} = None")
                cdecls.append(f"cdef void* p_{p.name} = NULL")
                pre.append((tag, f"if type({py}) is int and {py} >= 0:"))
                pre.append((tag, f"    p_{p.name} = PyLong_AsVoidPtr({py})"))
                pre.append((tag, f"elif {py} is not None:"))
                pre.append((tag, f"    a_{p.name} = _voidpp({py})"))
                pre.append((tag, f"    p_{p.name} = _bufptr(a_{p.name})"))
                call_args.append(f"<{ct}>p_{p.name}")
            elif conv == "jitvalues":
                pyparams.append(py)
                decl(f"cdef _Buf a_{p.name} = _jitvalues({py})", tag)
                decl(f"cdef void* p_{p.name} = _bufptr(a_{p.name})", tag)
                call_args.append(f"<{ct}>p_{p.name}")
            elif conv == "kparams":
                # None and a non-negative int address need no conversion object
                pyparams.append(py)
                cdecls.append(f"cdef _Buf a_{p.name} = None")
                cdecls.append(f"cdef void* p_{p.name} = NULL")
                pre.append((tag, f"if type({py}) is int and {py} >= 0:"))
                pre.append((tag, f"    p_{p.name} = PyLong_AsVoidPtr({py})"))
                pre.append((tag, f"elif {py} is not None:"))
                pre.append((tag, f"    a_{p.name} = _kparams({py})"))
                pre.append((tag, f"    p_{p.name} = _bufptr(a_{p.name})"))
                call_args.append(f"<{ct}>p_{p.name}")
            elif conv == "attr":
                pyparams.append(py)
                a = p.extra["attr"]
                decl(f"cdef _Buf a_{p.name} = _attr_in({py}, _ATTR_{p.extra['enum']}.get(int({val(a)}), 'u8'), _L)", tag)
                call_args.append(f"<{ct}>a_{p.name}.ptr")
                for q in fn.params:
                    if q.role == "hidden":
                        pre.append((tag, f"c_{q.name} = a_{p.name}.size"))
            else:
                raise ValueError(f"{fn.name}: no input conversion {conv}")
        elif nv and p.conv == "records_io":
            # the module's struct object (filled in place), or a list of its first field's values
            cls = rn.cls[bare(p.ctype)]
            pyparams.append(py)
            decl(f"cdef _Record r_{p.name} = _records_in({py}, _L.cls({cls!r}), {p.extra['field']!r})", tag)
            call_args.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>r_{p.name}._ptr")
            outs.append(f"r_{p.name}")
        elif p.role in ("out", "inout"):
            conv = p.conv
            if conv in ("value_out", "value_inout"):
                t = cytype(p.ctype, p.ptr - 1, False, mod)
                cdecls.append(f"cdef {t} {c} = <{t}>0")   # what a call that writes nothing returns
                if p.role == "inout":
                    pyparams.append(f"{py}={p.extra['default']!r}" if "default" in p.extra else py)
                    if p.cls in ("handle", "funcptr"):
                        cdecls.append(f"cdef void* h_{p.name}")
                        pre.append((tag, f"_hptr({py}, &h_{p.name})"))
                        pre.append((tag, f"{c} = <{base_t}>h_{p.name}"))
                    elif p.cls == "enum":
                        pre.append((tag, f"{c} = <{base_t}><long long>{py}"))
                    elif p.cls == "inttd":
                        pre.extend((tag, x) for x in _read_inttd(py, c, t))
                    else:
                        pre.append((tag, f"{c} = {py}"))
                call_args.append(f"&{c}")
                outs.append(_nv_value(model, p, c) if nv else _to_py(model, p, c, mod))
            elif conv == "struct_out" and nv and "unwrap" in p.extra and \
                    (stack := _stack_fields(model, struct_of(model, p.ctype), [], p.extra["unwrap"], rn)):
                # one number out of the struct: a C struct on the stack, as the reference does it
                _stack_struct(model, p, mod, cdecls)
                call_args.append(f"&s_{p.name}")
                outs.append(f"s_{p.name}.{stack[p.extra['unwrap']][0]}")
            elif conv == "struct_out" and nv:
                cdecls.append(f"cdef _Record s_{p.name} = {_one_record(rn, rn.cls[bare(p.ctype)])}")
                ver = _struct_version(model, p.ctype, mod)
                if ver:
                    cdecls.append(f"(<unsigned int*>s_{p.name}._ptr)[0] = {ver}")
                call_args.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>s_{p.name}._ptr")
                outs.append(f"s_{p.name}.{p.extra['unwrap']}" if "unwrap" in p.extra else f"s_{p.name}")
            elif conv == "struct_out":
                cdecls.append(f"cdef _Struct s_{p.name} = _new_struct(_L.cls({bare(p.ctype)!r}))")
                call_args.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>s_{p.name}._ptr")
                outs.append(f"s_{p.name}")
            elif conv in ("voidp_out",):
                cdecls.append(f"cdef void* {c} = NULL")
                call_args.append(f"<{cytype(p.ctype, p.ptr, p.const, mod)}>&{c}")
                outs.append(f"PyLong_FromVoidPtr({c})")
            elif conv == "voidp_out_val":
                cdecls.append(f"cdef unsigned long long {c} = 0")
                call_args.append(f"<void*>&{c}")
                outs.append(c)
            elif conv == "cstr_out":
                cdecls.append(f"cdef const char* {c} = NULL")
                call_args.append(f"<{cytype(p.ctype, p.ptr, p.const, mod)}>&{c}")
                outs.append(f"(<bytes>{c} if {c} != NULL else None)")
            elif conv == "strbuf" and nv and (not p.extra.get("len") or byname[p.extra["len"]].conv in ("fixed", "fixed_ref")):
                # a string the library writes into a buffer of the documented size
                cdecls.append(f"cdef _Buf a_{p.name} = _Buf_new({p.extra['size']})")
                call_args.append(f"<char*>a_{p.name}.ptr")
                outs.append(f"_text(<char*>a_{p.name}.ptr, {p.extra['size']})")
            elif conv == "strbuf":
                ln = p.extra["len"]
                lpy, lv, tag = ov.RENAME.get(ln, ln), val(ln), byname[ln]
                pre.append((tag, f"if {lv} < 0: raise ValueError(f'{lpy} cannot be negative: {{{lv}}}')"))
                cdecls.append(f"cdef _Buf a_{p.name}")
                pre.append((tag, f"a_{p.name} = _Buf_new({lv})"))
                call_args.append(f"<char*>a_{p.name}.ptr")
                outs.append(f"_text(<char*>a_{p.name}.ptr, {lv})" if nv else
                            f"PyBytes_FromStringAndSize(<char*>a_{p.name}.ptr, {lv})")
            elif conv == "array_out" and nv and "capacity" in p.extra:
                # handles, as many as the library says it wrote, into room for as many as the
                # bound it gives first (overrides.ARRAY_CAPACITY)
                kind, _, es = _elem(model, p)
                assert kind == "h", (fn.name, p.name)
                n = f"c_{p.extra['count']}"
                cdecls.append(f"cdef {cytype(byname[p.extra['count']].ctype, 0, False, mod)} cap_{p.name} = 0")
                cdecls.append(f"cdef _Buf a_{p.name}")
                bound = p.extra["capacity"].format(n=f"&cap_{p.name}")
                after.append(f"err = cy{model.lib}.{bound}")
                after.append("if err != 0:")
                after.append("    _raise(err)")
                after.append(f"a_{p.name} = _Buf_new((<Py_ssize_t>cap_{p.name} + 1) * {es})")
                call_args.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>a_{p.name}.ptr")
                outs.append(f"[PyLong_FromVoidPtr((<void**>a_{p.name}.ptr)[i]) for i in range({n} if {n} < cap_{p.name} else cap_{p.name})]")
            elif conv == "array_out" and nv and p.extra.get("two_call"):
                # sized by asking the library first (_nv_call_and_return calls twice)
                kind, cls, es = _elem(model, p)
                two_call.append((p, kind, es))
                call_args.append(f"__ARRAY_{p.name}__")
                outs.append(f"__OUT_{p.name}__")
            elif conv in ("array_out", "array_ref_out"):
                kind, cls, es = _elem(model, p)
                cnt = p.extra["count"]
                if isinstance(cnt, int):
                    cexpr = str(cnt)
                elif cnt.startswith("call:"):
                    cexpr = f"n_{p.name}"
                    cdecls.append(f"cdef int {cexpr} = 0")
                    pre.append((tag, f"_st_raise(cy{model.lib}.{cnt[5:]}(&{cexpr}))"))
                else:
                    q = [x for x in fn.params if x.name == cnt][0]
                    cexpr = f"c_{cnt}" if q.role in ("out", "inout") else val(cnt)
                    tag = q
                if conv == "array_out":
                    # allocated after every input is converted (the count may be an in/out)
                    if isinstance(cnt, str) and not cnt.startswith("call:") and [x for x in fn.params if x.name == cnt][0].role == "inout":
                        cdecls.append(f"cdef _Buf a_{p.name}")
                        late.append((tag, f"a_{p.name} = _Buf_new((<Py_ssize_t>{cexpr}) * {es}) if {cexpr} else None"))
                        cdecls.append(f"cdef void* p_{p.name}")
                        late.append((tag, f"p_{p.name} = _bufptr(a_{p.name})"))
                        call_args.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>p_{p.name}")
                        # never read more items than the buffer holds, whatever count comes back
                        cdecls.append(f"cdef size_t req_{p.name}")
                        late.append((tag, f"req_{p.name} = {cexpr}"))
                        cexpr = f"({cexpr} if {cexpr} < req_{p.name} else req_{p.name})"
                    elif nv and kind != "s" and bare(p.ctype) != "char":
                        # numbers, as many as a count the caller chooses: a numpy array the
                        # library fills, returned as it is (no copy; pages it does not write
                        # cost nothing, whatever the count)
                        cdecls.append(f"cdef object n_{p.name}")
                        cdecls.append(f"cdef void* p_{p.name}")
                        late.append((tag, f"n_{p.name} = _numbers_new(<Py_ssize_t>({cexpr}), {_np_format(model, p)!r})"))
                        late.append((tag, f"p_{p.name} = _numbers_ptr(n_{p.name})"))
                        call_args.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>p_{p.name}")
                        outs.append(f"n_{p.name}")
                        continue
                    else:
                        cdecls.append(f"cdef _Buf a_{p.name}")
                        late.append((tag, f"a_{p.name} = _Buf_new((<Py_ssize_t>{cexpr}) * {es})"))
                        call_args.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>a_{p.name}.ptr")
                    if bare(p.ctype) == "char":
                        outs.append(f"PyBytes_FromStringAndSize(<char*>_bufptr(a_{p.name}), {cexpr})")
                    elif nv and kind == "s":
                        outs.append(f"_records_of(_L.cls({rn.cls[bare(p.ctype)]!r}), _bufptr(a_{p.name}), {cexpr})")
                    elif nv:
                        outs.append(f"_numbers_of(_bufptr(a_{p.name}), {cexpr}, {_np_format(model, p)!r})")
                    else:
                        outs.append(f"_from_array(_bufptr(a_{p.name}), {cexpr}, {kind!r}, {cls}, {es})")
                else:
                    cdecls.append(f"cdef void* {c} = NULL")
                    call_args.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>&{c}")
                    outs.append(f"_from_array({c}, {cexpr}, {kind!r}, {cls}, {es})")
            elif conv == "attr":
                a = p.extra["attr"]
                size = val(p.extra["size"]) or "0"  # the caller's data size
                tag = byname.get(p.extra["size"], byname[a])
                decl(f"cdef str code_{p.name} = _ATTR_{p.extra['enum']}.get(int({val(a)}), 'u8')", byname[a])
                decl(f"cdef _Buf a_{p.name} = _Buf_new(max(_attr_size(code_{p.name}), <Py_ssize_t>{size}))", tag)
                call_args.append(f"<{ct}>a_{p.name}.ptr")
                outs.append(f"_attr_out(a_{p.name}.ptr, code_{p.name}, _L, {size})")
                for q in fn.params:
                    if q.role == "hidden":
                        pre.append((tag, f"c_{q.name} = a_{p.name}.size"))
            elif conv == "attr_list":
                x = {k: val(v) for k, v in p.extra.items()}
                cdecls.append(f"cdef list v_{p.name} = []")
                decl(f"cdef _Buf a_{p.name} = _attr_bufs({x['attr']}, _ATTR_{x['enum']}, "
                     f"{x['sizes'] or 'None'}, {x['count']}, v_{p.name})", byname[p.extra["attr"]])
                call_args.append(f"<{ct}>a_{p.name}.ptr")
                outs.append(f"_attr_values(v_{p.name}, _L)")
            else:
                raise ValueError(f"{fn.name}: no output conversion {conv}")
    for p in fn.params:
        cp = p.extra.get("count_param") if p.role == "in" else None
        if cp:
            py, cpy = p.pyname, ov.RENAME.get(cp, cp)
            check = f"_check_count({py}, {val(cp)}, {py!r}, {cpy!r})"
            # a struct pointer is a list only when given one (one struct is not counted)
            pre.append((p, f"if isinstance({py}, (list, tuple)): {check}" if p.conv == "struct_ptr" else check))
    sig = ", ".join(pyparams)
    if nv:
        o.append(f"def {public_function(fn, L)}({sig}):")
        o.append('    """' + docstrings.quoted(snake_docstring(model, fn, refs)) + '\n    """')
        o.extend(_nv_handle_checks(model, fn, L))
    else:
        o.append(f"def {'_' if L.get('snake') else ''}{fn.name}({sig}):")
        o.append('    """' + tuple_docstring(model, fn, refs) + '\n    """')
    if nv and fn.ret != L["status"]:
        o.append(f"    cdef {_nv_ret_type(model, fn)} r")
    elif fn.ret != L["status"] and returns_struct(fn, model):
        o.append(f"    cdef cy{model.lib}.{bare(fn.ret)} r")
        o.append(f"    cdef _Struct s_r = _new_struct(_L.cls({bare(fn.ret)!r}))")
    elif fn.ret != L["status"]:
        # a function that returns a string, not a status (nvrtcGetErrorString)
        o.append("    cdef const char* r")
    else:
        o.append(f"    cdef cy{model.lib}.{L['status']} err")
    for d in cdecls:
        o.append("    " + d)
    o.extend(_conversions(model, fn, L, scalars + first + pre + late))
    o.extend("    " + line for line in after)
    gil = fn.name in ov.KEEP_GIL     # a non-blocking lookup: see the table's reasons

    def c_call(stmt):
        """The C call, with the GIL released unless a table says it need not be."""
        if gil:
            return f"    {stmt}"
        if fn.name in ov.KEEP_GIL_UNLESS:
            # the GIL is kept only for the argument values lockprobe found lock-free (see the table)
            arg = val(ov.KEEP_GIL_UNLESS[fn.name][0])
            return (f"    if {_keep_gil_test(model, fn.name, arg)}:\n        {stmt}\n"
                    f"    else:\n        with nogil:\n            {stmt}")
        return f"    with nogil:\n        {stmt}"

    if nv:
        for arg, assignment, rec in setters:
            o.append("    try:")
            o.append(f"        {rec}.{assignment}")
            o.append("    except (TypeError, ValueError, OverflowError) as e:")
            o.append(f"        raise e.__class__(f\"{public_function(fn, L)}() argument '{arg}': {{e}}\") from None")
        o.extend(_nv_call_and_return(model, fn, L, c_call, call_args, outs, size_check, two_call, mod, rn))
        return o
    if fn.ret != L["status"]:
        o.append(c_call(f"r = cy{model.lib}.{fn.name}({', '.join(call_args)})"))
        if returns_struct(fn, model):
            o.append("    memcpy(s_r._ptr, &r, sizeof(r))")
            o.append("    return (_ok(), s_r)")
        else:
            o.append("    return (_ok(), <bytes>r if r != NULL else None)")
        o.append("")
        return o
    for szf, pname, py in size_check:
        o.append(f"    cdef size_t need_{pname} = 0")
        h = fn.params[0]
        o.append(f"    if cy{model.lib}.{szf}(<cy{model.lib}.{bare(h.ctype)}>c_{h.name}, &need_{pname}) == 0 and <size_t>n_{pname} < need_{pname}:")
        o.append(f"        raise ValueError(f'{py} has {{n_{pname}}} bytes; {fn.name} needs {{need_{pname}}}')")
    o.append(c_call(f"err = cy{model.lib}.{fn.name}({', '.join(call_args)})"))
    kept = _kept_roles(model).get(fn.name)
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


def _conversions(model, fn, L, steps):
    """The body lines converting the arguments: `steps` is [(parameter or None, line)] in order.
    The lines tagged with a parameter run in one try block; a TypeError, ValueError or
    OverflowError there is raised again, of the same class, with a message that names the
    function and the parameter being converted (`_arg_error`), as Python's own functions do:
    "cuMemAlloc() argument 'bytesize': an integer is required".  The block costs nothing measurable
    on success: one C int store per parameter.  Untagged lines (a count the library is asked
    for) come first, outside it."""
    o = ["    " + line for tag, line in steps if tag is None]
    tagged = [(tag, line) for tag, line in steps if tag is not None]
    if not tagged:
        return o
    order = [p for p in fn.params if p.role in ("in", "inout")]
    names = tuple(public_param(p, L) for p in order)
    shown = public_function(fn, L)
    if len(order) > 1:
        o.append("    cdef int _p = 0")
    o.append("    try:")
    at = 0
    for tag, line in tagged:
        i = order.index(tag)
        if i != at:
            o.append(f"        _p = {i}")
            at = i
        o.append("        " + line)
    o.append("    except (TypeError, ValueError, OverflowError):")
    o.append(f"        raise _arg_error({shown!r}, {names!r}, {'_p' if len(order) > 1 else 0}) from None")
    return o


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


def _stack_fields(model, st, inputs, output, rn):
    """For a struct a wrapper fills from number arguments and returns one number of (or nothing):
    {Python field name: (C field name, cast for the argument)} of the fields it sets and reads,
    or None where one of them is no plain number (an enum is taken as an input only: as output
    it would be its class's member, which the record's field makes)."""
    by_py = {rn.fields[st.name][f.name]: f for f in st.fields if f.name}
    classes = type_names(model)
    out = {}
    for path, is_out in [(x, False) for x in inputs] + ([(output, True)] if output and output != "*" else []):
        f = by_py.get(path)
        if f is None or st.union:
            return None
        kind = field_spec(model, st, f, classes)[0]
        if kind in (F_I, F_U, F_F):
            out[path] = (f.name, "")
        elif kind == F_ENUM and not is_out:
            out[path] = (f.name, f"<{cytype(f.ctype, 0, False, 'cy' + model.lib + '.')}><int>")
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


def _nv_handle_checks(model, fn, L):
    """Lines refusing a handle argument the library would crash on: None, a value in the first page,
    one that a destroy call consumed (docs/design.md, "nvJitLink's and NVVM's style")."""
    handles = {n for n, _ in model.handles}
    what = L["snake"]["what"]
    o = []
    for p in fn.params:
        if p.role in ("in", "inout") and bare(p.ctype) in handles and p.conv in ("handle", "handle_ref"):
            o.append(f"    _live({p.pyname}, _CONSUMED, {p.pyname!r}, {what!r})")
    return o


def _nv_call_and_return(model, fn, L, c_call, call_args, outs, size_check, two_call=(), mod="", rn=None):
    """The C call of a struct-style function, the raise on a failed status, what it returns."""
    o = []
    if two_call:
        return _nv_two_call(model, fn, L, c_call, call_args, outs, two_call, mod, rn)
    handles = {n for n, _ in model.handles}
    for szf, pname, py in size_check:
        h = fn.params[0]
        o.append(f"    cdef size_t need_{pname} = 0")
        o.append(f"    if cy{model.lib}.{szf}(<cy{model.lib}.{bare(h.ctype)}>c_{h.name}, &need_{pname}) == 0 "
                 f"and <size_t>n_{pname} < need_{pname}:")
        o.append(f"        raise ValueError(f'{py}: the buffer has {{n_{pname}}} bytes; {public_function(fn, L)} "
                 f"writes {{need_{pname}}}')")
    call = f"cy{model.lib}.{fn.name}({', '.join(call_args)})"
    consumed = [p.pyname for p in fn.params if p.conv == "handle_ref"
                or (fn.name, p.name) in ov.CONSUMES]
    if fn.ret != L["status"]:
        if fn.ret == "void":
            o.append(c_call(call))
        else:
            o.append(c_call(f"r = {call}"))
        o.extend(f"    _consume({n}, _CONSUMED)" for n in consumed)
        if fn.ret == "void":
            o.append("    return None")
        elif bare(fn.ret) in SCALARS and bare(fn.ret) != "char":
            o.append("    return r")
        else:
            o.append("    return _text0(r)")
        o.append("")
        return o
    o.append(c_call(f"err = {call}"))
    if fn.name in ov.STATUS_RESULT:
        o.append("    return <int>err")
        o.append("")
        return o
    status_struct = returns_struct(fn, model)
    o.append(f"    if {'err.err != 0' if status_struct else 'err != 0'}:")
    o.append(f"        _raise({'err.err, err.cu_err' if status_struct else 'err'})")
    o.extend(f"    _consume({n}, _CONSUMED)" for n in consumed)
    outs = list(outs)
    for i, p in enumerate([q for q in fn.params if q.role in ("out", "inout")]):
        if bare(p.ctype) in handles and i < len(outs) and p.conv not in ("array_out", "array_ref_out"):
            # a new handle is no longer a destroyed one (the library may reuse the address); the
            # int is made once, for the look-up and the return
            o.append(f"    h_out{i} = {outs[i]}")
            o.append(f"    if _CONSUMED: _CONSUMED.discard(h_out{i})")
            outs[i] = f"h_out{i}"
    if not outs:
        o.append("    return None")
    elif len(outs) == 1:
        o.append(f"    return {outs[0]}")
    else:
        o.append(f"    return ({', '.join(outs)})")
    o.append("")
    return o


def _emit_records_module(model):
    """<lib>.pyx of a struct-style library (cuFile, NVML, nvFatbin, cuDLA; docs/library-modules.md):
    the enums by the reference's short names, the struct classes (cuda.bindings._records), the
    exception class(es), and one snake_case function per entry point that returns its outputs and
    raises on a failed status."""
    L = LIBS[model.lib]
    cfg = L["snake"]
    rn = record_names(model)
    mod = "cy" + model.lib + "."
    o = [HEADER.format(ver=model.cuda),
         "# cython: language_level=3, boundscheck=False, wraparound=False, binding=True",
         f'"""{L["title"]}: Python bindings generated from the CUDA {model.cuda} headers, in the style of '
         f'NVIDIA\'s cuda.bindings.{model.lib}."""',
         f"from cuda.bindings cimport cy{model.lib}",
         "from cuda.bindings._base cimport (_Buf, _hptr, _href, _vptr, _wbuf, _as_bytes, _array, _strlist, _bufptr,",
         "    _Buf_new, _check_count, _bptr, _arg_error, _vsized, _library_handle, _Lazy, _new_lazy, _live, _consume,",
         "    _Handle, _IntValue, _iv, _Struct, _enum)",
         "from cuda.bindings._records cimport (_Record, _new_record, _new_record_at, _record_ptr, _text, _text0, _records_of,",
         "    _numbers_of, _numbers_new, _numbers_ptr, _records_in)",
         "from cpython.long cimport PyLong_FromVoidPtr, PyLong_AsVoidPtr",
         "from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, intptr_t, uintptr_t",
         "from libc.string cimport memcpy, memset",
         "from posix.types cimport off_t",
         "from cuda.bindings import _records",
         ""]
    # ---- enums: by their short names; made on first use
    o.append("_ENUMS = (")
    for cname, py, members in rn.enums:
        o.append(f'    "{py}||' + ",".join(f"{_ident(n)}={int(v)}" for n, v in members) + '\\n"')
    for py, members in ov.DEFINE_ENUMS_OF(model):
        o.append(f'    "{py}||' + ",".join(f"{_ident(n)}={int(v)}" for n, v in members) + '\\n"')
    if o[-1] == "_ENUMS = (":
        o.append('    ""')
    o.append(")")
    o.append("")
    classes = type_names(model)
    # ---- struct layout, from the compiler
    exprs_off, exprs_size, exprs_psize, layout = [], [], [], []
    for st in rn.layout:
        if st.host:
            top, path = st.host.split("|")
            base = f"(({top}*)0)->{path}"
        else:
            top, path, base = st.ctype, "", None
        specs = []
        for f in st.fields:
            if None in f.dims or f.name is None:
                continue
            fname, kind, count, clsname, ekind, countname, psize, flags = record_field_spec(model, st, f, classes, rn)
            fpath = f"{path}.{f.name}" if path else f.name
            exprs_off.append(f"offsetof({top}, {fpath}) - offsetof({top}, {path})" if st.host
                             else f"offsetof({top}, {fpath})")
            exprs_size.append(f"sizeof((({top}*)0)->{fpath})")
            exprs_psize.append(f"sizeof(*((({top}*)0)->{fpath}))" if psize else "0")
            hidden = f.name in counted_fields(st) or (st.name, f.name) in ov.HIDDEN_FIELDS
            specs.append((fname, kind, count, clsname, ekind, countname, flags | (1 if hidden else 0)))
        layout.append((st, specs, f"sizeof({base})" if st.host else f"sizeof({top})"))
    nfields = max(len(exprs_off), 1)
    o.append("cdef extern from *:")
    o.append('    """')
    o.append("    #include <stddef.h>")
    o.append(f"    static const size_t __cb_{model.lib}_off[] = {{{', '.join(exprs_off) or '0'}}};")
    o.append(f"    static const size_t __cb_{model.lib}_fsize[] = {{{', '.join(exprs_size) or '0'}}};")
    o.append(f"    static const size_t __cb_{model.lib}_psize[] = {{{', '.join(exprs_psize) or '0'}}};")
    o.append(f"    static const size_t __cb_{model.lib}_ssize[] = {{{', '.join(x[2] for x in layout) or '0'}}};")
    o.append('    """')
    o.append(f"    const size_t __cb_{model.lib}_off[{nfields}]")
    o.append(f"    const size_t __cb_{model.lib}_fsize[{nfields}]")
    o.append(f"    const size_t __cb_{model.lib}_psize[{nfields}]")
    o.append(f"    const size_t __cb_{model.lib}_ssize[{max(len(layout), 1)}]")
    o.append("")
    # one line per struct: name|union|first field|(no aliases)|name:kind:count:class:item kind:count field:flags;...
    o.append("_STRUCTS = (")
    first = 0
    for st, specs, _ in layout:
        fields = ";".join(":".join([n, str(k), str(c), cl, str(ek), cn, str(fl)]) for n, k, c, cl, ek, cn, fl in specs)
        o.append(f'    "{rn.cls[st.name]}|{int(bool(st.union))}|{first}||{fields}\\n"')
        first += len(specs)
    if not layout:
        o.append('    ""')
    o.append(")")
    dtypes = ",".join(f"{d}:{c}" for d, c in rn.dtypes.items() if c in {rn.cls[st.name] for st, _, _ in layout})
    o.append(f'_DTYPES = "{dtypes}"')
    o.append(f"cdef _Lazy _L = _new_lazy(globals(), __name__, _ENUMS, _STRUCTS, __cb_{model.lib}_off, "
             f"__cb_{model.lib}_fsize, __cb_{model.lib}_psize, __cb_{model.lib}_ssize)")
    o.append(f"_L.records = _records._Space(_DTYPES, {cfg.get('imports', {})!r})")
    if model.lib in twin_style(model).get("int_enum_libs", ()):
        o.append("_L.int_enums = True      # enum.IntEnum here, as NVIDIA's package of this release has them")
    o.append("")
    for n, v in ov.PUBLIC_CONSTANTS.get(model.lib, {}).items():
        o.append(f"{v} = {dict(model.defines)[n]!r}")
    o.append("")
    status_py = rn.enum_cls.get(L["status"]) or rn.enum_cls.get(cfg.get("status_enum", ""))
    o.append(f"cdef str _STATUS_NAME = {status_py!r}")
    o.append('include "_module_common.pxi"')
    o.append("")
    o.extend(_records_errors(model, status_py))
    o.append("cdef set _CONSUMED = set()   # int values of the handles a destroy call consumed")
    o.append("")
    refs = snake_refs(model)
    _check_buffer_extent(model)
    for fn in model.functions:
        if fn.python:
            o.extend(_emit_function(model, fn, mod, L, refs))
    o.append("")
    return "\n".join(o) + "\n"


def _records_errors(model, status_py):
    """The exception class(es) of a struct-style module and `_raise`, which raises the one of a
    status (LIBS[lib]["snake"]: `error`, and for NVML `per_status`: one subclass per status)."""
    L = LIBS[model.lib]
    cfg = L["snake"]
    err = cfg["error"]
    o = [f"class {err}(Exception):",
         f'    """A failed {cfg["title"]} call: `status` is the {status_py} value."""',
         ""]
    if cfg.get("message") == "cufile":
        o = ["def _status_text(long long status):",
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
             ""] + o
        o += ["    def __init__(self, status, cuda_error=None):",
              "        self.status = int(status)",
              "        self.cuda_error = None if cuda_error is None else int(cuda_error)",
              "        msg = f'{_status_name(self.status)} ({self.status}): {_status_text(self.status)}'",
              "        if self.cuda_error:",
              "            msg += f'; CUDA status: {_cuda_status_name(self.cuda_error)} ({self.cuda_error})'",
              "        super().__init__(msg)",
              "",
              "    def __reduce__(self):",
              "        return (type(self), (self.status, self.cuda_error))",
              "",
              "",
              "cdef object _raise(int status, long long cuda_error) except *:",
              f"    raise {err}(status, cuda_error if cuda_error != 0 else None)",
              ""]
    elif cfg.get("message") == "library":
        # the library's text for the status (nvmlErrorString, which needs no initialisation);
        # one subclass per status, named after it: ERROR_NOT_SUPPORTED -> NotSupportedError
        o += ["    def __init__(self, status):",
              "        self.status = int(status)",
              "        super().__init__(_status_text(self.status))",
              "",
              "    def __reduce__(self):",
              "        return (type(self), (self.status,))",
              "",
              ""]
        by_value = {}
        for cls, name, value in status_error_classes(model):
            by_value[value] = cls
            o += [f"class {cls}({err}):", f'    """{L["title"]} status {name} ({value})."""', "",
                  "    def __init__(self, status=None):",
                  f"        super().__init__({value} if status is None else status)", "", ""]
        for alias, cls in ov.ERROR_CLASS_ALIASES.items():
            o.append(f"{alias} = {cls}")
        o += ["", f"cdef dict _ERRORS = {{{', '.join(f'{v}: {c}' for v, c in sorted(by_value.items()))}}}", "", "",
              f"def _status_text(long long status):",
              '    """The library\'s text for a status (its number where the library cannot say)."""',
              "    try:",
              "        if not -2**31 <= status < 2**31:",
              "            raise ValueError(status)",
              f"        return _text0(cy{model.lib}.{L['prefix']}ErrorString(<cy{model.lib}.{L['status']}>status))",
              "    except Exception:",
              "        return f'{_status_name(status)} ({status})'",
              "", "",
              "cdef object _raise(long long status) except *:",
              f"    raise _ERRORS.get(status, {err})(status)",
              ""]
        if cfg.get("check_status_size", True):
            o += ["", "def check_status_size(status):",
                  f'    """check_status, but {cfg["insufficient"][len(L["prefix"]) + 1:]} (the size query of a two-call function) is no failure."""',
                  "    cdef long long s = _status_arg(status)",
                  f"    if s != 0 and s != cy{model.lib}.{cfg['insufficient']}:",
                  "        _raise(s)",
                  "    return 0", ""]
    else:
        o += ["    def __init__(self, status):",
              "        self.status = int(status)",
              "        super().__init__(f'{_status_name(self.status)} ({self.status})')",
              "",
              "    def __reduce__(self):",
              "        return (type(self), (self.status,))",
              "",
              "",
              "cdef object _raise(long long status) except *:",
              f"    raise {err}(status)",
              ""]
    if "check_status" in cfg:
        o += ["",
              "def check_status(status):",
              f'    """Raise the exception of a {status_py} value; return {cfg["check_status"]!r} when it is success."""',
              "    cdef long long s = _status_arg(status)",
              "    if s != 0:",
              "        _raise(s)",
              f"    return {cfg['check_status']!r}",
              ""]
    o += ["",
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
    return o


def _nv_two_call(model, fn, L, c_call, call_args, outs, arrays, mod, rn):
    """A struct-style function whose output arrays' size the library tells: called with a count of
    0 and no arrays first, then with arrays of that size (again while the library says they are too
    small: the count may grow between the calls).  The arrays come back as the module's struct
    class (structs) or numpy arrays (numbers), as many items as the library filled."""
    cnt = arrays[0][0].extra["count"]
    insufficient = L["snake"]["insufficient"]
    first = [a if not a.startswith("__ARRAY_") else "NULL" for a in call_args]
    second = []
    for a in call_args:
        if a.startswith("__ARRAY_"):
            name = a[len("__ARRAY_"):-2]
            p = next(q for q in fn.params if q.name == name)
            second.append(f"<{cytype(p.ctype, p.ptr, False, mod)}>a_{name}.ptr")
        else:
            second.append(a)
    o = [f"    cdef unsigned int req_{cnt} = 0"]
    for p, kind, es in arrays:
        o.append(f"    cdef _Buf a_{p.name} = None")
    o.append(c_call(f"err = cy{model.lib}.{fn.name}({', '.join(first)})"))
    o.append(f"    if err != 0 and err != cy{model.lib}.{insufficient}:")
    o.append("        _raise(err)")
    o.append("    for _ in range(8):")
    o.append(f"        req_{cnt} = c_{cnt}")
    for p, kind, es in arrays:
        o.append(f"        a_{p.name} = _Buf_new(<Py_ssize_t>req_{cnt} * {es})")
    inner = c_call(f"err = cy{model.lib}.{fn.name}({', '.join(second)})").replace("\n", "\n    ")
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
                res.append(f"_records_of(_L.cls({rn.cls[bare(p.ctype)]!r}), a_{name}.ptr, c_{cnt})")
            else:
                res.append(f"_numbers_of(a_{name}.ptr, c_{cnt}, {_np_format(model, p)!r})")
        else:
            res.append(out)
    if len(res) == 1:
        o.append(f"    return {res[0]}")
    else:
        o.append(f"    return ({', '.join(res)})")
    o.append("")
    return o
