"""python -m codegen.refdocs [--out DIR]: the API reference, as Markdown pages, from the model.

One page per module (driver, runtime, nvrtc, nvjitlink, nvvm, and cufile, nvfatbin, nvml and
cudla in their struct style), one for the checked companion, one for each module of the second
API (`_v2.driver`, `_v2.nvrtc`: emit_v2's functions and their stub signatures), plus an index. A module page lists its functions grouped as the headers group them (doxygen
`\\defgroup`, in header order), each with its typed signature (`pytypes.py`, as in the stubs) and
the docstring it has at run time; then its enums with their members, its types (handles,
integer types, structs and unions with their fields), each naming the header group that holds it,
and its constants.  Functions in no group are listed under "Other" (and named on stderr).  The
pages are build output (default `build/docs/`), not committed: `python -m codegen.refdocs`
remakes them.
"""
import argparse
import re
import sys
import time
from pathlib import Path

from . import docstrings, emit_v2, libs, model, parse, resolve
from . import overrides as ov
from .common import extra_enums, records_style, twin_value
from .libs import LIBS, helpers, module, of
from .pyapi import docstring, helper_signatures, module_refs, signature, successor, v2_docstring, v2_refs, v2_types

ROOT = Path(__file__).resolve().parent.parent
OTHER = "Other"            # functions the headers put in no group
HELPERS = "Helpers"        # functions of the module that no C function makes


def anchor(text):
    """The anchor GitHub's Markdown gives a heading."""
    a = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
    return a


def _doc_block(text):
    """A docstring as the generated source quotes it (first line, then lines indented by 4), as a
    fenced text block of the text help() shows."""
    lines = text.replace("\\\\", "\\").splitlines()
    body = [lines[0]] + [ln[4:] if ln.startswith("    ") else ln for ln in lines[1:]]
    return ["```text", *[ln.rstrip() for ln in body], "```"]


def _functions(m):
    """[(Python name, signature text, docstring text, group name)] of the module's public functions."""
    refs = module_refs(m)
    out = []
    for fn in m.functions:
        if not fn.python:
            continue
        name, sig = signature(m, fn)
        out.append((name, sig, docstring(m, fn, refs), fn.group))
    return out


def ungrouped(m):
    """The module's functions in no header group (the page's "Other" section)."""
    titles = {g for g, _ in m.groups}
    return [fn.name for fn in m.functions if fn.python and fn.group not in titles]


def _function_sections(m, fns):
    """(the contents' lines of the function groups, the groups' sections): the module's functions
    grouped as the headers group them, those in no group under "Other"."""
    titles = dict((g, t) for g, t in m.groups)
    used = [g for g, _ in m.groups if any(f[3] == g for f in fns)]
    if any(f[3] not in titles for f in fns):
        used.append(OTHER)
    contents, sections = [], []
    for g in used:
        title = titles.get(g, OTHER)
        n = sum(1 for f in fns if (f[3] if f[3] in titles else OTHER) == g)
        contents.append(f"- [{title}](#{anchor(title)}) ({n})")
        sections += [f"## {title}", ""]
        for name, sig, doc, group in fns:
            if (group if group in titles else OTHER) == g:
                sections += [f"### {name}", "", "```python", f"def {sig}", "```", "", *_doc_block(doc), ""]
    return contents, sections


def _helpers_head(what):
    """The start of the Helpers section: sizeof (of `what`)."""
    return [f"## {HELPERS}", "", "Written by hand rather than generated from a C function.", "",
            "### sizeof", "", "```python", "def sizeof(objType: type) -> int", "```", "",
            f"The C size in bytes of {what}.", ""]


def _constants(m):
    return ["## Constants", "", "| name | value |", "| --- | --- |"] + [f"| `{n}` | `{twin_value(m, 'defines', v)!r}` |" for n, v in m.defines] + [""]


def _field_rows(columns, rows):
    """A table of a struct's fields, where it has any."""
    return ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)] + rows + [""] if rows else []


