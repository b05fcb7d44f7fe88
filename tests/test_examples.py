"""Each example runs as its own process. Exit 0 passes; exit 3 ("requirement not met", i.e. no
CUDA device) is a skip, never a pass (and a failure when CUDA_BINDINGS_REQUIRE_GPU is set);
anything else fails."""
import os

import pytest

from _support import REPO_ROOT, run_python

EXAMPLES_DIR = REPO_ROOT / "examples"
EXIT_REQUIREMENT_NOT_MET = 3


def example_scripts():
    return sorted(
        p for p in EXAMPLES_DIR.rglob("*.py")
        if "common" not in p.relative_to(EXAMPLES_DIR).parts and p.name != "__init__.py"
    )


def test_examples_are_found():
    names = {p.relative_to(EXAMPLES_DIR).as_posix() for p in example_scripts()}
    assert {"driver/saxpy.py", "driver/saxpy_ctypes.py"} <= names


@pytest.mark.parametrize("script", example_scripts(), ids=lambda p: p.relative_to(EXAMPLES_DIR).as_posix())
def test_example(script):
    proc = run_python([str(script)], timeout=600, cwd=str(REPO_ROOT))
    output = f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    if proc.returncode == EXIT_REQUIREMENT_NOT_MET:
        reason = next((line for line in proc.stderr.splitlines() if line.startswith("requirement not met")), None)
        assert reason, f"exit 3 without a 'requirement not met' message:\n{output}"
        if os.environ.get("CUDA_BINDINGS_REQUIRE_GPU", "") not in ("", "0"):
            pytest.fail(f"CUDA_BINDINGS_REQUIRE_GPU is set but the example says: {reason}\n{output}")
        pytest.skip(f"{script.name}: {reason}")
    assert proc.returncode == 0, f"{script.name} exited {proc.returncode}\n{output}"
    assert proc.stdout.strip(), f"{script.name} printed nothing about what it did\n{output}"
