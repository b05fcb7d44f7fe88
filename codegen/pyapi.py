"""The Python face of each generated function: its public name's signature with types, and its
docstring, as the `.pyx` (`emit_py.py`, `emit_snake.py`), the stubs (`stubs.py`) and the reference
pages (`refdocs.py`) show them."""
from . import docstrings, pytypes
from . import overrides as ov
from .common import bare, public_function, public_param, record_names, records_style, snake_case
from .libs import LIBS, helpers
from .pytypes import make_param_types


def doc_type(model, fn, p, out):
    """The type a docstring gives a parameter (out: the type of the value returned for it)."""
    return pytypes.output_type(model, fn, p) if out else pytypes.param_type(model, fn, p)


def success_name(model):
    """The status enum's member for success (value 0)."""
    L = LIBS[model.lib]
    name = L.get("snake", {}).get("status_enum", L["status"])    # cuFile's status is a struct of an enum
    e = next(e for e in model.enums if e.name == name)
    return next(n for n, v in e.members if int(v) == 0)


def tuple_docstring(model, fn, refs):
    """A tuple-style wrapper's docstring: the status, then the outputs, are returned."""
    status = LIBS[model.lib]["status"]
    ins = [p for p in fn.params if p.role in ("in", "inout")]
    outs = [p for p in fn.params if p.role in ("out", "inout")]
    if fn.ret == status:
        returns = [("", status, None)] + [(p.pyname, doc_type(model, fn, p, True), p.name) for p in outs]
    else:   # a value, not a status: the call always succeeds
        returns = [("", status, f"Always {success_name(model)}."), ("", pytypes.outputs(model, fn)[0], None)]
    return docstrings.quoted(docstrings.render(
        fn.pydoc or fn.doc, [(p.pyname, doc_type(model, fn, p, False), p.name) for p in ins], returns,
        names={p.name: p.pyname for p in fn.params}, outs=[p.name for p in outs], refs=refs, status=status))


def snake_refs(model):
    """The docstring references of a snake_case module (its functions by their Python names)."""
    L = LIBS[model.lib]
    if records_style(L):
        rn = record_names(model)
        enums = {c: (py, "") for c, py, _ in rn.enums}
        return docstrings.Refs(model, enums, {f.name: public_function(f, L) for f in model.functions})
    return docstrings.Refs(model, L["snake"]["enums"], {f.name: snake_case(f.name[len(L["prefix"]):]) for f in model.functions})


def snake_docstring(model, fn, refs):
    """A snake_case function's docstring: its outputs are returned, a failure raises."""
    L = LIBS[model.lib]
    if records_style(L):
        rn = record_names(model)
        result = rn.enum_cls.get(L["status"]) or rn.enum_cls.get(L["snake"].get("status_enum", ""))
    else:
        result = L["snake"]["enums"][L["status"]][0]
    ins = [p for p in fn.params if p.role in ("in", "inout")]
    outs = [p for p in fn.params if p.role in ("out", "inout")]
    if records_style(L) and fn.ret != L["status"]:
        returns = [("", pytypes.return_type(model, fn), None)]
        raises = None
    elif fn.ret == L["status"]:
        returns = [(snake_case(p.pyname), doc_type(model, fn, p, True), p.name) for p in outs]
        raises = (L["snake"]["error"], f"If the call fails, with the {result} member in its `status`",
                  success_name(model))
    else:   # a string, not a status (nvvmGetErrorString)
        returns, raises = [("", "str | None", None)], None
    if records_style(L):
        params = [(n, t, c) for n, t, c, _ in public_inputs(model, fn)]
        outs = [p for p in outs if p.conv != "records_io"] + [p for p in fn.params if p.conv == "records_io"]
        if fn.ret == L["status"] and fn.name not in ov.STATUS_RESULT:
            returns = [(p.pyname, doc_type(model, fn, p, True), p.name) for p in outs if p.conv not in HIDDEN_CONVS]
            for p in fn.params:
                if p.conv == "struct_args" and p.extra["output"]:
                    # what the call returns of the struct it fills (a field, or the struct); the
                    # functions that fill such a struct return nothing else
                    assert not returns, fn.name
                    out = p.extra["output"]
                    returns.append((p.pyname, pytypes.struct_arg_types(model, p)[1], p.name) if out == "*"
                                   else (out, pytypes.struct_arg_types(model, p)[1],
                                         f"The {out} field of the {record_names(model).cls[bare(p.ctype)]} "
                                         f"the call fills."))
        return docstrings.render(
            fn.pydoc or fn.doc, params, returns, names={p.name: p.pyname for p in fn.params},
            outs=[p.name for p in outs], refs=refs, status=result, raises=raises)
    return docstrings.render(
        fn.pydoc or fn.doc, [(snake_case(p.pyname), doc_type(model, fn, p, False), p.name) for p in ins], returns,
        names={p.name: snake_case(p.pyname) for p in fn.params}, outs=[p.name for p in outs], refs=refs,
        status=result, raises=raises)


