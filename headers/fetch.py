"""Locate (or download) the CUDA 13.0 header set that the bindings are generated and built from.

The headers are NVIDIA's and are not committed to this repository. They are taken from NVIDIA's
PyPI wheels, pinned by file name and sha256 in ``pins.json`` beside this file.

``include_dir()`` returns a directory holding ``cuda.h``, ``cuda_runtime_api.h``, ``nvrtc.h``,
``nvJitLink.h`` and the rest. It looks, in this order, at:

1. ``$CUDA_BINDINGS_INCLUDE_DIR`` (an explicit override; used as given, never skipped);
2. the local cache ``headers/cuda-13.0/include/``, when its stamp matches the pins;
3. ``nvidia/cu13/include`` under every ``sys.path`` entry (NVIDIA's wheels installed in this
   Python), when its ``cuda.h`` says ``#define CUDA_VERSION 13000``;
4. ``$CUDA_HOME/include`` and ``$CUDA_PATH/include``, with the same version check;
5. otherwise it downloads the pinned wheels from PyPI (standard library only), checks their
   sha256, and extracts ``nvidia/cu13/include/**`` into the cache.

Wheels already on disk can stand in for the download: ``$CUDA_BINDINGS_WHEEL_DIR`` (or
``--wheel-dir``) names a folder searched for the pinned file names first; they are checked
against the pinned sha256 all the same.

Command line::

    python -m headers.fetch                   # print the include directory
    python -m headers.fetch --force-download  # fetch the pinned wheels again, refresh the cache
"""
from __future__ import annotations

import argparse
import hashlib
import html.parser
import http.client
import json
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
PINS_FILE = HERE / "pins.json"

ENV_INCLUDE_DIR = "CUDA_BINDINGS_INCLUDE_DIR"
ENV_WHEEL_DIR = "CUDA_BINDINGS_WHEEL_DIR"

#: Where NVIDIA's CUDA 13 wheels keep their headers, inside the wheel and inside site-packages.
WHEEL_INCLUDE = "nvidia/cu13/include"

#: Headers a usable directory must hold (the generator reads these; the build includes them).
#: NVIDIA's wheels ship neither cudaProfiler.h nor cuda_profiler_api.h, so they are not required.
REQUIRED_HEADERS = (
    "cuda.h",
    "cudaTypedefs.h",
    "cudaProfilerTypedefs.h",
    "cuda_runtime_api.h",
    "driver_types.h",
    "vector_types.h",
    "surface_types.h",
    "texture_types.h",
    "library_types.h",
    "device_types.h",
    "driver_functions.h",
    "nvrtc.h",
    "nvJitLink.h",
)

PYPI_JSON = "https://pypi.org/pypi/{project}/{version}/json"
PYPI_PROJECT_JSON = "https://pypi.org/pypi/{project}/json"
PYPI_SIMPLE = "https://pypi.org/simple/{project}/"
USER_AGENT = "cuda-bindings-gen-headers/1"
_CUDA_VERSION_RE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+CUDA_VERSION[ \t]+(\d+)", re.M)


class HeadersNotFound(RuntimeError):
    """No usable CUDA header directory was found or could be fetched."""


class Located(NamedTuple):
    path: Path
    source: str  # a short description of where the headers came from


def load_pins() -> dict:
    with open(PINS_FILE, encoding="utf-8") as f:
        return json.load(f)


def cache_root(pins: dict | None = None) -> Path:
    pins = pins or load_pins()
    return HERE / f"cuda-{pins['cuda']}"


def _stamp_of(pins: dict) -> dict:
    return {
        "cuda": pins["cuda"],
        "wheels": [{"filename": w["filename"], "sha256": w["sha256"]} for w in pins["wheels"]],
    }


def _stamp_path(root: Path) -> Path:
    return root / "stamp.json"


def cuda_version_of(include: Path) -> int | None:
    """The ``CUDA_VERSION`` that ``include/cuda.h`` defines, or None."""
    try:
        m = _CUDA_VERSION_RE.search((include / "cuda.h").read_bytes())
    except OSError:
        return None
    return int(m.group(1)) if m else None


def _problem(include: Path, want_version: int | None) -> str | None:
    """Why ``include`` is not usable, or None when it is."""
    if not include.is_dir():
        return "no such directory"
    missing = [h for h in REQUIRED_HEADERS if not (include / h).is_file()]
    if missing:
        return "missing " + ", ".join(missing)
    if want_version is not None:
        got = cuda_version_of(include)
        if got != want_version:
            return f"cuda.h has CUDA_VERSION {got}, want {want_version}"
    return None


