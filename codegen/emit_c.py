"""Stage 4, the C level: per library `cy<lib>.pxd` (C declarations for Cython users), `cy<lib>.pyx`
(the lazy loader and one nogil function per C entry point) and `_symbols_<lib>.py` (the symbol
table the loader reads)."""
import re

from .common import HEADER, bare, cname, cytype, returns_struct
from .model import SCALARS
from .libs import of, status_types

# ------------------------------------------------------------------------------------- pxd

def _struct_order(model):
    by = {s.name: s for s in model.structs}
    alias_to_tag = {}
    for s in model.structs:
        for a, _ in s.aliases:
            alias_to_tag[a] = s.name
        alias_to_tag[s.name] = s.name
    seen, order = set(), []

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        s = by[name]
        for f in s.fields:
            if f.cls == "struct" and f.ptr == 0:
                t = alias_to_tag.get(f.ctype)
                if t and t in by:
                    visit(t)
        order.append(s)
    for s in model.structs:
        visit(s.name)
    return order


class _Declarations:
    """The .pxd's type declarations: each goes into the `cdef extern` block (C's own name, from the
    header: `ext`) or, for the names in model.cython_level, is declared at module level (`cyd`):
    Cython then defines it in the C it writes, under a mangled name, and the C-API signatures
    spell that name."""

    def __init__(self, model):
        self.cylevel = set(model.cython_level)
        self.ext, self.cyd = [], []

    def put(self, name, line):
        (self.cyd.append(line) if name in self.cylevel else self.ext.append("    " + line))


def emit_pxd(model):
    L = of(model)
    o = [HEADER.format(ver=model.cuda), "# cython: language_level=3",
         "from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, intptr_t, uintptr_t",
         "from libc.stddef cimport size_t"] + L.get("pxd_imports", []) + [""]
    if model.c_prelude and not L.get("interop"):
        raise ValueError(f"{model.lib}: C declarations for the .pxd's prelude, which only a library with interop headers has")
    if L.get("interop"):
        # The graphics interop headers need GL/EGL/VDPAU headers: included when the compiler
        # finds them (the package's own build supplies stand-ins, headers/stubs).
        o += ["cdef extern from *:", '    """', f'    #include "{L["header"]}"']
        for h, needs in L["interop"].items():
            cond = " && ".join(f"__has_include(<{n}>)" for n in needs)
            o += [f"    #if defined(__has_include) && {cond}"] + [f"    #include <{n}>" for n in needs]
            o += [f'    #include "{h}"', "    #endif"]
        o += ["    " + line for text in model.c_prelude for line in text.splitlines()]
        o += ['    """', ""]
    d = _Declarations(model)
    _declare_types(model, d)
    _declare_structs(model, d)
    o.append(f'cdef extern from "{L["header"]}" nogil:')
    o.extend(d.ext)
    if d.cyd:
        o.append("# Declared here rather than taken from the C headers (codegen/model.py: cython_level)")
        o.extend(d.cyd)
        o.append("")
    o.append(f"cdef enum:\n    _CB_NUM_FUNCTIONS = {len(loaded(model))}")
    for fn in model.functions:
        o.append(f"cdef {cret(fn, model)} {fn.name}({cparams(fn)}) {except_clause(fn, L, model)} nogil")
    return "\n".join(o) + "\n"


def _declare_types(model, d):
    """Forward declarations (structs with fields, and the opaque targets of handles), enums,
    integer types, handles and function pointer types."""
    seen = set()
    for s in model.structs:
        if not s.name.startswith("anon_") and not s.tagless:    # C has no tag to declare a tagless one by
            d.put(s.name, f"cdef {'union' if s.union else 'struct'} {s.name}")
            seen.add(s.name)
    for tgt in model.handle_targets.values():
        if tgt != "void" and bare(tgt) not in seen:
            d.put(bare(tgt), f"cdef {tgt.split(' ')[0]} {bare(tgt)}")
            seen.add(bare(tgt))
    d.ext.append("")
    for e in model.enums:
        d.put(e.name, f"{'cdef' if e.tag_only else 'ctypedef'} enum {e.name}:")
        for n, v in e.members:
            # a Cython-level enum is defined by the C that Cython writes: it needs the values
            d.put(e.name, f"    {n} = {v}" if e.name in d.cylevel else f"    {n}")
        for a in e.aliases:
            d.put(a, f"ctypedef {e.name} {a}")
    d.ext.append("")
    for name, parent, cy, size, k in model.inttds:
        d.put(name, f"ctypedef {parent or cy} {name}")
    for name, parent in model.handles:
        if parent:
            d.put(name, f"ctypedef {parent} {name}")
        else:
            tgt = model.handle_targets.get(name, "void")
            d.put(name, f"ctypedef {bare(tgt) if tgt != 'void' else 'void'}* {name}")
    for name, parent in model.funcptrs:
        if parent:
            d.put(name, f"ctypedef {parent} {name}")
        else:
            ret, params = model.funcptr_sigs[name]
            plist = ", ".join(cytype(_tag(model, p[1], p[2]), p[2], p[3]) + " " + p[0] for p in params)
            decl = f"{name}({plist})" if name in model.functypes else f"(*{name})({plist})"
            d.put(name, f"ctypedef {cytype(*ret)} {decl}" + (" noexcept nogil" if name in d.cylevel else ""))
    d.ext.append("")


