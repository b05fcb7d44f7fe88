"""Locate (or download) the CUDA header set that the bindings are generated and built from.

The headers are NVIDIA's and are not committed to this repository. They are taken from NVIDIA's
PyPI wheels, pinned by file name and sha256 in ``pins.json`` beside this file, one entry per
CUDA release the bindings can be built for (12.9, 13.0, 13.5, ...). The release is chosen by the
``version`` argument, else ``$CUDA_BINDINGS_CUDA_VERSION``, else the ``default`` of ``pins.json``.

``include_dir()`` returns one directory holding ``cuda.h``, ``cuda_runtime_api.h``,
``crt/host_defines.h``, ``nvrtc.h``, ``nvJitLink.h``, ``nvvm.h``, the library headers the
release's wheels ``complete`` (``cufile.h``, ``nvFatbin.h``, ``nvml.h``, on 13.5 ``cudla.h``) and
the rest, for the chosen release. It looks, in this order, at:

1. ``$CUDA_BINDINGS_INCLUDE_DIR`` (an explicit override; used as given, never skipped, but
   refused when its ``cuda.h`` is not of the chosen release);
2. the local cache ``headers/cuda-<version>/include/``, when its stamp matches the pins (and,
   for a cache completed from an installed set, that set is unchanged);
3. the release's ``installed_include`` folder (``nvidia/cu13/include`` for CUDA 13) under every
   ``sys.path`` entry (NVIDIA's wheels installed in this Python), when its ``cuda.h`` defines
   the release's ``CUDA_VERSION`` (e.g. 13000); skipped for a release whose wheels keep their
   headers in several folders (12.9);
4. ``$CUDA_HOME/include`` and ``$CUDA_PATH/include``, with the same version check;
5. an installed set from 3 or 4 that lacks only headers a pinned wheel ``completes`` (for CUDA
   13, the runtime/nvrtc/nvjitlink wheels without ``nvidia-cuda-crt``, which has
   ``crt/host_defines.h``, or without ``nvidia-nvvm``, which has ``nvvm.h``, or without the
   cuFile, nvFatbin, NVML or cuDLA wheels): the cache is built from a copy of that set plus the
   headers of the completing wheel(s);
6. otherwise it downloads all the pinned wheels from PyPI (standard library only), checks their
   sha256, and extracts what each has under its ``include`` folders (by default the release's
   ``installed_include``) into the cache. A wheel is fetched by its pinned file name, whatever
   its platform: ``nvidia-cudla`` exists for aarch64 only, and its header serves every platform.

Wheels already on disk can stand in for the download (in 5 and 6): ``$CUDA_BINDINGS_WHEEL_DIR``
(or ``--wheel-dir``) names a folder searched for the pinned file names first; they are checked
against the pinned sha256 all the same. A relative folder is taken from the current directory,
else from the repository root.

The cache's ``stamp.json`` says what it was built from: the pinned wheels, or an installed set
(its path, CUDA_VERSION and a digest of its files) plus the pinned wheels that completed it.

Command line::

    python -m headers.fetch                   # print the include directory of the chosen release
    python -m headers.fetch --cuda 12.9       # ... of CUDA 12.9
    python -m headers.fetch --all             # every pinned release, one "VERSION PATH" line each
    python -m headers.fetch --force-download  # fetch all pinned wheels again, refresh the cache
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
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
PINS_FILE = HERE / "pins.json"

ENV_CUDA_VERSION = "CUDA_BINDINGS_CUDA_VERSION"
ENV_INCLUDE_DIR = "CUDA_BINDINGS_INCLUDE_DIR"
ENV_WHEEL_DIR = "CUDA_BINDINGS_WHEEL_DIR"

#: Headers a usable directory must hold (the generator reads these; the build includes them:
#: ``cuda_runtime_api.h`` includes ``crt/host_defines.h``, which is in the nvidia-cuda-crt wheel).
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
    "nvvm.h",
    "crt/host_defines.h",
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


def _read_pins() -> dict:
    """``pins.json`` as written: ``default`` and one entry per version under ``versions``."""
    with open(PINS_FILE, encoding="utf-8") as f:
        return json.load(f)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def versions() -> list[str]:
    """The pinned CUDA versions, oldest first (e.g. ``["12.9", "13.0", "13.5"]``)."""
    return sorted(_read_pins()["versions"], key=_version_key)


def default_version() -> str:
    """The version built when none is chosen (``default`` in ``pins.json``)."""
    return _read_pins()["default"]


def _selection(version: str | None) -> tuple[str, str]:
    """(the chosen pinned version, how it was chosen); see ``selected_version``."""
    if version is not None:
        how = "requested"
    elif os.environ.get(ENV_CUDA_VERSION, "").strip():
        version, how = os.environ[ENV_CUDA_VERSION].strip(), f"${ENV_CUDA_VERSION}"
    else:
        version = default_version()
        how = f"the default in {PINS_FILE.name}"
    pinned = versions()
    if version not in pinned:
        raise HeadersNotFound(
            f"CUDA version {version!r} ({how}) is not pinned in {PINS_FILE};"
            f" pinned versions: {', '.join(pinned)} (choose one with ${ENV_CUDA_VERSION})")
    return version, how


def selected_version(version: str | None = None) -> str:
    """The CUDA version to build for: ``version`` if given, else ``$CUDA_BINDINGS_CUDA_VERSION``
    if set and non-empty, else the default. Raises HeadersNotFound for a version not pinned."""
    return _selection(version)[0]


def load_pins(version: str | None = None) -> dict:
    """The pins of one CUDA version (chosen as by ``selected_version``): ``cuda`` (e.g. "12.9"),
    ``cuda_version_define``, ``twin`` (NVIDIA's cuda-bindings release whose API the build matches:
    the package version), ``installed_include`` (None when the wheels have no single include
    folder) and ``wheels``, each of which has its ``include`` folder prefixes filled in."""
    version = selected_version(version)
    entry = _read_pins()["versions"][version]
    installed = entry.get("installed_include")
    wheels = []
    for pin in entry["wheels"]:
        include = pin.get("include") or ([installed] if installed else [])
        if not include:
            raise HeadersNotFound(
                f"{PINS_FILE}: CUDA {version} wheel {pin['filename']} names no \"include\" folder"
                " and the version has no \"installed_include\"")
        wheels.append({**pin, "include": [p.strip("/") for p in include]})
    return {"cuda": version, "cuda_version_define": entry["cuda_version_define"], "twin": entry["twin"],
            "installed_include": installed, "wheels": wheels}


def cache_root(pins: dict | None = None) -> Path:
    pins = pins or load_pins()
    return HERE / f"cuda-{pins['cuda']}"


def _pin_stamp(pin: dict) -> dict:
    return {"filename": pin["filename"], "sha256": pin["sha256"], "include": pin["include"]}


def _stamp_of(pins: dict) -> dict:
    """The stamp of a cache built from all the pinned wheels."""
    return {
        "cuda": pins["cuda"],
        "built_from": "pinned wheels",
        "wheels": [_pin_stamp(w) for w in pins["wheels"]],
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


def required_headers(pins: dict | None = None) -> list[str]:
    """The headers a usable directory of a release must hold: ``REQUIRED_HEADERS`` plus every
    header a pinned wheel of the release ``completes`` (``cufile.h``, ``nvml.h``, ...), in order."""
    out = list(REQUIRED_HEADERS)
    for pin in (pins or {}).get("wheels", ()):
        out += [h for h in pin.get("completes", ()) if h not in out]
    return out


def _missing(include: Path, pins: dict | None = None) -> list[str]:
    return [h for h in required_headers(pins) if not (include / h).is_file()]


def _completers(pins: dict, missing: list[str]) -> list[dict] | None:
    """The pinned wheels that supply every header of ``missing`` (their ``completes``), or None."""
    need = set(missing)
    chosen, covered = [], set()
    for pin in pins["wheels"]:
        got = need & set(pin.get("completes", ()))
        if got:
            chosen.append(pin)
            covered |= got
    return chosen if need and covered == need else None


def _problem(include: Path, want_version: int | None, pins: dict | None = None) -> str | None:
    """Why ``include`` is not usable as it is, or None when it is."""
    if not include.is_dir():
        return "no such directory"
    missing = _missing(include, pins)
    if missing:
        why = "missing " + ", ".join(missing)
        completers = _completers(pins, missing) if pins else None
        if completers:
            why += " (shipped in " + ", ".join(
                f"{p['project']} {p['version']}" for p in completers) + ")"
        return why
    if want_version is not None:
        got = cuda_version_of(include)
        if got != want_version:
            return f"cuda.h has CUDA_VERSION {got}, want {want_version}"
    return None


def _completion(include: Path, want_version: int, pins: dict) -> list[dict] | None:
    """The pinned wheels that would make ``include`` usable, when it lacks only what they supply."""
    if not include.is_dir() or cuda_version_of(include) != want_version:
        return None
    return _completers(pins, _missing(include, pins))


def _tree_files(base: Path) -> list[str]:
    """Every file under ``base`` (symlinks followed, ``__pycache__`` skipped), as sorted posix paths."""
    out = []
    for dirpath, dirnames, filenames in os.walk(base, followlinks=True):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = Path(dirpath).relative_to(base)
        out.extend((rel / f).as_posix() for f in filenames)
    return sorted(out)


def _base_stamp(base: Path, installed_include: str | None) -> dict:
    """What identifies an installed header set: path, CUDA_VERSION, and a digest of its files."""
    h = hashlib.sha256()
    files = _tree_files(base)
    for rel in files:
        h.update(rel.encode() + b"\0")
        h.update(_sha256_file(base / rel).encode() + b"\n")
    stamp = {"path": str(base), "cuda_version": cuda_version_of(base), "files": len(files),
             "sha256": h.hexdigest()}
    # For a wheel set in site-packages (<site>/<installed_include>), name its distributions.
    site = None
    if installed_include and base.as_posix().endswith("/" + installed_include):
        site = base.parents[len(PurePosixPath(installed_include).parts) - 1]
    if site is not None:
        dists = sorted(d.name[: -len(".dist-info")] for d in site.glob("nvidia_*.dist-info"))
        if dists:
            stamp["distributions"] = dists
    return stamp


def _completed_stamp(pins: dict, base: Path, completers: list[dict]) -> dict:
    """The stamp of a cache built from the installed set ``base`` plus ``completers``."""
    return {
        "cuda": pins["cuda"],
        "built_from": "installed headers completed with pinned wheels",
        "base": _base_stamp(base, pins["installed_include"]),
        "wheels": [_pin_stamp(w) for w in completers],
    }


def _cached(pins: dict) -> tuple[Path | None, str]:
    """(the cache's include dir, what it was built from) when it is current, else (None, why not)."""
    root = cache_root(pins)
    include = root / "include"
    try:
        stamp = json.loads(_stamp_path(root).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, "not built yet"
    except (OSError, ValueError) as e:
        return None, f"unreadable stamp ({e})"
    if not isinstance(stamp, dict):
        return None, "unreadable stamp (not an object)"
    base = stamp.get("base")
    if base is None:
        if stamp != _stamp_of(pins):
            return None, "stamp does not match pins.json"
        what = "pinned wheels"
    else:
        want = pins["cuda_version_define"]
        base_path = Path(base.get("path", "")) if isinstance(base, dict) else Path("")
        completers = _completion(base_path, want, pins)
        if completers is None:
            why = _problem(base_path, want, pins)
            why = f"is no longer usable ({why})" if why else "now has every header itself"
            return None, f"built from {base_path}, which {why}"
        if stamp != _completed_stamp(pins, base_path, completers):
            return None, f"stamp does not match pins.json and the current {base_path}"
        what = f"{base_path} + " + ", ".join(w["project"] for w in completers)
    why = _problem(include, pins["cuda_version_define"], pins)
    return (None, why) if why else (include, what)


def _installed_candidates(pins: dict) -> list[tuple[Path | None, str]]:
    """Installed header sets: wheels on sys.path, then $CUDA_HOME and $CUDA_PATH, in order;
    (None, why) stands for a place with nothing to look at."""
    out: list[tuple[Path | None, str]] = []
    installed = pins["installed_include"]
    if installed:
        seen: set[Path] = set()
        for entry in sys.path:
            candidate = Path(entry or os.getcwd()) / installed
            if candidate in seen or not candidate.exists():
                continue
            seen.add(candidate)
            out.append((candidate, "installed wheels on sys.path"))
        if not seen:
            out.append((None, f"sys.path: no entry has {installed}"))
    else:
        out.append((None, f"sys.path: skipped, CUDA {pins['cuda']}'s wheels have no single"
                          " include folder"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        out.append((Path(home) / "include", f"${var}") if home else (None, f"${var}: not set"))
    return out


def _wheel_dir(wheel_dir) -> Path | None:
    """The wheel folder to search: as given, or (relative and absent here) under the repo root."""
    wheel_dir = wheel_dir or os.environ.get(ENV_WHEEL_DIR) or None
    if not wheel_dir:
        return None
    path = Path(wheel_dir).expanduser()
    if not path.is_absolute() and not path.is_dir() and (HERE.parent / path).is_dir():
        path = HERE.parent / path
    return path


def locate(version: str | None = None, *, force_download: bool = False,
           wheel_dir: str | os.PathLike | None = None, quiet: bool = False) -> Located:
    """Find the include directory of a CUDA version, chosen as by ``selected_version`` (see the
    module docstring for the order)."""
    version, how = _selection(version)
    pins = load_pins(version)
    want = pins["cuda_version_define"]
    tried: list[str] = []
    wheels = _wheel_dir(wheel_dir)
    wheels_note = f"wheel dir {wheels}" if wheels else f"wheel dir: none, ${ENV_WHEEL_DIR} not set"

    def fail() -> HeadersNotFound:
        return HeadersNotFound(
            f"no CUDA {version} headers found ({how}). Tried:\n  - " + "\n  - ".join(tried)
            + f"\nWithout network access, put the pinned wheel files (headers/pins.json) in a"
            f" folder and set ${ENV_WHEEL_DIR} to it (or pass --wheel-dir).")

    if not force_download:
        env = os.environ.get(ENV_INCLUDE_DIR)
        if env:
            include = Path(env).expanduser().resolve()
            why = _problem(include, None, pins)
            if why:
                raise HeadersNotFound(f"${ENV_INCLUDE_DIR}={env} is not usable: {why}")
            got = cuda_version_of(include)
            if got != want:
                raise HeadersNotFound(
                    f"${ENV_INCLUDE_DIR}={env} has CUDA_VERSION {got} but the build is for"
                    f" CUDA {version} ({how}, CUDA_VERSION {want}); point it at CUDA {version}"
                    f" headers, or choose another version with ${ENV_CUDA_VERSION}")
            return Located(include, f"${ENV_INCLUDE_DIR}")
        tried.append(f"${ENV_INCLUDE_DIR}: not set")

        include, why = _cached(pins)
        if include is not None:
            return Located(include, f"{why} (cache)")
        tried.append(f"cache {cache_root(pins) / 'include'}: {why}")

        completable: list[tuple[Path, str, list[dict]]] = []
        for candidate, label in _installed_candidates(pins):
            if candidate is None:
                tried.append(label)
                continue
            why = _problem(candidate, want, pins)
            if why is None:
                return Located(candidate, label)
            tried.append(f"{candidate} ({label}): {why}")
            completers = _completion(candidate, want, pins)
            if completers:
                completable.append((candidate, label, completers))

        # Complete the first installed set that lacks only pinned headers (the same wheels would
        # be needed for any other, so one failure to get them is enough).
        for candidate, label, completers in completable[:1]:
            names = ", ".join(w["filename"] for w in completers)
            try:
                include = complete(pins, candidate, completers, wheel_dir=wheels, quiet=quiet)
            except Exception as e:
                tried.append(f"{candidate} completed with {names} ({wheels_note}): {e}")
                break
            what = f"{candidate} + " + ", ".join(w["project"] for w in completers)
            return Located(include, f"{label}: {what} (cache)")

    try:
        include = download(pins, wheel_dir=wheels, quiet=quiet)
    except Exception as e:
        tried.append(f"download of all pinned wheels ({wheels_note}): {e}")
        raise fail() from e
    return Located(include, "pinned wheels (downloaded)")


def include_dir(version: str | None = None, *, force_download: bool = False) -> Path:
    """A directory with the headers (cuda.h, cuda_runtime_api.h, nvrtc.h, ...) of a CUDA version,
    chosen as by ``selected_version``."""
    return locate(version, force_download=force_download).path


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


def _unreachable(e: BaseException) -> bool:
    """Whether ``e`` means the index could not be reached at all (no name lookup, no connection)."""
    return isinstance(e, urllib.error.URLError) and not isinstance(e, urllib.error.HTTPError)


def _wheel_urls(pin: dict) -> tuple[list[str], list[str], bool]:
    """Candidate download URLs for a pinned file, what went wrong on the way, and whether no
    index page could be reached at all.

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
    unreachable = 0
    for page, how in pages:
        try:
            files = _simple_files(page) if how == "simple" else _json_files(page, how)
        except (OSError, ValueError, http.client.HTTPException) as e:
            errors.append(f"{page}: {e}")
            unreachable += _unreachable(e)
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
    return urls, errors, unreachable == len(pages)


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
    """The pinned wheel file, from ``wheel_dir`` when it is there, else downloaded; sha256-checked."""
    local_note = None
    if wheel_dir:
        local = Path(wheel_dir) / pin["filename"]
        if local.is_file():
            got = _sha256_file(local)
            if got != pin["sha256"]:
                raise HeadersNotFound(f"{local}: sha256 {got}, pinned {pin['sha256']}")
            _log(quiet, f"using {local}")
            return local
        local_note = f"not in {wheel_dir}"
    dest = workdir / pin["filename"]
    problems: list[str] = []
    for attempt in range(3):
        urls, errors, unreachable = _wheel_urls(pin)
        problems = errors[:]
        for url in urls:
            try:
                _log(quiet, f"downloading {url}")
                _download_to(url, dest, pin["sha256"])
                return dest
            except (OSError, ValueError, http.client.HTTPException, HeadersNotFound) as e:
                problems.append(f"{url}: {e}")
        if unreachable:  # no network here: retrying will not help
            break
        if attempt < 2:
            time.sleep(2 * (attempt + 1))
    if local_note:
        problems.insert(0, local_note)
    raise HeadersNotFound(f"could not get {pin['filename']} (" + "; ".join(problems) + ")")


def _extract_headers(wheel: Path, prefixes: list[str], dest_include: Path) -> int:
    """Extract the files under each folder of ``prefixes`` into ``dest_include``; how many."""
    starts = tuple(p + "/" for p in prefixes)
    count = 0
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            name = info.filename
            start = next((p for p in starts if name.startswith(p)), None)
            if info.is_dir() or start is None:
                continue
            rel = PurePosixPath(name[len(start):])
            if rel.is_absolute() or ".." in rel.parts:
                raise HeadersNotFound(f"{wheel.name}: unsafe member name {name!r}")
            target = dest_include.joinpath(*rel.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
            count += 1
    return count


def _new_staging(root: Path) -> Path:
    root.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{root.name}.", dir=root.parent))


def _fetch_wheels(pins_to_get: list[dict], staging: Path, wheel_dir, quiet) -> list[Path]:
    """Each pinned wheel file (from ``wheel_dir`` or downloaded into ``staging``), verified."""
    wheels = staging / "wheels"
    wheels.mkdir(exist_ok=True)
    return [_fetch_wheel(pin, wheels, wheel_dir, quiet) for pin in pins_to_get]


def _extract_all(pins_got: list[dict], wheels: list[Path], include: Path) -> None:
    """Extract the headers of every wheel (``wheels[i]`` is the file of ``pins_got[i]``) into
    ``include``, from the wheel's ``include`` folders (later files overwrite earlier ones)."""
    for pin, wheel in zip(pins_got, wheels):
        if _extract_headers(wheel, pin["include"], include) == 0:
            raise HeadersNotFound(f"{wheel.name} has no files under "
                                  + ", ".join(p + "/" for p in pin["include"]))


def _install(staging: Path, root: Path, stamp: dict, pins: dict) -> Path:
    """Stamp the finished tree in ``staging`` and swap it in as the cache ``root``."""
    _stamp_path(staging).write_text(
        json.dumps(stamp, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    # A concurrent fetch that won the race is just as good.
    if root.exists():
        shutil.rmtree(root)
    try:
        os.rename(staging, root)
    except OSError:
        if _cached(pins)[0] is None:
            raise
    return root / "include"


def download(pins: dict | None = None, *, wheel_dir=None, quiet: bool = False) -> Path:
    """Fetch all the pinned wheels, verify them, and (re)build the cache. Returns its include dir."""
    pins = pins or load_pins()
    root = cache_root(pins)
    staging = _new_staging(root)
    try:
        include = staging / "include"
        include.mkdir()
        _extract_all(pins["wheels"], _fetch_wheels(pins["wheels"], staging, wheel_dir, quiet),
                     include)
        shutil.rmtree(staging / "wheels")
        why = _problem(include, pins["cuda_version_define"], pins)
        if why:
            raise HeadersNotFound(f"the pinned wheels gave an unusable header set: {why}")
        result = _install(staging, root, _stamp_of(pins), pins)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _log(quiet, f"headers ready in {result}")
    return result


def complete(pins: dict, base: Path, completers: list[dict], *, wheel_dir=None,
             quiet: bool = False) -> Path:
    """(Re)build the cache from a copy of the installed set ``base`` plus the headers of the
    pinned wheels ``completers`` (fetched and verified). Returns its include dir."""
    root = cache_root(pins)
    stamp = _completed_stamp(pins, base, completers)
    staging = _new_staging(root)
    try:
        wheels = _fetch_wheels(completers, staging, wheel_dir, quiet)
        include = staging / "include"
        _log(quiet, f"copying {base}")
        shutil.copytree(base, include, ignore=shutil.ignore_patterns("__pycache__"))
        _extract_all(completers, wheels, include)
        shutil.rmtree(staging / "wheels")
        why = _problem(include, pins["cuda_version_define"], pins)
        if why:
            raise HeadersNotFound(f"{base} completed with the pinned wheels is unusable: {why}")
        if _base_stamp(base, pins["installed_include"]) != stamp["base"]:
            raise HeadersNotFound(f"{base} changed while it was being copied")
        result = _install(staging, root, stamp, pins)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _log(quiet, f"headers ready in {result} ({base} + "
         + ", ".join(w["project"] for w in completers) + ")")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m headers.fetch", description=__doc__.split("\n\n")[0])
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--cuda", metavar="VER",
                       help=f"CUDA version, one of {', '.join(versions())} (default:"
                            f" ${ENV_CUDA_VERSION}, else {default_version()})")
    which.add_argument("--all", action="store_true",
                       help="every pinned version; prints one \"VERSION PATH\" line each")
    ap.add_argument("--force-download", action="store_true",
                    help="download all pinned wheels again and rebuild the cache from them")
    ap.add_argument("--wheel-dir", help=f"folder with the pinned wheel files (or ${ENV_WHEEL_DIR})")
    ap.add_argument("-v", "--verbose", action="store_true", help="also say where the headers came from")
    args = ap.parse_args(argv)
    failed = False
    for requested in versions() if args.all else [args.cuda]:
        try:
            found = locate(requested, force_download=args.force_download, wheel_dir=args.wheel_dir)
        except HeadersNotFound as e:
            print(f"error: {e}", file=sys.stderr)
            failed = True
            continue
        version = selected_version(requested)
        if args.verbose:
            print(f"CUDA {version} headers from: {found.source}", file=sys.stderr)
        print(f"{version} {found.path}" if args.all else found.path, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