def records_page(m):
    """The Markdown page of a struct-style module (cuFile, NVML, nvFatbin, cuDLA): its functions
    grouped as the header groups them, its exceptions, enums, struct classes (with their numpy
    dtypes and fields) and constants, all by their Python names."""
    L = of(m)
    cfg = L["snake"]
    rn = m.resolved.records
    fns = _functions(m)
    enums = [(c, py, mem) for c, py, mem in rn.enums] + [(None, py, mem) for py, mem in ov.DEFINE_ENUMS_OF(m)]
    contents, sections = _function_sections(m, fns)
    o = [f"# cuda.bindings.{m.lib}", "",
         f"{L['title']}: {len(fns)} functions, {len(enums)} enums, {len(rn.layout)} struct classes, "
         f"{len(m.defines)} constants, in the snake_case style of NVIDIA's module "
         "([library-modules.md](../../docs/library-modules.md)): a function returns its outputs and "
         f"raises `{cfg['error']}` on a failed status. Generated from the CUDA {m.cuda} headers by "
         "`python -m codegen.refdocs`; the signatures are the stubs'.", "",
         "## Contents", ""] + contents
    o += [f"- [{HELPERS}](#{anchor(HELPERS)})", "- [Exceptions](#exceptions)", "- [Enums](#enums)",
          "- [Types](#types)", "- [Constants](#constants)", ""] + sections
    return "\n".join(o + _records_rest(m, enums, int) + _constants(m))


def _records_rest(m, enums, value):
    """The Helpers, Exceptions, Enums and Types sections of a struct-style module's page (`enums`:
    [(C name or None, Python name, members)]; `value`: a member's value as the module has it)."""
    rn = m.resolved.records
    o = _records_helpers(m) + _records_exceptions(m) + ["## Enums", ""]
    for c, py, members in enums:
        o += [f"### {py}", "", (f"C enum `{c}`." if c else "From the header's `#define` constants of one kind.") + "", ""]
        o += ["| member | value |", "| --- | ---: |"] + [f"| `{n}` | {int(value(v))} |" for n, v in members] + [""]
    o += ["## Types", "", "Each class holds the C memory of one struct or of an array of them: "
          "`ptr` is its address, `from_ptr`, `from_buffer` and `from_data` make one over existing memory, "
          "a numpy record of its dtype, or a copy; fields read and write as properties.", ""]
    dtype_of = {c: d for d, c in rn.dtypes.items()}
    for st in rn.layout:
        py = rn.cls[st.name]
        cname = st.aliases[0][0] if st.aliases and st.name.startswith("anon_") else st.ctype
        cname = re.sub(r"^(?:struct|union) ", "", cname)       # the C name a tagged struct's class is of
        o += [f"### {py}", "", f"C {'union' if st.union else 'struct'} `{cname}`"
              + (f"; numpy dtype `{dtype_of[py]}`" if py in dtype_of else "") + ".", ""]
        o += _field_rows(("field", "C field", "type", "set from"), [
            f"| `{ft.name}` | `{ft.field.name}` | `{ft.read}` |" + (f" `{ft.write}` |" if ft.write != ft.read else " |")
            for ft in m.resolved.fields[st.name] if ft.shown])
    return o


