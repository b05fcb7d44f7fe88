"""Stage 2: the plain data model.

Everything the emitter needs, as dataclasses that serialise to JSON (`Model.to_json`).  The
parameter roles of each function are decided here, from the C types and the doxygen text, with
the exceptions in overrides.py.
"""
import copy
import dataclasses
import json
import os
import re
from dataclasses import dataclass, field

from . import overrides as ov
from .libs import LIBS
from .names import param_name
from .parse import doc_param_dirs, doc_params, doc_params_any

# C scalar types: name -> (Cython spelling, size, kind) kind: i (signed), u (unsigned), f (float)
SCALARS = {
    "char": ("char", 1, "i"), "signed char": ("signed char", 1, "i"),
    "unsigned char": ("unsigned char", 1, "u"), "short": ("short", 2, "i"),
    "unsigned short": ("unsigned short", 2, "u"), "int": ("int", 4, "i"),
    "unsigned int": ("unsigned int", 4, "u"), "long": ("long", 8, "i"),
    "unsigned long": ("unsigned long", 8, "u"), "long long": ("long long", 8, "i"),
    "unsigned long long": ("unsigned long long", 8, "u"), "size_t": ("size_t", 8, "u"),
    "signed long long": ("long long", 8, "i"),
    "float": ("float", 4, "f"), "double": ("double", 8, "f"),
    "int8_t": ("int8_t", 1, "i"), "uint8_t": ("uint8_t", 1, "u"),
    "int16_t": ("int16_t", 2, "i"), "uint16_t": ("uint16_t", 2, "u"),
    "int32_t": ("int32_t", 4, "i"), "uint32_t": ("uint32_t", 4, "u"),
    "int64_t": ("int64_t", 8, "i"), "uint64_t": ("uint64_t", 8, "u"),
    "uintptr_t": ("uintptr_t", 8, "u"), "intptr_t": ("intptr_t", 8, "i"),
    "bool": ("bint", 1, "u"), "_Bool": ("bint", 1, "u"),
    "unsigned": ("unsigned int", 4, "u"), "signed": ("int", 4, "i"),
    # POSIX types of cufile.h (Cython spells ssize_t as Py_ssize_t; off_t comes from posix.types)
    "ssize_t": ("Py_ssize_t", 8, "i"), "off_t": ("off_t", 8, "i"),
    "long int": ("long", 8, "i"), "unsigned long int": ("unsigned long", 8, "u"),
    "short int": ("short", 2, "i"), "unsigned short int": ("unsigned short", 2, "u"),
}


@dataclass
class Enum:
    name: str
    members: list            # [(name, value)]
    aliases: list = field(default_factory=list)
    tag_only: bool = False   # `enum X` with no typedef: C spells it with the keyword
    doc: str = ""            # the doxygen text of the enum (parse.enum_docs)
    member_docs: dict = field(default_factory=dict)   # member -> its doxygen text, where it has one


@dataclass
class Field:
    name: str
    ctype: str               # the field's declared type name (base, no pointers)
    ptr: int                 # pointer depth
    dims: list               # array dimensions
    cls: str                 # category of the base type: scalar/enum/inttd/handle/struct/funcptr/void
    count: str = ""          # name of the sibling field counting a pointer-array field
    in_union: bool = False   # a member of an anonymous union (C11) of the struct: shares its bytes


@dataclass
class Struct:
    name: str                # Python class name (tag, or typedef name if the tag is anonymous)
    ctype: str               # C spelling of the type
    union: bool
    fields: list
    host: str = ""           # for anonymous nested types: "<C type of the top>|<member path>"
    aliases: list = field(default_factory=list)   # [(alias, parent alias)] in definition order
    tagless: bool = False    # `typedef struct {...} X;`: C knows it only by the typedef name X


@dataclass
class Param:
    name: str                # C name
    pyname: str              # Python name
    ctype: str               # base type
    ptr: int
    const: bool
    cls: str                 # category of the base type
    role: str                # in / out / inout / hidden
    conv: str                # conversion (see emit_py.py)
    extra: dict = field(default_factory=dict)
    decl: list = field(default_factory=list)  # [base, ptr] as the header declares it, where ctype/ptr differ
    # the Cython type keeping the header's const qualifiers where they stand (`const uint64_t`,
    # `cudlaDevHandle* const`), for a library whose C-API spells them so (libs.LIBS: keep_const)
    cdecl: str = ""


@dataclass
class Function:
    name: str                # API name (Python)
    csym: str                # C symbol in the header (may be versioned)
    ret: str
    params: list
    doc: str = ""
    # the doxygen text a docstring reads where `doc` has none: a comment that an `#ifndef` line
    # separates from its prototype (nvJitLink.h); classify_params reads `doc` only
    pydoc: str = ""
    group: str = ""          # the header's doxygen group (parse.doc_groups), for the reference pages
    pfn_version: int = 0
    proc: str = ""           # the name cuGetProcAddress is asked for, when not `name` (see build)
    ptds: str = ""           # '_ptds'/'_ptsz' when a per-thread variant exists
    ptds_version: int = 0
    python: bool = True
    cdecl: str = ""          # C parameter list text
    inline: str = ""         # a static inline function of this header (make_cudaExtent): no library symbol
    calls: str = ""          # not in the headers: calls this entry point with its own arguments
    # a getter filling a caller buffer (nvrtcGetPTX(prog, char*)): the function that tells its byte
    # count (nvrtcGetPTXSize(prog, size_t*)), which the wrapper asks to check the buffer
    size_query: str = ""


@dataclass
class Model:
    lib: str
    # "" for the library's own module; "v2" for cuda.bindings._v2.<lib>, which the v2 emitter reads
    # from a copy of the model (libs.config: the settings of each)
    variant: str = ""
    cuda: str = ""      # the CUDA release of the headers ("13.0"), set by codegen.__main__.generate
    enums: list = field(default_factory=list)
    structs: list = field(default_factory=list)
    handles: list = field(default_factory=list)      # [(name, parent or "")]
    inttds: list = field(default_factory=list)       # [(name, parent or "", cython base type, size, signed)]
    funcptrs: list = field(default_factory=list)     # [(name, parent or "")]
    functions: list = field(default_factory=list)
    defines: list = field(default_factory=list)      # [(name, value)]
    # #defines whose value is a C expression of sizeof() (NVML's struct versions:
    # `nvmlMemory_v2` = `sizeof(nvmlMemory_v2_t) | 2 << 24`): [(name, expression)], the expression
    # with its token pasting done, for the C compiler to evaluate
    sizeof_defines: list = field(default_factory=list)
    typedefs: dict = field(default_factory=dict)     # handle / function pointer names
    handle_targets: dict = field(default_factory=dict)   # handle -> 'struct X' or 'void'
    const_handles: list = field(default_factory=list)    # handles to a const target (cudaArray_const_t)
    funcptr_sigs: dict = field(default_factory=dict)     # function pointer -> (ret, params)
    type_categories: dict = field(default_factory=dict)  # typedef name -> category
    functypes: list = field(default_factory=list)       # function types (not pointers): VdpGetProcAddress
    # Type names the .pxd declares itself, at the Cython level, instead of importing the C
    # header's (see build): C code then sees Cython's mangled name for them.
    cython_level: list = field(default_factory=list)
    # the type aliases that are #define macros (#define cudaStreamAttrID cudaLaunchAttributeID),
    # among cython_level: {alias: the type it names}
    type_aliases: dict = field(default_factory=dict)
    c_prelude: list = field(default_factory=list)    # C declarations the .pxd writes itself (overrides.EXTRA_DECLARATIONS)
    groups: list = field(default_factory=list)      # [(name, title)]: the headers' doxygen groups, in order
    # the anonymous structs and unions in the order the headers have them: [(name, nested)]
    anonymous: list = field(default_factory=list)
    # the headers' group of each enum, struct, handle, integer and function pointer type, by its name
    type_groups: dict = field(default_factory=dict)

    def to_json(self):
        return json.dumps(dataclasses.asdict(self), indent=1, sort_keys=True)


