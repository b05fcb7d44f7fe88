"""Stage 3b: type stubs and the checked companion modules, from the model.

For every Python module `<lib>.pyx` the generator writes `<lib>.pyi`: enums as IntEnum classes
with their members, handle and integer classes, struct classes with typed fields, constants, and
every function with its parameters' and results' types (`pytypes.py`).  For the tuple-style
modules (driver, runtime, nvrtc) it also writes `checked/<lib>.py`, the functions that return
only their outputs and raise on a failed status (cuda_bindings/checked/__init__.py), and its stub.
"""
import keyword
import re

from . import docstrings
from . import overrides as ov
from . import pytypes
from .emit import (HEADER, F_ARRAY, F_BOOL, F_CHARS, F_CSTR, F_ENUM, F_F, F_HANDLE, F_I, F_INTV,
                   F_KPARAMS, F_PTRARR, F_STRUCT, F_U, F_VOIDP, _docstring, _extra_enums, _field_spec,
                   _snake_docstring, public_function, public_param, snake_refs)
from .libs import LIBS


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


def summaries(model):
    """Function name -> the summary line of its docstring (as quoted in the .pyx).  An editor
    shows a stub's docstring, and cannot read the compiled module's: the stubs carry this one
    line, and help() the whole text."""
    snake = LIBS[model.lib].get("snake")
    refs = snake_refs(model) if snake else docstrings.Refs(model)
    out = {}
    for fn in model.functions:
        if fn.python:
            text = docstrings.quoted(_snake_docstring(model, fn, refs)) if snake else _docstring(model, fn, refs)
            first = re.split(r"\n\s*\n", text, maxsplit=1)[0]    # the summary paragraph
            out[fn.name] = " ".join(ln.strip() for ln in first.splitlines())
    return out


def _def(signature, summary):
    """A stub function: its signature, and its summary line as its docstring."""
    if not summary:
        return [f"def {signature}: ..."]
    return [f"def {signature}:", f'    """{summary}"""']


def _value_type(v):
    return type(v).__name__ if isinstance(v, (int, float, str, bytes)) else "Any"


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


def _enum_class(o, name, members):
    o.append(f"class {name}(IntEnum):")
    for n, v in members:
        o.append(f"    {n} = {int(v)}")
    if not members:
        o.append("    ...")
    o.append("")


def _classes(model, o):
    """Enum, handle, integer and struct classes, with their aliases."""
    for e in model.enums:
        _enum_class(o, e.name, e.members)
        for a in e.aliases:
            if a != e.name:
                o.append(f"{a} = {e.name}")
    for n, members in _extra_enums(model):
        _enum_class(o, n, members)
    o.append("")
    for name, parent in model.handles + model.funcptrs:
        o.append(f"class {name}({parent or '_Handle'}): ...")
    for name, parent, _, _, _ in model.inttds:
        o.append(f"class {name}({parent or '_IntValue'}): ...")
    o.append("")
    classes = pytypes._classes(model)
    for s in model.structs:
        o.append(f"class {s.name}(_Struct):")
        body = []
        for f in s.fields:
            if None in f.dims or keyword.iskeyword(f.name):
                continue
            kind, _, clsname, ekind, _, _ = _field_spec(model, s, f, classes)
            r, w = field_types(model, kind, clsname, ekind)
            if r == w:
                body.append(f"    {f.name}: {r}")
            else:
                body += ["    @property", f"    def {f.name}(self) -> {r}: ...",
                         f"    @{f.name}.setter", f"    def {f.name}(self, value: {w}) -> None: ..."]
        o.extend(body or ["    ..."])
        o.append("")
        # an alias is a subclass of the same layout at run time; to a checker, the same class:
        # every wrapper takes any struct of the right size
        for a, _ in s.aliases:
            if a != s.name:
                o.append(f"{a} = {s.name}")
        if s.aliases:
            o.append("")


def _head(model, doc, extra_imports=()):
    o = [HEADER.format(ver=model.cuda).rstrip("\n"), f'"""{doc}"""',
         "from collections.abc import Sequence",
         "from enum import IntEnum",
         "from typing import Any", "",
         "from cuda.bindings._base import Address, Buffer, KernelParams, _Handle, _IntValue, _Struct"]
    o.extend(extra_imports)
    return o + [""]


def signature_params(model, fn, prm):
    """The parameter list of fn's Python signature, typed (`prm`: peers)."""
    out = []
    for p in fn.params:
        if p.role not in ("in", "inout"):
            continue
        t = pytypes.param_type(model, fn, p, prm)
        name = public_param(p, LIBS[model.lib])
        default = f" = {p.extra['default']!r}" if p.role == "inout" and "default" in p.extra else ""
        out.append(f"{name}: {t}{default}")
    return ", ".join(out)


def make_param_types(model, cls, fields):
    """The types a runtime make_* helper's parameters take: what each struct field it sets takes."""
    s = next(x for x in model.structs if x.name == cls)
    by_name = {f.name: f for f in s.fields}
    classes = pytypes._classes(model)
    types = []
    for f in fields:
        kind, _, clsname, ekind, _, _ = _field_spec(model, s, by_name[f], classes)
        types.append(field_types(model, kind, clsname, ekind)[1])
    return types


