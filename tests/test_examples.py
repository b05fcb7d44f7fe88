"""Each example runs as its own process. Exit 0 passes; exit 3 ("requirement not met", i.e. no
CUDA device) is a skip, never a pass (and a failure when CUDA_BINDINGS_REQUIRE_GPU is set);
anything else fails.

An example that needs several devices says so with a line `GPUS_NEEDED = N`: where fewer are
present its exit 3 is a skip unless CUDA_BINDINGS_REQUIRE_GPUS promises N (tests/conftest.py)."""
import os
import re

import pytest

from _support import REPO_ROOT, run_python

EXAMPLES_DIR = REPO_ROOT / "examples"
EXIT_REQUIREMENT_NOT_MET = 3
GPUS_NEEDED = re.compile(r"^GPUS_NEEDED = (\d+)\b", re.MULTILINE)


def gpus_needed(script):
    m = GPUS_NEEDED.search(script.read_text())
    return int(m.group(1)) if m else 1


def example_scripts():
    return sorted(
        p for p in EXAMPLES_DIR.rglob("*.py")
        if "common" not in p.relative_to(EXAMPLES_DIR).parts and p.name != "__init__.py"
    )


def test_examples_are_found():
    names = {p.relative_to(EXAMPLES_DIR).as_posix() for p in example_scripts()}
    assert {"driver/saxpy.py", "driver/saxpy_ctypes.py"} <= names


@pytest.mark.parametrize("script", example_scripts(), ids=lambda p: p.relative_to(EXAMPLES_DIR).as_posix())
def test_example(script, gpu_requirements):
    proc = run_python([str(script)], timeout=600, cwd=str(REPO_ROOT))
    output = f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    if proc.returncode == EXIT_REQUIREMENT_NOT_MET:
        reason = next((line for line in proc.stderr.splitlines() if line.startswith("requirement not met")), None)
        assert reason, f"exit 3 without a 'requirement not met' message:\n{output}"
        needed = gpus_needed(script)
        if needed > 1:
            action, why = gpu_requirements(needed)
            if action == "skip":
                pytest.skip(f"{script.name}: {reason} ({why})")
            if action == "fail":
                pytest.fail(f"{why}; the example says: {reason}\n{output}")
        if os.environ.get("CUDA_BINDINGS_REQUIRE_GPU", "") not in ("", "0"):
            pytest.fail(f"CUDA_BINDINGS_REQUIRE_GPU is set but the example says: {reason}\n{output}")
        pytest.skip(f"{script.name}: {reason}")
    assert proc.returncode == 0, f"{script.name} exited {proc.returncode}\n{output}"
    assert proc.stdout.strip(), f"{script.name} printed nothing about what it did\n{output}"