def module_refs(model):
    """The docstring references of the library's module, in its style (snake_case or tuple)."""
    return snake_refs(model) if LIBS[model.lib].get("snake") else docstrings.Refs(model)


def docstring(model, fn, refs):
    """fn's public function's docstring as the generated source quotes it, in its module's style
    (`refs`: module_refs(model))."""
    if LIBS[model.lib].get("snake"):
        return docstrings.quoted(snake_docstring(model, fn, refs))
    return tuple_docstring(model, fn, refs)


HIDDEN_CONVS = ("fixed", "fixed_ref", "count_ref")


def public_inputs(model, fn, prm=None):
    """(name, type, C parameter or None, default or None) of each parameter of fn's public
    function: the struct-style modules leave out what the wrapper passes itself (a length, a count,
    a count taken from an array's length) and take a struct's fields for it where the reference
    does (overrides.STRUCT_ARGS)."""
    L = LIBS[model.lib]
    out = []
    for p in fn.params:
        if p.role not in ("in", "inout"):
            continue
        if records_style(L):
            if p.conv in HIDDEN_CONVS or "implicit" in p.extra:
                continue
            if p.conv == "struct_args":
                out += [(arg, t, None, None) for arg, t in pytypes.struct_arg_types(model, p)[0].items()]
                continue
        default = p.extra["default"] if "default" in p.extra else None
        out.append((public_param(p, L), pytypes.param_type(model, fn, p, prm), p.name, default))
    return out


def signature_params(model, fn, prm):
    """The parameter list of fn's Python signature, typed (`prm`: peers)."""
    if records_style(LIBS[model.lib]):
        return ", ".join(f"{n}: {t}" + (f" = {d!r}" if d is not None else "") for n, t, _, d in public_inputs(model, fn, prm))
    out = []
    for p in fn.params:
        if p.role not in ("in", "inout"):
            continue
        t = pytypes.param_type(model, fn, p, prm)
        name = public_param(p, LIBS[model.lib])
        if "implicit" in p.extra and records_style(LIBS[model.lib]):
            continue            # the length of the struct array it counts
        default = f" = {p.extra['default']!r}" if "default" in p.extra else ""
        out.append(f"{name}: {t}{default}")
    return ", ".join(out)


def signature(model, fn, prm, checked=False):
    """(Python name, typed signature text) of a generated function: a snake_case module's public
    function, a tuple-style function, or (`checked`) its form in cuda.bindings.checked."""
    L = LIBS[model.lib]
    if L.get("snake"):
        name = public_function(fn, L)
        if records_style(L) and fn.ret != L["status"]:
            ret = pytypes.records_return(model, fn)
        else:
            ret = pytypes.checked_return_type(model, fn) if fn.ret == L["status"] else "str | None"
        return name, f"{name}({signature_params(model, fn, prm)}) -> {ret}"
    ret = pytypes.checked_return_type(model, fn) if checked else pytypes.return_type(model, fn)
    return fn.name, f"{fn.name}({signature_params(model, fn, prm)}) -> {ret}"


def helper_signatures(model):
    """Signatures of the module's functions that no C function makes (the runtime's make_*
    helpers and getLocalRuntimeVersion)."""
    if not helpers(model.lib):
        return []
    out = []
    for name, (cls, params, fields) in sorted(ov.MAKE_FUNCTIONS.items()):
        types = make_param_types(model, cls, fields)
        out.append(f"{name}({', '.join(f'{a}: {t}' for a, t in zip(params, types))}) -> {cls}")
    out.append("getLocalRuntimeVersion() -> tuple[cudaError_t, int | None]")
    return out