def signature(model, fn, prm, checked=False):
    """(Python name, typed signature text) of a generated function: a snake_case module's public
    function, a tuple-style function, or (`checked`) its form in cuda.bindings.checked."""
    L = LIBS[model.lib]
    if L.get("snake"):
        name = public_function(fn, L)
        ret = pytypes.checked_return_type(model, fn) if fn.ret == L["status"] else "str | None"
        return name, f"{name}({signature_params(model, fn, prm)}) -> {ret}"
    ret = pytypes.checked_return_type(model, fn) if checked else pytypes.return_type(model, fn)
    return fn.name, f"{fn.name}({signature_params(model, fn, prm)}) -> {ret}"


def helper_signatures(model):
    """Signatures of the module's functions that no C function makes (the runtime's make_*
    helpers and getLocalRuntimeVersion)."""
    if model.lib != "runtime":
        return []
    out = []
    for name, (cls, params, fields) in sorted(ov.MAKE_FUNCTIONS.items()):
        types = make_param_types(model, cls, fields)
        out.append(f"{name}({', '.join(f'{a}: {t}' for a, t in zip(params, types))}) -> {cls}")
    out.append("getLocalRuntimeVersion() -> tuple[cudaError_t, int | None]")
    return out


def emit_pyi(model, others):
    """The stub of `<lib>.pyx`."""
    L = LIBS[model.lib]
    prm = peers(model, others)
    imports = sorted({v.split(".")[0] for v in prm.values()})
    o = _head(model, f"Types of cuda.bindings.{model.lib} (generated from the CUDA {model.cuda} headers).",
              [f"from cuda.bindings import {m}" for m in imports])
    _classes(model, o)
    for n, v in model.defines:
        o.append(f"{n}: {_value_type(v)}")
    o.append("")
    o.append("def sizeof(objType: type) -> int: ...")
    snake = L.get("snake")
    if snake:
        o += ["", f"class {snake['error']}(Exception):",
              f"    status: {snake['enums'][L['status']][0]} | int",
              "    def __init__(self, status: int, log: str | None = None) -> None: ...", ""]
    summary = summaries(model)
    for fn in model.functions:
        if fn.python:
            o += _def(signature(model, fn, prm)[1], summary[fn.name])
    o += [f"def {sig}: ..." for sig in helper_signatures(model)]
    return "\n".join(o) + "\n"


def checked_names(model):
    """The functions of a tuple-style module that have a checked form: those returning a status."""
    names = [fn.name for fn in model.functions if fn.python]
    if model.lib == "runtime":
        names.append("getLocalRuntimeVersion")
    return names


def emit_checked_py(model):
    """checked/<lib>.py: the module, made of the tuple-style module's functions wrapped on first use."""
    names = checked_names(model)
    lines = []
    line = ""
    for n in names:
        if len(line) + len(n) + 1 > 96:
            lines.append(line)
            line = ""
        line += n + " "
    lines.append(line)
    err = LIBS[model.lib]['checked']
    logs = {f: v for f, v in sorted(ov.ERROR_LOG.items()) if f.startswith(LIBS[model.lib]["prefix"])}
    return "\n".join([
        HEADER.format(ver=model.cuda).rstrip("\n"),
        f'"""cuda.bindings.{model.lib} with exceptions: each function takes the arguments of its tuple-style',
        "form and returns only the outputs (one bare, several as a tuple, none as None); a failed status",
        f'raises {err}.  Every other name (enums, types, constants) is the tuple-style module\'s own."""',
        f"from cuda.bindings import {model.lib} as _tuple_module",
        f"from cuda.bindings.checked import {err}, _checked_module",
        "",
        "__getattr__, __dir__ = _checked_module(globals(), _tuple_module, " + err + ', """',
        *[ln.rstrip() for ln in lines],
        '"""' + (f", logs={logs!r})" if logs else ")"),
        ""])


def emit_checked_pyi(model, others):
    """The stub of checked/<lib>.py: the tuple-style module's classes and constants, re-exported,
    and the functions with their checked return types."""
    prm = peers(model, others)
    names = sorted(pytypes._classes(model) | {n for n, _ in model.defines}
                   | {n for n, _ in _extra_enums(model)} | {"sizeof"})
    if model.lib == "runtime":
        names += sorted(ov.MAKE_FUNCTIONS)
    imports = sorted({v.split(".")[0] for v in prm.values()})
    o = [HEADER.format(ver=model.cuda).rstrip("\n"),
         f'"""Types of cuda.bindings.checked.{model.lib} (generated from the CUDA {model.cuda} headers)."""',
         "from collections.abc import Sequence",
         "from typing import Any", "",
         "from cuda.bindings._base import Address, Buffer, KernelParams"]
    o += [f"from cuda.bindings import {m}" for m in imports]
    o.append(f"from cuda.bindings.checked import {LIBS[model.lib]['checked']} as {LIBS[model.lib]['checked']}")
    o.append(f"from cuda.bindings.{model.lib} import (")
    o += [f"    {n} as {n}," for n in names]
    o += [")", ""]
    summary = summaries(model)
    for fn in model.functions:
        if fn.python:
            o += _def(signature(model, fn, prm, checked=True)[1], summary[fn.name])
    if model.lib == "runtime":
        o.append("def getLocalRuntimeVersion() -> int: ...")
    return "\n".join(o) + "\n"
