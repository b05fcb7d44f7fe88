"""Stage 1: read the CUDA headers.

pyclibrary gives the declarations (functions, typedefs, structs, unions, enums, #define values).
It drops comments, so the doxygen blocks and a few macro tables are read from the raw text here
with deliberately simple regular expressions.
"""
import bisect
import re
import tempfile
from pathlib import Path

from . import overrides as ov
from .libs import LIBS, interop_headers

# Predefined macros for the target ABI (x86-64 / aarch64 Linux, LP64).
_ABI_MACROS = {"__LP64__": "1", "__linux__": "1", "__x86_64__": "1", "__GNUC__": "13"}

# The graphics interop headers include GL/EGL/VDPAU headers; the few types they use come from
# the stand-ins in headers/stubs (see its README), read first by every library with interop
# headers (libs.LIBS[lib]["interop"]).
STUBS = Path(__file__).resolve().parent.parent / "headers" / "stubs"
STUB_FILES = [str(STUBS / "GL" / "gl.h"), str(STUBS / "EGL" / "egl.h"), str(STUBS / "vdpau" / "vdpau.h")]
# Files whose types belong to graphics interop (the CUDA interop headers and the stand-ins):
# the generated .pxd declares these types itself, at the Cython level (model.py: cython_level).
INTEROP_FILES = interop_headers() | {Path(f).name for f in STUB_FILES}


_SIZEOF = [(re.compile(r"sizeof\s*\(\s*[\w\s]+\*+\s*\)"), "8"),                      # any pointer, LP64
           (re.compile(r"sizeof\s*\(\s*(?:unsigned\s+|signed\s+)?int\s*\)"), "4")]


def _array_bound(m):
    """An array bound written with the sizeof of a pointer (`[64 - sizeof(T *) - 2 * sizeof(unsigned
    int)]`, which pyclibrary cannot read) as the number the compiler makes of it on the target ABI."""
    text = m.group(1)
    for pattern, size in _SIZEOF:
        text = pattern.sub(size, text)
    if not re.fullmatch(r"[\d\s+\-*/()]+", text):
        raise ValueError(f"array bound with a sizeof the parser cannot size: [{m.group(1)}]")
    return f"[{eval(text)}]"   # digits, arithmetic and parentheses only (checked above)


# Text the parser cannot follow, with what the C preprocessor makes of it, in every library's
# headers (each library's own: libs.LIBS[lib]["replace"]).
COMMON_REPLACE = {
    # unsigned literal suffixes in shifts (1u<<3) are beyond pyclibrary; same value
    r"\b(\d+)u\s*<<": r"\1<<",
    # ~0u (13.5's "any locality domain"): all bits of an unsigned int
    r"~0[uU]\b": "0xffffffff",
    # an array bound with the sizeof of a pointer (the checkpoint argument structs' reserved
    # bytes) stops pyclibrary, which reads other sizeof bounds itself
    r"\[([^\[\]]*\bsizeof\s*\([^()]*\*\s*\)[^\[\]]*)\]": _array_bound,
}


def run_pyclibrary(include_dir, files, replace=None, macros=None, origins=False):
    """The parser's definitions; with origins=True also {kind: {name: file name}} for the types,
    structs, unions, enums and functions (the file that declares each)."""
    from pyclibrary import CParser
    from pyclibrary.c_parser import logger
    import logging
    logger.setLevel(logging.ERROR)
    import warnings
    paths = [str(Path(include_dir) / f) for f in files]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # pyclibrary uses pyparsing names that now warn
        p = CParser(paths, replace=replace, macros=dict(_ABI_MACROS, **(macros or {})), process_all=True)
    if not origins:
        return p.defs
    where = {k: {} for k in ("types", "structs", "unions", "enums", "functions")}
    for fname, fdefs in p.file_defs.items():
        for k in where:
            for name in fdefs.get(k, ()):
                where[k][name] = fname
    return p.defs, where


_DOC_FN = re.compile(r"/\*\*((?:(?!\*/).)*?)\*/\s*(?P<pp>#\s*if(?:n?def)?\b[^\n]*\n\s*)?((?:__CUDA_DEPRECATED\s+)?[A-Za-z_][\w \t\*\n]*?)\b([A-Za-z_]\w*)\s*\(",
                     re.S)


