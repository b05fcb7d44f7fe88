"""Every Python block of docs/guide.md and docs/v2.md runs, each in its own interpreter; a block
whose first line is `# needs a GPU` is a GPU test."""
import re
from pathlib import Path

import pytest

from _support import run_python

DOCS = Path(__file__).resolve().parent.parent / "docs"
GUIDE = DOCS / "guide.md"
PAGES = [GUIDE, DOCS / "v2.md"]


def _blocks(page):
    return re.findall(r"^```python\n(.*?)^```", page.read_text(), flags=re.S | re.M)


BLOCKS = _blocks(GUIDE)


def _cases():
    for page in PAGES:
        for i, code in enumerate(_blocks(page)):
            marks = [pytest.mark.gpu] if code.startswith("# needs a GPU") else []
            # the guide's blocks keep their ids of old (block1, ...); another page's are named by it
            name = f"block{i + 1}" if page == GUIDE else f"{page.stem}-block{i + 1}"
            yield pytest.param(code, id=name, marks=marks)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_page_has_blocks_of_both_kinds(page):
    blocks = _blocks(page)
    gpu = [b for b in blocks if b.startswith("# needs a GPU")]
    assert len(blocks) >= 4 and 0 < len(gpu) < len(blocks)


@pytest.mark.parametrize("code", list(_cases()))
def test_guide_block_runs(code, tmp_path):
    r = run_python(code, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, f"exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