def v2_page(m):
    """The Markdown page of cuda.bindings._v2.<lib> (m: emit_v2.v2_model's): its functions (as
    emit_v2 makes them, with their stub signatures) grouped as the header groups them, then as a
    struct-style module's page: exceptions, enums by their short member names, struct classes
    with their fields, and the module's constants."""
    L = of(m)
    rn = m.resolved.records
    refs = v2_refs(m)
    sigs = emit_v2._sigs(m)
    fns = []
    other = emit_v2.aliases(sigs)
    titles = dict(m.groups)
    for s in sigs:
        params, ret = v2_types(s)
        text = ", ".join(f"{n}: {t}" + ("" if d is None else f" = {d}") for n, t, d in params)
        # an entry point of the headers' internal section (no group) goes with its successor
        group = s.fn.group if s.fn.group in titles else getattr(successor(m, s.fn), "group", s.fn.group)
        fns.append((s.name, f"{s.name}({text}) -> {ret}", docstrings.quoted(v2_docstring(m, s, refs)), group))
        for alias, name in other.items():
            if name == s.name:
                fns.append((alias, f"{alias}({text}) -> {ret}", f"Another name of {name}.", group))
    enums = [(c, py, mem) for c, py, mem in rn.enums] + [(None, py, mem) for py, mem in ov.DEFINE_ENUMS_OF(m)]
    consts = ov.PUBLIC_CONSTANTS.get(module(m), {})
    contents, sections = _function_sections(m, fns)
    o = [f"# cuda.bindings.{module(m)}", "",
         f"{L['snake']['title']}: {len(fns)} functions, {len(enums)} enums, {len(rn.layout)} struct classes, "
         f"{len(consts)} constants; the library's second API ([v2.md](../../docs/v2.md)): snake_case names, "
         f"a function returns its outputs and raises a subclass of `{L['snake']['error']}` on a failed "
         "status; handles and device pointers are ints. Generated from the CUDA "
         f"{m.cuda} headers by `python -m codegen.refdocs`; the signatures are the module's stubs'. Each "
         "function's text is the header's, for the function as `_v2` has it: the parameters it takes, "
         "the values it returns of the C output parameters, and what it raises.", "",
         "## Contents", ""] + contents
    o += [f"- [{HELPERS}](#{anchor(HELPERS)})", "- [Exceptions](#exceptions)", "- [Enums](#enums)",
          "- [Types](#types)", "- [Constants](#constants)", ""] + sections
    o += _records_rest(m, enums, lambda v: twin_value(m, "enums", int(v)))
    o += ["## Constants", "", "| name | value |", "| --- | --- |"]
    o += [f"| `{py}` | `{twin_value(m, 'defines', dict(m.defines)[c])!r}` |" for c, py in consts.items()]
    return "\n".join(o + [""])


def _records_helpers(m):
    """The Helpers section of a struct-style module: sizeof, check_status (and check_status_size)."""
    L = of(m)
    cfg = L["snake"]
    o = _helpers_head("a struct class of this module")
    if "check_status" in cfg:
        status_py = m.resolved.records.status or L["status"]
        ret = "None" if cfg["check_status"] is None else "int"
        o += ["### check_status", "", "```python", f"def check_status(status: int) -> {ret}", "```", "",
              f"Raises the exception of a failed `{status_py}` value; returns `{cfg['check_status']!r}` for success.", ""]
        if cfg.get("message") == "library" and cfg.get("check_status_size", True):
            o += ["### check_status_size", "", "```python", "def check_status_size(status: int) -> int", "```", "",
                  f"As `check_status`, but `{cfg['insufficient'][len(L['prefix']) + 1:]}` (the answer of a size "
                  "query) is no failure.", ""]
    return o


def _records_exceptions(m):
    """The Exceptions section of a struct-style module."""
    L = of(m)
    cfg = L["snake"]
    status_py = m.resolved.records.status or L["status"]
    errors = m.resolved.records.errors
    o = ["## Exceptions", "", f"`{cfg['error']}(Exception)`: a failed call; `status` is the `{status_py}` value"
         + (", `cuda_error` the CUDA status where cuFile reports one" if cfg.get("message") == "cufile" else "")
         + ". The message names the status" + (" and gives the library's text for it" if cfg.get("message") else "")
         + ".", ""]
    if errors:
        o += [f"One subclass of `{cfg['error']}` per failed status; `except` one status by its class:", "",
              "| class | status |", "| --- | ---: |"] + [f"| `{c}` | `{n}` ({v}) |" for c, n, v in errors] + [""]
        o += [f"`{a}` is another name of `{c}`." for a, c in ov.ERROR_CLASS_ALIASES.get(module(m), {}).items()] + [""]
    return o