def _clean_doc(block):
    lines = []
    for ln in block.splitlines():
        ln = ln.strip()
        if ln.startswith("*"):
            ln = ln[1:]
            if ln.startswith(" "):
                ln = ln[1:]
        lines.append(ln.rstrip())
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def doc_comments(text, guarded=False):
    """Map function name (as written in the prototype) -> cleaned doxygen text.  guarded: also the
    comments followed by an `#ifndef X` line before their prototype (nvJitLink.h's inline
    functions) and those of prototypes whose return type stands on the line before the name
    (cuda.h's cuLink*); the docstrings read those, the parameter classification does not."""
    out = {}
    for m in _DOC_FN.finditer(text):
        block, prefix, name = m.group(1), m.group(3), m.group(4)
        if "typedef" in prefix or "#" in prefix or "\n\n" in prefix:
            continue
        if (m.group("pp") or "\n" in prefix) and not guarded:
            continue
        out[name] = _clean_doc(block)
    return out


# An enum with the doc comment right before it, if any: its tag, body and typedef name.
_ENUM_BLOCK = re.compile(r"(?:/\*[*!]((?:(?!\*/).)*)\*/\s*)?(?:typedef\s+)?enum\s+(?:__\w+__\s+)*(\w+)?\s*"
                         r"\{([^{}]*)\}\s*(\w+)?\s*;", re.S)
# In an enum's body: a trailing member comment, a leading one, another comment, a preprocessor
# line, a member (its value up to the comma).
_ENUM_TOKEN = re.compile(r"/\*\*<(.*?)\*/|/\*\*(.*?)\*/|/\*.*?\*/|//[^\n]*|#[^\n]*|(\w+)\s*(?:=[^,/}]*)?,?", re.S)


def enum_docs(text):
    """{enum tag and typedef name: (the enum's doxygen text, {member: its doxygen text})}: the
    comment right before the enum (`/**` or `/*!`), and each member's, before it (`/** ... */`) or after it
    (`/**< ... */`); members without one are left out."""
    out = {}
    for m in _ENUM_BLOCK.finditer(text):
        doc, tag, body, name = m.groups()
        members, pending, last = {}, None, None
        for t in _ENUM_TOKEN.finditer(body):
            after, before, member = t.group(1), t.group(2), t.group(3)
            if after is not None and last and last not in members:
                members[last] = _clean_doc(after)
            elif before is not None:
                pending = _clean_doc(before)
            elif member:
                if pending:
                    members[member] = pending
                pending, last = None, member
        entry = (_clean_doc(doc) if doc else "", members)
        for key in (tag, name):
            if key:
                out.setdefault(key, entry)
    return out


_GROUP = re.compile(r"[\\@](defgroup|addtogroup|ingroup)\s+(\w+)[ \t]*([^\n]*)|(@\{)|(@\})")


# Where a type is declared: `enum X {` (struct, union; `enum __device_builtin__ X {`), `} X;`,
# `typedef T X;`, `typedef R (CB *X)(`.
_TYPE_DECL = re.compile(r"\b(?:enum|struct|union)\s+(?:__\w+__\s+)*(\w+)\s*\{|\}\s*(\w+)\s*[;,]"
                        r"|\btypedef\b[^;{}()]*?\b(\w+)\s*;|\btypedef\b[^;{}]*?\(\s*(?:\w+\s+)?\*\s*(\w+)\s*\)\s*\(")


def doc_groups(text):
    """The headers' doxygen groups: ([(name, title)] in the order they are defined, {function name
    (as in the prototype) -> group name}, {type name (enum, struct or union tag, typedef) -> group
    name}).  A function belongs to the `\\ingroup` its comment names, else to the innermost group
    opened (`\\defgroup` or `\\addtogroup`, then `@{`) around its prototype; an `@{` that names no
    group (a member group) stays in the group around it.  A type likewise, its comment being the
    last one before its name with no `;` between (`/** \\ingroup error */ typedef enum {...}
    nvrtcResult;`)."""
    events = []         # (position, the _GROUP match)
    comments = []       # (end, the group its \ingroup names or None), member comments (/**<) left out
    for c in re.finditer(r"/\*.*?\*/", text, flags=re.S):
        for m in _GROUP.finditer(c.group(0)):
            events.append((c.start() + m.start(), m))
        if not c.group(0).startswith("/**<"):
            own = re.search(r"[\\@]ingroup\s+(\w+)", c.group(0))
            comments.append((c.end(), own.group(1) if own else None))
    fns, types = _declared(text, comments)
    marks = sorted([(pos, "decl", ("f", name)) for name, (pos, _) in fns.items()]
                   + [(pos, "decl", ("t", name)) for name, (pos, _) in types.items()]
                   + [(pos, "g", m) for pos, m in events], key=lambda x: x[0])
    groups, order, around = _group_walk(marks)

    def placed(decls, key):
        return {name: g for name, (_, own) in decls.items() if (g := own if own in groups else around[key, name])}
    return [(n, groups[n]) for n in order], placed(fns, "f"), placed(types, "t")


