"""cuda.core's own test suite, put together outside the repository for scripts/client_suites.py.

    python scripts/core_tests.py [--dir .ref/cuda-core-tests] [--fetch]
    python scripts/core_tests.py --record      (rewrite scripts/core_tests.json from DIR/sources/*.tsv)
    python scripts/core_tests.py --pack .carry/core-tests.tar.xz    (check, then pack tests/ and site/)

The tests are NVIDIA's (public repository NVIDIA/cuda-python, folder cuda_core/tests, and the test
helper package cuda_python_test_helpers they import); they are not in the cuda-core wheel, and they
are never committed here: they live in the git-ignored folder DIR (tests/ and site/), which a GPU
run carries. scripts/core_tests.json lists each file: its path in that repository, the commit the
copy was taken from (where known), the copy's length in characters and where it goes in DIR.

Without options this checks DIR against the list (every file there, with its length) and writes
DIR/SOURCES.md, which says where each file came from. With --fetch, a file missing from DIR is
downloaded from GitHub at its commit (a machine that reaches github.com). With --pack FILE, the
checked folder is also packed into one xz archive (a GPU run carries it: a fraction of the files'
size; scripts/client_releases.sh unpacks .carry/core-tests.tar.xz where it finds it). The copies used so far
were taken from a stored copy of the repository whose files come from different commits (the one
version of each that was stored): cuda-core 1.2.x has no tagged test tree of its own in it, so the
files are not all of one commit, and some are newer or older than 1.2.x; those fail on NVIDIA's
package and ours alike, which the comparison shows as such. Exit status 1 if a file is missing or
differs in length.
"""
import argparse
import csv
import json
import sys
import tarfile
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIST = REPO / "scripts" / "core_tests.json"
RAW = "https://raw.githubusercontent.com/NVIDIA/cuda-python/{commit}/{path}"


def destination(path):
    """Where a repository path goes in DIR: cuda_core/tests/X -> tests/X; the helper package
    (cuda_python_test_helpers/cuda_python_test_helpers/X, its import folder) -> site/."""
    if path.startswith("cuda_core/tests/"):
        return "tests/" + path[len("cuda_core/tests/"):]
    return "site/" + path.split("/", 1)[1]


def record(folder):
    entries = []
    for tsv in sorted((folder / "sources").glob("*.tsv")):
        with open(tsv, newline="") as f:
            for row in csv.reader(f, delimiter="\t"):
                if len(row) < 4 or not row[0].strip():
                    continue
                path, commit, ident, chars = (c.strip() for c in row[:4])
                entries.append({"path": path, "dest": destination(path), "commit": commit or None,
                                "id": ident or None, "chars": int(chars)})
    entries = sorted({e["path"]: e for e in entries}.values(), key=lambda e: e["path"])
    LIST.write_text(json.dumps({"repository": "NVIDIA/cuda-python", "files": entries}, indent=1) + "\n")
    print(f"{LIST.relative_to(REPO)}: {len(entries)} files")


def check(folder, fetch):
    listed = json.loads(LIST.read_text())["files"]
    missing, wrong, fetched = [], [], 0
    for e in listed:
        target = folder / e["dest"]
        if not target.exists() and fetch and e["commit"]:
            with urllib.request.urlopen(RAW.format(**e), timeout=60) as r:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(r.read())
            fetched += 1
        if not target.exists():
            missing.append(e["dest"])
        elif len(target.read_text(encoding="utf-8")) != e["chars"]:
            wrong.append(e["dest"])
    extra = sorted(str(p.relative_to(folder)) for p in folder.glob("[ts][ei]*/**/*")
                   if p.is_file() and "__pycache__" not in p.parts
                   and str(p.relative_to(folder)) not in {e["dest"] for e in listed})
    lines = ["# Where these files came from", "",
             "NVIDIA's public repository NVIDIA/cuda-python; put together by scripts/core_tests.py "
             "(never committed).", "", "| file here | path in the repository | commit |", "| --- | --- | --- |"]
    lines += [f"| {e['dest']} | {e['path']} | {e['commit'] or 'not named by the stored copy (id ' + str(e['id']) + ')'} |"
              for e in listed]
    (folder / "SOURCES.md").write_text("\n".join(lines) + "\n")
    tests = sum(1 for e in listed if Path(e["dest"]).name.startswith("test_") and e["dest"].endswith(".py"))
    print(f"cuda.core tests in {folder}: {len(listed)} files listed ({tests} test modules), "
          f"{len(listed) - len(missing) - len(wrong)} present and whole, {len(missing)} missing, "
          f"{len(wrong)} of another length, {fetched} fetched, {len(extra)} not listed")
    for name, items in (("missing", missing), ("another length", wrong), ("not listed", extra)):
        for i in items:
            print(f"  {name}: {i}")
    return 1 if missing or wrong else 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/core_tests.py")
    ap.add_argument("--dir", default=str(REPO / ".ref" / "cuda-core-tests"))
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--fetch", action="store_true")
    ap.add_argument("--pack", metavar="FILE")
    a = ap.parse_args(argv)
    folder = Path(a.dir)
    if a.record:
        record(folder)
        return 0
    status = check(folder, a.fetch)
    if a.pack and status == 0:
        Path(a.pack).parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(a.pack, "w:xz") as t:
            for name in ("tests", "site", "SOURCES.md"):
                t.add(folder / name, arcname=name, filter=lambda i: None if "__pycache__" in i.name else i)
        print(f"packed into {a.pack}: {Path(a.pack).stat().st_size / 2 ** 10:.0f} KiB")
    return status


if __name__ == "__main__":
    sys.exit(main())
