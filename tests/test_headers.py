"""headers.fetch: where the CUDA headers come from (no network, no GPU, no NVIDIA files needed).

Every test works on a fake header set and fake wheels in a temporary folder, with pins.json,
the cache location, sys.path and the downloader replaced, so nothing here touches the real cache.
"""
import hashlib
import json
import sys
import urllib.error
import zipfile

import pytest

from _support import REPO_ROOT

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from headers import fetch  # noqa: E402

CRT = "nvidia_cuda_crt-13.0.0-py3-none-any.whl"
RUNTIME = "nvidia_cuda_runtime-13.0.0-py3-none-any.whl"


def _write_headers(include, *, version=13000, crt=True):
    for h in fetch.REQUIRED_HEADERS:
        if h.startswith("crt/") and not crt:
            continue
        path = include / h
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"/* {h} */\n")
    (include / "cuda.h").write_text(f"#define CUDA_VERSION {version}\n")


def _wheel(path, files):
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(f"{fetch.WHEEL_INCLUDE}/{name}", text)
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A fake repository (pins + cache), a site dir with an installed set lacking crt/, a wheel dir."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    crt_sha = _wheel(wheels / CRT, {"crt/host_defines.h": "/* crt */\n"})
    full = tmp_path / "full"
    _write_headers(full, crt=False)
    runtime_sha = _wheel(wheels / RUNTIME, {
        p.relative_to(full).as_posix(): p.read_text() for p in full.rglob("*") if p.is_file()})
    pins = {
        "cuda": "13.0",
        "cuda_version_define": 13000,
        "wheels": [
            {"project": "nvidia-cuda-runtime", "version": "13.0.0", "filename": RUNTIME,
             "sha256": runtime_sha},
            {"project": "nvidia-cuda-crt", "version": "13.0.0", "filename": CRT,
             "sha256": crt_sha, "completes": ["crt/host_defines.h"]},
        ],
    }
    repo = tmp_path / "repo" / "headers"
    repo.mkdir(parents=True)
    (repo / "pins.json").write_text(json.dumps(pins))
    monkeypatch.setattr(fetch, "HERE", repo)
    monkeypatch.setattr(fetch, "PINS_FILE", repo / "pins.json")

    site = tmp_path / "site"
    base = site / fetch.WHEEL_INCLUDE
    _write_headers(base, crt=False)
    monkeypatch.setattr(sys, "path", [str(site)])
    for var in (fetch.ENV_INCLUDE_DIR, fetch.ENV_WHEEL_DIR, "CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)

    downloads = []

    def offline(url, timeout=60):
        downloads.append(url)
        raise urllib.error.URLError("no network in this test")

    monkeypatch.setattr(fetch, "_open", offline)
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    return type("World", (), {"repo": repo, "site": site, "base": base, "wheels": wheels,
                              "pins": pins, "downloads": downloads, "tmp": tmp_path})


def test_crt_host_defines_is_required():
    assert "crt/host_defines.h" in fetch.REQUIRED_HEADERS
    pins = fetch.load_pins()
    crt = [w for w in pins["wheels"] if w["project"] == "nvidia-cuda-crt"]
    assert len(crt) == 1 and "crt/host_defines.h" in crt[0]["completes"]


def test_installed_set_without_crt_is_completed_from_the_wheel_dir(world, monkeypatch):
    monkeypatch.setenv(fetch.ENV_WHEEL_DIR, str(world.wheels))
    found = fetch.locate(quiet=True)
    assert found.path == world.repo / "cuda-13.0" / "include"
    assert (found.path / "crt" / "host_defines.h").read_text() == "/* crt */\n"
    assert (found.path / "cuda_runtime_api.h").is_file()
    assert world.downloads == []
    stamp = json.loads((world.repo / "cuda-13.0" / "stamp.json").read_text())
    assert stamp["base"]["path"] == str(world.base)
    assert [w["filename"] for w in stamp["wheels"]] == [CRT]

    again = fetch.locate(quiet=True)  # the cache is current now
    assert again.path == found.path and again.source.endswith("(cache)")

    (world.base / "driver_types.h").write_text("/* changed */\n")  # the installed set changed
    reason = fetch._cached(world.pins)[1]
    assert "does not match" in reason
    rebuilt = fetch.locate(quiet=True)
    assert (rebuilt.path / "driver_types.h").read_text() == "/* changed */\n"


def test_relative_wheel_dir_is_also_looked_up_under_the_repo_root(world, monkeypatch, tmp_path):
    local = world.repo.parent / ".whl"
    local.mkdir()
    (local / CRT).write_bytes((world.wheels / CRT).read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(fetch.ENV_WHEEL_DIR, ".whl")
    assert (fetch.include_dir() / "crt" / "host_defines.h").is_file()


def test_cuda_home_without_crt_is_completed(world, monkeypatch):
    monkeypatch.setattr(sys, "path", [])
    home = world.tmp / "cuda"
    _write_headers(home / "include", crt=False)
    monkeypatch.setenv("CUDA_HOME", str(home))
    found = fetch.locate(wheel_dir=world.wheels, quiet=True)
    assert (found.path / "crt" / "host_defines.h").is_file()
    assert found.source.startswith("$CUDA_HOME")


def test_complete_installed_set_is_used_as_is(world):
    _write_headers(world.base, crt=True)
    found = fetch.locate(quiet=True)
    assert found.path == world.base
    assert not (world.repo / "cuda-13.0").exists()


def test_offline_without_the_crt_wheel_names_every_place(world):
    with pytest.raises(fetch.HeadersNotFound) as e:
        fetch.locate(quiet=True)
    text = str(e.value)
    assert "CUDA_BINDINGS_INCLUDE_DIR: not set" in text
    assert "cache" in text and "not built yet" in text
    assert f"{world.base} (installed wheels on sys.path): missing crt/host_defines.h" in text
    assert "nvidia-cuda-crt 13.0.0" in text
    assert f"completed with {CRT}" in text
    assert "download of all pinned wheels" in text
    assert "$CUDA_HOME: not set" in text and fetch.ENV_WHEEL_DIR in text
    assert world.downloads  # it did try the index, once per page (unreachable: no retries)
    assert len(world.downloads) == 6


def test_include_dir_override_without_crt_is_rejected(world, monkeypatch):
    monkeypatch.setenv(fetch.ENV_INCLUDE_DIR, str(world.base))
    with pytest.raises(fetch.HeadersNotFound, match=r"missing crt/host_defines\.h .*nvidia-cuda-crt"):
        fetch.locate(quiet=True)


def test_force_download_uses_all_pinned_wheels(world):
    found = fetch.locate(force_download=True, wheel_dir=world.wheels, quiet=True)
    stamp = json.loads((world.repo / "cuda-13.0" / "stamp.json").read_text())
    assert stamp == fetch._stamp_of(world.pins) and "base" not in stamp
    assert (found.path / "crt" / "host_defines.h").is_file()
    assert fetch._cached(world.pins) == (found.path, "pinned wheels")


def test_wheel_with_wrong_sha256_is_refused(world):
    (world.wheels / CRT).write_bytes(b"not the pinned file")
    with pytest.raises(fetch.HeadersNotFound, match="sha256"):
        fetch.locate(wheel_dir=world.wheels, quiet=True)


def test_cache_from_a_vanished_base_is_stale(world):
    fetch.locate(wheel_dir=world.wheels, quiet=True)
    moved = world.tmp / "moved"
    world.site.rename(moved)
    include, why = fetch._cached(world.pins)
    assert include is None and "is no longer usable (no such directory)" in why