def _declared(text, comments):
    """({function: (position, the group its comment's \\ingroup names or None)}, the same of the
    types); `comments` as doc_groups reads them."""
    fns = {}
    for m in _DOC_FN.finditer(text):
        if "typedef" in m.group(3) or "#" in m.group(3) or "\n\n" in m.group(3):
            continue
        own = re.search(r"[\\@]ingroup\s+(\w+)", m.group(1))
        fns.setdefault(m.group(4), (m.start(4), own.group(1) if own else None))
    # prototypes with no comment of their own, or one the pattern above misses (cuda.h writes
    # `CUresult CUDAAPI` on the line before `cuLinkCreate(...)`): placed by where they stand
    bare = re.sub(r"/\*.*?\*/|//[^\n]*", lambda c: " " * len(c.group(0)), text, flags=re.S)
    for m in _PROTO.finditer(bare):
        fns.setdefault(m.group(1), (m.start(1), None))
    types = {}
    ends = [e for e, _ in comments]
    for m in _TYPE_DECL.finditer(bare):
        i = next(k for k in range(1, 5) if m.group(k))
        pos = m.start(i)
        c = bisect.bisect_left(ends, pos) - 1
        own = comments[c][1] if c >= 0 and ";" not in bare[comments[c][0]:pos] else None
        types.setdefault(m.group(i), (pos, own))
    return fns, types


def _group_walk(marks):
    """Walk the group commands and the declarations in the order they stand: ({group: title},
    [group] in the order defined, {(kind, declaration): the innermost group open around it})."""
    groups, order, stack, around = {}, [], [], {}
    pending = None      # a group named in this comment, which an `@{` opens
    for pos, kind, v in marks:
        if kind == "decl":
            around[v] = stack[-1] if stack else None
            continue
        cmd, name, title = v.group(1), v.group(2), v.group(3)
        title = re.sub(r"\s*\*/\s*$", "", title or "").strip()     # `/** \\defgroup X Title */`
        if cmd in ("defgroup", "addtogroup"):
            # `\\addtogroup X Title` defines X where no `\\defgroup X` does
            if name not in groups and (cmd == "defgroup" or title):
                groups[name] = title or name
                order.append(name)
            pending = name
        elif v.group(4):
            stack.append(pending or (stack[-1] if stack else None))
            pending = None
        elif v.group(5):
            if stack:
                stack.pop()
    return groups, order, around


_PARAM = re.compile(r"^\\param\s+(\w+)\s*(.*)$")


_PARAM_DIR = re.compile(r"^[\\@]param\s*\[\s*(in|out|in\s*,\s*out|inout)\s*\]\s*(\w+)|^[\\@]param\s+(\w+)\s*\[\s*(in|out)\s*\]")


def doc_param_dirs(doc):
    """The directions doxygen gives parameters (`\\param[out] x`, `@param [in] x`): name -> "in",
    "out" or "inout"."""
    out = {}
    for ln in doc.splitlines():
        m = _PARAM_DIR.match(ln.strip())
        if m:
            d, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            out[name] = "inout" if "," in d or d == "inout" else d
    return out


_PARAM_ANY = re.compile(r"^[\\@]param\s*(?:\[[^\]]*\]\s*)?(\w+)\s*(?:\[[^\]]*\])?\s*(.*)$")


def doc_params_any(doc):
    """doc_params for the headers that write `@param` and direction brackets (cuFile, NVML, cuDLA,
    nvFatbin): name -> description."""
    params, cur = {}, None
    for ln in doc.splitlines():
        m = _PARAM_ANY.match(ln.strip())
        if m:
            cur = m.group(1)
            params[cur] = m.group(2).lstrip("-: ").strip()
        elif cur and ln.strip() and not ln.strip().startswith(("\\", "@")):
            params[cur] += " " + ln.strip()
        else:
            cur = None
    return params


