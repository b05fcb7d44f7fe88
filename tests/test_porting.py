"""docs/porting.md, the guide to porting CUDA C line by line: every Python block runs, each in its
own interpreter (a block whose first line is `# needs a GPU` is a GPU test); every idiom section
shows C beside Python and links at least one example program that uses the idiom; every link
leads somewhere (example programs among them: each must exist)."""
import re
from pathlib import Path

import pytest

from _support import REPO_ROOT, run_python

GUIDE = REPO_ROOT / "docs" / "porting.md"
TEXT = GUIDE.read_text()
BLOCKS = re.findall(r"^```python\n(.*?)^```", TEXT, flags=re.S | re.M)
GPU_MARK = "# needs a GPU"

LINK = re.compile(r"\]\(([^)\s]+)\)")


def _sections():
    """(title, body) of each `## ` section: the idioms."""
    parts = re.split(r"^## (.+)$", TEXT, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def _anchor(title):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return text.replace(" ", "-")


def _example_path(target):
    """The path under examples/ a guide link names, or None for any other link."""
    path = target.split("#", 1)[0]
    prefix = "../examples/"
    return path[len(prefix):] if path.startswith(prefix) else None


def _cases():
    for i, code in enumerate(BLOCKS):
        marks = [pytest.mark.gpu] if code.startswith(GPU_MARK) else []
        yield pytest.param(code, id=f"block{i + 1}", marks=marks)


def test_the_guide_has_blocks_of_both_kinds():
    gpu = [b for b in BLOCKS if b.startswith(GPU_MARK)]
    cpu = [b for b in BLOCKS if not b.startswith(GPU_MARK)]
    assert len(gpu) >= 10 and len(cpu) >= 10, (len(gpu), len(cpu))


def test_every_idiom_section_shows_c_and_python_and_links_an_example_program():
    sections = _sections()
    assert len(sections) >= 14, [title for title, _ in sections]
    for title, body in sections:
        assert "```c\n" in body, f"section {title!r} has no C block"
        assert "```python\n" in body, f"section {title!r} has no Python block"
        programs = [p for p in map(_example_path, LINK.findall(body))
                    if p is not None and not p.startswith("common/")]
        assert programs, f"section {title!r} links no example program"


def test_each_c_block_is_followed_by_a_python_block():
    fences = re.findall(r"^```(\w*)$", TEXT, flags=re.M)
    openings = fences[0::2]          # fences alternate: opening (with its language), closing
    for i, language in enumerate(openings):
        if language == "c":
            assert i + 1 < len(openings) and openings[i + 1] == "python", \
                f"C block {openings[:i + 1].count('c')} is not followed by a Python block"


def test_every_link_leads_somewhere():
    anchors = {_anchor(title) for title, _ in _sections()}
    for target in LINK.findall(TEXT):
        if target.startswith(("http://", "https://")):
            continue
        if target.startswith("#"):
            assert target[1:] in anchors, f"no section for the link {target}"
            continue
        example = _example_path(target)
        if example is not None:
            assert (REPO_ROOT / "examples" / example).is_file(), f"{target}: no such example program"
            continue
        path = target.split("#", 1)[0]
        assert (GUIDE.parent / path).resolve().exists(), f"{target}: no such file"


def test_the_readme_and_the_guide_link_the_porting_guide():
    assert "(docs/porting.md)" in (REPO_ROOT / "README.md").read_text()
    assert "(porting.md)" in (REPO_ROOT / "docs" / "guide.md").read_text()


@pytest.mark.parametrize("code", list(_cases()))
def test_porting_block_runs(code, tmp_path):
    r = run_python(code, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, f"exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
