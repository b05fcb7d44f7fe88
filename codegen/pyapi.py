"""The Python face of each generated function: its public name's signature with types, and its
docstring, as the `.pyx` (`emit_py.py`, `emit_snake.py`), the stubs (`stubs.py`) and the reference
pages (`refdocs.py`) show them, from the names and types the resolve stage gave the model
(`model.resolved`, resolve.py)."""
import re

from . import docstrings
from . import overrides as ov
from .common import bare, public_function, public_param, records_style, snake_case
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


def snake_docstring(model, fn, refs):
    """A snake_case function's docstring: its outputs are returned, a failure raises."""
    L = of(model)
    if records_style(L):
        return _records_docstring(model, fn, refs)
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


def _records_docstring(model, fn, refs):
    """A struct-style module's function's docstring: what it returns of its outputs (those it
    fills in place last), or of a struct it fills from its arguments."""
    L = of(model)
    rn, t = model.resolved.records, model.resolved.functions[fn.name]
    outs = [p for p in fn.params if p.role in ("out", "inout") and p.conv != "records_io"]
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
        fn.pydoc or fn.doc, [(i.name, i.type, i.cname) for i in t.inputs], returns,
        names={p.name: p.pyname for p in fn.params}, outs=[p.name for p in outs], refs=refs, status=rn.status,
        raises=raises)


def v2_refs(model):
    """The docstring references of a cuda.bindings._v2 module (model: emit_v2.v2_model's): its
    functions by their Python names, enum members by their short names (`Result.ERROR_INVALID_VALUE`)."""
    refs = snake_refs(model)
    for e, (_, py, members) in zip(model.enums, model.resolved.records.enums):
        for (c, _), (short, _) in zip(e.members, members):
            refs.member[c] = (py, short)
    return refs


# the Python type of a _v2 function's C parameter or result, in its stub (emit_v2._pyi) and docstring
_V2_TYPES = {"float": "float", "double": "float", "bytes": "bytes", "str": "str", "tuple": "tuple[Any, ...]",
             "list": "list[Any]", "object": "Any", "": "Any"}


def v2_types(sig):
    """([(name, stub type, default)] of a _v2 function's parameters, its result's stub type)
    (sig: an emit_v2._Sig), as its `.pyi` line has them."""
    params = [(n, _V2_TYPES.get(t, "int"), d) for t, n, d in sig.params]
    ret = "None" if sig.ret == "object" and not sig.outs else _V2_TYPES.get(sig.ret, "int")
    return params, ret


def v2_outputs(sig):
    """The C parameters of a _v2 function whose values it returns, in the order it returns them."""
    L, fn = of(sig.m), sig.fn
    takes = {n for _, n, _ in sig.params}
    outs = [p for p in fn.params if p.name not in sig.counted and p.name not in sig.hidden
            and (public_param(p, L) not in takes or p.conv == "value_inout")]
    return outs if len(outs) == len(sig.outs) else None


def successor(model, fn):
    """The function a versioned entry point was followed by: the function of its name without the
    version (cuStreamGetCaptureInfo_v2 -> cuStreamGetCaptureInfo), or None."""
    base = re.sub(r"_v\d+$", "", fn.name)
    return next((f for f in model.functions if f.name == base and f is not fn), None)


def _successor_doc(model, fn):
    """The text of the function a versioned entry point without its own (one the headers declare only
    in their internal section: cuStreamGetCaptureInfo_v2) was followed by (successor), whose
    parameters of the same names it has, less the paragraphs that name a parameter fn lacks."""
    succ = successor(model, fn)
    if succ is None:
        return ""
    # less the paragraphs about its parameters that fn lacks (cuStreamGetCaptureInfo's edgeData_out)
    lacks = {p.name for p in succ.params} - {p.name for p in fn.params}
    return "\n\n".join(par for par in re.split(r"\n\s*\n", succ.doc)
                       if par.lstrip(" *").startswith("\\param") or not any(f"\\p {n}" in par for n in lacks))


def v2_docstring(model, sig, refs):
    """A cuda.bindings._v2 function's docstring (sig: an emit_v2._Sig; refs: v2_refs(model)): the
    parameters the function takes (a list's count is its length), the values it returns for the C
    output parameters, the exception of a failed status and the status members by their short names."""
    L, fn, rn = of(model), sig.fn, model.resolved.records
    # (an entry point of the headers' internal section has no public function of the tuple style)
    typed = {i.cname: i.type for i in getattr(model.resolved.functions.get(fn.name), "inputs", ())}
    by_name = {public_param(p, L): p for p in fn.params}
    params = []
    for (n, typ, _), (ctype, _, _) in zip(v2_types(sig)[0], sig.params):
        p = by_name.get(n)
        typ = sig.doc_types.get(n) or (typed.get(p.name, typ) if typ == "Any" and p is not None else typ)
        params.append((n, typ, p.name if p else None))
    names = {p.name: public_param(p, L) for p in fn.params if p.name not in sig.counted}
    for p in fn.params:         # a list's count: the length of the (first) list it counts
        if p.conv == "strlist" and p.extra.get("count_param") in sig.counted:
            names.setdefault(p.extra["count_param"], f"len({public_param(p, L)})")
    found = v2_outputs(sig)
    outs = found or []
    raises = None
    if bare(fn.ret) == "char":          # a C string, not a status: the text (nvrtcGetErrorString)
        returns = [("", "str", None)]
    elif fn.name in ov.STATUS_RESULT:
        returns = [("", "int", None)]
    else:
        returns = []
        for i, (_, _, r) in enumerate(sig.outs):
            p = found[i] if found else None
            cls = sig._record_class(p) if r == "object" and p is not None else None
            typ = (sig.doc_types.get(public_param(p, L)) if p is not None else None) or cls or (
                "memoryview" if r == "object" else _V2_TYPES.get(r, "int"))
            returns.append((public_param(p, L), typ, p.name) if p is not None else ("", typ, ""))
        err = L["snake"]["error"]
        raises = (err, f"If the call fails: the {err} subclass of its status, with the {rn.status} member in "
                  "its `status`", success_name(model))
    doc = fn.pydoc or fn.doc or _successor_doc(model, fn)
    if found:       # "sets the output parameter \\p prog with it": the function returns it
        doc = re.sub(r"\b(?:sets|populates the array passed via) the output parameters?\s+(\\p\s+\w+(?:\s+and\s+\\p\s+\w+)?)"
                     r"\s+with(\s+it\b)?", lambda m: "returns it as " + m[1] if m[2] else f"returns, as {m[1]},", doc)
    return docstrings.render(doc, params, returns, names=names, outs=[p.name for p in outs],
                             refs=refs, status=rn.status, raises=raises)


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