def doc_params(doc):
    """\\param entries of a doxygen text: name -> description (continuation lines joined)."""
    params, cur = {}, None
    for ln in doc.splitlines():
        m = _PARAM.match(ln.strip())
        if m:
            cur = m.group(1)
            params[cur] = m.group(2).lstrip("-: ").strip()
        elif cur and ln.strip() and not ln.strip().startswith("\\"):
            params[cur] += " " + ln.strip()
        else:
            cur = None
    return params


_VERSIONED = re.compile(r"^\s*#\s*define\s+(\w+)\s+(\w+)\s*$", re.M)
_PTDS = re.compile(r"^\s*#\s*define\s+(\w+)\s+__CUDA(?:RT)?_API_(PTDS|PTSZ)\((\w+)\)", re.M)


def versioned_names(text):
    """C symbol -> API name, from `#define cuMemAlloc cuMemAlloc_v2`, the per-thread forms
    `#define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)` and renames such as
    `#define cuGraphInstantiate cuGraphInstantiateWithFlags`."""
    out = {}
    for a, b in _VERSIONED.findall(text):
        if a != b and b.startswith(a) and a.startswith("cu"):
            out[b] = a
    for a, kind, b in _PTDS.findall(text):
        if a != b and b.startswith(a):
            out[b] = a
    return out


def ptds_names(text):
    """API name -> per-thread symbol suffix ('_ptds' or '_ptsz')."""
    return {a: "_" + kind.lower() for a, kind, b in _PTDS.findall(text) if a == b or b.startswith(a)}


# (13.5's cudaTypedefs.h writes some without the space: "typedef CUresult(CUDAAPI *PFN_...")
_PFN = re.compile(r"typedef\s+\w+\s*\(CUDAAPI\s*\*PFN_(\w+?)_v(\d+)(_ptds|_ptsz)?\)\s*\(([^;]*)\)\s*;")


# 12.9's cudaTypedefs.h declares a few without the version in the typedef's name, which a #define
# gives instead: "#define PFN_cuLibraryGetKernelCount PFN_cuLibraryGetKernelCount_v12040" and
# "typedef CUresult (CUDAAPI *PFN_cuLibraryGetKernelCount)(unsigned int *count, CUlibrary lib);"
_PFN_PLAIN = re.compile(r"typedef\s+\w+\s*\(CUDAAPI\s*\*PFN_(\w+)\)\s*\(([^;]*)\)\s*;")
_PFN_DEFINE = re.compile(r"^\s*#\s*define\s+PFN_(\w+)\s+PFN_(\w+?)_v(\d+)(_ptds|_ptsz)?\s*$", re.M)


def pfn_versions(text):
    """cudaTypedefs.h: API name -> list of (version, suffix, parameter names)."""
    def names(params):
        out = []
        for p in params.split(","):
            p = p.strip()
            if p and p != "void":
                out.append(re.findall(r"\w+", p)[-1])
        return out
    out = {}
    for name, ver, suf, params in _PFN.findall(text):
        out.setdefault(name, []).append((int(ver), suf or "", names(params)))
    plain = dict(_PFN_PLAIN.findall(text))
    for alias, name, ver, suf in _PFN_DEFINE.findall(text):
        have = {(v, x) for v, x, _ in out.get(name, [])}
        if alias == name and name in plain and (int(ver), suf or "") not in have:
            out.setdefault(name, []).append((int(ver), suf or "", names(plain[name])))
    return out


_ABI_SYM = re.compile(r"^\s*extern\s+\w+\s+(__(\w+?)_\d+_\d+)\s*\(", re.M)


def abi_symbols(text):
    """nvJitLink.h: public inline names call versioned entry points (__nvJitLinkCreate_13_0)."""
    return {api: sym for sym, api in _ABI_SYM.findall(text)}


_INLINE = re.compile(r"static\s+(?:__inline__|inline)[^;{(]*?\b(\w+)\s*\(")


_EXTERN = re.compile(r"\bextern\s[^;{(]*?\b(\w+)\s*\(")


def inline_functions(text):
    """Names of static inline functions with no extern declaration: header code (make_cudaExtent),
    not library entry points.  (cudaLaunchKernel has both: an extern declaration and, in one
    per-thread configuration, an inline redirect.)"""
    return set(_INLINE.findall(text)) - set(_EXTERN.findall(text))


def interop_names(where):
    """{kind: names} of the types, structs, unions and enums that an interop file declares."""
    return {k: sorted(n for n, f in names.items() if f in INTEROP_FILES)
            for k, names in where.items() if k != "functions"}


