"""Python types of the generated API, from the model: what each parameter accepts and what each
call returns, as annotation text.

One place decides them for the stubs (`stubs.py`), the docstrings (`pyapi.py`) and the reference
pages; likewise the types of struct fields (`field_types`) and the classes of another module that
a wrapper also takes (`peers`).  The text names the module's own classes bare (`CUstream`), the
aliases of the hand-written stub `cuda/bindings/_base.pyi` (`Address`, `KernelParams`, `Buffer`)
bare, and another module's classes qualified (`driver.CUstream`).  Each type says what the
wrapper accepts (see the conversions in `cuda_bindings/_base.pyx`): where a wrapper is more
lenient than its documented use (an enum parameter takes any int), the type keeps to the
documented use, so that a checker reports the mistake."""
from .common import (F_ARRAY, F_BOOL, F_CHARS, F_CSTR, F_ENUM, F_F, F_HANDLE, F_I, F_INTV, F_KPARAMS, F_PTRARR,
                     F_STRUCT, F_U, F_VOIDP, bare, field_spec, record_field_spec, record_names, records_style,
                     struct_of, type_names)
from .libs import LIBS
from .model import SCALARS


def scalar(ctype):
    """int, float or bool, for a C scalar type name."""
    cy, _, kind = SCALARS[bare(ctype)]
    if cy == "bint":
        return "bool"
    return "float" if kind == "f" else "int"


def _enum_names(model):
    """C enum name (and its aliases) -> the Python class name."""
    out = {}
    for e in model.enums:
        out[e.name] = e.name
        for a in e.aliases:
            out[a] = e.name
    return out


def classes(model):
    """Every class name the module defines."""
    names = set(_enum_names(model))
    names.update(n for n, _ in model.handles + model.funcptrs)
    names.update(x[0] for x in model.inttds)
    for s in model.structs:
        names.add(s.name)
        names.update(a for a, _ in s.aliases)
    return names


def _records(model):
    return records_style(LIBS[model.lib])


def item(model, p):
    """The Python type of one value of p's base type, as a call returns it."""
    b = bare(p.ctype)
    if _records(model):     # the struct-style modules: numbers, ints, and the struct classes
        if p.cls == "scalar" and b in SCALARS:
            return scalar(b)
        if p.cls == "struct":
            return record_names(model).cls.get(b, "int")
        return "int"
    if p.cls == "scalar" and b in SCALARS:
        return scalar(b)
    if p.cls == "enum":
        return _enum_names(model).get(b, "int")
    if p.cls in ("inttd", "handle", "funcptr", "struct") and b in classes(model):
        return b
    return "int"


def const_twins(model, t):
    """The handle classes a parameter of handle class `t` also takes because C converts them to it
    implicitly: for a handle to a const object (cudaArray_const_t), the handles to the same
    object type that are not const (cudaArray_t)."""
    if t not in model.const_handles:
        return []
    target = model.handle_targets.get(t)
    return [h for h, _ in model.handles
            if h != t and h not in model.const_handles and model.handle_targets.get(h) == target]


def _accepts(model, p, peers=None):
    """What a parameter of p's base type accepts as one value (an item of a list, too): its class,
    its non-const twin for a handle to a const object (const_twins), a handle type the function
    also documents (overrides.HANDLE_ALSO, model: extra["also"]), and the same C type's class of
    another module."""
    t = item(model, p)
    if p.cls in ("inttd", "handle", "funcptr") and t != "int":
        types = [t] + const_twins(model, t) + ([p.extra["also"]] if "also" in p.extra else [])
        types += [(peers or {})[x] for x in types if x in (peers or {})]
        return " | ".join(types + ["int", "None"])
    return t


