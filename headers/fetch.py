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
2. the local cache ``headers/cuda-<version>/include/``, when its stamp matches the pins;
3. the pinned wheels installed on ``sys.path`` at their pinned versions: what pip puts in a PEP
   517 build environment from ``build_requirements()`` (headers/backend.py), with pip's index,
   ``--find-links`` wheelhouse, ``--no-index`` and cache.  Their include folders are copied into
   the cache; a pinned wheel pip cannot install on this machine (``nvidia-cudla``, aarch64 only)
   is fetched as a file (4);
4. otherwise all the pinned wheels, fetched as files by ``pip download`` (pip's configuration
   applies: ``PIP_INDEX_URL``, ``PIP_FIND_LINKS``, ``PIP_NO_INDEX``, its cache) with their pinned
   sha256 (``--require-hashes``), and what each has under its ``include`` folders (by default the
   release's ``installed_include``) extracted into the cache.  This is how the generator gets
   every release's headers at once: they cannot all be installed in one Python.

What is left here is what pip does not do: choose the release and its pins, find the headers in
the environment pip made, fetch a wheel of another platform as a file, merge several wheels'
include folders into one, keep one cache per release, and check each set (every required header,
``cuda.h``'s ``CUDA_VERSION``).  A CUDA toolkit or other header set is used through
``$CUDA_BINDINGS_INCLUDE_DIR``.

Wheel files already on disk can stand in for pip (in 3 and 4): ``$CUDA_BINDINGS_WHEEL_DIR``
(or ``--wheel-dir``) names a folder searched for the pinned file names first; they are checked
against the pinned sha256 all the same. A relative folder is taken from the current directory,
else from the repository root.

The cache's ``stamp.json`` names the pinned wheels it was built from (file names, sha256, include
folders); a cache whose stamp differs from the pins is rebuilt.

Command line::

    python -m headers.fetch                   # print the include directory of the chosen release
    python -m headers.fetch --cuda 12.9       # ... of CUDA 12.9
    python -m headers.fetch --all             # every pinned release, one "VERSION PATH" line each
    python -m headers.fetch --force-download  # fetch all pinned wheels again, refresh the cache
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
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
    if stamp != _stamp_of(pins):
        return None, "stamp does not match pins.json"
    why = _problem(include, pins["cuda_version_define"], pins)
    return (None, why) if why else (include, "pinned wheels")


def _installed_wheel(pin: dict) -> Path | None:
    """The sys.path entry where the pinned wheel is installed at its pinned version, with its
    include folders (the build environment pip made from ``build_requirements()``), or None."""
    info = re.sub(r"[-_.]+", "_", pin["project"]).lower() + f"-{pin['version']}.dist-info"
    for entry in sys.path:
        site = Path(entry or os.getcwd())
        if (site / info).is_dir() and all((site / inc).is_dir() for inc in pin["include"]):
            return site
    return None


def build_requirements(version: str | None = None, *, always: bool = False) -> list[str]:
    """What a PEP 517 build of the release asks pip to install (headers/backend.py): the pinned
    header wheels pip can install here, as ``project==version``; none where the headers are
    already given (``$CUDA_BINDINGS_INCLUDE_DIR``) or the cache is current, unless ``always``."""
    pins = load_pins(version)
    if not always and (os.environ.get(ENV_INCLUDE_DIR) or _cached(pins)[0] is not None):
        return []
    return [f"{pin['project']}=={pin['version']}" for pin in pins["wheels"] if installable_here(pin)]


def from_installed(pins: dict, *, wheel_dir=None, quiet: bool = False) -> Path | None:
    """(Re)build the cache from the pinned wheels installed on sys.path, with the pinned wheels
    pip cannot install here (``installable_here``) fetched as files; None unless every wheel pip
    can install here is installed, at its pinned version."""
    sites = [(pin, _installed_wheel(pin)) for pin in pins["wheels"]]
    if any(site is None for pin, site in sites if installable_here(pin)):
        return None
    return _build_cache(pins, sites, wheel_dir, quiet)


def _build_cache(pins: dict, sites: list, wheel_dir, quiet: bool) -> Path:
    """(Re)build the cache of ``pins``: each pin of ``sites`` ([(pin, site or None)]) with a site
    copied from its include folders there, the others fetched (``_fetch_wheels``) and extracted.
    Returns its include dir."""
    root = cache_root(pins)
    staging = _new_staging(root)
    rest = [pin for pin, site in sites if site is None]
    try:
        include = staging / "include"
        include.mkdir()
        for pin, site in sites:
            for inc in pin["include"] if site else ():
                shutil.copytree(site / inc, include, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__"))
        _extract_all(rest, _fetch_wheels(rest, staging, wheel_dir, quiet), include)
        shutil.rmtree(staging / "wheels", ignore_errors=True)
        why = _problem(include, pins["cuda_version_define"], pins)
        if why:
            raise HeadersNotFound(f"the pinned wheels gave an unusable header set: {why}")
        result = _install(staging, root, _stamp_of(pins), pins)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    installed = len(rest) < len(sites)
    _log(quiet, f"headers ready in {result}" + (" (the installed pinned wheels" + (
        ", " + ", ".join(p["project"] for p in rest) + " fetched" if rest else "") + ")" if installed else ""))
    return result


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
            + f"\nWithout network access, give pip a wheelhouse holding the pinned wheel files"
            f" (headers/pins.json): PIP_NO_INDEX=1 PIP_FIND_LINKS=DIR, or set ${ENV_WHEEL_DIR}=DIR"
            f" (or pass --wheel-dir).")

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

        try:
            include = from_installed(pins, wheel_dir=wheels, quiet=quiet)
        except HeadersNotFound as e:
            tried.append(f"the pinned wheels installed on sys.path: {e}")
        else:
            if include is not None:
                return Located(include, "the pinned wheels installed on sys.path (cache)")
            tried.append("the pinned wheels installed on sys.path: not all of them are")

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


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _platforms(pin: dict) -> list[str]:
    """The platform tags of a pinned wheel's file name (none for a ``-any`` wheel)."""
    tags = pin["filename"][: -len(".whl")].split("-")[-1]
    return [] if tags == "any" else tags.split(".")


def installable_here(pin: dict) -> bool:
    """Whether pip can install the pinned wheel into this Python (its platform is this machine's):
    not so for ``nvidia-cudla`` on x86_64, which is published for aarch64 Linux only."""
    plats = _platforms(pin)
    machine = platform.machine().lower()
    return not plats or (sys.platform.startswith("linux") and any(p.endswith("_" + machine) for p in plats))


def _pip(args: list[str]) -> None:
    """Run this Python's pip.  Inside an isolated PEP 517 build pip is not importable from the
    build environment, so the variables that set that environment up are left out: the pip that
    runs is the one of the Python the build was started with.  pip's own configuration (its
    index, ``PIP_FIND_LINKS``, ``PIP_NO_INDEX``, its cache) applies."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONNOUSERSITE")}
    cmd = [sys.executable, "-m", "pip", *args]
    r = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        tail = [line for line in (r.stderr or r.stdout).strip().splitlines() if line.strip()][-4:]
        raise HeadersNotFound(f"`{' '.join(cmd[1:])}` failed (exit {r.returncode}): " + " | ".join(tail))


def _pip_download(pins_to_get: list[dict], dest: Path) -> None:
    """``pip download`` of the pinned wheel files into ``dest``, with their pinned sha256
    (``--require-hashes``), one call per platform: a wheel of another platform (cuDLA's
    aarch64 one) is fetched as a file all the same."""
    groups: dict[tuple[str, ...], list[dict]] = {}
    for pin in pins_to_get:
        groups.setdefault(tuple(_platforms(pin)), []).append(pin)
    for n, (plats, group) in enumerate(groups.items()):
        req = dest / f"requirements-{n}.txt"
        req.write_text("".join(f"{p['project']}=={p['version']} --hash=sha256:{p['sha256']}\n" for p in group),
                       encoding="utf-8")
        _pip(["download", "--no-deps", "--only-binary=:all:", "--require-hashes", "--disable-pip-version-check",
              "--quiet", "--dest", str(dest), "-r", str(req)] + [f"--platform={p}" for p in plats])


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
    """Each pinned wheel file, from ``wheel_dir`` where it is there, else from pip
    (``_pip_download``); sha256-checked either way."""
    wheels = staging / "wheels"
    wheels.mkdir(exist_ok=True)
    out, get = [], []
    for pin in pins_to_get:
        local = Path(wheel_dir) / pin["filename"] if wheel_dir else None
        if local is not None and local.is_file():
            _log(quiet, f"using {local}")
            out.append(local)
        else:
            out.append(wheels / pin["filename"])
            get.append(pin)
    if get:
        _log(quiet, "pip download " + ", ".join(f"{p['project']}=={p['version']}" for p in get))
        try:
            _pip_download(get, wheels)
        except HeadersNotFound as e:
            where = f" (not in {wheel_dir})" if wheel_dir else ""
            raise HeadersNotFound(f"could not get {', '.join(p['filename'] for p in get)}{where}: {e}") from None
    for pin, path in zip(pins_to_get, out):
        if not path.is_file():
            raise HeadersNotFound(f"{path.name}: not found after the download")
        got = _sha256_file(path)
        if got != pin["sha256"]:
            raise HeadersNotFound(f"{path}: sha256 {got}, pinned {pin['sha256']}")
    return out


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
    return _build_cache(pins, [(pin, None) for pin in pins["wheels"]], wheel_dir, quiet)


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
    ap.add_argument("--requirements", action="store_true",
                    help="print the header wheels a source build asks pip for (one per line, for a"
                         " wheelhouse: pip download -d DIR ...) and exit")
    args = ap.parse_args(argv)
    if args.requirements:
        for requested in versions() if args.all else [args.cuda]:
            print("\n".join(build_requirements(requested, always=True)))
        return 0
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