def _tstr(t):
    """pyclibrary Type -> (base name, pointer depth, dims, const, funcsig or None)."""
    base = t.type_spec
    ptr, dims, fsig = 0, [], None
    for d in t.declarators:
        if d == "*":
            ptr += 1
        elif isinstance(d, list):
            dims.extend(d)
        elif isinstance(d, tuple):
            fsig = d
    # a const at any level is put on the base type (`void *const *dsts` reads as `const void **`):
    # Cython's declarations, and the reference package's C-API signatures, spell it so
    const = any("const" in (q or ()) for q in (t.type_quals or ()))
    base = re.sub(r"^const\s+", "", base).strip()
    return base, ptr, dims, const, fsig


class Types:
    """Resolves type names to categories."""

    def __init__(self, defs):
        self.defs = defs
        self.types = defs["types"]
        self.handle_targets = {}

    def resolve(self, name):
        """Follow typedefs: returns (final base, extra pointer depth, dims, funcsig, chain)."""
        ptr, dims, chain, fsig = 0, [], [name], None
        while name in self.types and not name.startswith(("struct ", "union ", "enum ")):
            b, p, d, c, f = _tstr(self.types[name])
            ptr += p
            dims += d
            if f is not None:
                fsig = f
                name = b
                break
            name = b
            chain.append(name)
        return name, ptr, dims, fsig, chain

    def category(self, name):
        foreign = LIBS.get(getattr(self, "lib", ""), {}).get("foreign", {})
        if name in foreign:        # a type of another header (cufile.h's CUstream, CUresult)
            return foreign[name]
        if name in SCALARS or name == "void":
            return "scalar" if name != "void" else "void"
        base, ptr, dims, fsig, chain = self.resolve(name)
        if fsig is not None:
            return "funcptr"
        if base.startswith("enum "):
            return "enum" if ptr == 0 else "unknown"
        if base.startswith("struct ") or base.startswith("union "):
            if ptr == 1:
                return "handle"
            if ptr == 0:
                return "struct"
            return "unknown"
        if base in SCALARS:
            if ptr == 0 and not dims:
                return "inttd" if name not in SCALARS else "scalar"
            if ptr == 1 and base == "void":
                return "handle"
        if base == "void" and ptr == 1:
            return "handle"
        return "unknown"

    def scalar_of(self, name):
        base, ptr, dims, fsig, chain = self.resolve(name)
        return SCALARS.get(base)


def _struct_ctype(tag, union):
    return ("union " if union else "struct ") + tag


def build(raw, lib):
    """The model of library `lib` from what parse.read gives, in stages: enums, structs and unions,
    the other typedefs, the types declared at the Cython level, the headers' groups of the types,
    the constants, the functions."""
    T = Types(raw["defs"])
    T.lib = lib
    T.cuda = raw.get("cuda", "")
    T.spelled = raw.get("spelled", {})
    group_order = raw.get("groups", ([], {}, {}))[0]
    m = Model(lib=lib, groups=[list(g) for g in group_order], anonymous=[list(a) for a in raw.get("anonymous", [])])
    type_macros = _type_macros(T.defs)
    m.enums = _enums(T.defs, raw)
    _enum_aliases(m.enums, T.types, type_macros)
    m.structs = _StructReader(T, type_macros).structs()
    _typedefs(m, T)
    # the type aliases that are #define macros (#define cudaStreamAttrID cudaLaunchAttributeID)
    type_aliases = set(type_macros) & ({a for e in m.enums for a in e.aliases}
                                       | {a for s in m.structs for a, _ in s.aliases})
    m.cython_level = _cython_level(m, T.defs, raw.get("interop", {}), type_aliases)
    m.type_aliases = {a: type_macros[a].strip() for a in sorted(type_aliases)}
    # types declared by overrides.EXTRA_DECLARATIONS (CUoutput_mode): the .pxd gives C their
    # declarations itself, and Cython their C names, as if a header had them
    m.c_prelude = [text for text, _, _ in raw.get("extra_entries", []) if "typedef" in text]
    m.type_groups = _type_groups(m, raw.get("groups", ([], {}, {}))[2])
    _defines(m, T.defs)
    m.functions = _functions(raw, T, type_aliases)
    m.functions += _added_functions(m, raw)
    return m


def _type_macros(defs):
    """The #defines whose value is one name: maybe a type's other name (#define cudaStreamAttrValue
    cudaLaunchAttributeValue)."""
    return {k: v for k, v in defs["macros"].items()
            if isinstance(v, str) and re.fullmatch(r"[A-Za-z_]\w*", v.strip() or "-")}


def _enums(defs, raw):
    """The enums, each named by its first typedef (by its tag where it has none), with the members
    overrides.EXTRA_ENUM_MEMBERS adds."""
    enum_tags = {}
    for tname, t in defs["types"].items():
        b, p, d, c, f = _tstr(t)
        if b.startswith("enum ") and p == 0:
            enum_tags.setdefault(b[5:], []).append(tname)
    out = []
    for tag, members in defs["enums"].items():
        names = enum_tags.get(tag, [])
        tag_only = False
        if not names:
            if tag.startswith("anon_enum"):
                continue
            names, tag_only = [tag], True
        primary = names[0]
        values = list(members.items())
        for extra_name, value in raw.get("extra_members", {}).get(primary, []):   # overrides.EXTRA_ENUM_MEMBERS
            if extra_name not in members:
                values.append((extra_name, value))
        doc, member_docs = raw.get("enum_docs", {}).get(tag, raw.get("enum_docs", {}).get(primary, ("", {})))
        out.append(Enum(primary, values, names[1:], tag_only, doc, dict(member_docs)))
    return out


def _enum_aliases(enums, types, type_macros):
    """Give each enum the other names of its typedef: typedefs of it (CUstreamAttrID ->
    CUlaunchAttributeID), to any depth, and #define aliases."""
    by_name = {}
    for e in enums:
        for n in [e.name] + e.aliases:
            by_name[n] = e
    changed = True
    while changed:
        changed = False
        for tname, t in types.items():
            b, p, d, c, f = _tstr(t)
            if p == 0 and not d and f is None and b in by_name and tname not in by_name:
                by_name[b].aliases.append(tname)
                by_name[tname] = by_name[b]
                changed = True
    for k, v in type_macros.items():
        v = v.strip()
        if v in by_name and k not in by_name:
            by_name[v].aliases.append(k)
            by_name[k] = by_name[v]


