"""Stage 4, the snake_case layer of `<lib>.pyx` for the libraries that libs.LIBS marks `snake`
(nvJitLink, NVVM): public snake_case functions over the private tuple-returning wrappers."""
from . import docstrings
from . import overrides as ov
from .common import bare, public_function, public_param
from .libs import of
from .pyapi import snake_docstring, snake_refs


def emit_snake_api(model):
    """The reference's style for nvJitLink and NVVM (LIBS[lib]["snake"]): snake_case functions over
    the private tuple-returning wrappers, which return their outputs and raise the module's error
    class on failure; plain int handles; the short-named enums (Result, ...) are in _ENUMS.

    A handle passed by reference to a call that clears it (`handle_ref`: nvJitLinkDestroy,
    nvvmDestroyProgram) is consumed: its int value is remembered, and a later call given it raises
    instead of handing the library freed memory; a handle a call returns is live again."""
    L = of(model)
    logs = {f: v for f, v in ov.ERROR_LOG.items() if f.startswith(L["prefix"])}
    o = _error_class(L, logs)
    refs = snake_refs(model)
    for fn in model.functions:
        o += _snake_function(model, fn, logs, refs)
    o.append("")
    return o


def _error_class(L, logs):
    """The module's exception class, the set of consumed handles, and (where a failed call's
    error carries the library's log: overrides.ERROR_LOG) the function reading the log."""
    cfg = L["snake"]
    short = " and ".join(v[0] for v in cfg["enums"].values())
    o = ["", f"# ---- the Python API (snake_case, exceptions); {short} {'are' if ' and ' in short else 'is'} in _ENUMS", "",
         f"class {cfg['error']}(Exception):",
         f'    """A failed {cfg["title"]} call: `status` is the status as the call returned it (an int); the',
         '    message is its Result name and value, as in NVIDIA\'s package, which adds no note.' + (
             f'\n    `{ov.ERROR_LOG_ATTR}`: the log the library keeps for the failed call (None where there is'
             '\n    none); CUDA_BINDINGS_ERROR_NOTES=1 shows it as a PEP 678 note too."""' if logs else '"""'),
         *(["", f"    {ov.ERROR_LOG_ATTR} = None"] if logs else []),
         "",
         "    def __init__(self, status):",
         "        self.status = status",
         "        s = _L.cls('Result')(status)",
         "        super().__init__(f'{s.name} ({int(s)})')",
         "",
         "    def __reduce__(self):",
         "        return (type(self), (self.status,))",
         "",
         "",
         "cdef _SizeMap _CONSUMED   # the handles a destroy call consumed (_base's C map, as a set)",
         ""]
    if logs:
        o += ["",
              "def _error_log(e, h, size_fn, log_fn):",
              f'    """e, with the log the library keeps for h as its `{ov.ERROR_LOG_ATTR}` (none where the log is',
              '    empty or unreadable)."""',
              "    r = size_fn(h)",
              "    if r[0] != 0 or r[1] <= 1:",
              "        return e",
              "    buf = bytearray(r[1])",
              "    if log_fn(h, buf)[0] != 0:",
              "        return e",
              "    log = bytes(buf).rstrip(b'\\0').decode(errors='replace')",
              f"    return _with_detail(e, {ov.ERROR_LOG_ATTR!r}, log) if log else e",
              ""]
    return o


def _snake_function(model, fn, logs, refs):
    """The public function of fn: its handles checked, the private wrapper called, its status
    raised, its outputs returned (a handle it returns live again)."""
    L = of(model)
    cfg = L["snake"]
    handles = {n for n, _ in model.handles}
    ins = [p for p in fn.params if p.role in ("in", "inout")]
    outs = [p for p in fn.params if p.role in ("out", "inout")]
    pnames = [public_param(p, L) for p in ins]
    o = ["", f"def {public_function(fn, L)}({', '.join(pnames)}):",
         '    """' + docstrings.quoted(snake_docstring(model, fn, refs)) + '\n    """']
    consumed = []
    for p, n in zip(ins, pnames):
        if bare(p.ctype) in handles:     # a handle is an int, as the create call returns it
            o.append(f"    _live({n}, &_CONSUMED, {n!r}, {cfg['what']!r})")
            if p.conv == "handle_ref":
                consumed.append(n)
    o.append(f"    r = _{fn.name}({', '.join(pnames)})")
    if fn.ret != L["status"]:     # a string, not a status (nvvmGetErrorString): text
        return o + ["    return r[1].decode() if r[1] is not None else None"]
    o.append("    if r[0] != 0:")
    if fn.name in logs:
        size_fn, log_fn = logs[fn.name]
        h = pnames[[i for i, p in enumerate(ins) if bare(p.ctype) in handles][0]]
        o.append(f"        raise _error_log({cfg['error']}(int(r[0])), {h}, _{size_fn}, _{log_fn})")
    else:
        o.append(f"        raise {cfg['error']}(int(r[0]))")
    o += [f"    _consume({n}, &_CONSUMED)" for n in consumed]
    conv = []
    for i, p in enumerate(outs):
        if bare(p.ctype) in handles:
            o.append(f"    h{i} = int(r[{i + 1}])")
            o.append(f"    _fresh(h{i}, &_CONSUMED)")
            conv.append(f"h{i}")
        else:
            conv.append(f"r[{i + 1}]")
    if not conv:
        return o + ["    return None"]
    if len(conv) == 1:
        return o + [f"    return {conv[0]}"]
    return o + [f"    return ({', '.join(conv)})"]
