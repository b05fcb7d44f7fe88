"""The Python face of each generated function: its public name's signature with types, and its
docstring, as the `.pyx` (`emit_py.py`, `emit_snake.py`), the stubs (`stubs.py`) and the reference
pages (`refdocs.py`) show them, from the names and types the resolve stage gave the model
(`model.resolved`, resolve.py)."""
from . import docstrings
from . import overrides as ov
from .common import bare, public_function, records_style, snake_case
from .libs import helpers, of


def success_name(model):
    """The status enum's member for success (value 0)."""
    L = of(model)
    name = L.get("snake", {}).get("status_enum", L["status"])    # cuFile's status is a struct of an enum
    e = next(e for e in model.enums if e.name == name)
    return next(n for n, v in e.members if int(v) == 0)


def tuple_docstring(model, fn, refs):
    """A tuple-style wrapper's docstring: the status, then the outputs, are returned."""
    status = of(model)["status"]
    t = model.resolved.functions[fn.name]
    takes = {i.cname: i.type for i in t.inputs}
    ins = [p for p in fn.params if p.role in ("in", "inout")]
    outs = [p for p in fn.params if p.role in ("out", "inout")]
    if fn.ret == status:
        returns = [("", status, None)] + [(p.pyname, t.gives[p.name], p.name) for p in outs]
    else:   # a value, not a status: the call always succeeds
        returns = [("", status, f"Always {success_name(model)}."), ("", t.outputs[0], None)]
    return docstrings.quoted(docstrings.render(
        fn.pydoc or fn.doc, [(p.pyname, takes[p.name], p.name) for p in ins], returns,
        names={p.name: p.pyname for p in fn.params}, outs=[p.name for p in outs], refs=refs, status=status))


def snake_refs(model):
    """The docstring references of a snake_case module (its functions by their Python names)."""
    L = of(model)
    if records_style(L):
        enums = {c: (py, "") for c, py, _ in model.resolved.records.enums}
        return docstrings.Refs(model, enums, {f.name: public_function(f, L) for f in model.functions})
    return docstrings.Refs(model, L["snake"]["enums"], {f.name: snake_case(f.name[len(L["prefix"]):]) for f in model.functions})


def snake_docstring(model, fn, refs, hidden=()):
    """A snake_case function's docstring: its outputs are returned, a failure raises (`hidden`: the
    parameters the function neither takes nor returns, in the struct style)."""
    L = of(model)
    if records_style(L):
        return _records_docstring(model, fn, refs, hidden)
    t = model.resolved.functions[fn.name]
    result = L["snake"]["enums"][L["status"]][0]
    outs = [p for p in fn.params if p.role in ("out", "inout")]
    if fn.ret == L["status"]:
        returns = [(snake_case(p.pyname), t.gives[p.name], p.name) for p in outs]
        raises = (L["snake"]["error"], f"If the call fails, with the {result} member in its `status`",
                  success_name(model))
    else:   # a string, not a status (nvvmGetErrorString)
        returns, raises = [("", "str | None", None)], None
    return docstrings.render(
        fn.pydoc or fn.doc, [(i.name, i.type, i.cname) for i in t.inputs], returns,
        names={p.name: snake_case(p.pyname) for p in fn.params}, outs=[p.name for p in outs], refs=refs,
        status=result, raises=raises)


def _records_docstring(model, fn, refs, hidden=()):
    """A struct-style module's function's docstring: what it returns of its outputs (those it
    fills in place last), or of a struct it fills from its arguments."""
    L = of(model)
    rn, t = model.resolved.records, model.resolved.functions[fn.name]
    outs = [p for p in fn.params if p.role in ("out", "inout") and p.conv != "records_io" and p.name not in hidden]
    outs += [p for p in fn.params if p.conv == "records_io" and p.role == "inout"]
    raises = None
    if fn.ret != L["status"]:
        returns = [("", t.returns, None)]
    elif fn.name in ov.STATUS_RESULT:
        returns = [(snake_case(p.pyname), t.gives[p.name], p.name) for p in outs]
    else:
        returns = [(p.pyname, t.gives[p.name], p.name) for p in outs]
        for p in fn.params:
            if p.conv == "struct_args" and p.extra["output"]:
                # what the call returns of the struct it fills (a field, or the struct); the
                # functions that fill such a struct return nothing else
                assert not returns, fn.name
                out = p.extra["output"]
                if out == "*":
                    returns.append((p.pyname, t.gives[p.name], p.name))
                    continue
                many = isinstance(out, (list, tuple))
                for o, typ in zip(out if many else [out], t.gives[p.name] if many else [t.gives[p.name]]):
                    field = o.split(":")[1] if ":" in o else o
                    returns.append((field, typ, f"The {field} field of the {rn.cls[bare(p.ctype)]} the call fills."))
    if fn.ret == L["status"]:
        raises = (L["snake"]["error"], f"If the call fails, with the {rn.status} member in its `status`",
                  success_name(model))
    return docstrings.render(
        fn.pydoc or fn.doc, [(i.name, i.type, i.cname) for i in t.inputs if i.cname not in hidden], returns,
        names={p.name: p.pyname for p in fn.params}, outs=[p.name for p in outs], refs=refs, status=rn.status,
        raises=raises)


def module_refs(model):
    """The docstring references of the library's module, in its style (snake_case or tuple)."""
    return snake_refs(model) if of(model).get("snake") else docstrings.Refs(model)


def docstring(model, fn, refs):
    """fn's public function's docstring as the generated source quotes it, in its module's style
    (`refs`: module_refs(model))."""
    if of(model).get("snake"):
        return docstrings.quoted(snake_docstring(model, fn, refs))
    return tuple_docstring(model, fn, refs)


def public_inputs(model, fn):
    """(name, type, C parameter or None, default or None) of each parameter of fn's public
    function (pytypes.FunctionTypes.inputs)."""
    return [(i.name, i.type, i.cname, i.default) for i in model.resolved.functions[fn.name].inputs]


def signature(model, fn, checked=False):
    """(Python name, typed signature text) of a generated function: a snake_case module's public
    function, a tuple-style function, or (`checked`) its form in cuda.bindings.checked."""
    L = of(model)
    t = model.resolved.functions[fn.name]
    params = ", ".join(f"{i.name}: {i.stub_type}" + (f" = {i.default!r}" if i.default is not None else "")
                       for i in t.inputs)
    if L.get("snake"):
        name = public_function(fn, L)
        if records_style(L) and fn.ret != L["status"]:
            ret = t.returns
        else:
            ret = t.checked_returns if fn.ret == L["status"] else "str | None"
        return name, f"{name}({params}) -> {ret}"
    return fn.name, f"{fn.name}({params}) -> {t.checked_returns if checked else t.returns}"


def helper_signatures(model):
    """Signatures of the module's functions that no C function makes (the runtime's make_*
    helpers and getLocalRuntimeVersion)."""
    if not helpers(model.lib):
        return []
    out = []
    for name, (cls, params, fields) in sorted(ov.MAKE_FUNCTIONS.items()):
        types = model.resolved.helpers[name]
        out.append(f"{name}({', '.join(f'{a}: {t}' for a, t in zip(params, types))}) -> {cls}")
    out.append("getLocalRuntimeVersion() -> tuple[cudaError_t, int | None]")
    return out
