"""Probes of cuda.bindings._v2.driver and ._v2.nvrtc (docs/conformance.md, "_v2"), run under one
package: every public name of each module and what it is (family `name`), and every public
function (family `fn`), called with 0 for every parameter, then each
parameter in turn replaced by each of FORMS.  Each function's probes run in a forked child; a
crash is recorded for the probe that caused it and a new child carries on after it.

    python v2probe.py OUT.jsonl
"""
import inspect
import json
import os
import re
import signal
import sys

FORMS = {"null": 0, "int": 1, "neg": -1, "float": 1.5, "none": None, "str": "s", "bytes": b"s", "object": object()}
REFUSALS = {"TypeError", "ValueError", "OverflowError", "AttributeError", "IndexError", "KeyError", "BufferError",
            "UnicodeDecodeError", "UnicodeEncodeError", "NotImplementedError", "RuntimeError"}


def _clean(text):
    return re.sub(r"0x[0-9a-f]{6,}", "<addr>", text)


def _val(r):
    """A result as the probes compare it: Python's own values by repr (an int of 4096 and more,
    an address or handle, as <int>), tuples and lists item by item, any other object by its type
    (a struct object's repr is its package's own: the struct classes are compared elsewhere)."""
    if isinstance(r, (tuple, list)):
        items = ", ".join(_val(x) for x in r)
        return f"({items})" if isinstance(r, tuple) else f"[{items}]"
    if isinstance(r, int) and not isinstance(r, bool):
        v = repr(int(r)) if r < 4096 else "<int>"
        return v if type(r) is int else f"{type(r).__name__}({v})"     # an enum member: its class and value
    if r is None or type(r) in (bool, float, str, bytes):
        return _clean(repr(r))[:200]
    return f"<{type(r).__name__}>"


def observe(f, args):
    try:
        r = f(*args)
    except BaseException as e:      # noqa: BLE001 - every outcome is an observation
        o = {"exc": type(e).__name__}
        if o["exc"] not in REFUSALS:        # a library's status error: its message and notes too
            o["str"] = _clean(str(e))
            o["notes"] = repr(getattr(e, "__notes__", None))
        return o
    return {"ret": type(r).__name__, "val": _val(r)}


def names(mod, lib):
    """{probe id: observation} of every public name of the module: what it is (a function, a
    class, or the type of the value)."""
    out = {}
    for name in sorted(n for n in dir(mod) if not n.startswith("_")):
        obj = getattr(mod, name)
        if inspect.ismodule(obj):
            continue
        kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else type(obj).__name__
        out[f"v2_{lib}.name.{name}"] = {"kind": kind}
    return out


def probes(mod, lib):
    """[(probe id, function, args)] of the module."""
    out = []
    for name in sorted(n for n in dir(mod) if not n.startswith("_")):
        f = getattr(mod, name)
        if inspect.isclass(f) or not callable(f):
            continue
        try:
            params = [p for p in inspect.signature(f).parameters.values() if p.default is inspect.Parameter.empty]
        except (TypeError, ValueError):
            continue
        base = [0] * len(params)
        out.append((f"v2_{lib}.fn.{name}.base", f, base))
        for i, p in enumerate(params):
            for form, v in FORMS.items():
                if form != "null":
                    out.append((f"v2_{lib}.fn.{name}.{p.name}:arg={form}", f, base[:i] + [v] + base[i + 1:]))
    return out


def run_group(items, fh):
    """Run the probes of one function in forked children, one observation per line."""
    i = 0
    while i < len(items):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            signal.alarm(20)
            with os.fdopen(w, "w") as pw:
                for pid_, f, args in items[i:]:
                    pw.write(json.dumps({pid_: observe(f, args)}) + "\n")
                    pw.flush()
            os._exit(0)
        os.close(w)
        with os.fdopen(r) as pr:
            lines = pr.read().splitlines()
        _, status = os.waitpid(pid, 0)
        for line in lines:
            fh.write(line + "\n")
        i += len(lines)
        if i < len(items):          # the child died on probe i
            sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
            fh.write(json.dumps({items[i][0]: {"hang" if sig == signal.SIGALRM else "crash": str(sig)}}) + "\n")
            i += 1


def main():
    import importlib
    for p in filter(None, os.environ.get("CONFORMANCE_PRELOAD", "").split(os.pathsep)):
        import ctypes
        ctypes.CDLL(p, mode=ctypes.RTLD_GLOBAL)
    with open(sys.argv[1], "w") as fh:
        for lib in ("driver", "nvrtc"):
            mod = importlib.import_module(f"cuda.bindings._v2.{lib}")
            fh.write(json.dumps(names(mod, lib)) + "\n")
            groups = {}
            for item in probes(mod, lib):
                groups.setdefault(item[0].split(".")[2], []).append(item)
            for items in groups.values():
                run_group(items, fh)
                fh.flush()
        fh.write(json.dumps({"__done__": 1}) + "\n")


if __name__ == "__main__":
    main()
