"""Stage 4b: type stubs and the checked companion modules, from the model.

For every Python module `<lib>.pyx` the generator writes `<lib>.pyi`: enums as IntEnum classes
with their members, handle and integer classes, struct classes with typed fields, constants, and
every function with its parameters' and results' types (`pytypes.py`, resolved by `resolve.py`)
and its summary line (`pyapi.py`).  For the tuple-style modules with a checked class in libs.LIBS (driver, runtime,
nvrtc) it also writes `checked/<lib>.py`, the functions that return only their outputs and raise
on a failed status (cuda_bindings/checked/__init__.py), and its stub.
"""
import keyword
import re

from . import overrides as ov
from .common import HEADER, extra_enums, records_style, twin_value
from .libs import helpers, module, of
from .pyapi import docstring, helper_signatures, module_refs, signature


def summaries(model):
    """Function name -> the summary line of its docstring (as quoted in the .pyx).  An editor
    shows a stub's docstring, and cannot read the compiled module's: the stubs carry this one
    line, and help() the whole text."""
    refs = module_refs(model)
    out = {}
    for fn in model.functions:
        if fn.python:
            text = docstring(model, fn, refs)
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
        _enum_class(o, e.name, [(n, twin_value(model, "enums", int(v))) for n, v in e.members])
        for a in e.aliases:
            if a != e.name:
                o.append(f"{a} = {e.name}")
    for n, members in extra_enums(model):
        _enum_class(o, n, members)
    o.append("")
    for name, parent in model.handles + model.funcptrs:
        o.append(f"class {name}({parent or model.resolved.bases.get(name, '_Handle')}): ...")
    for name, parent, _, _, _ in model.inttds:
        o.append(f"class {name}({parent or '_IntValue'}): ...")
    o.append("")
    for s in model.structs:
        o.append(f"class {s.name}(_Struct):")
        fields = model.resolved.fields[s.name]
        body = _fields([ft for ft in fields if not keyword.iskeyword(ft.name)])
        group = ov.COUNTED_TOGETHER.get(s.name, ())
        if group:
            write = {ft.name: ft.write for ft in fields}
            types = [f"{name}: {write[name]}" for name in group]
            body.append(f"    def set_{'_'.join(group)}(self, {', '.join(types)}) -> None: ...")
        o.extend(body or ["    ..."])
        o.append("")
        # an alias is a subclass of the same layout at run time; to a checker, the same class:
        # every wrapper takes any struct of the right size
        for a, _ in s.aliases:
            if a != s.name:
                o.append(f"{a} = {s.name}")
        if s.aliases:
            o.append("")


def _fields(fields):
    """A struct class's body: each field typed, a property where it reads as another type than it
    takes (pytypes.FieldTypes)."""
    body = []
    for ft in fields:
        if ft.read == ft.write:
            body.append(f"    {ft.name}: {ft.read}")
        else:
            body += ["    @property", f"    def {ft.name}(self) -> {ft.read}: ...",
                     f"    @{ft.name}.setter", f"    def {ft.name}(self, value: {ft.write}) -> None: ..."]
    return body


def _head(model, doc, extra_imports=()):
    o = [HEADER.format(ver=model.cuda).rstrip("\n"), f'"""{doc}"""',
         "from collections.abc import Sequence",
         "from enum import IntEnum",
         "from typing import Any", "",
         "from cuda.bindings._base import Address, Buffer, KernelParams, _Handle, _IntValue, _Struct"]
    o.extend(extra_imports)
    return o + [""]


def emit_pyi(model):
    """The stub of `<lib>.pyx`."""
    L = of(model)
    if records_style(L):
        return emit_records_pyi(model)
    imports = sorted({v.split(".")[0] for v in model.resolved.peers.values()})
    o = _head(model, f"Types of cuda.bindings.{model.lib} (generated from the CUDA {model.cuda} headers).",
              [f"from cuda.bindings import {m}" for m in imports])
    _classes(model, o)
    for n, v in model.defines:
        o.append(f"{n}: {_value_type(v)}")
    o.append("")
    o.append("def sizeof(objType: type) -> int: ...")
    snake = L.get("snake")
    if snake:
        logs = any(f.startswith(L["prefix"]) for f in ov.ERROR_LOG)
        o += ["", f"class {snake['error']}(Exception):",
              f"    status: {snake['enums'][L['status']][0]} | int",
              *([f"    {ov.ERROR_LOG_ATTR}: str | None"] if logs else []),
              "    def __init__(self, status: int) -> None: ...", ""]
    summary = summaries(model)
    for fn in model.functions:
        if fn.python:
            o += _def(signature(model, fn)[1], summary[fn.name])
    o += [f"def {sig}: ..." for sig in helper_signatures(model)]
    return "\n".join(o) + "\n"