def _cached(pins: dict) -> tuple[Path | None, str]:
    root = cache_root(pins)
    include = root / "include"
    try:
        stamp = json.loads(_stamp_path(root).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, "not downloaded yet"
    except (OSError, ValueError) as e:
        return None, f"unreadable stamp ({e})"
    if stamp != _stamp_of(pins):
        return None, "stamp does not match pins.json"
    why = _problem(include, pins["cuda_version_define"])
    return (None, why) if why else (include, "ok")


def locate(*, force_download: bool = False, wheel_dir: str | os.PathLike | None = None,
           quiet: bool = False) -> Located:
    """Find a CUDA 13.0 include directory (see the module docstring for the order)."""
    pins = load_pins()
    want = pins["cuda_version_define"]
    tried: list[str] = []

    if not force_download:
        env = os.environ.get(ENV_INCLUDE_DIR)
        if env:
            include = Path(env).expanduser().resolve()
            why = _problem(include, None)
            if why:
                raise HeadersNotFound(f"${ENV_INCLUDE_DIR}={env} is not usable: {why}")
            return Located(include, f"${ENV_INCLUDE_DIR}")
        tried.append(f"${ENV_INCLUDE_DIR}: not set")

        include, why = _cached(pins)
        if include is not None:
            return Located(include, "pinned wheels (cache)")
        tried.append(f"cache {cache_root(pins) / 'include'}: {why}")

        seen: set[Path] = set()
        for entry in sys.path:
            candidate = Path(entry or os.getcwd()) / WHEEL_INCLUDE
            if candidate in seen or not candidate.exists():
                continue
            seen.add(candidate)
            why = _problem(candidate, want)
            if why is None:
                return Located(candidate, "installed wheels on sys.path")
            tried.append(f"{candidate}: {why}")
        if not seen:
            tried.append(f"sys.path: no entry has {WHEEL_INCLUDE}")

        for var in ("CUDA_HOME", "CUDA_PATH"):
            home = os.environ.get(var)
            if not home:
                tried.append(f"${var}: not set")
                continue
            candidate = Path(home) / "include"
            why = _problem(candidate, want)
            if why is None:
                return Located(candidate, f"${var}")
            tried.append(f"${var}/include ({candidate}): {why}")

    wheel_dir = wheel_dir or os.environ.get(ENV_WHEEL_DIR) or None
    try:
        include = download(pins, wheel_dir=wheel_dir, quiet=quiet)
    except Exception as e:
        tried.append(f"download of the pinned wheels: {e}")
        raise HeadersNotFound(
            f"no CUDA {pins['cuda']} headers found. Tried:\n  - " + "\n  - ".join(tried)
        ) from e
    return Located(include, "pinned wheels (downloaded)")


def include_dir(*, force_download: bool = False) -> Path:
    """A directory with the CUDA 13.0 headers (cuda.h, cuda_runtime_api.h, nvrtc.h, ...)."""
    return locate(force_download=force_download).path


# --------------------------------------------------------------------------- download


def _log(quiet: bool, msg: str) -> None:
    if not quiet:
        print(f"headers.fetch: {msg}", file=sys.stderr, flush=True)


def _open(url: str, timeout: float = 60):
    req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    return urllib.request.urlopen(req, timeout=timeout)


def _json_files(url: str, version: str | None) -> list[tuple[str, str, str | None]]:
    """(filename, absolute url, sha256) for each file listed by a PyPI JSON API page."""
    with _open(url) as r:
        data = json.load(r)
    files = data.get("urls", []) if version is None else data.get("releases", {}).get(version, [])
    return [(f.get("filename", ""), urllib.parse.urljoin(url, f.get("url", "")),
             f.get("digests", {}).get("sha256")) for f in files]


class _Anchors(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href") if tag == "a" else None
        if href:
            self.hrefs.append(href)


def _simple_files(url: str) -> list[tuple[str, str, str | None]]:
    """(filename, absolute url, sha256) for each link of a PEP 503 simple index page."""
    with _open(url) as r:
        parser = _Anchors()
        parser.feed(r.read().decode("utf-8", "replace"))
    out = []
    for href in parser.hrefs:
        link, _, fragment = urllib.parse.urljoin(url, href).partition("#")
        sha = fragment[len("sha256="):] if fragment.startswith("sha256=") else None
        out.append((urllib.parse.unquote(link.rsplit("/", 1)[-1]), link, sha))
    return out


def _wheel_urls(pin: dict) -> tuple[list[str], list[str]]:
    """Candidate download URLs for a pinned file, and what went wrong on the way.

    Asks PyPI's JSON API for the release, then for the whole project (some mirrors serve only
    that one), then the simple index; relative links are resolved against the page they are on.
    """
    project, version = pin["project"], pin["version"]
    pages = [
        (PYPI_JSON.format(project=project, version=version), None),
        (PYPI_PROJECT_JSON.format(project=project), version),
        (PYPI_SIMPLE.format(project=project), "simple"),
    ]
    urls: list[str] = []
    errors: list[str] = []
    for page, how in pages:
        try:
            files = _simple_files(page) if how == "simple" else _json_files(page, how)
        except (OSError, ValueError, http.client.HTTPException) as e:
            errors.append(f"{page}: {e}")
            continue
        hits = [(u, sha) for name, u, sha in files if name == pin["filename"]]
        if not hits:
            errors.append(f"{page}: does not list {pin['filename']}")
        for u, sha in hits:
            if sha and sha != pin["sha256"]:
                raise HeadersNotFound(
                    f"{page} lists sha256 {sha} for {pin['filename']}, pinned {pin['sha256']}")
            if u not in urls:
                urls.append(u)
    return urls, errors


def _download_to(url: str, dest: Path, sha256: str) -> None:
    h = hashlib.sha256()
    with _open(url, timeout=120) as r, open(dest, "wb") as out:
        while True:
            chunk = r.read(1 << 20)
            if not chunk:
                break
            h.update(chunk)
            out.write(chunk)
    if h.hexdigest() != sha256:
        raise HeadersNotFound(f"sha256 mismatch for {url}: got {h.hexdigest()}, want {sha256}")


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _fetch_wheel(pin: dict, workdir: Path, wheel_dir, quiet: bool) -> Path:
    if wheel_dir:
        local = Path(wheel_dir) / pin["filename"]
        if local.is_file():
            got = _sha256_file(local)
            if got != pin["sha256"]:
                raise HeadersNotFound(f"{local}: sha256 {got}, pinned {pin['sha256']}")
            _log(quiet, f"using {local}")
            return local
    dest = workdir / pin["filename"]
    problems: list[str] = []
    for attempt in range(3):
        urls, errors = _wheel_urls(pin)
        problems = errors[:]
        for url in urls:
            try:
                _log(quiet, f"downloading {url}")
                _download_to(url, dest, pin["sha256"])
                return dest
            except (OSError, ValueError, http.client.HTTPException, HeadersNotFound) as e:
                problems.append(f"{url}: {e}")
        if attempt < 2:
            time.sleep(2 * (attempt + 1))
    raise HeadersNotFound(f"could not download {pin['filename']} (" + "; ".join(problems) + ")")


def _extract_headers(wheel: Path, dest_include: Path) -> int:
    prefix = WHEEL_INCLUDE + "/"
    count = 0
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            name = info.filename
            if info.is_dir() or not name.startswith(prefix):
                continue
            rel = PurePosixPath(name[len(prefix):])
            if rel.is_absolute() or ".." in rel.parts:
                raise HeadersNotFound(f"{wheel.name}: unsafe member name {name!r}")
            target = dest_include.joinpath(*rel.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
            count += 1
    return count


def download(pins: dict | None = None, *, wheel_dir=None, quiet: bool = False) -> Path:
    """Fetch the pinned wheels, verify them, and (re)build the cache. Returns its include dir."""
    pins = pins or load_pins()
    root = cache_root(pins)
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.", dir=root.parent))
    try:
        wheels = staging / "wheels"
        wheels.mkdir()
        include = staging / "include"
        include.mkdir()
        for pin in pins["wheels"]:
            wheel = _fetch_wheel(pin, wheels, wheel_dir, quiet)
            n = _extract_headers(wheel, include)
            if n == 0:
                raise HeadersNotFound(f"{pin['filename']} has no files under {WHEEL_INCLUDE}/")
        shutil.rmtree(wheels)
        why = _problem(include, pins["cuda_version_define"])
        if why:
            raise HeadersNotFound(f"the pinned wheels gave an unusable header set: {why}")
        _stamp_path(staging).write_text(
            json.dumps(_stamp_of(pins), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        # Swap the finished tree in; a concurrent fetch that won the race is just as good.
        if root.exists():
            shutil.rmtree(root)
        try:
            os.rename(staging, root)
        except OSError:
            if _cached(pins)[0] is None:
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _log(quiet, f"headers ready in {root / 'include'}")
    return root / "include"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m headers.fetch", description=__doc__.split("\n\n")[0])
    ap.add_argument("--force-download", action="store_true",
                    help="download the pinned wheels again and rebuild the cache")
    ap.add_argument("--wheel-dir", help=f"folder with the pinned wheel files (or ${ENV_WHEEL_DIR})")
    ap.add_argument("-v", "--verbose", action="store_true", help="also say where the headers came from")
    args = ap.parse_args(argv)
    try:
        found = locate(force_download=args.force_download, wheel_dir=args.wheel_dir)
    except HeadersNotFound as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.verbose:
        print(f"headers from: {found.source}", file=sys.stderr)
    print(found.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