class _StructReader:
    """The structs and unions of the headers: those with fields, each with its typedef names in
    definition order, and the anonymous ones nested in them (collected through their hosts)."""

    def __init__(self, T, type_macros):
        self.T, self.defs = T, T.defs
        types = T.types
        self.records = LIBS.get(T.lib, {}).get("snake", {}).get("records")
        self.aliases = {}       # tag -> its typedefs
        self.alias_of = {}      # typedef chains (CUDA_MEMCPY2D -> CUDA_MEMCPY2D_v2 -> struct CUDA_MEMCPY2D_st)
        for tname, t in types.items():
            b, p, d, c, f = _tstr(t)
            if p == 0 and not d and f is None and (b.startswith("struct ") or b.startswith("union ")):
                self.aliases.setdefault(b.split(" ", 1)[1], []).append((tname, None))
            if p == 0 and not d and f is None and b in types:
                self.alias_of[tname] = b
        for k, v in type_macros.items():
            v = v.strip()
            if v in types and k not in types and not v.startswith(("struct ", "union ", "enum ")):
                self.alias_of[k] = v
        self.collected = {}

    def structs(self):
        """The structs, anonymous ones first, each group in natural order of the names."""
        for kind in ("structs", "unions"):
            for tag, st in self.defs[kind].items():
                self._top(tag, kind == "unions", st)
        return sorted(self.collected.values(), key=lambda s: (not s.name.startswith("anon_"), _natkey(s.name)))

    def _top(self, tag, union, st):
        names = [n for n, _ in self.aliases.get(tag, [])]
        tagless = tag.startswith("anon_")
        if tagless and not names:
            return      # a nested anonymous type: collected through its host
        if not st.members:
            return      # opaque: only used through handles
        ctype = names[0] if names else _struct_ctype(tag, union)
        s = Struct(names[0] if tagless else tag, ctype, union, [], tagless=tagless)
        if tagless:     # named by its first typedef, which is not an alias then
            names = names[1:]
        self.collected[tag] = s
        s.fields = self._fields(tag, union, [], ctype)
        s.aliases = self._alias_chain(s.name, names, tagless)

    def _alias_chain(self, root, names, tagless):
        """[(alias, parent)] of a struct named `root` whose typedefs are `names`: parents first."""
        chain = []
        pending = list(names)
        done = {root}
        if tagless and self.records:
            # the typedefs of a tagless struct's typedef (`typedef nvmlX_v1_t nvmlX_t;`)
            pending += [n for n, parent in self.alias_of.items() if parent == root and n not in pending]
        guard = 0
        while pending and guard < 100:
            guard += 1
            for n in list(pending):
                parent = root if n in names else self.alias_of.get(n)
                if parent in done:
                    chain.append((n, parent))
                    done.add(n)
                    pending.remove(n)
            for n2, parent in list(self.alias_of.items()):
                if parent in done and n2 not in done and n2 not in pending:
                    pending.append(n2)
        return chain

    def _collect(self, tag, union, top_ctype, path):
        """A nested anonymous type, reached from the top type `top_ctype` by the member `path`."""
        if tag in self.collected:
            return
        s = Struct(tag, "", union, [], host=top_ctype + "|" + ".".join(path))
        self.collected[tag] = s
        s.fields = self._fields(tag, union, path, top_ctype)

    def _fields(self, tag, union, host_path, top_ctype):
        """The fields of a struct or union (those of a C11 anonymous member included), each list
        field paired with the sibling that counts its items."""
        src = (self.defs["unions"] if union else self.defs["structs"])[tag]
        out = []
        for fname, ftype, _ in src.members:
            b = _tstr(ftype)[0]
            if fname is None and (b.startswith("struct ") or b.startswith("union ")):
                # C11 anonymous member: its fields belong to the enclosing type
                members = self._fields(b.split(" ", 1)[1], b.startswith("union "), host_path, top_ctype)
                for f in members:
                    f.in_union = f.in_union or b.startswith("union ")
                out.extend(members)
            else:
                out.append(self._field(fname, ftype, host_path, top_ctype))
        # pointer + count pairs: attrs/numAttrs, paramArray/count, accessDescs/accessDescCount
        names = {f.name for f in out}
        for f in out:
            if f.cls in ("structptr", "ptrarray", "handleptr", "handle") and f.ptr:
                cap = f.name[0].upper() + f.name[1:]
                for cand in ("num" + cap, "num" + cap + "s", f.name + "Count", f.name[:-1] + "Count",
                             ov.POINTER_COUNT.get(f.name), "count"):
                    if cand in names:
                        f.count = cand
                        break
        return out

    def _field(self, fname, ftype, host_path, top_ctype):
        """One field, its type's category (`cls`); a nested anonymous type it holds is collected."""
        b, p, d, c, fsig = _tstr(ftype)
        if fsig is not None:
            cat = "funcptr"
        elif b.startswith("struct ") or b.startswith("union "):
            inner = b.split(" ", 1)[1]
            src_tbl = self.defs["unions"] if b.startswith("union ") else self.defs["structs"]
            if p == 0:
                cat = "struct"
            elif p == 1:   # `struct X *`: an array of X if X has fields, else an opaque handle
                cat = "structptr" if inner in src_tbl and src_tbl[inner].members else "handle"
            else:
                cat = "unknown"
            if inner.startswith("anon_") and p == 0:
                # an array of them is reached through its first item (offsetof needs one)
                self._collect(inner, b.startswith("union "), top_ctype, host_path + [fname + "[0]" * len(d)])
        else:
            cat = _pointer_category(self.T.category(b), b, p)
        return Field(fname, b.split(" ", 1)[1] if b.startswith(("struct ", "union ", "enum ")) else b, p, d, cat)


def _pointer_category(cat, b, p):
    """The category of a field of base type `b` (category `cat`) behind `p` pointers."""
    if cat == "struct" and p >= 1:
        return "structptr"
    if cat == "handle" and p >= 1:
        return "handleptr" if p == 1 else "unknown"
    if cat in ("scalar", "enum", "inttd") and p >= 1:
        return "voidp" if b == "void" else ("cstr" if b == "char" and p == 1 else "ptrarray")
    if cat == "void" and p == 1:
        return "voidp"
    if cat == "void" and p == 2:
        return "voidpp"
    return cat


def _typedefs(m, T):
    """Handles, integer typedefs and function pointer types (their names in m.typedefs), and the
    category of every typedef name."""
    types = T.types
    for tname, t in types.items():
        b, p, d, c, f = _tstr(t)
        if f is not None:
            _funcptr(m, tname, t)
            continue
        if d:
            continue
        if p == 1 and (b.startswith("struct ") or b.startswith("union ") or b == "void"):
            m.handles.append((tname, ""))
            m.handle_targets[tname] = b
            T.handle_targets[tname] = b
            if c:
                m.const_handles.append(tname)
        elif p == 0 and b in SCALARS and tname not in SCALARS:
            cy, size, k = SCALARS[b]
            m.inttds.append((tname, "", cy, size, k))
        elif p == 0 and b in types:
            cat = T.category(tname)
            if cat == "handle":
                m.handles.append((tname, b))
            elif cat == "inttd":
                sc = T.scalar_of(tname)
                m.inttds.append((tname, b, sc[0], sc[1], sc[2]))
            elif cat == "funcptr":
                m.funcptrs.append((tname, b))
    for tname, _ in m.handles + m.funcptrs:
        m.typedefs[tname] = tname
    for tname in types:
        if not tname.startswith(("struct ", "union ", "enum ")):
            m.type_categories[tname] = T.category(tname)


def _funcptr(m, tname, t):
    """A function pointer type (or function type) and its signature."""
    b, p, d, c, f = _tstr(t)
    m.funcptrs.append((tname, ""))
    # stars before the parameter list belong to the return type, one after it makes a function
    # pointer type; none after it is a function type (VdpGetProcAddress)
    decl = list(t.declarators)
    after = decl[next(i for i, x in enumerate(decl) if isinstance(x, tuple)) + 1:]
    if "*" not in after:
        m.functypes.append(tname)
    ps = []
    for pn, pt, _ in f:
        if pn is None and pt.type_spec == "void" and not pt.declarators:
            continue
        pb, pp, pd, pc, pf = _tstr(pt)
        ps.append((pn or f"arg{len(ps)}", pb, pp, pc))
    m.funcptr_sigs[tname] = ((b, p - after.count("*"), c), ps)


def _cython_level(m, defs, io, type_aliases):
    """The types declared at the Cython level, as the reference package declares them, so that
    the C-API signatures (the capsule names compiled clients check) carry the same names:

    * the graphics interop types (GL/EGL/VDPAU and CUDA's interop headers): this also lets
      clients build without the GL/EGL/VDPAU development headers;
    * the type aliases that are #define macros (#define cudaStreamAttrID cudaLaunchAttributeID):
      a preprocessor name, not a C type, so the .pxd defines the alias itself.

    Opaque struct tags (CUeglStreamConnection_st) stay C names: C needs no definition for them."""
    cy = {n for n in io.get("types", ()) if not n.startswith(("struct ", "union ", "enum "))}
    cy.update(e.name for e in m.enums if e.tag_only and e.name in io.get("enums", ()))  # enum cudaGLDeviceList
    for kind in ("structs", "unions"):
        cy.update(n for n in io.get(kind, ()) if defs[kind][n].members)
    cy.update(type_aliases)
    return sorted(cy)


def _type_groups(m, type_group):
    """The headers' group of each type, by the first of its names that the headers place."""
    typenames = [[e.name] + e.aliases for e in m.enums] + [[s.name] + [a for a, _ in s.aliases] for s in m.structs]
    typenames += [[t[0]] for t in m.handles + m.inttds + m.funcptrs]
    out = {}
    for names in typenames:
        g = next((type_group[n] for n in names if n in type_group), "")
        if g:
            out[names[0]] = g
    return out