def _declare_structs(model, d):
    """The structs and unions with their fields, each after the types of its members."""
    for s in _struct_order(model):
        kw = "union" if s.union else "struct"
        d.put(s.name, f"ctypedef {kw} {s.name}:" if s.tagless else f"cdef {kw} {s.name}:")
        n = 0
        for f in s.fields:
            if f.cls == "funcptr" and f.ctype not in model.typedefs:
                t = "void*"
            else:
                t = cytype(_tag(model, f.ctype, f.ptr), f.ptr)
            if None in f.dims:
                if s.name in d.cylevel:
                    raise ValueError(f"{s.name}.{f.name}: a Cython-level struct needs every field")
                continue    # size expression the parser cannot evaluate (padding)
            dims = "".join(f"[{x}]" for x in f.dims)
            d.put(s.name, f"    {t} {f.name}{dims}")
            n += 1
        if not n:
            d.put(s.name, "    pass")
        for a, parent in s.aliases:
            d.put(a, f"ctypedef {parent} {a}")
    d.ext.append("")


def cret(fn, model):
    if fn.ret in status_types() or returns_struct(fn, model):
        return bare(fn.ret)
    if fn.ret == "void":
        return "void"
    if bare(fn.ret) in SCALARS and bare(fn.ret) != "char":   # cuFileRead's ssize_t, cuFileUseCount's long
        return SCALARS[bare(fn.ret)][0]
    return "const char*"        # the parser drops the `*` of a returned `const char *`


def except_clause(fn, L, model):
    if returns_struct(fn, model) or fn.ret == "void":
        return "except *"       # cuFile's status struct, and its functions that return nothing
    if fn.ret == L["status"]:
        return f"except ?{L['notfound']}"
    if bare(fn.ret) in SCALARS and bare(fn.ret) != "char":
        return "except? -1"
    return "except? NULL"


def _tag(model, name, ptr):
    """Inside the type declarations, a pointer to a struct is spelled with the struct's tag,
    which is forward-declared, so declaration order does not matter."""
    if ptr < 1:
        return name
    for s in model.structs:
        if s.name == name or any(a == name for a, _ in s.aliases):
            return s.name if not s.name.startswith("anon_") else name
    return name


def param_type(p, mod=""):
    """A parameter's type in the C declarations: as the header spells it."""
    if p.cdecl:
        return p.cdecl if not mod else re.sub(r"\b(?!const\b)([A-Za-z_]\w*)\b(?=\s*(\*|$))",
                                               lambda m: m.group(1) if m.group(1) in SCALARS or m.group(1) == "void"
                                               else mod + m.group(1), p.cdecl, count=1)
    base, ptr = p.decl or (p.ctype, p.ptr)
    return cytype(base, ptr, p.const, mod)


def cparams(fn, mod=""):
    return ", ".join(f"{param_type(p, mod)} {cname(p.name)}" for p in fn.params)


# ------------------------------------------------------------------------------------- cy pyx

def loaded(model):
    """The functions that are library entry points (one slot each), in order."""
    return [fn for fn in model.functions if not fn.inline and not fn.calls]


# The lazy resolution of an entry point's address, the same in every cy<lib>.pyx.
RESOLVER = [
    'cdef extern from "Python.h":',
    "    int Py_IsInitialized() nogil", "",
    "from cpython.exc cimport PyErr_Fetch, PyErr_Restore",
    "from cpython.ref cimport PyObject, Py_XDECREF", "",
    "# 0: resolved; -1: not found (a Python exception is set); 1: the interpreter has shut down;",
    "# 2: the loaded library lacks it (a library whose calls then return a status, see LIBS['lacking'])",
    "cdef int _resolve(int i) except -1 nogil:",
    "    cdef int r",
    "    if not Py_IsInitialized():",
    "        return 1",
    "    with gil:",
    "        r = _resolve_held(i)",
    "    return r", "",
    "# The loader is Python code: an exception the caller has pending (a client's __dealloc__",
    "# running while an error propagates) is set aside while it runs, and put back.",
    "cdef int _resolve_held(int i) except -1:",
    "    cdef PyObject* t",
    "    cdef PyObject* v",
    "    cdef PyObject* tb",
    "    PyErr_Fetch(&t, &v, &tb)",
    "    try:",
    "        address = _symbol(i)",
    "    except BaseException:",
    "        Py_XDECREF(t)",
    "        Py_XDECREF(v)",
    "        Py_XDECREF(tb)",
    "        raise",
    "    PyErr_Restore(t, v, tb)",
    "    if not address:",
    "        return 2",
    "    _slots[i] = <void*><size_t>address",
    "    return 0", ""]


