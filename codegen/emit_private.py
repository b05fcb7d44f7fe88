"""Stage 4, the private C layers: the cimportable modules that NVIDIA's package keeps under its
public ones (`_internal.driver`, `_bindings.cydriver`, `_internal.runtime_ptds`, ...), which the
release's TWIN_STYLE names (overrides.TWIN_STYLE[release]["private"]).

A layer is a `.pxd` and a `.pyx`: one thin `nogil` function per entry point, under NVIDIA's name
(`_` and the symbol's versioned C name: `_cuMemAlloc_v2`), declared with the types of the
public cy<lib> module, so the C-API signature strings (what a compiled client binds to) are the
same, and with NVIDIA's `except` values (what a compiled client tests to see an exception). A
function calls the cy<lib> function of the same entry point (which takes the per-thread default
stream variant where CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM says so), except in a layer named
`..._ptds` (the runtime's), which resolves its entry points itself, always the per-thread
variants. Every layer also gives the library's entry-point
addresses (`_inspect_function_pointers`), as do the Python modules this stage writes at the
paths of overrides.ADDRESS_MODULES where a release has no layer."""
import re

from .common import HEADER, bare, cname
from .emit_c import RESOLVER, cret, except_clause, loaded, param_type, slot_call
from .libs import LIBS, of
from .model import SCALARS
from .overrides import ADDRESS_MODULES, PRIVATE_HELPERS, PRIVATE_PARAM_TYPES, TWIN_STYLE

_STDINT = ("from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, "
           "uint64_t, intptr_t, uintptr_t")


def layers(cuda, lib):
    """The module paths of library lib's private C layers in release cuda (`_internal.driver`)."""
    return TWIN_STYLE.get(cuda, {}).get("private", {}).get(lib, ())


def emit(model):
    """{file path: text} of library model.lib's private modules in release model.cuda."""
    files = {}
    for path in layers(model.cuda, model.lib):
        stem = path.replace(".", "/")
        layer = _Layer(model, path)
        files[stem + ".pxd"] = layer.pxd()
        files[stem + ".pyx"] = layer.pyx()
    return files


def address_modules(cuda):
    """{file path: text}: the Python module of entry-point addresses at each path of
    overrides.ADDRESS_MODULES that release cuda has no C layer at (a library the release has no
    bindings for included: importing the module then raises ImportError, as NVIDIA's package has
    no such module)."""
    files = {}
    for lib, path in ADDRESS_MODULES.items():
        if path not in layers(cuda, lib):
            files[path.replace(".", "/") + ".py"] = "\n".join([
                HEADER.format(ver=cuda).rstrip("\n"),
                f'"""Entry-point addresses of the {LIBS[lib]["title"]} library: `_inspect_function_pointers()`',
                "and `_inspect_function_pointer(name)` (cuda.bindings._loader.inspector); in a build without",
                f'{lib} bindings, importing this module raises ImportError."""',
                *_inspector(lib), ""])
    return files


def _inspector(lib):
    return ["from cuda.bindings._loader import inspector", "",
            f"_inspect_function_pointers, _inspect_function_pointer = inspector({lib!r})"]


def private_name(fn, taken):
    """NVIDIA's name of fn in a private layer: `_` and the C symbol a versioned name stands for
    (`_cuMemAlloc_v2` of cuMemAlloc), unless that symbol is the name of a function of its own
    (cuFile declares cuFileDriverClose and cuFileDriverClose_v2) or a library-wide ABI name
    (nvJitLink's `__nvJitLinkCreate_13_0`): then `_` and fn's own name."""
    sym = fn.csym or fn.name
    if fn.inline or fn.calls or sym == fn.name or sym in taken or sym.startswith("__"):
        return "_" + fn.name
    return "_" + sym