def _defines(m, defs):
    """The #define values (ints and floats), the sizeof() expressions (m.sizeof_defines), and the
    #defines that name an enum member (another name of it)."""
    enum_values = {k for e in defs["enums"].values() for k in e}
    enum_value_of = {k: v for e in defs["enums"].values() for k, v in e.items()}
    member_of = {k: e for e in m.enums for k, _ in e.members}
    for k, v in defs["values"].items():
        target = defs["macros"].get(k)
        if target in member_of and k not in enum_values and k.split("_")[:2] == target.split("_")[:2]:
            # #define NVJITLINK_ERROR_NULL_INPUT NVJITLINK_ERROR_INVALID_INPUT (12.9: a code of a
            # later release spelt as an existing one): another name of that enum's member
            e = member_of[target]
            e.members.append((k, dict(e.members)[target]))
            continue
        if v is None and target in enum_value_of and k not in enum_values:
            v = enum_value_of[target]   # #define CU_STREAM_ATTRIBUTE_X CU_LAUNCH_ATTRIBUTE_X
        if v is None and "sizeof" in (defs["macros"].get(k) or "") and not k.startswith("_"):
            # pyclibrary leaves `##` in a function-like macro's expansion: pasted here
            m.sizeof_defines.append((k, re.sub(r"\s*##\s*", "", " ".join(defs["macros"][k].split()))))
            continue
        if k in enum_values or v is None or k.startswith("_"):
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            m.defines.append((k, v))


def _functions(raw, T, type_aliases):
    """The functions the headers declare, in their order.  The struct-style modules bind every
    entry point by its own name (cuFileDriverClose and cuFileDriverClose_v2 both), as the
    reference does, the plain name calling what C calls by it (the header's #define makes
    cuFileDriverClose() cuFileDriverClose_v2(), in the reference's compiled code too); the others
    bind a versioned one by its API name (raw["versioned"])."""
    records = LIBS.get(T.lib, {}).get("snake", {}).get("records")
    vmap = {} if records else raw["versioned"]
    if records:
        raw = dict(raw, csyms={**{api: v for v, api in raw["versioned"].items()}, **raw.get("csyms", {})})
    size_queries = _size_queries({vmap.get(c, c): ft for c, ft in T.defs["functions"].items()})
    return [_function(raw, T, csym, ft, vmap, size_queries, type_aliases) for csym, ft in T.defs["functions"].items()]


def _function(raw, T, csym, ft, vmap, size_queries, type_aliases):
    """The function of entry point `csym`, its parameters classified."""
    api = vmap.get(csym, csym)
    # static inline in the header (make_cudaExtent, ...): no library symbol; the Cython-level
    # function calls the header's code, the Python level has its own (overrides.MAKE_FUNCTIONS)
    inline = raw.get("inline", {}).get(api, "") if api not in raw.get("csyms", {}) else ""
    params = [(n, t) for n, t, _ in ft[1] if n is not None]
    fn = Function(api, raw.get("csyms", {}).get(api, csym), ft[0].type_spec, [],
                  doc=raw["docs"].get(api, raw["docs"].get(csym, "")))
    if not fn.doc:
        guarded = raw.get("guarded_docs", {})
        fn.pydoc = guarded.get(api, guarded.get(csym, ""))
    fn_group = raw.get("groups", ([], {}, {}))[1]
    fn.group = fn_group.get(api, fn_group.get(csym, ""))
    fn.size_query = size_queries.get(api, "")
    fn.cdecl = ", ".join(_cdecl(t, n) for n, t in params) or "void"
    _abi_versions(fn, raw, T.defs, csym, [n for n, _ in params], vmap)
    fn.params = classify_params(fn, params, T, T.lib)
    # a parameter the header types with a #define alias (cudaStreamAttrID) keeps that name in
    # the declarations: the parser only saw what the macro expands to
    spelled = raw.get("spelled", {}).get(csym) or raw.get("spelled", {}).get(api) or []
    if len(spelled) == len(fn.params):
        for prm, text in zip(fn.params, spelled):
            alias = [w for w in re.findall(r"[A-Za-z_]\w*", text) if w in type_aliases]
            if alias and not prm.decl:
                prm.decl = [alias[0], prm.ptr]
    if api in ov.SKIP_PYTHON or (inline and not LIBS.get(T.lib, {}).get("snake", {}).get("records")):
        fn.python = False
    if api in raw.get("extra", {}).get("python", {}):    # overrides.EXTRA_DECLARATIONS
        fn.python = raw["extra"]["python"][api]
    fn.inline = inline
    return fn


def _same_parameters(a, b):
    """Whether two parameter-name lists are one signature's: the header's prototype and its
    cudaTypedefs.h typedef spell a name differently at times (13.5's cuStreamGetCtx_v2: pCtx and
    pctx)."""
    return [x.lower() for x in a] == [x.lower() for x in b]


def _abi_versions(fn, raw, defs, csym, names, vmap):
    """fn's ABI version (cudaTypedefs.h's PFN_<name>_v<version> whose parameters are its own), the
    name cuGetProcAddress is asked for where not its own (fn.proc), and its per-thread variant's."""
    api = fn.name
    pfn = raw["pfn"].get(api, [])
    if not pfn and re.search(r"_v\d+$", api):
        # a versioned entry point the header declares under its own name (12.9's cuCtxCreate_v4):
        # the ABI version of its unversioned name's typedef with the same parameters (the loader
        # asks cuGetProcAddress for the unversioned name, the one it knows, at that version)
        base = re.sub(r"_v\d+$", "", api)
        pfn = [x for x in raw["pfn"].get(base, []) if _same_parameters(x[2], names)]
    plain = sorted([x for x in pfn if not x[1]], key=lambda x: -x[0])
    match = [x for x in plain if _same_parameters(x[2], names)]
    if not match and csym != api:
        # the header #defines the API name to another entry point (cuGraphInstantiate ->
        # cuGraphInstantiateWithFlags) whose prototype it declares: the API name's own ABI
        # versions are an older signature, so the entry point is asked for by its own name
        target = [x for x in raw["pfn"].get(csym, []) if not x[1] and _same_parameters(x[2], names)]
        if target:
            fn.proc, match = csym, target
    if match and any(re.fullmatch(re.escape(api) + r"_v\d+", other) and other != csym and vmap.get(other, other) != api
                     and _same_parameters([n for n, _, _ in oft[1] if n is not None], names)
                     for other, oft in defs["functions"].items()):
        # the header also declares api_vN with these parameters (12.9's cuEventElapsedTime and
        # cuEventElapsedTime_v2): the unversioned name is the older entry point.  Not where
        # api_vN takes other parameters (12.9's cuCtxCreate, #defined to cuCtxCreate_v2, beside
        # cuCtxCreate_v3 and _v4): there the newest ABI version with these parameters is it
        match = match[-1:]
    pick = (match or plain or [(0, "", [])])[0]
    fn.pfn_version = pick[0]
    fn.ptds = raw["ptds"].get(api, "")
    if fn.ptds:
        # the per-thread variant of the same signature (cuStreamGetCtx's at 9020, not 12050's,
        # which takes a third parameter)
        pv = [x for x in pfn if x[1] == fn.ptds and _same_parameters(x[2], pick[2])]
        fn.ptds_version = max([x[0] for x in pv], default=fn.pfn_version)


def _added_functions(m, raw):
    """Functions that are not in the headers: Cython-level ones, each calling an entry point
    (overrides.CALL_FUNCTIONS), and the entry points declared only in cudaProfilerTypedefs.h
    (cudaProfiler.h is not in the wheels)."""
    out = []
    by_name = {f.name: f for f in m.functions}
    for api, (target, why) in ov.CALL_FUNCTIONS.get(m.lib, {}).items():
        fn = copy.deepcopy(by_name[target])
        fn.name, fn.csym, fn.doc, fn.calls, fn.python = api, "", f"\\brief {why}", target, False
        fn.pfn_version, fn.ptds, fn.ptds_version = 0, "", 0
        out.append(fn)
    have = {f.name for f in m.functions} | {f.name for f in out}
    for api, ret in ov.EXTRA_FUNCTIONS.get(m.lib, []):
        if api not in have:
            out.append(Function(api, api, ret, [], doc=f"\\brief {api}", cdecl="void"))
    for api, versions in sorted(raw["pfn"].items()):
        if api.startswith("cuProfiler") and api not in have:
            ver, suf, names = max(versions)
            if names:
                continue   # only the argument-less ones (cuProfilerStart/Stop) are current API
            out.append(Function(api, api, "CUresult", [], doc=f"\\brief {api}", pfn_version=ver, cdecl="void"))
    return out


