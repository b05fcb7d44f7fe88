"""scripts/v2_tests.py: checking, packing and running a tests folder against several cuda.bindings,
and finding the tests that pass under the reference package only (no GPU needed).

NVIDIA's own _v2 tests need a device for every test (their conftest makes a context for each
module), so here two stand-in packages named cuda.bindings run a small suite of our own through
the same code: one passes a test the other fails.
"""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import v2_tests  # noqa: E402

SUITE = """\
import pytest
from cuda.bindings import FLAVOUR
from v2_helper import twice


def test_both():
    assert twice(2) == 4


def test_reference_only():
    assert FLAVOUR == "reference"


def test_other_only():
    assert FLAVOUR == "other"


@pytest.mark.skip(reason="needs two devices")
def test_skipped():
    pass
"""
BROKEN = "import cuda.bindings.no_such_module\n"


@pytest.fixture
def layout(tmp_path, monkeypatch):
    """A tests folder (tests/ and site/), its list, and two packages named cuda.bindings."""
    root = tmp_path / "v2-tests"
    (root / "tests").mkdir(parents=True)
    (root / "site").mkdir()
    (root / "tests" / "test_suite.py").write_text(SUITE)
    (root / "tests" / "test_broken.py").write_text(BROKEN)
    (root / "site" / "v2_helper.py").write_text("def twice(x):\n    return 2 * x\n")
    files = [{"path": f"cuda_bindings/{p}", "dest": p, "commit": None, "id": None,
              "chars": len((root / p).read_text())}
             for p in ("tests/test_suite.py", "tests/test_broken.py", "site/v2_helper.py")]
    listing = tmp_path / "v2_tests.json"
    listing.write_text(json.dumps({"repository": "NVIDIA/cuda-python", "files": files}))
    monkeypatch.setattr(v2_tests, "LIST", listing)
    packages = {}
    for flavour in ("reference", "other"):
        pkg = tmp_path / flavour / "cuda" / "bindings"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text(f"FLAVOUR = {flavour!r}\n__version__ = '0.{len(flavour)}'\n")
        packages[flavour] = tmp_path / flavour
    return root, packages


def test_the_folder_is_checked_against_the_list(layout, capsys):
    root, _ = layout
    assert v2_tests.main(["--dir", str(root)]) == 0
    assert "3 present and whole, 0 missing" in capsys.readouterr().out
    assert "tests/test_suite.py" in (root / "SOURCES.md").read_text()
    (root / "tests" / "test_suite.py").write_text(SUITE + "# changed\n")
    (root / "tests" / "test_extra.py").write_text("")
    assert v2_tests.main(["--dir", str(root)]) == 1
    out = capsys.readouterr().out
    assert "another length: tests/test_suite.py" in out and "not listed: tests/test_extra.py" in out


def test_a_packed_folder_runs_and_a_test_passing_on_the_reference_only_is_found(layout, tmp_path, capsys):
    root, packages = layout
    archive = tmp_path / "carry" / "v2-tests.tar.xz"
    assert v2_tests.main(["--dir", str(root), "--pack", str(archive)]) == 0
    out = tmp_path / "out"
    status = v2_tests.main(["--tests", str(archive), "--run", f"nvidia={packages['reference']}",
                            "--run", f"ours={packages['other']}", "--out", str(out), "--rerun-budget", "120"])
    summary = capsys.readouterr().out
    assert status == 1, summary
    report = json.loads((out / "results.json").read_text())
    assert report["reference"] == "nvidia"
    assert report["runs"]["nvidia"]["tests"] == {
        "test_broken.py::(collection)": "error",
        "test_suite.py::test_both": "passed",
        "test_suite.py::test_reference_only": "passed",
        "test_suite.py::test_other_only": "failed",
        "test_suite.py::test_skipped": "skipped",
    }
    compared = report["compared"]["ours"]
    assert compared["lost"] == ["test_suite.py::test_reference_only"]
    assert compared["only_reference"]["test_suite.py::test_reference_only"]["alone"] == {
        "nvidia": "passed", "ours": "failed"}
    assert compared["only_this"] == ["test_suite.py::test_other_only"]
    assert "nvidia : 5 run: 2 passed, 1 failed, 1 errors, 1 skipped" in summary
    assert "passing on nvidia but not on ours: 1 in the run, 1 also alone" in summary
    assert summary.rstrip().splitlines()[-1].startswith("    test_suite.py::test_other_only")


def test_the_same_package_twice_loses_nothing(layout, tmp_path, capsys):
    root, packages = layout
    status = v2_tests.main(["--tests", str(root), "--run", f"a={packages['other']}",
                            "--run", f"b={packages['other']}", "--out", str(tmp_path / "out")])
    assert status == 0, capsys.readouterr().out


def test_a_package_that_is_not_the_one_imported_is_refused(layout, tmp_path, capsys):
    root, packages = layout
    empty = tmp_path / "empty"
    empty.mkdir()
    status = v2_tests.main(["--tests", str(root), "--run", f"nvidia={packages['reference']}",
                            "--run", f"ours={empty}", "--out", str(tmp_path / "out")])
    assert status == 2
    assert "not the cuda.bindings of the DIR given: ours" in capsys.readouterr().out
