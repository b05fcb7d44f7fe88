"""Helpers shared by the test modules (imported as a plain module from tests/).

The binding modules are reached through `LazyModule` so that a missing or broken
`cuda.bindings` never stops collection: the import happens inside each test, and a
test that needs the module fails with the import error instead of being skipped.
"""
import importlib
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


class LazyModule:
    """Stands in for a module; imports it on first attribute access."""

    def __init__(self, name):
        self.__dict__["_name"] = name

    def _load(self):
        name = self.__dict__["_name"]
        try:
            return importlib.import_module(name)
        except ImportError as e:
            raise ImportError(f"cannot import {name}: {type(e).__name__}: {e}") from None

    def __getattr__(self, attr):
        if attr.startswith("__") or attr.startswith("_pytest"):
            # looked up by pytest while collecting: no reason to import for these
            raise AttributeError(attr)
        return getattr(self._load(), attr)

    def __repr__(self):
        return f"<lazy module {self.__dict__['_name']}>"


driver = LazyModule("cuda.bindings.driver")
runtime = LazyModule("cuda.bindings.runtime")
nvrtc = LazyModule("cuda.bindings.nvrtc")
base = LazyModule("cuda.bindings._base")


def load_script(name):
    """A script of scripts/ (``scripts/<name>.py``) imported as a module, for its functions."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ok(result):
    """Assert a binding call succeeded; return its outputs.

    (err,) -> None, (err, x) -> x, (err, x, y, ...) -> (x, y, ...)
    """
    assert isinstance(result, tuple), f"binding calls return tuples, got {type(result).__name__}: {result!r}"
    assert len(result) >= 1
    err = result[0]
    assert int(err) == 0, f"call failed: {err!r} (full result {result!r})"
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def assert_failed(result, expected):
    """Assert a binding call returned the status `expected` and None for every output."""
    assert isinstance(result, tuple), f"binding calls return tuples, got {result!r}"
    assert result[0] == expected, f"expected {expected!r}, got {result!r}"
    assert type(result[0]) is type(expected), f"status should be a {type(expected).__name__}, got {result[0]!r}"
    assert all(item is None for item in result[1:]), f"outputs on failure must be None: {result!r}"


def python_env(extra=None):
    """os.environ with PYTHONPATH set to this interpreter's sys.path, so children import the same copy."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    if extra:
        env.update(extra)
    return env


def stand_in_env(folder, status):
    """Environment entries that load the stand-in libcuda.so.1 in `folder` (the `stand_in_driver`
    fixture) ahead of any other, its entry points returning `status`."""
    return {"LD_LIBRARY_PATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("LD_LIBRARY_PATH")])),
            "CUDA_STUB_STATUS": str(status)}


def build_stand_in_driver(folder, source):
    """Compiles the C source of a stand-in libcuda.so.1 into `folder`; returns the folder (for
    LD_LIBRARY_PATH)."""
    folder = Path(folder)
    (folder / "driver.c").write_text(source)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(folder / "libcuda.so.1"), str(folder / "driver.c"), "-ldl"],
                   check=True)
    return folder


def run_python(args, timeout=120, env=None, cwd=None):
    """Run `python -c CODE` (a str) or `python ARGS...` (a list) in a fresh interpreter."""
    argv = [sys.executable] + (["-c", args] if isinstance(args, str) else list(args))
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=python_env(env), cwd=cwd)