def param_type(model, fn, p, peers=None):
    """Annotation text of an input (or in/out) parameter.  `peers` maps a class of this module to
    the same C type's class in another module that the wrapper also takes (runtime's cudaStream_t
    takes driver.CUstream)."""
    conv = p.conv
    snake = _snake_module(model)
    if _records(model):
        t = _records_param_type(model, fn, p)
        if t:
            return t
    if conv in ("scalar", "inttd", "handle", "value_inout"):
        if snake and p.cls in ("handle", "funcptr"):
            return "int"
        return _accepts(model, p, peers)
    if conv == "enum":
        if snake:   # the snake_case modules' short-named enum (InputType), or a plain int
            short = LIBS[model.lib]["snake"]["enums"].get(bare(p.ctype))
            return f"{short[0]} | int" if short else "int"
        return item(model, p)
    if conv == "handle_ref":
        return "int" if snake else _accepts(model, p, peers)
    if conv == "struct_val":
        return item(model, p)
    if conv == "struct_ptr":
        t = item(model, p)
        return f"{t} | Sequence[{t}] | None" if p.extra.get("count_param") else f"{t} | None"
    if conv in ("voidp", "unknown"):
        return "Buffer | int" if snake else "Address"
    if conv == "cstr":
        return "str | bytes" if snake else "bytes"
    if conv == "buf_w":
        return "Buffer | int" if snake else "Buffer"
    if conv == "array":
        return f"Sequence[{_accepts(model, p, peers)}] | Buffer | int | None"
    if conv == "strlist":
        return "Sequence[bytes | str] | None"
    if conv in ("voidpp", "jitvalues"):
        return "Sequence[Any] | Address"
    if conv == "kparams":
        return "KernelParams"
    if conv == "attr":
        return "Any"
    raise ValueError(f"{fn.name}({p.name}): no Python type for conversion {conv!r}")


def _records_param_type(model, fn, p):
    """A struct-style module's parameter type, where it differs from the other modules'."""
    conv = p.conv
    if conv == "enum":
        py = record_names(model).enum_cls.get(bare(p.ctype))
        return f"{py} | int" if py else "int"
    if conv == "struct_ptr":
        return f"{item(model, p)} | int | None"
    if conv in ("handle", "handle_ref", "inttd", "value_ref", "fixed", "fixed_ref", "count_ref"):
        return "int"
    if conv == "records_io":
        return f"{item(model, p)} | Sequence[int]"
    if conv == "struct_args":
        return "Any"
    if conv == "array":
        return "Sequence[int] | Buffer | int | None"
    return None


def output_type(model, fn, p):
    """Type of one output as a successful call returns it."""
    conv = p.conv
    if _records(model):
        if conv == "strbuf":
            return "str"
        if conv == "records_io":
            return item(model, p)
        if conv == "struct_out" and "unwrap" in p.extra:
            return record_path_types(model, p.ctype, p.extra["unwrap"])[0]
        if conv in ("array_out", "array_ref_out"):
            if p.cls == "handle":
                return "list[int]"
            return item(model, p) if p.cls == "struct" else "Any"
    if conv in ("value_out", "value_inout"):
        if _snake_module(model) and p.cls in ("handle", "funcptr"):
            return "int"
        return item(model, p)
    if conv == "struct_out":
        return item(model, p)
    if conv in ("voidp_out", "voidp_out_val"):
        return "int"
    if conv == "cstr_out":
        return "bytes | None"
    if conv == "strbuf":
        return "bytes"
    if conv in ("array_out", "array_ref_out"):
        return "bytes" if bare(p.ctype) == "char" else f"list[{item(model, p)}]"
    if conv == "attr":
        return "Any"
    if conv == "attr_list":
        return "list[Any]"
    raise ValueError(f"{fn.name}({p.name}): no Python type for output conversion {conv!r}")


def _optional(t):
    return t if t == "Any" or t.endswith("| None") else f"{t} | None"


def outputs(model, fn):
    """Types of the values after the status, as a successful call returns them."""
    if fn.ret != status(model):
        # a C function that returns a value, not a status: a struct, or a string (bytes)
        return [bare(fn.ret) if bare(fn.ret) in classes(model) else "bytes | None"]
    out = []
    for p in fn.params:
        if p.role in ("out", "inout"):
            out.append(output_type(model, fn, p))
        elif p.conv == "struct_args" and p.extra["output"]:
            out.append(struct_arg_types(model, p)[1])
    return out


def struct_arg_types(model, p):
    """For a struct parameter filled from the function's own parameters (overrides.STRUCT_ARGS):
    ({Python parameter: the type it takes}, the type of what the call returns of the struct, or
    None), from the struct's field types as its class reads and writes them."""
    out = p.extra["output"]
    ret = record_names(model).cls[bare(p.ctype)] if out == "*" else (
        record_path_types(model, p.ctype, out)[0] if out else None)
    return {arg: record_path_types(model, p.ctype, path)[1] for arg, path in p.extra["inputs"]}, ret


def record_path_types(model, ctype, path):
    """(read type, write type) of the field `path` (a Python field name; "alloc:..." a number of
    items to make room for; a member's field "value.str": Any) of the struct class of `ctype`."""
    if path.startswith("alloc:"):
        return "int", "int"
    rn = record_names(model)
    st = struct_of(model, ctype)
    f = next((f for f in st.fields if f.name and rn.fields[st.name][f.name] == path), None)
    if f is None:
        return "Any", "Any"
    _, kind, _, clsname, ekind, _, _, flags = record_field_spec(model, st, f, type_names(model), rn)
    if kind == F_ENUM:
        e = rn.enum_cls.get(bare(f.ctype))
        return "int", (f"{e} | int" if e else "int")
    return record_field_type(model, kind, clsname, ekind, flags, rn)


