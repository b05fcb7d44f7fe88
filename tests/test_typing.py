"""The type stubs as type checkers see them (no GPU needed).

The installed package ships a `.pyi` for every generated module and `py.typed`; the stubs name
exactly what the modules define; basedpyright and mypy (both in the `test` extra) accept the
examples, `typing/typed_usage.py` (whose `assert_type` calls pin what a checker must infer) and
the stubs themselves, and report every deliberate mistake of `typing/mistakes.py`, with the rule
marked on its line, and nothing else."""
import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TYPING = ROOT / "tests" / "typing"
MODULES = ["driver", "runtime", "nvrtc", "nvjitlink", "nvvm", "cufile", "nvfatbin", "nvml"]
# cuDLA's module comes with the builds whose headers have cudla.h (CUDA 13.5 on)
MODULES += ["cudla"] if importlib.util.find_spec("cuda.bindings.cudla") else []
CHECKED = ["checked.driver", "checked.runtime", "checked.nvrtc"]
EXPECT = re.compile(r"#\s*expect:\s*(\S+)\s+(\S+)\s*$")


def _stub(name):
    """The installed stub of cuda.bindings.<name> (next to its extension or .py file)."""
    path = Path(importlib.import_module(f"cuda.bindings.{name}").__file__)
    return path.parent / (path.name.split(".")[0] + ".pyi")


def _stub_names(path):
    """Top-level names a stub defines or re-exports (`X as X`)."""
    import ast
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname for a in node.names if a.asname and a.asname == a.name)
    return {n for n in names if not n.startswith("_")}


@pytest.mark.parametrize("name", MODULES + CHECKED)
def test_every_module_ships_a_stub_naming_exactly_its_public_names(name):
    mod = importlib.import_module(f"cuda.bindings.{name}")
    stub = _stub(name)
    assert stub.is_file(), f"{stub} is not installed"
    assert (Path(importlib.import_module("cuda.bindings").__file__).parent / "py.typed").is_file()
    public = {n for n in dir(mod) if not n.startswith("_")}
    declared = _stub_names(stub)
    assert sorted(public - declared) == [], f"{name}: defined but missing from the stub"
    assert sorted(declared - public) == [], f"{name}: in the stub but not defined"


def _run(cmd, **kw):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, **kw)


def _pyright(paths):
    try:
        import basedpyright  # noqa: F401
    except ImportError:
        pytest.fail("basedpyright is not installed: it comes with the test extra (pip install '.[test]')")
    r = _run([sys.executable, "-m", "basedpyright", "-p", str(TYPING / "pyrightconfig.json"),
              "--pythonpath", sys.executable, "--outputjson", *map(str, paths)], cwd=TYPING)
    try:
        out = json.loads(r.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"basedpyright gave no report (exit {r.returncode}):\n{r.stdout}\n{r.stderr}")
    return [(Path(d["file"]).name, d["range"]["start"]["line"] + 1, d.get("rule", ""), d["severity"], d["message"])
            for d in out["generalDiagnostics"]]


def _mypy(args, tmp_path):
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.fail("mypy is not installed: it comes with the test extra (pip install '.[test]')")
    r = _run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache"), "--no-error-summary",
              "--show-error-codes", "--hide-error-context", "--no-pretty", *args], cwd=TYPING)
    found = []
    for line in r.stdout.splitlines():
        m = re.match(r"^(.*?):(\d+): (error|note): (.*?)(?:  \[([\w-]+)\])?$", line)
        if m and m.group(3) == "error":
            found.append((Path(m.group(1)).name, int(m.group(2)), m.group(5) or "", m.group(4)))
    if r.returncode not in (0, 1) or (r.returncode == 1 and not found):
        pytest.fail(f"mypy failed (exit {r.returncode}):\n{r.stdout}\n{r.stderr}")
    return found


def _expected(which):
    out = set()
    for i, line in enumerate((TYPING / "mistakes.py").read_text().splitlines(), 1):
        m = EXPECT.search(line)
        if m:
            out.add((i, m.group(1) if which == "pyright" else m.group(2)))
    return out


def test_pyright_accepts_the_examples_the_typed_usage_and_the_stubs():
    stubs = [_stub(n) for n in MODULES + CHECKED]
    errors = [d for d in _pyright([ROOT / "examples", TYPING / "typed_usage.py", *stubs]) if d[3] == "error"]
    assert errors == []


def test_pyright_reports_each_mistake_with_its_rule():
    found = {(line, rule) for f, line, rule, sev, _ in _pyright([TYPING / "mistakes.py"]) if sev == "error"}
    assert found == _expected("pyright")


def test_mypy_accepts_the_typed_usage_and_the_stubs(tmp_path):
    errors = _mypy([str(TYPING / "typed_usage.py")], tmp_path)
    assert errors == []
    errors = _mypy([a for n in MODULES + ["checked"] for a in ("-p", f"cuda.bindings.{n}")], tmp_path)
    assert errors == []


def test_mypy_reports_each_mistake_with_its_code(tmp_path):
    found = {(line, code) for f, line, code, _ in _mypy([str(TYPING / "mistakes.py")], tmp_path)}
    assert found == _expected("mypy")
