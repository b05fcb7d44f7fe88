"""python -m codegen [--check] [--cuda VER[,VER...]] [--dump-model DIR] [--lib driver,nvrtc]

Regenerates the committed Cython sources from the pinned CUDA headers, for every CUDA release
that headers/pins.json pins (or those named by --cuda): the default release's into cuda_bindings/,
each other's into generated/cuda-<VER>/ (the files that differ between releases: setup.py lays them
over cuda_bindings/ when it builds that release; docs/cuda-versions.md says why), and, when every
release is generated, the changelog between them (docs/cuda-changelog.md).
--check writes nothing and exits 1 if any generated file differs from what is committed.
"""
import argparse
import collections
import re
import sys
import time
from pathlib import Path

from . import changelog, emit_c, emit_private, emit_py, emit_v2, model, overrides, parse, resolve, stubs
from .common import HEADER
from .libs import GENERATED, checked
from .libs import LIBS as LIBS_ALL

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "cuda_bindings"
LIBS = GENERATED
CHANGELOG = ROOT / "docs" / "cuda-changelog.md"


def out_dir(cuda, default):
    """Where the generated files of release `cuda` are committed."""
    return OUT if cuda == default else ROOT / "generated" / f"cuda-{cuda}"


def emit_version(cuda, include_dir):
    """`_version.py`: the release a build was generated from, which the hand-written modules
    (the loader's messages, the library file names) and `__init__` read."""
    from headers import fetch
    v = parse.cuda_version(include_dir)
    major = v // 1000
    # the package version is the twin's, NVIDIA's release whose API the build matches: clients
    # gate features on it (cuda.core's NVML support: cuda-bindings >= 12.9.6 or >= 13.2.0)
    twin = fetch.load_pins(cuda)["twin"]
    parts = tuple(int(x) for x in twin.split("."))
    return "\n".join([
        HEADER.format(ver=cuda).rstrip("\n"),
        '"""The CUDA release this build of cuda.bindings was generated from, and the package version:',
        "that of NVIDIA's cuda-bindings release whose API it matches (headers/pins.json's twin).\"\"\"",
        "",
        f'__version__ = version = "{twin}"',
        f"__version_tuple__ = version_tuple = {parts!r}",
        "__commit_id__ = commit_id = None",
        f'__cuda_version__ = "{cuda}"',
        "#: cuda.h's CUDA_VERSION (1000 * major + 10 * minor)",
        f"CUDA_VERSION = {v}",
        f"CUDA_MAJOR = {major}",
        "#: enums are cuda.bindings._internal._fast_enum classes, as in NVIDIA's package of this release",
        f"FAST_ENUM = {bool(overrides.TWIN_STYLE.get(cuda, {}).get('fast_enum'))}",
        "#: a float given as a void* argument or field is truncated to an int address, as in NVIDIA's package",
        f"FLOAT_ADDRESS = {bool(overrides.TWIN_STYLE.get(cuda, {}).get('float_address'))}",
        "#: cuda.bindings._test_helpers (arch_check) exists, as in NVIDIA's package of this release",
        f"TEST_HELPERS = {bool(overrides.TWIN_STYLE.get(cuda, {}).get('test_helpers'))}",
        "#: CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM is on for any value but the empty one (\"0\" too),",
        "#: as NVIDIA's package of this release reads it (else as an integer: _loader.per_thread_default_stream)",
        f"PTDS_ANY_VALUE = {bool(overrides.TWIN_STYLE.get(cuda, {}).get('ptds_any_value'))}",
        "#: the message of the ValueError with which NVIDIA's package of this release refuses a buffer",
        "#: ({adj}: \"writable \" for one the library fills; {size}: its size)",
        f"BUFFER_ERROR = {overrides.TWIN_STYLE[cuda]['buffer_error']!r}",
        ""])