class _Layer:
    """One private layer of one library: its functions, their declarations and bodies."""

    def __init__(self, model, path):
        self.m, self.path = model, path
        self.L = of(model)
        self.cy = f"cy{model.lib}"
        # a `_ptds` layer resolves its own entry points, with the per-thread variants
        self.ptds = path.endswith("_ptds")
        self.aliases = model.lib in TWIN_STYLE[model.cuda].get("private_aliases", ())
        self.cpp = model.lib == "cufile"
        taken = {fn.name for fn in model.functions}
        names, self.fns = set(), []
        for fn in model.functions:
            name = private_name(fn, taken)
            if name not in names:
                names.add(name)
                self.fns.append((name, fn))
        helpers = PRIVATE_HELPERS.get(model.lib)
        self.helpers = helpers if helpers and not self.ptds else None

    def params(self, fn):
        return ", ".join(f"{PRIVATE_PARAM_TYPES.get((fn.name, p.name)) or param_type(p)} {cname(p.name)}"
                         for p in fn.params)

    def declaration(self, name, fn):
        return f"cdef {cret(fn, self.m)} {name}({self.params(fn)}) {self.except_(fn)} nogil"

    def except_(self, fn):
        """NVIDIA's `except` clause: its cy<lib>'s, but `except *` for a scalar result (cuFileRead's
        ssize_t) and, for cuFile's status struct, the status that C++ compares (_CUFILE_PRELUDE)."""
        if self.cpp and fn.ret == self.L["status"]:
            return f"except ?<{fn.ret}>CUFILE_LOADING_ERROR"
        if bare(fn.ret) in SCALARS and bare(fn.ret) != "char" and fn.ret != self.L["status"]:
            return "except *"
        return except_clause(fn, self.L, self.m)

    def pxd(self):
        o = [HEADER.format(ver=self.m.cuda), "# cython: language_level=3", _STDINT,
             "from libc.stddef cimport size_t"] + self.L.get("pxd_imports", [])
        o += self._cimports()
        if self.cpp:
            o += _CUFILE_PRELUDE
        o += [""] + [self.declaration(name, fn) for name, fn in self.fns]
        if self.helpers:
            o += [f"cdef {sig} except ?{self.L['notfound']} nogil" for sig in self.helpers[1]]
        return "\n".join(o) + "\n"

    def _cimports(self):
        """The cy<lib> names the declarations use: all of them (`cimport *`), or, in a layer that
        declares the #define type aliases itself, every other one by name."""
        o = [f"from cuda.bindings cimport {self.cy}"]
        if self.helpers:
            o.append("from cuda.bindings cimport cydriver")
        if not self.aliases:
            return o + [f"from cuda.bindings.{self.cy} cimport *"]
        own = self.m.type_aliases
        names = sorted((self._type_names() - set(own)) | set(own.values()))
        o += _wrapped(f"from cuda.bindings.{self.cy} cimport (", names, ")")
        o += ["", "# the header's #define type aliases, declared by this module (as NVIDIA's is)"]
        o += [f"ctypedef {target} {a}" for a, target in own.items()]
        return o

    def _type_names(self):
        """Every name of cy<lib> that the declarations, bodies and except clauses use."""
        text = "\n".join(self.declaration(name, fn) for name, fn in self.fns)
        # the types as the header spells them, which a layer's own calls cast to (slot_call)
        text += "\n" + " ".join(param_type(p) for _, fn in self.fns for p in fn.params)
        if self.helpers:
            text += "\n" + "\n".join(self.helpers[1])
        # what a call whose entry point cannot be resolved returns (slot_call)
        text += f" {self.L['shutdown']} {self.L.get('lacking', '')}"
        words = set(re.findall(r"\b[A-Za-z_]\w*\b", text))
        return {w for w in words if w in _declared(self.m)} - {"void"}

    def pyx(self):
        o = [HEADER.format(ver=self.m.cuda)]
        if self.cpp:
            o.append("# distutils: language = c++")
        o += ["# cython: language_level=3", ""]
        o += _inspector(self.m.lib) + [""]
        if self.ptds:
            o += self._own_slots()
        if self.helpers:
            o += [f'include "{self.helpers[0]}"', ""]
        for name, fn in self.fns:
            o += [self.declaration(name, fn)[:-len(" nogil")] + " nogil:", self._body(name, fn), ""]
        return "\n".join(o)

    def _body(self, name, fn):
        args = ", ".join(cname(p.name) for p in fn.params)
        if self.ptds and not fn.inline and not fn.calls:
            return "\n".join(slot_call(self.m, fn, self.slot[fn.name], args))
        if self.ptds and fn.calls:      # getLocalRuntimeVersion: this layer's entry point
            called = next(f for f in self.m.functions if f.name == fn.calls)
            return f"    return {private_name(called, set())}({args})"
        if fn.ret == "void":
            return f"    {self.cy}.{fn.name}({args})"
        return f"    return {self.cy}.{fn.name}({args})"

    def _own_slots(self):
        """The slot table of a layer that resolves its entry points itself (the per-thread ones)."""
        self.slot = {fn.name: i for i, fn in enumerate(loaded(self.m))}
        return [f"cdef void* _slots[{max(len(self.slot), 1)}]", "",
                "cdef object _symbol(int i):",
                "    from cuda.bindings import _loader",
                f"    from cuda.bindings._symbols_{self.m.lib} import SYMBOLS",
                f"    return _loader.symbol({self.m.lib!r}, SYMBOLS[i], ptds=True)", "",
                "from libc.string cimport memset", ""] + RESOLVER


def _declared(model):
    """The names model's cy<lib>.pxd declares (types, enum members, functions)."""
    names = {s.name for s in model.structs} | {a for s in model.structs for a, _ in s.aliases}
    for e in model.enums:
        names |= {e.name, *e.aliases, *(n for n, _ in e.members)}
    names |= {t[0] for t in model.handles + model.inttds + model.funcptrs}
    names |= {bare(t) for t in model.handle_targets.values()}
    return names | {fn.name for fn in model.functions}


def _wrapped(head, names, tail, width=100):
    lines, line = [], head
    for n in names:
        if len(line) + len(n) + 2 > width:
            lines.append(line.rstrip())
            line = "    "
        line += n + ", "
    return lines + [line.rstrip(", ") + tail]


# cuFile's status is a struct: NVIDIA's layer reports a failure to load an entry point as the
# status {-1, -1}, which a C++ client compares (its declarations, as this module's, need C++)
_CUFILE_PRELUDE = [
    "", "cdef extern from *:",
    '    """',
    "    static inline bool operator==(const CUfileError_t& a, const CUfileError_t& b) {",
    "        return a.err == b.err && a.cu_err == b.cu_err;",
    "    }",
    "    static const CUfileError_t CUFILE_LOADING_ERROR = {(CUfileOpError)-1, (CUresult)-1};",
    '    """',
    "    const CUfileError_t CUFILE_LOADING_ERROR"]
