"""headers.fetch: where the CUDA headers come from (no network, no GPU, no NVIDIA files needed).

Every test but the checks of the real pins.json works on fake header sets and fake wheels in a
temporary folder, with pins.json, the cache location, sys.path and pip (which fetches the pinned
wheel files) replaced, so nothing here touches the real cache or the network.
"""
import hashlib
import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from _support import REPO_ROOT, load_script

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from headers import fetch  # noqa: E402

CU13 = "nvidia/cu13/include"
CRT = "nvidia_cuda_crt-13.0.0-py3-none-any.whl"
RUNTIME = "nvidia_cuda_runtime-13.0.0-py3-none-any.whl"
RUNTIME_135 = "nvidia_cuda_runtime-13.5.0-py3-none-any.whl"
CU12_RUNTIME = "nvidia_cuda_runtime_cu12-12.9.0-py3-none-any.whl"
CU12_NVCC = "nvidia_cuda_nvcc_cu12-12.9.0-py3-none-any.whl"
CU12_RUNTIME_INC = "nvidia/cuda_runtime/include"
CU12_NVCC_INC = ["nvidia/cuda_nvcc/include", "nvidia/cuda_nvcc/nvvm/include"]


def _write_headers(include, *, version=13000, crt=True, nvvm=True):
    for h in fetch.REQUIRED_HEADERS:
        if (h.startswith("crt/") and not crt) or (h == "nvvm.h" and not nvvm):
            continue
        path = include / h
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"/* {h} */\n")
    (include / "cuda.h").write_text(f"#define CUDA_VERSION {version}\n")


def _members(prefix, include):
    """Every file under ``include`` as a wheel member under ``prefix``."""
    return {f"{prefix}/{p.relative_to(include).as_posix()}": p.read_text()
            for p in include.rglob("*") if p.is_file()}