def generate(include_dir, libs=LIBS, dump=None, models_out=None):
    """The generated files of the release whose headers are in `include_dir`, by path relative to
    its output folder; `models_out` (a dict), when given, receives the models by library."""
    cuda = parse.cuda_release(include_dir)
    # a library whose header the release lacks (cuDLA before 13.5) has no bindings in it
    present = [lib for lib in libs if (Path(include_dir) / LIBS_ALL[lib]["header"]).is_file()]
    models, took = {}, {}
    for lib in present:
        t0 = time.time()
        models[lib] = _model(include_dir, lib, cuda)
        if dump:
            Path(dump).mkdir(parents=True, exist_ok=True)
            (Path(dump) / f"{lib}.model.json").write_text(models[lib].to_json())
        took[lib] = time.time() - t0
    # runtime's wrappers take the driver's handle classes too (pytypes.peers)
    if "runtime" in models and "driver" not in models:
        models["driver"] = _model(include_dir, "driver", cuda)
    files = {}
    report = ["# Generator report", "",
              f"Written by `python -m codegen` from the CUDA {cuda} headers; regenerated with the sources.", ""]
    for lib in present:
        t0 = time.time()
        m = resolve.resolve(models[lib], models)
        files[f"cy{lib}.pxd"] = emit_c.emit_pxd(m)
        files[f"cy{lib}.pyx"] = emit_c.emit_cypyx(m)
        files[f"_symbols_{lib}.py"] = emit_c.emit_symbols(m)
        files[f"{lib}.pyx"] = emit_py.emit_py(m)
        if docs := emit_py.enum_docs_module(m):
            files[f"_enumdocs_{lib}.py"] = docs
        files[f"{lib}.pyi"] = stubs.emit_pyi(m)
        if lib in checked():
            files[f"checked/{lib}.py"] = stubs.emit_checked_py(m)
            files[f"checked/{lib}.pyi"] = stubs.emit_checked_pyi(m)
        files.update(emit_private.emit(m))
        if "v2" in LIBS_ALL[lib]:
            v2 = emit_v2.v2_model(models[lib], models)
            files.update(emit_v2.emit(v2))
            report += emit_v2.report(v2)
        report += _report(m)
        print(f"codegen: CUDA {cuda} {lib} done in {took[lib] + time.time() - t0:.1f}s", file=sys.stderr)
    # a module whose handle classes another module's derive from declares them in its .pxd
    bases = {}
    for lib in present:
        for b in models[lib].resolved.bases.values():
            bases.setdefault(b.split(".")[0], set()).add(b.split(".")[1])
    for lib in sorted(set(bases) & set(present)):
        files[f"{lib}.pxd"] = emit_py.emit_class_pxd(models[lib], bases[lib])
    if set(libs) == set(LIBS):
        files["_version.py"] = emit_version(cuda, include_dir)
        files.update(emit_private.address_modules(cuda))
    files["REPORT.md"] = "\n".join(report) + "\n"
    if models_out is not None:
        models_out.update(models)
    return files


def _model(include_dir, lib, cuda):
    """The model of library `lib` of release `cuda`."""
    m = model.build(parse.read(include_dir, lib), lib)
    m.cuda = cuda
    return m


def _report(m):
    """The lines of REPORT.md about the model of one library."""
    roles = collections.Counter((p.role, p.conv) for f in m.functions if f.python for p in f.params)
    cy_only = [f.name for f in m.functions if not f.python]
    report = [f"## {m.lib}", "",
              f"- {len(m.functions)} functions, {len(m.enums)} enums, {len(m.structs)} structs/unions, "
              f"{len(m.handles)} handle types, {len(m.inttds)} integer types, "
              f"{len(m.funcptrs)} function pointer types, {len(m.defines)} constants",
              f"- per-thread default stream variants: {sum(1 for f in m.functions if f.ptds)}",
              f"- Cython level only (no Python wrapper): {', '.join(cy_only) or 'none'}",
              f"- types declared at the Cython level: {', '.join(m.cython_level) or 'none'}",
              "- parameter conversions: " + ", ".join(f"{r}/{c} {n}" for (r, c), n in sorted(roles.items())),
              ""]
    unknown = [f"{f.name}({p.name})" for f in m.functions for p in f.params if p.conv == "unknown"]
    if unknown:
        report += ["- passed through as plain addresses (no better rule): " + ", ".join(unknown), ""]
    return report