def _natkey(s):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", s)]


def _cdecl(t, name):
    b, p, d, c, f = _tstr(t)
    s = ("const " if c else "") + b + " " + "*" * p + name + "".join(f"[{x}]" for x in d)
    return s


_OUTWORDS = re.compile(r"^(Returned|The returned|Returns|Return |Pointer to return|Location to return|Location where|"
                       r"Output|Optionally returns|Address of the|Pointer to the returned|"
                       r"Pointer in which|Returned|Where to store|Location to store|Pointer to store|"
                       r"Pointer to an? (?:\w+ )?(?:handle|value|location)\b.*return)", re.I)


def _size_queries(functions):
    """{getter: size query} for the getters that fill a caller buffer whose byte count another
    function tells: `XGetY(h, char* or void* buffer)` beside `XGetYSize(h, size_t*)`, or `XGet`
    beside `XSize`, `h` of one type (nvrtcGetPTX / nvrtcGetPTXSize, nvJitLinkGetLinkedCubin /
    nvJitLinkGetLinkedCubinSize, nvvmGetProgramLog / nvvmGetProgramLogSize, nvFatbinGet /
    nvFatbinSize)."""
    def sig(ft):
        return [_tstr(t)[:4] for n, t, _ in ft[1] if n is not None]
    out = {}
    for name, ft in functions.items():
        qname = next((n for n in (name + "Size", name[:-3] + "Size" if name.endswith("Get") else "")
                      if n in functions), None)
        if qname is None:
            continue
        q = functions[qname]
        mine, theirs = sig(ft), sig(q)
        if (len(mine) == 2 and len(theirs) == 2 and mine[0] == theirs[0]
                and mine[1][0] in ("char", "void") and mine[1][1] == 1 and not mine[1][3]
                and theirs[1][:2] == ("size_t", 1)):
            out[name] = qname
    return out


# A parameter the doxygen text calls a list of items ("Array of nodes", "An array of attributes",
# "List of launch parameters", "Array containing ...", "Array to store ..."), not "Array
# descriptor" (cuArrayCreate's: one descriptor of a CUDA array).
_LIST_DOC = re.compile(r"^(?:Array|An array|List)\s+(?:of|containing|to)\b")
# An output the text calls an array or buffer the function fills: "Output array of resources",
# "Optional array to return edge data", "Array to store ...", "Buffer where the kernel handles are
# returned to"; not "Array of resources to be included" (read) or "Returned array" (a CUDA array).
_OUT_LIST_DOC = re.compile(r"^Output\s+(?:array|list|buffer)\b"
                           r"|^(?:Optional\s+)?(?:[Aa]rray|[Ll]ist|[Bb]uffer)\s+(?:to|where|in which)\s+[^.]*?"
                           r"\b(?:return|store|write|fill)")
# parameters that may count the items of an array: numX, pNumX, nbX, count, xCount
_COUNT_NAME = re.compile(r"^p?(?:[Nn]um|nb)[A-Z]|^count$|Count$")


def _count_stem(name):
    return re.sub(r"^p?(?:[Nn]um|nb)(?=[A-Z])|Count$", "", name).lower()


def _output_array_count(cname, params, dp):
    """The parameter counting an output array the doxygen text describes as one (_OUT_LIST_DOC), or
    None.  Candidates are the integer parameters named like counts (_COUNT_NAME), passed by value
    or by pointer; the pick is the one whose text names the array (`\\p result`), or that the
    array's text names, or whose name's stem (nbGroups: "groups") the array's name or text has, or
    the only candidate."""
    doc = dp.get(cname, "")
    cands = [n for n, t in params if n != cname and _COUNT_NAME.search(n)
             and _tstr(t)[0] in SCALARS and _tstr(t)[1] <= 1 and not _tstr(t)[3]]
    if not cands:
        return None
    for ok in (lambda n: re.search(rf"\\p\s+{cname}\b", dp.get(n, "")),
               lambda n: re.search(rf"\\p\s+{n}\b", doc),
               lambda n: len(_count_stem(n)) >= 4 and (_count_stem(n) in doc.lower()
                                                       or cname.lower().startswith(_count_stem(n)[:4]))):
        hit = [n for n in cands if ok(n)]
        if len(hit) == 1:
            return hit[0]
    return cands[0] if len(cands) == 1 else None


def _array_count(fn_name, cname, names):
    """overrides.ARRAY_COUNT's count for an output array, also for a runtime function from the entry
    of its driver twin (cudaLibraryEnumerateKernels from cuLibraryEnumerateKernels) when the
    parameter and its count have the same names there: the runtime's wrapper of a driver call
    writes the same array."""
    if (fn_name, cname) in ov.ARRAY_COUNT:
        return ov.ARRAY_COUNT[(fn_name, cname)]
    if fn_name.startswith("cuda"):
        cnt = ov.ARRAY_COUNT.get(("cu" + fn_name[4:], cname))
        if cnt is not None and (isinstance(cnt, int) or cnt in names):
            return cnt
    return None


def _override_key(fn_name, cname):
    """The key of a parameter in the override tables: (function, C parameter).  A versioned entry
    point that the tables do not name takes the entries of its unversioned name: 12.9's
    cuGraphGetEdges_v2 has the parameters (and the C signature) of 13.0's cuGraphGetEdges, and
    NVIDIA's package wraps the two alike."""
    key = (fn_name, cname)
    base = re.sub(r"_v\d+$", "", fn_name)
    tables = (ov.PARAM_ROLE, ov.ARRAY_COUNT, ov.KERNEL_PARAMS, ov.ATTRIBUTE_PARAMS, ov.ATTRIBUTE_LISTS,
              ov.STRBUF_LEN, ov.LIST_COUNT, ov.PARAM_TYPE)
    if base != fn_name and not any(key in t for t in tables) and any((base, cname) in t for t in tables):
        return base, cname
    return key


# NVML's and cuFile's words for an output: "Reference in which to return the name", "Reference to
# return the ...", "size of the returned ..."
_OUTWORDS_LIB = re.compile(r"^(Reference (?:in which )?to return|Reference in which|Returns? the|"
                           r"Pointer to (?:hold|return|store)|The number of .* will be)", re.I)


def spelled_type(text, name):
    """(Cython type text, whether the pointed-to or plain base type is const) of a parameter as the
    header writes it: `uint64_t const * const ptr` -> (`const uint64_t* const`, True)."""
    words = re.findall(r"\*|[A-Za-z_]\w*", text)
    if words and words[-1] == name:
        words = words[:-1]
    base, stars, base_const = [], [], False
    for w in words:
        if w == "*":
            stars.append(False)
        elif w == "const":
            if stars:
                stars[-1] = True
            else:
                base_const = True
        else:
            base.append(w)
    cy = ("const " if base_const else "") + " ".join(base) + "".join("*" + (" const" if c else "") for c in stars)
    return cy, base_const


class _Params:
    """What the parameter rules of one function read: its doxygen text (per parameter, and the
    struct-style libraries' [in]/[out] marks), the header's spelling of its parameters, and the
    library's settings."""

    def __init__(self, fn, params, T, lib):
        self.fn, self.params, self.T, self.lib = fn, params, T, lib
        self.names = [n for n, _ in params]
        L = self.L = LIBS.get(getattr(T, "lib", ""), {})
        self.records = L.get("snake", {}).get("records")
        self.keep_const = L.get("keep_const")
        spelled = getattr(T, "spelled", {}).get(fn.csym) or getattr(T, "spelled", {}).get(fn.name) or []
        self.spelled = spelled if len(spelled) == len(params) else []
        self.dp = doc_params_any(fn.doc) if self.records else doc_params(fn.doc)
        self.dirs = doc_param_dirs(fn.doc) if self.records else {}
        self.handle_of = {}      # a handle's target type -> the handle
        for hname, tgt in getattr(T, "handle_targets", {}).items():
            if tgt != "void":
                self.handle_of.setdefault(tgt, hname)