def _wheel(path, members):
    """Write a wheel holding ``members`` (member name -> text); returns its sha256."""
    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pin(project, filename, sha256, **extra):
    return {"project": project, "version": filename.split("-")[1], "filename": filename,
            "sha256": sha256, **extra}


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A fake repository (pins for 12.9, 13.0 and 13.5, and the caches), a site dir with a 13.0
    installed set lacking crt/, and a wheel dir with every pinned wheel."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()

    # 13.0: a runtime wheel without crt/, completed by the crt wheel.
    crt_sha = _wheel(wheels / CRT, {f"{CU13}/crt/host_defines.h": "/* crt */\n"})
    full = tmp_path / "full13"
    _write_headers(full, crt=False)
    runtime_sha = _wheel(wheels / RUNTIME, _members(CU13, full))

    # 13.5: one wheel with everything.
    full = tmp_path / "full135"
    _write_headers(full, version=13050)
    runtime_135_sha = _wheel(wheels / RUNTIME_135, _members(CU13, full))

    # 12.9: each wheel keeps its headers in its own folders; the nvcc one has crt/ and nvvm.h.
    full = tmp_path / "full129"
    _write_headers(full, version=12090, crt=False, nvvm=False)
    cu12_runtime_sha = _wheel(wheels / CU12_RUNTIME, {
        **_members(CU12_RUNTIME_INC, full), "nvidia/cuda_runtime/lib/libcudart.so.12": "ELF"})
    cu12_nvcc_sha = _wheel(wheels / CU12_NVCC, {
        f"{CU12_NVCC_INC[0]}/crt/host_defines.h": "/* crt 12.9 */\n",
        f"{CU12_NVCC_INC[1]}/nvvm.h": "/* nvvm 12.9 */\n",
        "nvidia/cuda_nvcc/bin/ptxas": "ELF",
        "nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so": "ELF",
    })

    pins = {
        "comment": "unknown keys are ignored",
        "default": "13.0",
        "versions": {
            "13.0": {
                "cuda_version_define": 13000,
                "twin": "13.0.3",
                "installed_include": CU13,
                "wheels": [
                    _pin("nvidia-cuda-runtime", RUNTIME, runtime_sha),
                    _pin("nvidia-cuda-crt", CRT, crt_sha, completes=["crt/host_defines.h"]),
                ],
            },
            "13.5": {
                "cuda_version_define": 13050,
                "twin": "13.5.0",
                "installed_include": CU13,
                "wheels": [_pin("nvidia-cuda-runtime", RUNTIME_135, runtime_135_sha)],
            },
            "12.9": {
                "comment": "no single include folder",
                "cuda_version_define": 12090,
                "twin": "12.9.10",
                "installed_include": None,
                "wheels": [
                    _pin("nvidia-cuda-runtime-cu12", CU12_RUNTIME, cu12_runtime_sha,
                         include=[CU12_RUNTIME_INC]),
                    _pin("nvidia-cuda-nvcc-cu12", CU12_NVCC, cu12_nvcc_sha,
                         include=CU12_NVCC_INC),
                ],
            },
        },
    }
    repo = tmp_path / "repo" / "headers"
    repo.mkdir(parents=True)
    (repo / "pins.json").write_text(json.dumps(pins))
    monkeypatch.setattr(fetch, "HERE", repo)
    monkeypatch.setattr(fetch, "PINS_FILE", repo / "pins.json")

    site = tmp_path / "site"
    base = site / CU13
    _write_headers(base, crt=False)
    (site / "nvidia_cuda_runtime-13.0.0.dist-info").mkdir()
    monkeypatch.setattr(sys, "path", [str(site)])
    for var in (fetch.ENV_CUDA_VERSION, fetch.ENV_INCLUDE_DIR, fetch.ENV_WHEEL_DIR,
                "CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)

    downloads = []

    def offline(args):
        downloads.append(args)
        raise fetch.HeadersNotFound("no network in this test")

    monkeypatch.setattr(fetch, "_pip", offline)
    return type("World", (), {"repo": repo, "site": site, "base": base, "wheels": wheels,
                              "raw_pins": pins, "pins": fetch.load_pins("13.0"),
                              "downloads": downloads, "tmp": tmp_path})


# ------------------------------------------------------------------------------ the real pins.json


def test_real_pins_name_every_version():
    assert fetch.versions() == ["12.9", "13.0", "13.5"]
    assert fetch.default_version() == "13.0"
    for version in fetch.versions():
        pins = fetch.load_pins(version)
        assert pins["cuda"] == version
        major, minor = map(int, version.split("."))
        assert pins["cuda_version_define"] == major * 1000 + minor * 10
        assert re.fullmatch(rf"{major}\.{minor}\.[0-9]+", pins["twin"]), pins["twin"]
        assert pins["wheels"]
        for w in pins["wheels"]:
            assert re.fullmatch(r"[0-9a-f]{64}", w["sha256"]), w
            stem = w["project"].replace("-", "_") + "-" + w["version"] + "-"
            assert w["filename"].startswith(stem) and w["filename"].endswith(".whl"), w
            assert w["include"], w


def test_real_pins_have_the_crt_and_nvvm_sources():
    assert "crt/host_defines.h" in fetch.REQUIRED_HEADERS and "nvvm.h" in fetch.REQUIRED_HEADERS
    for version in ("13.0", "13.5"):
        pins = fetch.load_pins(version)
        assert pins["installed_include"] == CU13
        assert all(w["include"] == [CU13] for w in pins["wheels"])
        by_project = {w["project"]: w for w in pins["wheels"]}
        assert set(by_project) - {"nvidia-cudla"} == {
            "nvidia-cuda-runtime", "nvidia-cuda-nvrtc", "nvidia-nvjitlink", "nvidia-nvvm",
            "nvidia-cuda-crt", "nvidia-cufile", "nvidia-nvfatbin", "nvidia-nvml-dev"}
        assert by_project["nvidia-cuda-crt"]["completes"] == ["crt/host_defines.h"]
        assert by_project["nvidia-nvvm"]["completes"] == ["nvvm.h"]
        # cuFile has its own version numbers (1.15 came with CUDA 13.0, 1.20 with 13.5)
        assert {w["version"].rsplit(".", 1)[0] for w in pins["wheels"]
                if w["project"] != "nvidia-cufile"} == {version}

    pins = fetch.load_pins("12.9")
    assert pins["installed_include"] is None
    by_project = {w["project"]: w for w in pins["wheels"]}
    assert set(by_project) == {"nvidia-cuda-runtime-cu12", "nvidia-cuda-nvrtc-cu12",
                               "nvidia-nvjitlink-cu12", "nvidia-cuda-nvcc-cu12",
                               "nvidia-cufile-cu12", "nvidia-nvfatbin-cu12", "nvidia-nvml-dev"}
    assert by_project["nvidia-cuda-nvcc-cu12"]["include"] == CU12_NVCC_INC
    assert by_project["nvidia-cuda-runtime-cu12"]["include"] == [CU12_RUNTIME_INC]
    assert by_project["nvidia-cufile-cu12"]["include"] == ["nvidia/cufile/include"]
    assert not any("completes" in w for w in pins["wheels"] if w["project"].startswith("nvidia-cuda"))
    assert {w["version"].rsplit(".", 1)[0] for w in pins["wheels"]
            if w["project"] not in ("nvidia-cufile-cu12", "nvidia-nvml-dev")} == {"12.9"}
    # NVML 13.4's nvml.h, whose API NVIDIA's 12.9.x nvml module binds (NVML comes with the
    # driver): header only, so no extra installs it
    nvml = by_project["nvidia-nvml-dev"]
    assert nvml["version"].startswith("13.4.") and nvml["header_only"] and nvml["include"] == ["nvidia/cu13/include"]


@pytest.mark.parametrize("version", ["12.9", "13.0", "13.5"])
def test_real_pins_have_the_library_headers(version):
    """cuFile, nvFatbin and NVML on every release, cuDLA on 13.5: each header is required, and a
    set lacking it is completed from its wheel; NVML's wheel is header-only (the library comes
    with the driver), cuDLA's is for aarch64 Linux only (its cudla.h is the same everywhere)."""
    pins = fetch.load_pins(version)
    by_header = {h: w for w in pins["wheels"] for h in w.get("completes", ())}
    wanted = ["cufile.h", "nvFatbin.h", "nvml.h"] + (["cudla.h"] if version == "13.5" else [])
    assert set(wanted) <= set(by_header)
    assert ("cudla.h" in by_header) == (version == "13.5")
    required = fetch.required_headers(pins)
    assert required[:len(fetch.REQUIRED_HEADERS)] == list(fetch.REQUIRED_HEADERS)
    assert set(wanted) <= set(required)
    assert by_header["nvml.h"].get("header_only") is True
    assert not by_header["cufile.h"].get("header_only")
    assert by_header["cufile.h"]["marker"] == 'sys_platform == "linux"'
    if version == "13.5":
        assert "aarch64" in by_header["cudla.h"]["filename"]
        assert 'platform_machine == "aarch64"' in by_header["cudla.h"]["marker"]
    header_only = {w["project"] for w in pins["wheels"] if w.get("header_only")}
    assert header_only == ({"nvidia-cuda-crt"} if version != "12.9" else set()) | {by_header["nvml.h"]["project"]}


# ------------------------------------------------------------------------------- version selection


def test_version_is_the_argument_else_the_env_var_else_the_default(world, monkeypatch):
    assert fetch.versions() == ["12.9", "13.0", "13.5"]  # sorted, whatever the file's order
    assert fetch.selected_version() == "13.0"
    monkeypatch.setenv(fetch.ENV_CUDA_VERSION, "")
    assert fetch.selected_version() == "13.0"
    monkeypatch.setenv(fetch.ENV_CUDA_VERSION, "12.9")
    assert fetch.selected_version() == "12.9"
    assert fetch.load_pins()["cuda"] == "12.9"
    assert fetch.cache_root() == world.repo / "cuda-12.9"
    assert fetch.selected_version("13.5") == "13.5"


def test_versions_sort_numerically(world):
    raw = dict(world.raw_pins, versions={v: world.raw_pins["versions"]["13.0"]
                                         for v in ("13.0", "12.10", "12.9")})
    fetch.PINS_FILE.write_text(json.dumps(raw))
    assert fetch.versions() == ["12.9", "12.10", "13.0"]


@pytest.mark.parametrize("how", ["argument", "env", "default"])
def test_unknown_version_is_refused_with_the_pinned_ones(world, monkeypatch, how):
    if how == "argument":
        call, source = (lambda: fetch.selected_version("12.9.0")), "requested"
    elif how == "env":
        monkeypatch.setenv(fetch.ENV_CUDA_VERSION, "12.9.0")
        call, source = fetch.load_pins, "$CUDA_BINDINGS_CUDA_VERSION"
    else:
        fetch.PINS_FILE.write_text(json.dumps(dict(world.raw_pins, default="12.9.0")))
        call, source = fetch.locate, "the default in pins.json"
    with pytest.raises(fetch.HeadersNotFound) as e:
        call()
    text = str(e.value)
    assert f"CUDA version '12.9.0' ({source}) is not pinned" in text
    assert "pinned versions: 12.9, 13.0, 13.5" in text
    assert "$CUDA_BINDINGS_CUDA_VERSION" in text
    assert not (world.repo / "cuda-12.9.0").exists()


def test_load_pins_is_flat_with_the_include_folders_filled_in(world):
    pins = fetch.load_pins("13.0")
    assert set(pins) == {"cuda", "cuda_version_define", "twin", "installed_include", "wheels"}
    assert (pins["cuda"], pins["cuda_version_define"], pins["installed_include"]) == (
        "13.0", 13000, CU13)
    assert [w["include"] for w in pins["wheels"]] == [[CU13], [CU13]]
    assert pins["wheels"][1]["completes"] == ["crt/host_defines.h"]
    pins = fetch.load_pins("12.9")
    assert pins["installed_include"] is None
    assert [w["include"] for w in pins["wheels"]] == [[CU12_RUNTIME_INC], CU12_NVCC_INC]


def test_wheel_without_include_folder_needs_an_installed_include(world):
    raw = world.raw_pins
    del raw["versions"]["12.9"]["wheels"][1]["include"]
    fetch.PINS_FILE.write_text(json.dumps(raw))
    with pytest.raises(fetch.HeadersNotFound, match=f"CUDA 12.9 wheel {CU12_NVCC} names no"):
        fetch.load_pins("12.9")


# ------------------------------------------------------------------------- several include folders


def test_version_with_several_include_folders_is_built_from_its_wheels(world):
    found = fetch.locate("12.9", wheel_dir=world.wheels, quiet=True)
    include = world.repo / "cuda-12.9" / "include"
    assert found.path == include and found.source == "pinned wheels (downloaded)"
    assert fetch.cuda_version_of(include) == 12090
    assert (include / "crt" / "host_defines.h").read_text() == "/* crt 12.9 */\n"
    assert (include / "nvvm.h").read_text() == "/* nvvm 12.9 */\n"
    assert (include / "nvrtc.h").is_file() and (include / "cuda_runtime_api.h").is_file()
    files = sorted(p.relative_to(include).as_posix() for p in include.rglob("*") if p.is_file())
    assert files == sorted(fetch.REQUIRED_HEADERS)  # nothing from lib/, bin/ or nvvm/lib64/
    assert world.downloads == []
    stamp = json.loads((world.repo / "cuda-12.9" / "stamp.json").read_text())
    assert stamp == fetch._stamp_of(fetch.load_pins("12.9"))
    assert [w["include"] for w in stamp["wheels"]] == [[CU12_RUNTIME_INC], CU12_NVCC_INC]
    assert fetch.locate("12.9", quiet=True).source == "pinned wheels (cache)"
    assert not (world.repo / "cuda-13.0").exists()  # the other versions are left alone


def test_headers_of_another_release_on_sys_path_are_not_picked_up(world, monkeypatch):
    # a complete set on sys.path that is not the pinned wheels (world.base: another patch release
    # of the runtime, no crt wheel) is not used; only through $CUDA_BINDINGS_INCLUDE_DIR
    _write_headers(world.base)
    with pytest.raises(fetch.HeadersNotFound) as e:
        fetch.locate("13.0", quiet=True)
    text = str(e.value)
    assert text.startswith("no CUDA 13.0 headers found (requested)") and str(world.base) not in text
    monkeypatch.setenv(fetch.ENV_INCLUDE_DIR, str(world.base))
    assert fetch.locate("13.0", quiet=True) == (world.base, "$CUDA_BINDINGS_INCLUDE_DIR")


def test_wheel_with_nothing_under_its_include_folders_is_an_error(world):
    raw = world.raw_pins
    raw["versions"]["12.9"]["wheels"][1]["include"] = ["nvidia/cuda_nvcc/inc"]
    fetch.PINS_FILE.write_text(json.dumps(raw))
    with pytest.raises(fetch.HeadersNotFound) as e:
        fetch.locate("12.9", wheel_dir=world.wheels, quiet=True)
    assert f"{CU12_NVCC} has no files under nvidia/cuda_nvcc/inc/" in str(e.value)
    assert not (world.repo / "cuda-12.9").exists()


def test_each_version_checks_its_own_cuda_version(world):
    assert fetch.cuda_version_of(fetch.locate("13.5", wheel_dir=world.wheels, quiet=True).path) == 13050
    assert fetch.cuda_version_of(fetch.locate("13.0", wheel_dir=world.wheels, quiet=True).path) == 13000
    raw = world.raw_pins                      # a pin whose wheel holds another release's headers
    raw["versions"]["13.0"]["cuda_version_define"] = 13010
    fetch.PINS_FILE.write_text(json.dumps(raw))
    with pytest.raises(fetch.HeadersNotFound, match="cuda.h has CUDA_VERSION 13000, want 13010"):
        fetch.locate("13.0", wheel_dir=world.wheels, quiet=True)


def test_cli_all_prints_one_line_per_version(world, capsys):
    assert fetch.main(["--all", "--wheel-dir", str(world.wheels)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{v} {world.repo / f'cuda-{v}' / 'include'}" for v in ("12.9", "13.0", "13.5")]
    assert fetch.main(["--cuda", "13.5"]) == 0
    assert capsys.readouterr().out == f"{world.repo / 'cuda-13.5' / 'include'}\n"
    assert fetch.main(["--cuda", "14.0"]) == 1
    assert "CUDA version '14.0' (requested) is not pinned" in capsys.readouterr().err


# ---------------------------------------------------------------------- $CUDA_BINDINGS_INCLUDE_DIR


def test_include_dir_override_of_another_version_is_refused(world, monkeypatch):
    _write_headers(world.base)
    monkeypatch.setenv(fetch.ENV_INCLUDE_DIR, str(world.base))
    assert fetch.locate(quiet=True) == (world.base, "$CUDA_BINDINGS_INCLUDE_DIR")
    monkeypatch.setenv(fetch.ENV_CUDA_VERSION, "12.9")
    with pytest.raises(fetch.HeadersNotFound) as e:
        fetch.include_dir()
    assert (f"$CUDA_BINDINGS_INCLUDE_DIR={world.base} has CUDA_VERSION 13000 but the build is for"
            " CUDA 12.9 ($CUDA_BINDINGS_CUDA_VERSION, CUDA_VERSION 12090)") in str(e.value)
    assert not (world.repo / "cuda-12.9").exists()


def test_include_dir_override_without_crt_is_rejected(world, monkeypatch):
    monkeypatch.setenv(fetch.ENV_INCLUDE_DIR, str(world.base))
    with pytest.raises(fetch.HeadersNotFound, match=r"missing crt/host_defines\.h .*nvidia-cuda-crt"):
        fetch.locate(quiet=True)


# --------------------------------------------------------------------------- installed sets, cache


def test_the_wheel_dir_stands_in_for_pip(world, monkeypatch):
    monkeypatch.setenv(fetch.ENV_WHEEL_DIR, str(world.wheels))
    found = fetch.locate(quiet=True)
    assert found == (world.repo / "cuda-13.0" / "include", "pinned wheels (downloaded)")
    assert (found.path / "crt" / "host_defines.h").read_text() == "/* crt */\n"
    assert world.downloads == []
    again = fetch.locate(quiet=True)  # the cache is current now
    assert again.path == found.path and again.source.endswith("(cache)")


def test_relative_wheel_dir_is_also_looked_up_under_the_repo_root(world, monkeypatch, tmp_path):
    local = world.repo.parent / ".whl"
    local.mkdir()
    for name in (CRT, RUNTIME):
        (local / name).write_bytes((world.wheels / name).read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(fetch.ENV_WHEEL_DIR, ".whl")
    assert (fetch.include_dir() / "crt" / "host_defines.h").is_file()


def test_offline_without_the_crt_wheel_names_every_place(world):
    with pytest.raises(fetch.HeadersNotFound) as e:
        fetch.locate(quiet=True)
    text = str(e.value)
    assert text.startswith("no CUDA 13.0 headers found (the default in pins.json)")
    assert "CUDA_BINDINGS_INCLUDE_DIR: not set" in text
    assert "cache" in text and "not built yet" in text
    assert "download of all pinned wheels" in text and "no network in this test" in text
    assert "the pinned wheels installed on sys.path: not all of them are" in text
    assert fetch.ENV_WHEEL_DIR in text
    (args,) = world.downloads          # pip was asked once, for every pinned wheel, with hashes
    req = args[args.index("-r") + 1]
    assert args[0] == "download" and "--require-hashes" in args and req.endswith(".txt")


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


def test_a_cache_of_other_pins_is_stale(world):
    fetch.locate(wheel_dir=world.wheels, quiet=True)
    raw = world.raw_pins
    raw["versions"]["13.0"]["wheels"][1]["sha256"] = "0" * 64
    fetch.PINS_FILE.write_text(json.dumps(raw))
    include, why = fetch._cached(fetch.load_pins("13.0"))
    assert include is None and why == "stamp does not match pins.json"


def test_a_header_a_wheel_completes_is_required(world, monkeypatch):
    """A release whose pins add a library header (cufile.h in nvidia-cufile): a set without it is
    not usable, and the pinned wheels supply it."""
    cufile = "nvidia_cufile-1.15.0-py3-none-any.whl"
    sha = _wheel(world.wheels / cufile, {f"{CU13}/cufile.h": "/* cufile */\n",
                                         "nvidia/cu13/lib/libcufile.so.0": "ELF"})
    raw = world.raw_pins
    raw["versions"]["13.0"]["wheels"].append(
        _pin("nvidia-cufile", cufile, sha, completes=["cufile.h"], marker='sys_platform == "linux"'))
    fetch.PINS_FILE.write_text(json.dumps(raw))
    pins = fetch.load_pins("13.0")
    assert fetch.required_headers(pins)[-1] == "cufile.h"
    assert "cufile.h" not in fetch.required_headers(fetch.load_pins("13.5"))

    _write_headers(world.base)  # crt/ is there now; cufile.h is not
    monkeypatch.setenv(fetch.ENV_INCLUDE_DIR, str(world.base))
    with pytest.raises(fetch.HeadersNotFound, match=r"missing cufile\.h \(shipped in nvidia-cufile 1\.15\.0\)"):
        fetch.locate(quiet=True)
    monkeypatch.delenv(fetch.ENV_INCLUDE_DIR)

    found = fetch.locate(wheel_dir=world.wheels, quiet=True)
    assert found.path == world.repo / "cuda-13.0" / "include"
    assert (found.path / "cufile.h").read_text() == "/* cufile */\n"
    assert not (found.path / "lib").exists()


# ------------------------------------------------------------------ through pip: the PEP 517 build


def _install_pins(site, pins, wheels):
    """Install each pinned wheel into ``site`` as pip would: its files and its dist-info folder."""
    for pin in pins:
        with zipfile.ZipFile(wheels / pin["filename"]) as z:
            z.extractall(site)
        info = re.sub(r"[-_.]+", "_", pin["project"]).lower() + f"-{pin['version']}.dist-info"
        (site / info).mkdir(parents=True, exist_ok=True)


def test_the_build_asks_pip_for_the_pinned_header_wheels(world, monkeypatch):
    assert fetch.build_requirements("13.0") == ["nvidia-cuda-runtime==13.0.0", "nvidia-cuda-crt==13.0.0"]
    assert fetch.build_requirements("12.9") == ["nvidia-cuda-runtime-cu12==12.9.0", "nvidia-cuda-nvcc-cu12==12.9.0"]
    monkeypatch.setenv(fetch.ENV_INCLUDE_DIR, str(world.base))      # headers given: nothing to ask
    assert fetch.build_requirements("13.0") == []
    monkeypatch.delenv(fetch.ENV_INCLUDE_DIR)
    fetch.locate("12.9", wheel_dir=world.wheels, quiet=True)         # the cache is current: nothing
    assert fetch.build_requirements("12.9") == []


@pytest.mark.parametrize("version", ["12.9", "13.0"])
def test_the_pinned_wheels_pip_installed_make_the_cache(world, monkeypatch, version):
    # what the build finds in its environment after pip installed build_requirements(): every
    # pinned wheel at its pinned version, each with its own include folders (12.9: several)
    env = world.tmp / "build-env"
    pins = fetch.load_pins(version)
    _install_pins(env, pins["wheels"], world.wheels)
    monkeypatch.setattr(sys, "path", [str(env)])
    found = fetch.locate(version, quiet=True)
    assert found.source == "the pinned wheels installed on sys.path (cache)"
    assert found.path == world.repo / f"cuda-{version}" / "include"
    assert fetch.cuda_version_of(found.path) == pins["cuda_version_define"]
    assert (found.path / "crt" / "host_defines.h").is_file() and (found.path / "cuda_runtime_api.h").is_file()
    assert json.loads((world.repo / f"cuda-{version}" / "stamp.json").read_text()) == fetch._stamp_of(pins)
    assert world.downloads == []

    # a wheel of another patch release is not the pinned one: not taken as such
    shutil.rmtree(world.repo / f"cuda-{version}")
    info = next(env.glob("nvidia_cuda_runtime*.dist-info"))
    info.rename(info.with_name(info.name.replace(pins["wheels"][0]["version"], "99.0")))
    assert fetch.from_installed(pins, quiet=True) is None


def test_a_wheel_pip_cannot_install_here_is_fetched_as_a_file(world, monkeypatch):
    # cuDLA's header wheel exists for aarch64 Linux only: not a build requirement elsewhere, and
    # fetched with `pip download --platform` beside the installed ones
    other = "aarch64" if fetch.platform.machine().lower() != "aarch64" else "x86_64"
    cudla = f"nvidia_cudla-13.0.1-py3-none-manylinux_2_27_{other}.whl"
    sha = _wheel(world.wheels / cudla, {f"{CU13}/cudla.h": "/* cudla */\n"})
    raw = world.raw_pins
    raw["versions"]["13.0"]["wheels"].append(_pin("nvidia-cudla", cudla, sha, completes=["cudla.h"]))
    fetch.PINS_FILE.write_text(json.dumps(raw))
    pins = fetch.load_pins("13.0")
    assert not fetch.installable_here(pins["wheels"][-1]) and fetch.installable_here(pins["wheels"][0])
    assert "nvidia-cudla==13.0.1" not in fetch.build_requirements("13.0")

    asked = []

    def pip(args):          # pip download: the wheel file from the wheelhouse, as pip would get it
        asked.append(args)
        dest = Path(args[args.index("--dest") + 1])
        shutil.copy(world.wheels / cudla, dest / cudla)

    monkeypatch.setattr(fetch, "_pip", pip)
    env = world.tmp / "build-env"
    _install_pins(env, pins["wheels"][:-1], world.wheels)
    monkeypatch.setattr(sys, "path", [str(env)])
    found = fetch.locate("13.0", quiet=True)
    assert (found.path / "cudla.h").read_text() == "/* cudla */\n"
    (args,) = asked
    assert args[0] == "download" and "--require-hashes" in args and "--no-deps" in args
    assert f"--platform=manylinux_2_27_{other}" in args
    req = Path(args[args.index("-r") + 1])
    assert not req.exists()             # (the staging folder is gone)


def test_pip_failures_say_what_pip_said(tmp_path):
    with pytest.raises(fetch.HeadersNotFound) as e:
        fetch._pip(["download", "--no-index", "--no-deps", "--dest", str(tmp_path), "no-such-project-xyz==1.0"])
    assert "`-m pip download --no-index" in str(e.value) and "failed (exit 1)" in str(e.value)
    assert "no-such-project-xyz" in str(e.value)


def test_a_slimmed_wheel_keeps_its_headers_and_a_true_record(tmp_path):
    # scripts/slim_wheel.py (the GPU machine's wheelhouse): the include folder and the dist-info,
    # byte for byte, the libraries dropped, RECORD listing exactly what is left with its hashes
    import base64
    slim_wheel = load_script("slim_wheel")
    src = tmp_path / "nvidia_cuda_nvrtc-13.0.0-py3-none-manylinux2014_x86_64.whl"
    info = "nvidia_cuda_nvrtc-13.0.0.dist-info"
    _wheel(src, {f"{CU13}/nvrtc.h": "/* nvrtc */\n", "nvidia/cu13/lib/libnvrtc.so.13": "ELF" * 1000,
                 f"{info}/METADATA": "Name: nvidia-cuda-nvrtc\nVersion: 13.0.0\n", f"{info}/RECORD": "stale"})
    out = slim_wheel.slim(src, tmp_path / "slim", [CU13])
    assert out.name == src.name
    with zipfile.ZipFile(out) as z:
        names = sorted(z.namelist())
        assert names == sorted([f"{CU13}/nvrtc.h", f"{info}/METADATA", f"{info}/RECORD"])
        assert z.read(f"{CU13}/nvrtc.h") == b"/* nvrtc */\n"
        rows = [r.split(",") for r in z.read(f"{info}/RECORD").decode().splitlines()]
    for name, digest, size in rows:
        if name == f"{info}/RECORD":
            assert digest == size == ""
            continue
        data = zipfile.ZipFile(out).read(name)
        want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert (digest, int(size)) == (f"sha256={want}", len(data))