def stale_overrides(models_by_release):
    """Override entries that name something no pinned release's headers declare (a typo, or an API
    every release has dropped). A name that only some releases declare is fine: each release's
    generation uses what its headers have."""
    fns = {fn.name for ms in models_by_release.values() for m in ms.values() for fn in m.functions}
    members = collections.defaultdict(set)
    for ms in models_by_release.values():
        for m in ms.values():
            for e in m.enums:
                members[e.name].update(n for n, _ in e.members)
    bad = [f"BUFFER_EXTENT[{f!r}]" for f in sorted(set(overrides.BUFFER_EXTENT) - fns)]
    bad += [f"KEEP_UNTIL_RELEASE[{f!r}]" for f in sorted(set(overrides.KEEP_UNTIL_RELEASE) - fns)]
    for f, (_, enum_name, excluded, _) in overrides.KEEP_GIL_UNLESS.items():
        if f not in fns:
            bad.append(f"KEEP_GIL_UNLESS[{f!r}]")
        bad += [f"KEEP_GIL_UNLESS[{f!r}]: {n}" for n in sorted(set(excluded) - members[enum_name])]
    return bad


_LIFETIME = re.compile(r"must remain valid for the (?:life|lifetime)\b", re.I)


def unkept_lifetimes(models_by_release):
    """Functions whose doxygen text says an input must stay valid after the call returns ("must
    remain valid for the life of the CUlinkState") that overrides.KEEP_UNTIL_RELEASE does not
    name: the wrapper would free the converted input on return while the library goes on using it."""
    return sorted({fn.name for ms in models_by_release.values() for m in ms.values() for fn in m.functions
                   if fn.python and _LIFETIME.search(fn.doc or fn.pydoc) and fn.name not in overrides.KEEP_UNTIL_RELEASE})


def _releases(spec, pins_versions):
    if not spec or spec == "all":
        return list(pins_versions)
    wanted = [v.strip() for v in spec.split(",") if v.strip()]
    unknown = [v for v in wanted if v not in pins_versions]
    if unknown:
        raise SystemExit(f"python -m codegen: --cuda {','.join(unknown)}: not pinned in headers/pins.json "
                         f"(pinned: {', '.join(pins_versions)})")
    return wanted


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m codegen")
    ap.add_argument("--check", action="store_true", help="fail if the committed output differs")
    ap.add_argument("--cuda", default="all",
                    help="the CUDA releases to generate, comma-separated (default: every pinned one)")
    ap.add_argument("--dump-model", metavar="DIR", help="also write the JSON models here")
    ap.add_argument("--lib", default=",".join(LIBS))
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from headers import fetch
    default = fetch.default_version()
    releases = _releases(a.cuda, fetch.versions())
    libs = a.lib.split(",")
    outputs, models = {}, {}
    for cuda in releases:
        dump = a.dump_model and str(Path(a.dump_model) / f"cuda-{cuda}")
        models[cuda] = {}
        files = generate(fetch.include_dir(cuda), libs, dump, models[cuda])
        folder = out_dir(cuda, default)
        report = files.pop("REPORT.md")
        outputs.update({(folder / name).resolve(): text for name, text in files.items()})
        outputs[(ROOT / "codegen" / "REPORT.md" if folder == OUT else folder / "REPORT.md").resolve()] = report
    whole = set(libs) == set(LIBS) and set(releases) == set(fetch.versions())
    if whole:
        stale = stale_overrides(models)
        if stale:
            print("codegen: override entries name nothing any pinned release declares:\n  "
                  + "\n  ".join(stale), file=sys.stderr)
            return 1
        unkept = unkept_lifetimes(models)
        if unkept:
            print("codegen: these functions' inputs must stay valid after the call returns; say which "
                  "and until what in overrides.KEEP_UNTIL_RELEASE:\n  " + "\n  ".join(unkept), file=sys.stderr)
            return 1
        outputs[CHANGELOG] = changelog.render(models)
    bad = []
    for path, text in outputs.items():
        if a.check:
            if not path.exists() or path.read_text() != text:
                bad.append(str(path.relative_to(ROOT)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if a.check:
        if bad:
            print("codegen --check: generated files differ from the committed ones:\n  " + "\n  ".join(bad)
                  + "\nRun `python -m codegen` and commit the result.", file=sys.stderr)
            return 1
        print(f"codegen --check: {len(outputs)} generated files match (CUDA {', '.join(releases)})",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
