"""python -m codegen [--check] [--dump-model DIR] [--lib driver,nvrtc]

Regenerates the committed Cython sources in cuda_bindings/ from the pinned CUDA headers.
--check writes nothing and exits 1 if any generated file differs from what is committed.
"""
import argparse
import collections
import sys
import time
from pathlib import Path

from . import emit, model, overrides, parse, stubs

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "cuda_bindings"
LIBS = ("driver", "nvrtc", "runtime", "nvjitlink", "nvvm")


def generate(include_dir, libs=LIBS, dump=None):
    models = {}
    files, report = {}, ["# Generator report", "",
                         "Written by `python -m codegen`; regenerated with the sources.", ""]
    for lib in libs:
        t0 = time.time()
        raw = parse.read(include_dir, lib)
        m = model.build(raw, lib)
        if dump:
            Path(dump).mkdir(parents=True, exist_ok=True)
            (Path(dump) / f"{lib}.model.json").write_text(m.to_json())
        files[f"cy{lib}.pxd"] = emit.emit_pxd(m)
        files[f"cy{lib}.pyx"] = emit.emit_cypyx(m)
        files[f"_symbols_{lib}.py"] = emit.emit_loader(m)
        files[f"{lib}.pyx"] = emit.emit_py(m)
        models[lib] = m
        roles = collections.Counter((p.role, p.conv) for f in m.functions if f.python for p in f.params)
        cy_only = [f.name for f in m.functions if not f.python]
        report += [f"## {lib}", "",
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
        print(f"codegen: {lib} done in {time.time() - t0:.1f}s", file=sys.stderr)
    # stubs: runtime's name the driver's handle classes it also takes (stubs.peers)
    if "runtime" in models and "driver" not in models:
        models["driver"] = model.build(parse.read(include_dir, "driver"), "driver")
    if {"driver", "runtime"} <= set(models):
        known = {fn.name for lib in ("driver", "runtime") for fn in models[lib].functions}
        stray = sorted(set(overrides.BUFFER_EXTENT) - known)
        if stray:
            raise ValueError(f"overrides.BUFFER_EXTENT names functions no header declares: {stray}")
    for lib in libs:
        files[f"{lib}.pyi"] = stubs.emit_pyi(models[lib], models)
        if lib in stubs.CHECKED_LIBS:
            files[f"checked/{lib}.py"] = stubs.emit_checked_py(models[lib])
            files[f"checked/{lib}.pyi"] = stubs.emit_checked_pyi(models[lib], models)
    files["../codegen/REPORT.md"] = "\n".join(report) + "\n"
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m codegen")
    ap.add_argument("--check", action="store_true", help="fail if the committed output differs")
    ap.add_argument("--dump-model", metavar="DIR", help="also write the JSON models here")
    ap.add_argument("--lib", default=",".join(LIBS))
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from headers.fetch import include_dir
    inc = include_dir()
    files = generate(inc, a.lib.split(","), a.dump_model)
    bad = []
    for name, text in files.items():
        path = (OUT / name).resolve()
        if a.check:
            if not path.exists() or path.read_text() != text:
                bad.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text)
    if a.check:
        if bad:
            print("codegen --check: generated files differ from the committed ones:\n  " + "\n  ".join(bad)
                  + "\nRun `python -m codegen` and commit the result.", file=sys.stderr)
            return 1
        print(f"codegen --check: {len(files)} generated files match", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