def checked_names(model):
    """The functions of a tuple-style module that have a checked form: those returning a status."""
    names = [fn.name for fn in model.functions if fn.python]
    if helpers(model.lib):
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
    err = of(model)['checked']
    logs = {f: v for f, v in sorted(ov.ERROR_LOG.items()) if f.startswith(of(model)["prefix"])}
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


def emit_checked_pyi(model):
    """The stub of checked/<lib>.py: the tuple-style module's classes and constants, re-exported,
    and the functions with their checked return types."""
    names = sorted(model.resolved.classes | {n for n, _ in model.defines}
                   | {n for n, _ in extra_enums(model)} | {"sizeof"})
    if helpers(model.lib):
        names += sorted(ov.MAKE_FUNCTIONS)
    imports = sorted({v.split(".")[0] for v in model.resolved.peers.values()})
    o = [HEADER.format(ver=model.cuda).rstrip("\n"),
         f'"""Types of cuda.bindings.checked.{model.lib} (generated from the CUDA {model.cuda} headers)."""',
         "from collections.abc import Sequence",
         "from typing import Any", "",
         "from cuda.bindings._base import Address, Buffer, KernelParams"]
    o += [f"from cuda.bindings import {m}" for m in imports]
    o.append(f"from cuda.bindings.checked import {of(model)['checked']} as {of(model)['checked']}")
    o.append(f"from cuda.bindings.{model.lib} import (")
    o += [f"    {n} as {n}," for n in names]
    o += [")", ""]
    summary = summaries(model)
    for fn in model.functions:
        if fn.python:
            o += _def(signature(model, fn, checked=True)[1], summary[fn.name])
    if helpers(model.lib):
        o.append("def getLocalRuntimeVersion() -> int: ...")
    return "\n".join(o) + "\n"


def emit_records_pyi(model):
    """The stub of a struct-style module (cuFile, NVML, nvFatbin, cuDLA)."""
    cfg = of(model)["snake"]
    rn = model.resolved.records
    o = [HEADER.format(ver=model.cuda).rstrip("\n"),
         f'"""Types of cuda.bindings.{model.lib} (generated from the CUDA {model.cuda} headers)."""',
         "from collections.abc import Sequence",
         "from enum import IntEnum",
         "from typing import Any", "",
         "from numpy import dtype",
         "from numpy.typing import NDArray", "",
         "from cuda.bindings._base import Buffer",
         "from cuda.bindings._records import _Record", ""]
    for _, py, members in rn.enums:
        _enum_class(o, py, members)
    for py, members in ov.DEFINE_ENUMS_OF(model):
        _enum_class(o, py, members)
    for name, (source, attr) in cfg.get("imports", {}).items():
        # a name the module takes from another (cuFile's pyCUresult): an alias this stub exports
        o += [f"from {source} import {attr} as _{name}", f"{name} = _{name}"]
    o.append("")
    for st in rn.layout:
        o.append(f"class {rn.cls[st.name]}(_Record):")
        o.extend(_fields([ft for ft in model.resolved.fields[st.name] if ft.shown]) or ["    ..."])
        o.append("")
    made = {rn.cls[st.name] for st in rn.layout}
    o += [f"{d}: dtype[Any]" for d, c in rn.dtypes.items() if c in made]
    o.append("")
    o += [f"{v}: int" for v in ov.PUBLIC_CONSTANTS.get(module(model), {}).values()]
    o += _records_errors(model)
    summary = summaries(model)
    for fn in model.functions:
        if fn.python:
            o += _def(signature(model, fn)[1], summary[fn.name])
    if "check_status" in cfg:
        ret = "None" if cfg["check_status"] is None else "int"
        o.append(f"def check_status(status: int) -> {ret}: ...")
        if "insufficient" in cfg:
            o.append("def check_status_size(status: int) -> int: ...")
    o.append("def sizeof(objType: type) -> int: ...")
    return "\n".join(o) + "\n"


def _records_errors(model):
    """A struct-style module's exception class, and its subclass per failed status (NVML)."""
    cfg = of(model)["snake"]
    o = ["", f"class {cfg['error']}(Exception):", "    status: int"]
    if cfg.get("message") == "cufile":
        o += ["    cuda_error: int | None",
              "    def __init__(self, status: int, cuda_error: int | None = None) -> None: ..."]
    else:
        o += ["    def __init__(self, status: int) -> None: ..."]
    o.append("")
    errors = model.resolved.records.errors
    status = "status: int" if cfg.get("status_required") else "status: int | None = None"
    for cls, _, _ in errors:
        o += [f"class {cls}({cfg['error']}):", f"    def __init__(self, {status}) -> None: ..."]
    for alias, cls in ov.ERROR_CLASS_ALIASES.get(module(model), {}).items():
        o.append(f"{alias} = {cls}")
    o.append("")
    return o