class _Seen:
    """What the rules read of one parameter besides its Param: its key in the override tables,
    its doxygen text, whether that text calls it an output, and its inline function type."""

    def __init__(self, cx, cname, fsig):
        self.cname, self.fsig = cname, fsig
        # the struct-style modules' tables name each versioned entry point itself
        self.key = (cx.fn.name, cname) if cx.records else _override_key(cx.fn.name, cname)
        self.doc = doc = cx.dp.get(cname, "")
        self.out_doc = bool(_OUTWORDS.match(doc)) or cname.endswith("_out") or cname.endswith("Out")
        if cx.records:
            # the struct-style libraries say "[out]" or "Reference in which to return"
            d = cx.dirs.get(cname)
            self.out_doc = d in ("out", "inout") or (d is None and (self.out_doc or bool(_OUTWORDS_LIB.match(doc))))


def classify_params(fn, params, T, lib):
    """fn's parameters (C name, pyclibrary type) as Params: each one's role (in / out / inout /
    hidden) and conversion, by the first of the rules (_RULES) that applies, the override
    tables' role (PARAM_ROLE), then the rules over the whole list."""
    cx = _Params(fn, params, T, lib)
    out = []
    for i, (cname, t) in enumerate(params):
        prm, seen = _param(cx, i, cname, t)
        if not any(rule(cx, prm, seen) for rule in _RULES):
            prm.conv = "unknown"
        _role_override(cx, prm, seen)
        also = ov.HANDLE_ALSO.get(prm.ctype)
        if also and prm.conv == "handle" and prm.role == "in" and re.search(also[1], fn.doc):
            prm.extra = dict(prm.extra, also=also[0])
        out.append(prm)
    if cx.records:
        _records_rules(fn, out, T)
    _sized_data(fn.name, out)
    _pair_list_counts(fn.name, out, cx.dp)
    for prm in out:
        if (fn.name, prm.name) in ov.IMPLICIT_COUNT:
            # a count the struct-style modules take from the length of the struct array it counts
            prm.extra = dict(prm.extra, implicit=ov.IMPLICIT_COUNT[fn.name, prm.name])
        if (fn.name, prm.name) in ov.PARAM_DEFAULT:
            prm.extra = dict(prm.extra, default=ov.PARAM_DEFAULT[fn.name, prm.name])
    _counts_in_out(out)
    _trailing_defaults(out)
    return out


def _param(cx, i, cname, t):
    """The Param of the i-th parameter, its type as the rules read it (the role `in`, no
    conversion yet), and what else they read of it."""
    b, p, d, c, fsig = _tstr(t)
    decl = []
    typed = ov.PARAM_TYPE.get((cx.fn.name, cname))
    if typed and b == "void" and p == 1:
        b = typed[0]                # overrides.PARAM_TYPE: a void* with one pointee type
        decl = ["void", 1]          # (the C declaration stays void*)
    if p == 2 and b in cx.handle_of:
        decl = [b, p]               # the C declarations keep the header's spelling
        b, p = cx.handle_of[b], 1   # `struct cudaGraphicsResource **`: a handle output
    cat = cx.T.category(b) if fsig is None else "funcptr"
    if fsig is not None:
        b, p, c = "void", 1, False   # an inline function pointer: passed as an address
    cdecl = ""
    if cx.keep_const and cx.spelled:
        # `T *const x` is a const pointer to a T the call may write, not a `const T*` input
        cdecl, c = spelled_type(cx.spelled[i], cname)
    if cx.records:
        # the struct-style modules: the reference's names, snake_case of the C name
        pyname = (ov.PUBLIC_PARAM.get((getattr(cx.T, "cuda", ""), cx.fn.name, cname))
                  or ov.PUBLIC_PARAM.get((cx.fn.name, cname)) or param_name(cname))
    else:
        pyname = ov.RENAME.get(cname, cname)
    return Param(cname, pyname, b, p, c, cat, "in", "", decl=decl, cdecl=cdecl), _Seen(cx, cname, fsig)


# ---- the rules, in order: each sets the role and conversion of a parameter it applies to and
# says whether it did

def _kernel_params(cx, prm, seen):
    if seen.key in ov.KERNEL_PARAMS:
        prm.conv = "kparams"
        return True


def _size_query_buffer(cx, prm, seen):
    """A caller buffer, checked against the size query (Function.size_query)."""
    if cx.fn.size_query and prm.ptr == 1 and prm.ctype in ("char", "void") and not prm.const:
        prm.conv = "buf_w"
        return True


def _caller_buffer(cx, prm, seen):
    """A caller buffer, checked against its size parameter (overrides.CALLER_BUFFERS)."""
    if seen.key in ov.CALLER_BUFFERS:
        prm.conv = "buf_w"
        prm.extra = {"size": ov.CALLER_BUFFERS[seen.key]}
        return True


def _inline_funcptr(cx, prm, seen):
    """A function pointer declared in the parameter list, which no typedef names (NVRTC's
    `int (*callback)(void*, void*)`): a `void*`, as NVIDIA's package takes it (an address, a
    ctypes function or a buffer), as a struct field of such a type is."""
    if seen.fsig is not None:
        prm.conv = "voidp"
        return True


def _jit_options(cx, prm, seen):
    """The JIT options (an array of enums) and their values (overrides.JIT_OPTIONS, JIT_OPTION_VALUES)."""
    if seen.cname in ov.JIT_OPTION_VALUES and prm.ctype == "void" and prm.ptr == 2:
        prm.conv = "jitvalues"
        return True
    if seen.cname in ov.JIT_OPTIONS and prm.cls == "enum" and prm.ptr == 1:
        prm.conv = "array"
        return True


def _attribute(cx, prm, seen):
    """A value whose type an attribute argument selects (overrides.ATTRIBUTE_PARAMS), or a list of
    them (ATTRIBUTE_LISTS)."""
    if seen.key in ov.ATTRIBUTE_PARAMS:
        attr_param, enum, *size = ov.ATTRIBUTE_PARAMS[seen.key]
        prm.extra = {"attr": attr_param, "enum": enum, "size": size[0] if size else ""}
        prm.role = "out" if ("Get" in cx.fn.name) else "in"
        prm.conv = "attr"
        return True
    if seen.key in ov.ATTRIBUTE_LISTS:
        attr_param, enum, sizes, count = ov.ATTRIBUTE_LISTS[seen.key]
        prm.extra = {"attr": attr_param, "enum": enum, "sizes": sizes or "", "count": count}
        prm.role, prm.conv = "out", "attr_list"
        return True


def _strbuf_len(cx, prm, seen):
    """A string written into a buffer whose length another parameter gives (overrides.STRBUF_LEN)."""
    if seen.key in ov.STRBUF_LEN:
        prm.role, prm.conv = "out", "strbuf"
        prm.extra = {"len": ov.STRBUF_LEN[seen.key]}
        return True


def _by_value(cx, prm, seen):
    if prm.ptr == 0:
        prm.conv = {"scalar": "scalar", "enum": "enum", "inttd": "inttd", "handle": "handle",
                    "funcptr": "handle", "struct": "struct_val"}.get(prm.cls, "unknown")
        return True


def _char_ptr(cx, prm, seen):
    """A C string, or a buffer the library fills where the library says so (libs.py); a string
    output where the text calls it one and a length follows."""
    if prm.ctype == "char" and prm.ptr == 1:
        prm.conv = "buf_w" if not prm.const and cx.L.get("char_buffers") else "cstr"
        if not prm.const and seen.out_doc:
            lens = [n for n in cx.names if n in ("len", "length", "bufferSize", "size")]
            if lens:
                prm.role, prm.conv = "out", "strbuf"
                prm.extra = {"len": lens[0]}
        return True


