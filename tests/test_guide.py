"""Every Python block of docs/guide.md runs, each in its own interpreter; a block whose first line
is `# needs a GPU` is a GPU test."""
import re
from pathlib import Path

import pytest

from _support import run_python

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guide.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(), flags=re.S | re.M)


def _cases():
    for i, code in enumerate(BLOCKS):
        marks = [pytest.mark.gpu] if code.startswith("# needs a GPU") else []
        yield pytest.param(code, id=f"block{i + 1}", marks=marks)


def test_the_guide_has_blocks_of_both_kinds():
    gpu = [b for b in BLOCKS if b.startswith("# needs a GPU")]
    assert len(BLOCKS) >= 4 and 0 < len(gpu) < len(BLOCKS)


@pytest.mark.parametrize("code", list(_cases()))
def test_guide_block_runs(code, tmp_path):
    r = run_python(code, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, f"exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