def module_page(m):
    """The Markdown page of cuda.bindings.<lib>."""
    if records_style(of(m)):
        return records_page(m)
    fns = _functions(m)
    titles = dict((g, t) for g, t in m.groups)
    short = {v[0]: c for c, v in of(m).get("snake", {}).get("enums", {}).items()}   # Result: nvvmResult
    enums = [(e.name, [(n, twin_value(m, "enums", int(v))) for n, v in e.members], e.aliases) for e in m.enums]
    enums += [(n, mem, []) for n, mem in extra_enums(m)]

    def in_group(name):
        """`, in <header group title>` for a type the headers place in a group, else ''."""
        g = m.type_groups.get(short.get(name, name))
        return f", in {titles[g]}" if g in titles else ""
    contents, sections = _function_sections(m, fns)
    o = [f"# cuda.bindings.{m.lib}", "",
         f"{of(m)['title']}: {len(fns)} functions, {len(enums)} enums, {len(m.structs)} structs and unions, "
         f"{len(m.handles) + len(m.funcptrs)} handle types, {len(m.inttds)} integer types, "
         f"{len(m.defines)} constants. Generated from the CUDA {m.cuda} headers by `python -m codegen.refdocs`; "
         "the signatures are the stubs' (`help()` shows the same text at run time).", "",
         "## Contents", ""] + contents
    o += [f"- [{HELPERS}](#{anchor(HELPERS)})", "- [Enums](#enums)", "- [Types](#types)",
          "- [Constants](#constants)", ""] + sections
    o += _helpers_head("a struct, handle, integer or enum class of this module") + _make_helpers(m)
    o += ["## Enums", ""]
    for name, members, aliases in enums:
        also = [a for a in aliases if a != name]
        o += [f"### {name}", "", f"C enum `{short.get(name, name)}`{in_group(name)}"
              + ("; also named " + ", ".join(f"`{a}`" for a in also) if also else "") + ".", ""]
        o += ["| member | value |", "| --- | ---: |"] + [f"| `{n}` | {int(v)} |" for n, v in members] + [""]
    o += ["## Types", "", "### Handles", "",
          "Opaque pointers: `int(h)` is the address, `getPtr()` the address of the stored value.", ""]
    o += [f"- `{n}`" + (f" (a `{p}`)" if p else "") + in_group(n) for n, p in m.handles + m.funcptrs] + [""]
    o += ["### Integer types", "", "| type | C type |", "| --- | --- |"]
    o += [f"| `{n}` | `{cy}`" + (f", a `{p}`" if p else "") + in_group(n) + " |" for n, p, cy, _, _ in m.inttds] + [""]
    for s in m.structs:
        o += [f"### {s.name}", "", f"C {'union' if s.union else 'struct'} `{s.ctype}`{in_group(s.name)}"
              + ("; also named " + ", ".join(f"`{a}`" for a, _ in s.aliases if a != s.name)
                 if any(a != s.name for a, _ in s.aliases) else "") + ".", ""]
        o += _field_rows(("field", "type", "set from"), [
            f"| `{ft.name}` | `{ft.read}` |" + (f" `{ft.write}` |" if ft.write != ft.read else " |")
            for ft in m.resolved.fields[s.name]])
    return "\n".join(o + _constants(m))


def _make_helpers(m):
    """The runtime's make_* helpers and getLocalRuntimeVersion, in the Helpers section."""
    o = []
    for sig in helper_signatures(m):
        name = sig.split("(", 1)[0]
        if name in ov.MAKE_FUNCTIONS:
            cls, _, fields = ov.MAKE_FUNCTIONS[name]
            what = (f"A new `{cls}` with its fields {', '.join(f'`{f}`' for f in fields)} set from the "
                    "arguments in order (the header's inline function of the same name).")
        else:
            what = "The version of the CUDA runtime library these bindings loaded (its cudaRuntimeGetVersion)."
        o += [f"### {name}", "", "```python", f"def {sig}", "```", "", what, ""]
    return o