def _char_ptr_ptr(cx, prm, seen):
    """A string the call returns, or a list of strings."""
    if prm.ctype == "char" and prm.ptr == 2:
        if prm.const and seen.out_doc or (not prm.const and "Returned" in seen.doc):
            prm.role, prm.conv = "out", "cstr_out"
        else:
            prm.conv = "strlist"
        return True


def _void_ptr(cx, prm, seen):
    """Memory by address, or (where the text calls it an output) an address-sized value the call writes."""
    if prm.ctype == "void" and prm.ptr == 1:
        if seen.out_doc and not prm.const:
            prm.role, prm.conv = "out", "voidp_out_val"
        else:
            prm.conv = "voidp"
        return True


def _void_ptr_ptr(cx, prm, seen):
    """An address the call returns, or (const, or overrides.VOIDPP_INPUTS) a list of addresses."""
    if prm.ctype == "void" and prm.ptr == 2:
        if not prm.const and seen.cname not in ov.VOIDPP_INPUTS:
            prm.role, prm.conv = "out", "voidp_out"
        else:
            prm.conv = "voidpp"
        return True


_ITEMS = ("scalar", "enum", "inttd", "handle", "funcptr", "struct")    # what a T* points to


def _output_array(cx, prm, seen):
    """An array the call fills, sized by its count (ARRAY_COUNT, or the doxygen text)."""
    if not (prm.ptr == 1 and prm.cls in _ITEMS):
        return False
    counted = _array_count(seen.key[0], seen.cname, cx.names)
    if (counted is None and not prm.const and _OUT_LIST_DOC.match(seen.doc)
            and ov.PARAM_ROLE.get(seen.key, ("",))[0] != "in"):
        counted = _output_array_count(seen.cname, cx.params, cx.dp)
    if counted is not None:
        prm.role, prm.conv = "out", "array_out"
        prm.extra = {"count": counted}
        return True


def _const_pointer(cx, prm, seen):
    """const T*: a struct the call reads, or an array of items."""
    if prm.ptr == 1 and prm.cls in _ITEMS and prm.const:
        prm.conv = "struct_ptr" if prm.cls == "struct" and not _LIST_DOC.match(seen.doc) else "array"
        return True


def _struct_pointer(cx, prm, seen):
    """A struct the call fills (the text calls it returned, or a getter's), a list of structs, or
    a struct it reads (a non-const struct pointer that the text does not call returned)."""
    if prm.ptr == 1 and prm.cls == "struct":
        if _LIST_DOC.match(seen.doc):
            prm.conv = "array"
        elif seen.out_doc or "Get" in cx.fn.name:
            prm.role, prm.conv = "out", "struct_out"
        else:
            prm.conv = "struct_ptr"
        return True


def _value_pointer(cx, prm, seen):
    """A value the call writes, or (the text calls it one) a list of items."""
    if prm.ptr == 1 and prm.cls in _ITEMS:
        if _LIST_DOC.match(seen.doc):
            prm.conv = "array"
        else:
            prm.role, prm.conv = "out", "value_out"
        return True


_RULES = (_kernel_params, _size_query_buffer, _caller_buffer, _inline_funcptr, _jit_options, _attribute,
          _strbuf_len, _by_value, _char_ptr, _char_ptr_ptr, _void_ptr, _void_ptr_ptr, _output_array,
          _const_pointer, _struct_pointer, _value_pointer)


def _role_override(cx, prm, seen):
    """The role overrides.PARAM_ROLE gives a parameter, and the conversion that follows from it:
    `addr` (memory the caller gives by address), `ref` (a value the wrapper passes by reference),
    in, out, inout or hidden."""
    if seen.key not in ov.PARAM_ROLE:
        return
    role, why = ov.PARAM_ROLE[seen.key]
    if role == "addr":
        prm.role, prm.conv = "in", "voidp"
    elif role == "ref":
        prm.role, prm.conv = "in", "value_ref"
    elif role == "in":
        prm.role = role
        prm.conv = _as_input(prm, "rray" in why)
    elif role == "out":
        prm.role = role
        _as_output(cx, prm, seen)
    else:
        prm.role = role
        if role == "inout":
            prm.conv = "value_inout"


def _as_input(prm, listed):
    """The conversion of a parameter the override table makes an input (`listed`: its reason
    calls it an array)."""
    if prm.conv == "value_out" and prm.cls == "funcptr":
        return "voidp"
    if prm.conv == "value_out" and prm.cls == "handle" and not listed:
        return "handle_ref"
    if prm.conv in ("struct_out", "value_out"):
        return "array" if listed else "struct_ptr"
    if prm.conv == "array" and prm.cls == "struct" and not listed:
        return "struct_ptr"     # one struct, which the doc's "Array" wording does not make a list
    if prm.conv == "voidp_out_val":
        return "voidp"
    return prm.conv


def _as_output(cx, prm, seen):
    """The conversion of a parameter the override table makes an output."""
    count = _array_count(seen.key[0], seen.cname, cx.names)
    if count is not None:
        prm.conv = "array_ref_out" if prm.ptr == 2 else "array_out"
        prm.extra = {"count": count}
    elif prm.conv in ("voidp", "voidpp", "unknown"):
        prm.conv = "voidp_out" if prm.ptr == 2 else ("voidp_out_val" if prm.ctype == "void" else "value_out")
    elif prm.ctype == "char" and prm.ptr == 2:
        prm.conv = "cstr_out"
    elif prm.conv == "struct_ptr":
        prm.conv = "struct_out"


def _counts_in_out(params):
    """Array outputs' counts that are pointers become in/out, and may be omitted: 0 asks for the
    count alone (the arrays are then not written)."""
    for prm in params:
        if prm.conv == "array_out" and isinstance(prm.extra.get("count"), str):
            for q in params:
                if q.name == prm.extra["count"] and q.ptr == 1 and q.role == "out":
                    q.role, q.conv = "inout", "value_inout"
                    q.extra = {"default": 0}


def _trailing_defaults(params):
    """A default only where every later argument has one too (cuDeviceGetCliqueInfo(count, dev):
    the count comes first, so it must be given)."""
    required = False
    for prm in reversed(params):
        if prm.role not in ("in", "inout"):
            continue
        if "default" not in prm.extra:
            required = True
        elif required:
            prm.extra = {k: v for k, v in prm.extra.items() if k != "default"}


def _sized_data(fn_name, params):
    """A const char* or const void* input followed by its byte count `size` is data of that many
    bytes (an NVVM IR module, an nvJitLink input), not a C string: extra["size"] names the count,
    so the wrapper can check that a buffer holds that many bytes; so are the inputs
    overrides.SIZED_DATA names."""
    for a, b in zip(params, params[1:]):
        if (a.role == "in" and a.const and a.ptr == 1 and a.ctype in ("char", "void")
                and a.conv in ("cstr", "voidp") and b.name == "size" and b.ctype == "size_t" and b.ptr == 0):
            a.conv = "voidp"
            a.extra = dict(a.extra, size=b.name)
    for prm in params:
        if (fn_name, prm.name) in ov.SIZED_DATA:
            prm.conv = "voidp"
            prm.extra = dict(prm.extra, size=ov.SIZED_DATA[fn_name, prm.name])




_LIST_CONVS = ("array", "struct_ptr", "strlist", "jitvalues", "voidpp")