def status(model):
    return LIBS[model.lib]["status"]


def _snake_module(model):
    """The library's module has the snake_case style (nvJitLink, NVVM): handles are plain ints."""
    return bool(LIBS[model.lib].get("snake"))


def records_return(model, fn):
    """What a struct-style module's function returns whose C function returns no status."""
    if fn.ret == "void":
        return "None"
    b = bare(fn.ret)
    return scalar(b) if b in SCALARS and b != "char" else "str"


def return_type(model, fn):
    """The tuple a tuple-style call returns: the status, then each output (None on failure)."""
    if _records(model) and fn.ret != status(model):
        return records_return(model, fn)
    return "tuple[" + ", ".join([status(model)] + [_optional(t) for t in outputs(model, fn)]) + "]"


def checked_return_type(model, fn):
    """What the checked companion (and the snake_case modules) return: None, one value, or a tuple."""
    outs = outputs(model, fn)
    if not outs:
        return "None"
    if len(outs) == 1:
        return outs[0]
    return "tuple[" + ", ".join(outs) + "]"


def peers(model, others):
    """A handle class of this module -> the class of the same C type in another module that its
    wrappers take as well (runtime's cudaStream_t and driver.CUstream: both `struct CUstream_st*`)."""
    out = {}
    for lib, m in others.items():
        if lib == model.lib:
            continue
        by_target = {}
        for h, tgt in m.handle_targets.items():
            if tgt != "void":
                by_target.setdefault(tgt, h)
        for h, tgt in model.handle_targets.items():
            if tgt in by_target:
                out[h] = f"{lib}.{by_target[tgt]}"
    return out


def field_types(model, kind, clsname, ekind):
    """(type read, type accepted) of a struct field."""
    def one(k, cls):
        if k in (F_I, F_U):
            return "int", "int"
        if k == F_F:
            return "float", "float"
        if k == F_BOOL:
            return "bool", "bool"
        if k == F_ENUM:
            return (f"{cls} | None", f"{cls} | int") if cls else ("int", "int")
        if k in (F_HANDLE, F_INTV):
            return (cls, f"{cls} | int | None") if cls else ("int", "Address")
        if k == F_STRUCT:
            return (cls, cls) if cls else ("int", "int")
        return "int", "Address"
    if kind == F_CHARS:
        return "bytes", "bytes | Sequence[int]"
    if kind in (F_ARRAY, F_PTRARR):
        r, w = one(ekind, clsname)
        return f"list[{r}]", f"Sequence[{w}]"
    if kind == F_CSTR:
        return "bytes | None", "bytes | None"
    if kind == F_KPARAMS:
        return "int", "KernelParams"
    if kind == F_VOIDP:
        return "int", "Address"
    return one(kind, clsname)


def make_param_types(model, cls, fields):
    """The types a runtime make_* helper's parameters take: what each struct field it sets takes."""
    s = next(x for x in model.structs if x.name == cls)
    by_name = {f.name: f for f in s.fields}
    known = classes(model)
    types = []
    for f in fields:
        kind, _, clsname, ekind, _, _ = field_spec(model, s, by_name[f], known)
        types.append(field_types(model, kind, clsname, ekind)[1])
    return types


def record_field_type(model, kind, clsname, ekind, flags, rn):
    """(read type, write type) of a struct-style module's field (cuda/bindings/_records.pyx)."""
    if kind == F_STRUCT:
        return clsname, clsname
    if kind == F_ARRAY and ekind == F_STRUCT:
        return clsname, clsname
    if kind == F_CHARS and not flags & 2:
        return "str", "str | bytes"
    if kind in (F_ARRAY, F_CHARS):
        return "NDArray[Any]", "Sequence[int] | NDArray[Any]"
    if kind == F_PTRARR and ekind == F_STRUCT:      # an empty list while the pointer is NULL
        return f"{clsname} | list[{clsname}]", f"{clsname} | None"
    if kind == F_PTRARR:        # numbers behind a pointer (overrides.POINTER_NUMBERS)
        return "NDArray[Any]", "Sequence[int] | NDArray[Any] | None"
    r, w = field_types(model, kind, "", ekind)
    if r not in ("int", "float", "bool"):
        r = "int"
    return r, ("int" if r == "int" else r)
