"""Build the documentation site: the README, the guides in docs/ and the generated API reference
(python -m codegen.refdocs) as one static HTML site with navigation and search (MkDocs; why:
docs/site.md).  Warnings are errors (mkdocs build --strict).

    python scripts/build_site.py [--out build/site] [--reference DIR]

The pages are first laid out in build/site-src/docs/: README.md as index.md, docs/*.md as they
are, the reference pages under reference/ (made here unless --reference names a folder holding
them).  Each Markdown link is rewritten for the page's new place; a link to a file of the
repository that is no page of the site (a script, a test) becomes that file's path in code font,
since the site has no copy of it.  Prints the number of pages and the build time last.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent

#: the guides, in the order of the navigation (every docs/*.md must be listed: a new page is added here)
GUIDES = [
    ("Guide", "guide.md"), ("The second API (_v2)", "v2.md"), ("Porting CUDA C", "porting.md"),
    ("Typed API and checked calls", "typed-api.md"),
    ("Library modules", "library-modules.md"), ("Loading the libraries", "loading.md"),
    ("Clients (cuda.core, numba-cuda)", "clients.md"), ("Client test suites", "client-suites.md"),
    ("Conformance", "conformance.md"), ("Reliability", "reliability.md"), ("Benchmarks", "benchmarks.md"),
    ("Benchmark runs side by side", "benchmark-runs.md"),
    ("CUDA releases", "cuda-versions.md"), ("Changes between releases", "cuda-changelog.md"),
    ("Headers", "headers.md"), ("Wheels", "wheels.md"), ("This site", "site.md"), ("Design", "design.md"),
]
#: where `python -m codegen.refdocs` writes the reference pages by default; a guide links them there
REFDOCS = PurePosixPath("build/docs")
_LINK = re.compile(r"(?<!\!)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]+)\)")


def _site_path(repo_path, reference):
    """The site page (a path under docs_dir) of a repository file, or None."""
    p = PurePosixPath(repo_path)
    if p == PurePosixPath("README.md"):
        return "index.md"
    if p.parent == PurePosixPath("docs") and p.suffix == ".md":
        return p.name
    if p.parent in (reference, REFDOCS) and p.suffix == ".md":
        return f"reference/{p.name}"
    return None


def _rewrite(text, src_repo, dst_site, reference):
    """`text` (a page at repo path src_repo, placed at site path dst_site) with its links rewritten."""
    def fix(m):
        label, target = m.group(1), m.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return m.group(0)
        path, _, anchor = target.partition("#")
        repo = PurePosixPath(os.path.normpath(PurePosixPath(src_repo).parent / path)).as_posix()
        page = _site_path(repo, reference)
        if page is None:
            shown = repo.rstrip("/") + ("/" if path.endswith("/") else "")
            return f"`{shown}`" if label.strip("`") in (path, shown, repo) else f"{label} (`{shown}`)"
        rel = os.path.relpath(page, os.path.dirname(dst_site) or ".")
        return f"[{label}]({rel}{'#' + anchor if anchor else ''})"

    out, fenced = [], False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        code = [m.span() for m in re.finditer(r"`[^`]*`", line)]      # a link only outside inline code
        out.append(_LINK.sub(lambda m: m.group(0) if any(a < m.start() < b for a, b in code) else fix(m), line))
    return "".join(out)


def _stage(src, reference_dir):
    docs = src / "docs"
    if src.exists():
        shutil.rmtree(src)
    (docs / "reference").mkdir(parents=True)
    reference = PurePosixPath(Path(os.path.relpath(reference_dir, ROOT)).as_posix())
    listed = {name for _, name in GUIDES}
    missing = sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.name not in listed)
    if missing:
        sys.exit(f"docs/ pages not in scripts/build_site.py's GUIDES: {', '.join(missing)}")
    pages = [("README.md", "index.md")] + [(f"docs/{n}", n) for _, n in GUIDES]
    # the modules' pages by name, the second API's (_v2.driver.md, _v2.nvrtc.md) after them
    refs = sorted((p.name for p in Path(reference_dir).glob("*.md")), key=lambda n: (n.startswith("_v2."), n))
    pages += [((reference / n).as_posix(), f"reference/{n}") for n in refs]
    for repo, site in pages:
        text = (ROOT / repo).read_text(encoding="utf-8")
        (docs / site).write_text(_rewrite(text, repo, site, reference), encoding="utf-8")
    nav = ["nav:", "  - Home: index.md", "  - Guides:"] + [f"    - {t!r}: {n}" for t, n in GUIDES]
    nav += ["  - API reference:", "    - Modules: reference/index.md"]
    nav += [f"    - cuda.bindings.{n[:-3]}: reference/{n}" for n in refs if n != "index.md"]
    (src / "mkdocs.yml").write_text("\n".join([
        "site_name: cuda.bindings",
        "site_description: Python bindings for CUDA, generated from NVIDIA's headers",
        "docs_dir: docs",
        "use_directory_urls: false",      # plain files: the site opens from disk too
        "theme:",
        "  name: readthedocs",
        "  navigation_depth: 2",
        "  collapse_navigation: true",
        "plugins:",
        "  - search",
        "markdown_extensions:",
        "  - toc:",
        "      permalink: true",
        "  - tables",
        "  - fenced_code",
        "validation:",
        "  omitted_files: warn",
        "  absolute_links: warn",
        "  unrecognized_links: warn",
        *nav, ""]), encoding="utf-8")
    return len(pages)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "build" / "site"), help="the site (default build/site)")
    ap.add_argument("--reference", help="a folder with the reference pages (default: made now, build/site-ref)")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    reference = Path(args.reference) if args.reference else ROOT / "build" / "site-ref"
    if not args.reference:
        subprocess.run([sys.executable, "-m", "codegen.refdocs", "--out", str(reference)], cwd=ROOT, check=True)
    t1 = time.monotonic()
    src = ROOT / "build" / "site-src"
    n = _stage(src, reference)
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-q",
                        "-f", str(src / "mkdocs.yml"), "-d", str(Path(args.out).resolve())], cwd=src)
    if r.returncode != 0:
        sys.exit(f"mkdocs build --strict failed (exit {r.returncode})")
    html = sum(1 for _ in Path(args.out).rglob("*.html"))
    print(f"site: {n} pages ({html} HTML files) in {args.out}; reference {t1 - t0:.0f} s, "
          f"site {time.monotonic() - t1:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