def _pair_list_counts(fn_name, params, dp=None):
    """Give each input list the input count that says how many of its items the C function
    reads (extra["count_param"]): a count numX/nbX goes with the lists whose names start like X
    (numJitOptions: jitOptions, jitOptionsValues; numDependencies: pDependencies,
    dependencyData); the other lists go with `count`, or with the function's only count.  A
    struct pointer (one struct, or a list) is paired with an unrelated numX/nbX only when its text
    calls it an array or list (cuGraphAddDependencies' edgeData: "Optional array of edge data"),
    not a struct the call reads once (cuGraphAddKernelNode's nodeParams, cuDevSmResourceSplit's
    input, cudaMallocMipmappedArray's desc)."""
    named = {c for (f, _), c in ov.LIST_COUNT.items() if f == fn_name}
    counts = [q for q in params if q.role == "in" and q.conv == "scalar"
              and (q.name == "count" or re.match(r"^(num|nb)[A-Z]", q.name) or q.name in named)]
    lists = [q for q in params if q.role == "in" and q.conv in _LIST_CONVS]
    if not counts or not lists:
        return
    generic = [q for q in counts if q.name == "count"] or (counts if len(counts) == 1 else [])
    for lst in lists:
        fixed = ov.LIST_COUNT.get(_override_key(fn_name, lst.name))
        if fixed:
            lst.extra = dict(lst.extra, count_param=fixed)
            continue
        name = re.sub(r"^p(?=[A-Z])", "", lst.name).lower()
        match = [c for c in counts if c.name != "count"
                 and len(os.path.commonprefix([re.sub(r"^(num|nb)", "", c.name).lower(), name])) >= 4]
        pick = match or generic
        if (pick and not match and lst.conv == "struct_ptr" and pick[0].name != "count"
                and not re.search(r"\b(?:array|list)\b", (dp or {}).get(lst.name, ""), re.I)):
            continue
        if pick:
            lst.extra = dict(lst.extra, count_param=pick[0].name)



_LENGTHS = ("length", "size", "bufferSize", "len")
_BUFSIZE = re.compile(r"\b(NVML_\w*BUF(?:FER)?_SIZE)\b")


def _records_rules(fn, params, T):
    """The struct-style modules' parameter rules (docs/library-modules.md, "Functions"), after the
    general classification:

    * a `char *` the call writes is a string output (_string_outputs);
    * a non-const array the call fills whose count is a sibling `<name>Size` value is an output of
      that many items (`cpuSet`, `cpuSetSize`);
    * an output array with an in/out count (ARRAY_COUNT, or a `<stem>Count` of the same stem) is
      sized by asking the library first (the wrappers call twice: _arrays_sized_first);
    * the override tables' entries for these modules (_record_tables)."""
    byname = {p.name: p for p in params}
    _string_outputs(fn, params, T)
    for p in params:
        if ((p.role, p.conv) in (("in", "array"), ("out", "value_out"))) and not p.const and p.ptr == 1:
            count = byname.get(p.name + "Size")
            if count is not None and count.ptr == 0:
                p.role, p.conv, p.extra = "out", "array_out", {"count": count.name}
    counts = [q for q in params if q.ptr == 1 and q.cls == "scalar" and q.ctype in ("unsigned int", "int")
              and (q.name == "count" or q.name.endswith("Count"))]
    _arrays_sized_first(fn, params, counts, _counted_by_text(fn, params, counts))
    _record_tables(fn, params)


def _string_outputs(fn, params, T):
    """A `char *` the call writes is a string output, its buffer as long as the largest
    `NVML_*_BUFFER_SIZE` its documentation names (else 256); where the library hides the lengths
    (NVML), the length that follows it is passed by the wrapper, by value or by reference."""
    hide_lengths = LIBS[T.lib]["snake"].get("hide_lengths")
    values = T.defs.get("values", {})
    for i, p in enumerate(params):
        if p.ctype == "char" and p.ptr == 1 and not p.const and p.conv in ("cstr", "strbuf", "buf_w"):
            sizes = [values[n] for n in _BUFSIZE.findall(fn.doc) if isinstance(values.get(n), int)]
            size = max(sizes) if sizes else 256
            nxt = params[i + 1] if i + 1 < len(params) else None
            lenp = nxt if nxt is not None and nxt.name in _LENGTHS and nxt.ctype != "char" else None
            p.role, p.conv = "out", "strbuf"
            p.extra = {"len": lenp.name if lenp else "", "size": size}
            if lenp is not None and hide_lengths:
                lenp.role = "in"
                lenp.conv = "fixed_ref" if lenp.ptr else "fixed"
                lenp.extra = {"value": size}
            elif lenp is not None and lenp.ptr:
                lenp.role, lenp.conv, lenp.extra = "in", "fixed_ref", {"value": size}


def _counted_by_text(fn, params, counts):
    """{array: its count} where the count's text says so: "Reference in which to provide the \\a
    clocksMHz array size", "Pointer to caller-supplied array size" (with the one output its text
    calls a caller-supplied buffer), or an array the call takes as NULL to count ("Can be NULL to
    discover number of ...", with the count named `count`)."""
    names = {p.name for p in params}
    dp = doc_params_any(fn.doc)
    sized = {}
    for q in counts:
        text = dp.get(q.name, "")
        named = re.search(r"\\a\s+(\w+)\s+array size", text)
        if named and named.group(1) in names:
            sized[named.group(1)] = q.name
        elif "caller-supplied array size" in text:
            bufs = [p.name for p in params if p is not q and p.ptr == 1 and not p.const and p.cls != "enum"
                    and p.ctype != "char" and "caller-supplied buffer" in dp.get(p.name, "")]
            if len(bufs) == 1:
                sized[bufs[0]] = q.name
    for p in params:
        if p.ptr == 1 and not p.const and "Can be NULL to discover" in dp.get(p.name, "") and "count" in names:
            sized.setdefault(p.name, "count")
    return sized


def _arrays_sized_first(fn, params, counts, sized):
    """Output arrays whose count is an in/out pointer: sized by asking the library first (the count
    is passed, not returned); arrays of a fixed count; handles into room for a bound the library
    gives (overrides.ARRAY_CAPACITY)."""
    byname = {p.name: p for p in params}
    for p in params:
        key = (fn.name, p.name)
        if key in ov.ARRAY_CAPACITY:
            cnt, bound = ov.ARRAY_CAPACITY[key]
            p.role, p.conv, p.extra = "out", "array_out", {"count": cnt, "capacity": bound}
            byname[cnt].role = "hidden"     # passed and read, not returned: the list's length
            continue
        cnt = ov.ARRAY_COUNT.get(key)
        if cnt is None and p.conv == "array_out":
            cnt = p.extra.get("count")      # an output array the general rules paired with its count
        if cnt is None:
            cnt = sized.get(p.name)
        if cnt is None and p.ptr == 1 and p.ctype != "char" and p not in counts and not p.const and p.cls != "enum":
            stem = [q.name for q in counts if q.name != "count" and p.name.startswith(q.name[:-5])
                    and len(q.name) > 5]
            cnt = stem[0] if stem else None
        if isinstance(cnt, str) and cnt in byname and byname[cnt].ptr == 1:
            p.role, p.conv, p.extra = "out", "array_out", {"count": cnt, "two_call": True}
            q = byname[cnt]
            q.role, q.conv, q.extra = "in", "count_ref", {}
        elif isinstance(cnt, int):
            p.role, p.conv, p.extra = "out", "array_out", {"count": cnt}


def _record_tables(fn, params):
    """The override tables of the struct-style modules: FIXED_ARG (a value the wrapper passes),
    RECORDS_IO (a struct array filled in place), UNWRAP_OUTPUT (one field of a struct output),
    STRUCT_ARGS (a struct filled from the function's own arguments)."""
    for p in params:
        key = (fn.name, p.name)
        if key in ov.FIXED_ARG:
            p.role, p.conv, p.extra = "in", "fixed_ref" if p.ptr else "fixed", {"value": ov.FIXED_ARG[key]}
        if key in ov.RECORDS_IO:
            p.role = "in" if key in ov.RECORDS_IN else "inout"
            p.conv, p.extra = "records_io", {"field": ov.RECORDS_IO[key]}
        if key in ov.OUTPUT_VERSION and p.conv == "struct_out":      # (by release: common.record_type)
            p.extra = dict(p.extra, record=ov.OUTPUT_VERSION[key])
        if key in ov.UNWRAP_OUTPUT and p.conv == "struct_out":
            p.extra = dict(p.extra, unwrap=ov.UNWRAP_OUTPUT[key])
    spec = ov.STRUCT_ARGS.get(fn.name)
    if spec:
        p = next(q for q in params if q.name == spec[0])
        p.role, p.conv = "in", "struct_args"
        p.extra = {"inputs": [list(x) for x in spec[1]], "output": spec[2]}