def emit_cypyx(model):
    L = of(model)
    # The symbol table (and the loader, and ctypes) are imported by the first call, not by import.
    o = [HEADER.format(ver=model.cuda), "# cython: language_level=3", "",
         f"cdef void* _slots[{max(len(loaded(model)), 1)}]", "",
         "cdef object _symbol(int i):",
         f"    from cuda.bindings._symbols_{model.lib} import _symbol",
         "    return _symbol(i)", "",
         "from libc.string cimport memset", ""] + RESOLVER
    # the headers' static inline functions, under a private name
    inline = [fn for fn in model.functions if fn.inline]
    for h in dict.fromkeys(fn.inline for fn in inline):
        o.append(f'cdef extern from "{h}" nogil:')
        for fn in inline:
            if fn.inline == h:
                o.append(f'    {cret(fn, model)} _inline_{fn.name} "{fn.name}"({cparams(fn)})')
        o.append("")
    slot = {fn.name: i for i, fn in enumerate(loaded(model))}
    for fn in model.functions:
        o.append(f"cdef {cret(fn, model)} {fn.name}({cparams(fn)}) {except_clause(fn, L, model)} nogil:")
        args = ", ".join(cname(p.name) for p in fn.params)
        if fn.inline:
            o.append(f"    return _inline_{fn.name}({args})")
        elif fn.calls:
            o.append(f"    return {fn.calls}({args})")
        else:
            o += slot_call(model, fn, slot[fn.name], args)
        o.append("")
    return "\n".join(o)


def slot_call(model, fn, i, args):
    """The body of an entry point's function: its address resolved on the first call (what it
    returns where it cannot be: see `shutdown` and `lacking`), then called through slot i."""
    L = of(model)
    types = ", ".join(param_type(p) for p in fn.params)
    ret = cret(fn, model)
    o = []
    if ret == L["status"] and "lacking" in L:
        o.append(f"    if _slots[{i}] == NULL and _resolve({i}):")
        o.append(f"        return {L['lacking']} if Py_IsInitialized() else {L['shutdown']}")
    elif (ret == L["status"] and not returns_struct(fn, model)) or ret in _SHUTDOWN_RETURN:
        o.append(f"    if _slots[{i}] == NULL and _resolve({i}):")
        o.append(f"        return {L['shutdown'] if ret == L['status'] else _SHUTDOWN_RETURN[ret]}")
    elif ret == "void":
        o.append(f"    if _slots[{i}] == NULL and _resolve({i}):")
        o.append("        return")
    elif bare(fn.ret) in SCALARS:
        o.append(f"    if _slots[{i}] == NULL and _resolve({i}):")
        o.append("        return -1")
    else:                                  # a struct: zeroed (a status struct: the shutdown status)
        o.append(f"    cdef {ret} _none")
        o.append(f"    if _slots[{i}] == NULL and _resolve({i}):")
        o.append("        memset(&_none, 0, sizeof(_none))")
        if ret == L["status"]:
            o.append(f"        _none.err = {L['shutdown']}")
        o.append("        return _none")
    if ret == "void":
        o.append(f"    (<void (*)({types}) noexcept nogil>_slots[{i}])({args})")
    else:
        o.append(f"    return (<{ret} (*)({types}) noexcept nogil>_slots[{i}])({args})")
    return o


# What a call returning a string gives after the interpreter has shut down (see `shutdown`); one
# returning a struct gives it zeroed.
_SHUTDOWN_RETURN = {"const char*": '""'}


def emit_symbols(model):
    """Per-library symbol table (Python data) for the loader in _loader.py."""
    o = [HEADER.format(ver=model.cuda),
         f'"""Symbol table of the {model.lib} library: (API name, ABI version, per-thread suffix,',
         'per-thread ABI version, C symbol).  Read by cuda.bindings._loader on first use."""',
         "from cuda.bindings import _loader", "",
         "SYMBOLS = ("]
    for fn in loaded(model):
        o.append(f"    ({(fn.proc or fn.name)!r}, {fn.pfn_version}, {fn.ptds!r}, {fn.ptds_version}, {fn.csym!r}),")
    o.append(")")
    o.append("")
    o.append("")
    o.append("def _symbol(i):")
    o.append(f"    return _loader.symbol({model.lib!r}, SYMBOLS[i]{', lacking_ok=True' if 'lacking' in of(model) else ''})")
    return "\n".join(o) + "\n"
