"""The generator's modules depend on each other one way: parse -> model -> resolve -> emitters, with
what the emitters share below them, no import cycle, and the libraries described in codegen/libs.py
only; no function of theirs is longer than MAX_LINES.  docs/design.md ("Pipeline") prints the
import graph; a test keeps it current."""
import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CODEGEN = ROOT / "codegen"
sys.path.insert(0, str(ROOT))

from codegen import libs  # noqa: E402

EMITTERS = {"emit_c", "emit_private", "emit_py", "emit_snake", "emit_v2", "stubs"}
TOP = {"__main__", "refdocs", "changelog"}      # what reads the model and the emitters' text
DATA = {"libs", "overrides", "docstrings", "names"}       # data and text helpers: import no codegen module
BELOW = DATA | {"common", "parse", "model", "resolve", "pytypes", "pyapi"}   # below every emitter


def imports():
    """{module: the codegen modules it imports}, from its `from . import x`, `from .x import y`
    and `from codegen(.x) import y` statements, function bodies included."""
    names = {p.stem for p in CODEGEN.glob("*.py")}
    graph = {}
    for path in sorted(CODEGEN.glob("*.py")):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                deps.update(a.name.split(".")[1] for a in node.names if a.name.startswith("codegen."))
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level == 1 or node.module and node.module.split(".")[0] == "codegen":
                mod = node.module.split(".")[-1] if node.module and node.module != "codegen" else None
                if mod:
                    deps.add(mod)
                else:
                    deps.update(a.name for a in node.names if a.name in names)
        graph[path.stem] = deps - {"__init__"}
    return graph


def _depth(graph):
    """Each module's longest import path down to a module that imports nothing; fails on a cycle."""
    depth, visiting = {}, []

    def visit(m):
        if m in visiting:
            raise AssertionError("import cycle: " + " -> ".join(visiting[visiting.index(m):] + [m]))
        if m not in depth:
            visiting.append(m)
            depth[m] = 1 + max((visit(d) for d in graph[m]), default=-1)
            visiting.pop()
        return depth[m]
    for m in graph:
        visit(m)
    return depth


def graph_text(graph):
    """The graph as docs/design.md prints it: one line per module, the top first."""
    depth = _depth(graph)
    order = sorted((m for m in graph if m != "__init__"), key=lambda m: (-depth[m], m))
    width = max(len(m) for m in order)
    return "\n".join(f"{m:<{width}}  <- {', '.join(sorted(graph[m])) or '(nothing)'}".rstrip() for m in order)


def test_the_import_graph_has_no_cycle():
    graph = imports()
    assert {"libs", "parse", "model", "emit_c", "emit_py", "stubs"} <= set(graph)
    _depth(graph)


def test_the_import_graph_finds_a_cycle():
    # the check above can fail
    with pytest.raises(AssertionError, match="a -> b -> c -> a"):
        _depth({"a": {"b"}, "b": {"c"}, "c": {"a"}})


def test_shared_modules_import_no_emitter():
    graph = imports()
    assert set(graph) - {"__init__"} == EMITTERS | TOP | BELOW, "a new module: place it in a layer here"
    for m in BELOW:
        assert not graph[m] & (EMITTERS | TOP), f"{m} imports {sorted(graph[m] & (EMITTERS | TOP))}"
    for m in DATA:
        assert not graph[m], f"{m} imports {sorted(graph[m])}"
    for m in EMITTERS:
        assert not graph[m] & TOP, f"{m} imports {sorted(graph[m] & TOP)}"


def test_only_libs_lists_the_libraries():
    # a list, tuple, set or dict naming two libraries or more outside codegen/libs.py would be a
    # second description of the libraries to keep in step; the override table's dicts keyed by
    # library (what one library needs in one release: overrides.TWIN_STYLE, EXTRA_DECLARATIONS)
    # are data about some libraries, not a list of them, so there only their keys are checked
    assert set(libs.GENERATED) == set(libs.LIBS) and len(libs.GENERATED) == len(libs.LIBS)
    names = set(libs.LIBS)
    modules = names | {f"_v2.{lib}" for lib, L in libs.LIBS.items() if "v2" in L}     # (libs.module)
    found = []
    for path in sorted(CODEGEN.glob("*.py")):
        if path.name == "libs.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None) \
                if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else None
            if items and path.name == "overrides.py" and isinstance(node, ast.Dict):
                keys = [x.value for x in items if isinstance(x, ast.Constant) and isinstance(x.value, str)]
                if any(k in names for k in keys):
                    found.extend(f"{path.name}:{node.lineno}: {k!r} is no library" for k in keys if k not in modules)
                    continue
            if items:
                hits = [x.value for x in items if isinstance(x, ast.Constant) and x.value in names]
                if len(hits) > 1:
                    found.append(f"{path.name}:{node.lineno}: {hits}")
    assert not found, found


def test_design_doc_prints_the_current_graph():
    text = (ROOT / "docs" / "design.md").read_text()
    m = re.search(r"<!-- codegen imports -->\n```text\n(.*?)\n```", text, re.S)
    assert m, "docs/design.md has no `<!-- codegen imports -->` block"
    assert m.group(1) == graph_text(imports()), \
        "docs/design.md's import graph is stale; print tests.test_codegen_layers.graph_text(imports())"


MAX_LINES = 60


def long_functions(limit=MAX_LINES):
    """[(module.function, lines)] of the functions of codegen/*.py (methods and nested functions
    included) longer than `limit` lines, longest first."""
    out = []
    for path in sorted(CODEGEN.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    out.append((f"{path.stem}.{node.name} (line {node.lineno})", lines))
    return sorted(out, key=lambda x: -x[1])


def test_no_function_is_longer_than_a_screen():
    # a function that does one thing reads on one screen; a longer one is several steps to name
    long = long_functions()
    assert not long, f"functions longer than {MAX_LINES} lines: " + ", ".join(f"{n}: {k}" for n, k in long)


def test_the_length_check_finds_a_long_function(tmp_path, monkeypatch):
    # the check above can fail
    (tmp_path / "long.py").write_text("def f():\n" + "    x = 1\n" * MAX_LINES)
    monkeypatch.setattr(sys.modules[__name__], "CODEGEN", tmp_path)
    assert long_functions() == [("long.f (line 1)", MAX_LINES + 1)]