_PROTO = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^;{}()]*)\)\s*;")


def spelled_params(text):
    """Function name -> its parameters as the header writes them (the first declaration, comments
    removed), by position.  The parser expands macros, so `cudaStreamAttrID attr` reaches it as
    `cudaLaunchAttributeID attr`; the model keeps the header's spelling for the declarations."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    out = {}
    for name, params in _PROTO.findall(text):
        out.setdefault(name, [" ".join(p.split()) for p in params.split(",")])
    return out


def anonymous_order(text):
    """The names pyclibrary gives the anonymous structs and unions (anon_struct0, anon_union0, ...:
    each kind counted in the order their definitions end, so a nested one before the type around
    it), in the order they begin in the text, each with whether it is nested in another type (not
    the body of a typedef)."""
    bare = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    found = []
    for m in re.finditer(r"\b(typedef\s+)?(struct|union)\s*\{", bare):
        depth, i = 0, m.end() - 1
        while i < len(bare):
            depth += {"{": 1, "}": -1}.get(bare[i], 0)
            if depth == 0:
                break
            i += 1
        found.append((m.start(), i, m.group(2), not m.group(1)))
    count = {"struct": 0, "union": 0}
    name = {}
    for start, _, kind, _ in sorted(found, key=lambda f: f[1]):
        name[start] = f"anon_{kind}{count[kind]}"
        count[kind] += 1
    return [(name[start], nested) for start, _, _, nested in found]


def read(include_dir, lib):
    """Everything the model needs for one library, as plain data."""
    inc = Path(include_dir)
    L = LIBS[lib]
    files = L["headers"]
    release = cuda_release(inc)
    extra = ov.extra_declarations(release, lib)
    with tempfile.TemporaryDirectory(prefix="codegen-extra.") as tmp:
        parsed = list(files)
        if extra:    # declarations the headers lack (overrides.EXTRA_DECLARATIONS), parsed after them
            extra_file = Path(tmp) / f"{lib}_extra.h"
            extra_file.write_text("\n".join(text for text, _, _ in extra) + "\n")
            parsed.append(str(extra_file))
        defs, where = run_pyclibrary(inc, (STUB_FILES if L.get("interop") else []) + parsed,
                                     dict(COMMON_REPLACE, **L.get("replace", {})), L.get("macros"), origins=True)
        from_extra = {k: sorted(n for n, f in names.items() if extra and f == extra_file.name)
                      for k, names in where.items()}
    python = {}
    for text, wrapped, _ in extra:
        for name in _PROTO.findall(text):
            python[name[0]] = wrapped
    text = "\n".join((inc / f).read_text(encoding="utf-8", errors="replace") for f in files)
    tdtext = "\n".join((inc / f).read_text(encoding="utf-8", errors="replace")
                       for f in L.get("typedef_headers", []))
    docs = doc_comments(text)
    return {
        "defs": defs,
        "docs": docs,
        "enum_docs": enum_docs(text),
        "guarded_docs": {k: v for k, v in doc_comments(text, guarded=True).items() if k not in docs},
        "versioned": versioned_names(text),
        "ptds": ptds_names(text),
        "pfn": pfn_versions(tdtext),
        "csyms": abi_symbols(text),
        "inline": {n: where["functions"].get(n, "") for n in sorted(inline_functions(text))},
        "spelled": spelled_params(text),
        "anonymous": anonymous_order(text),
        "cuda": cuda_release(inc),
        "groups": doc_groups(text),
        "interop": interop_names(where),
        # what overrides.EXTRA_DECLARATIONS declared: {kind: names}, and per function whether it
        # gets a Python wrapper; EXTRA_ENUM_MEMBERS of this release
        "extra": dict(from_extra, python=python),
        "extra_entries": extra,
        "extra_members": ov.EXTRA_ENUM_MEMBERS.get(release, {}),
    }


def cuda_version(include_dir):
    """cuda.h's CUDA_VERSION in `include_dir` (1000 * major + 10 * minor)."""
    from headers.fetch import cuda_version_of
    v = cuda_version_of(Path(include_dir))
    if v is None:
        raise ValueError(f"{include_dir}/cuda.h defines no CUDA_VERSION")
    return v


def cuda_release(include_dir):
    """The CUDA release ("13.0") of the headers in `include_dir`."""
    v = cuda_version(include_dir)
    return f"{v // 1000}.{v % 1000 // 10}"
