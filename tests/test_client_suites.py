"""scripts/client_suites.py reads the clients' test results right (no GPU needed).

The script runs numba-cuda's and cuda.core's own suites on a GPU machine under NVIDIA's package and
ours, and its tables are what docs/clients.md reports: here a real pytest run of a small module
with every outcome, and real numba-style unittest lines, go through the same readers.
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import client_suites  # noqa: E402
from client_check import parse_suite  # noqa: E402

MODULE = """\
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("setup fails")

def test_passes():
    pass

def test_fails():
    assert 1 == 2

@pytest.mark.skip(reason="needs 2 GPUs")
def test_skipped():
    pass

@pytest.mark.xfail(reason="known")
def test_xfails():
    assert False

def test_setup_error(broken):
    pass

class TestGroup:
    @pytest.mark.parametrize("n", [1, 2])
    def test_param(self, n):
        assert n == 1
"""


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("core")
    (root / "sub").mkdir()
    (root / "sub" / "test_outcomes.py").write_text(MODULE)
    xml = root / "out.xml"
    subprocess.run([sys.executable, "-m", "pytest", "sub", "-p", "no:cacheprovider", "-q", "-p", "no:randomly",
                    f"--junitxml={xml}", "-o", "junit_family=xunit1"], cwd=root, capture_output=True, timeout=300)
    return root, client_suites.parse_junit(xml)


def test_every_pytest_outcome_is_read_with_its_node_id(suite):
    _, tests = suite
    f = "sub/test_outcomes.py"
    assert tests == {
        f"{f}::test_passes": "passed",
        f"{f}::test_fails": "failed",
        f"{f}::test_skipped": "skipped",
        f"{f}::test_xfails": "passed",          # an expected failure counts as passing, as in unittest
        f"{f}::test_setup_error": "error",
        f"{f}::TestGroup::test_param[1]": "passed",
        f"{f}::TestGroup::test_param[2]": "failed",
    }


def test_a_test_run_alone_gets_its_own_outcome(suite):
    root, tests = suite
    env = client_suites.environment(None, None, None)
    assert client_suites.core_rerun(env, root, "sub/test_outcomes.py::TestGroup::test_param[2]", 120) == "failed"
    assert client_suites.core_rerun(env, root, "sub/test_outcomes.py::test_passes", 120) == "passed"


def test_tables_count_per_module_and_flag_differences(suite):
    _, tests = suite
    ours = dict(tests, **{"sub/test_outcomes.py::test_passes": "failed"})
    rows = client_suites.table("core", {"nvidia": tests, "ours": ours})
    assert rows == {"sub/test_outcomes.py": {
        "nvidia": {"passed": 3, "failed": 2, "error": 1, "skipped": 1},
        "ours": {"passed": 2, "failed": 3, "error": 1, "skipped": 1}}}
    md = client_suites.markdown("cuda.core", rows)
    assert "`sub/test_outcomes.py` **differs** | 3 / 2 / 1 / 1 | 2 / 3 / 1 / 1 |" in md


NUMBA_FUNCTIONS = """\
import pytest

def test_function():
    assert False

@pytest.mark.skip(reason="need more than 1 gpus")
def test_two():
    pass

class Helper:
    def test_not_collected_here(self):
        pass

def test_ok():
    pass
"""


def test_numba_modules_of_pytest_functions_run_under_pytest(tmp_path):
    """numba's runner runs a module's unittest classes; a module's pytest functions run under
    pytest, from a copy of the file; the ids name the module either way."""
    path = tmp_path / "test_events.py"
    path.write_text(NUMBA_FUNCTIONS)
    module = "numba.cuda.tests.cudadrv.test_events"
    env = client_suites.environment(None, None, None)
    r = client_suites.numba_module(env, module, str(path), tmp_path, 120)
    assert r["runner"] == "pytest"
    assert r["tests"] == {f"{module}::test_function": "failed", f"{module}::test_two": "skipped",
                          f"{module}::test_ok": "passed"}
    rows = client_suites.table("numba", {"nvidia": r["tests"], "ours": r["tests"]})
    assert rows["cudadrv.test_events"]["ours"] == {"passed": 1, "failed": 1, "error": 0, "skipped": 1}
    assert client_suites.numba_rerun(env, f"{module}::test_ok", {module: str(path)}, 120) == "passed"


def test_numba_runner_lines_are_read_per_module():
    log = """\
test_a (numba.cuda.tests.cudapy.test_multigpu.TestMultiGPUContext.test_a) ... ok
test_b (numba.cuda.tests.cudapy.test_multigpu.TestMultiGPUContext.test_b) ... skipped 'need more than 1 gpus'
test_c (numba.cuda.tests.cudapy.test_multigpu.TestMultiGPUContext.test_c) ... expected failure
Ran 3 tests in 0.5s
"""
    found, ran = parse_suite(log)
    assert ran == 3
    module = "numba.cuda.tests.cudapy.test_multigpu"
    assert client_suites.numba_ids(module, found) == {f"{module}::TestMultiGPUContext::test_a": "passed",
                                                       f"{module}::TestMultiGPUContext::test_b": "skipped",
                                                       f"{module}::TestMultiGPUContext::test_c": "passed"}
    assert client_suites.MULTI_DEVICE.search(client_suites.module_of("numba", f"{module}::X::y"))
    assert not client_suites.MULTI_DEVICE.search("cudadrv.test_events")