def checked_page(models):
    """The page of cuda.bindings.checked: the exceptions, and each function's checked signature."""
    o = ["# cuda.bindings.checked", "",
         "The driver, runtime and NVRTC functions returning only their outputs (none: `None`; one: "
         "the value; several: a tuple) and raising on a failed status; see "
         "[docs/typed-api.md](../../docs/typed-api.md) and the [guide](../../docs/guide.md). Each "
         "function's text is its tuple-style form's, linked.", "",
         "| exception | raised by | `status` |", "| --- | --- | --- |",
         "| `StatusError` | (the base of the three below) | the enum member |"]
    o += [f"| `{LIBS[lib]['checked']}` | `cuda.bindings.checked.{lib}` | `{LIBS[lib]['status']}` |"
          for lib in libs.checked()]
    o += ["", "Each carries `status`, `name`, `message` (the library's own text), `function` and `log` "
          "(the compile log after a failed `nvrtcCompileProgram`).", ""]
    for lib in libs.checked():
        m = models[lib]
        o += [f"## cuda.bindings.checked.{lib}", ""]
        for fn in m.functions:
            if fn.python:
                sig = signature(m, fn, checked=True)[1]
                o.append(f"- [`{sig}`]({lib}.md#{anchor(fn.name)})")
        if helpers(lib):
            o.append("- [`getLocalRuntimeVersion() -> int`](runtime.md#getlocalruntimeversion)")
        o.append("")
    return "\n".join(o)


def index_page(models, v2=None):
    o = ["# cuda.bindings: API reference", "",
         f"Generated from the CUDA {models['driver'].cuda} headers by `python -m codegen.refdocs`. How to use the "
         "bindings: [the guide](../../docs/guide.md).", "",
         "| module | | functions |", "| --- | --- | ---: |"]
    for lib in libs.names():
        if lib not in models:
            continue            # no header of it in this release (cuDLA before 13.5)
        n = sum(1 for fn in models[lib].functions if fn.python)
        o.append(f"| [cuda.bindings.{lib}]({lib}.md) | {LIBS[lib]['title']} | {n} |")
    n = sum(1 for lib in libs.checked() for fn in models[lib].functions if fn.python)
    o.append(f"| [cuda.bindings.checked](checked.md) | driver, runtime and NVRTC raising exceptions | {n} |")
    for lib, m in (v2 or {}).items():
        n = sum(1 + sum(1 for a in ov.V2_NAMES["aliases"].values() if a == s.name) for s in emit_v2._sigs(m))
        o.append(f"| [cuda.bindings._v2.{lib}](_v2.{lib}.md) | {of(m)['snake']['title']} | {n} |")
    return "\n".join(o) + "\n"


def build(include_dir, out):
    """Write the pages into `out`; returns ({file name: text}, {lib: model})."""
    models = {}
    for lib in libs.names():
        if not (Path(include_dir) / LIBS[lib]["header"]).is_file():
            continue            # a library this release's pinned headers lack (cuDLA before 13.5)
        models[lib] = model.build(parse.read(include_dir, lib), lib)
        models[lib].cuda = parse.cuda_release(include_dir)
    for m in models.values():
        resolve.resolve(m, models)
    pages = {f"{lib}.md": module_page(models[lib]) + "\n" for lib in models}
    v2 = {lib: emit_v2.v2_model(models[lib], models) for lib in models if "v2" in LIBS[lib]}
    pages.update({f"_v2.{lib}.md": v2_page(v2[lib]) + "\n" for lib in v2})
    pages["checked.md"] = checked_page(models) + "\n"
    pages["index.md"] = index_page(models, v2)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        (out / name).write_text(text)
    return pages, models


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m codegen.refdocs", description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "build" / "docs"), help="where the pages go (default build/docs)")
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from headers.fetch import include_dir
    t0 = time.time()
    pages, models = build(include_dir(), a.out)     # the release $CUDA_BINDINGS_CUDA_VERSION selects
    for lib in models:
        print(f"codegen.refdocs: {lib}: in no header group ({OTHER}): {', '.join(ungrouped(models[lib])) or 'none'}",
              file=sys.stderr)
    size = sum(len(t.encode()) for t in pages.values())
    print(f"codegen.refdocs: {len(pages)} pages, {size / 1e6:.1f} MB, in {a.out} ({time.time() - t0:.0f} s)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
