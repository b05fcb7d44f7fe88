"""Pack what the GPU machine lacks for the client checks of each release's build.

    python scripts/client_carry.py [--release 13.5] [--release 12.9] [--release 13.0] [--out .carry]
                                   [--ours VER=DIR ...]

The GPU machine has no network; it has Python 3.12, NVIDIA's cuda-bindings 13.3.1, cuda-core
1.2.0, numba-cuda 0.30.4 and the CUDA 13.0 library wheels.  For each release this writes one
archive, `.carry/cuda-<VER>/carry.tar.xz` (git-ignored), holding

  site/      NVIDIA's cuda-bindings of that release (its twin, tests/conformance/run.TWINS) and
             the newest cuda-core 1.2.x, installed for CPython 3.12 on x86-64, plus the release's
             CUDA libraries the machine lacks, where their pip wheels put them (13.5: the 13.5
             nvJitLink; 12.9: the CUDA 12 runtime, NVRTC, nvJitLink and NVVM with libdevice)
  include/   the release's pinned CUDA headers (headers/cuda-<VER>/include): our build compiles
             against them, and the clients' runtime compilation finds the release's headers there
  preload    the libraries, one path per line (relative to the archive's root), that both client
             runs load first (scripts/client_check.py --preload)
  ours/      with --ours VER=DIR: a build of ours for that release made here for CPython 3.12
             (`CUDA_BINDINGS_CUDA_VERSION=VER python3.12 -m pip install --no-build-isolation
             --no-deps --target DIR .`), which scripts/client_releases.sh uses instead of building

compressed as one xz stream with a large dictionary (the CUDA 12 libraries repeat one another:
alone they would not fit).  The device tool takes at most 64 MiB per call, the working tree
included, so each release travels in a call of its own:
scripts/client_releases.sh there runs the client check of every release it finds under .carry/.
Prints each archive's size and the total with the working tree.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
from conformance.run import TWINS  # noqa: E402
from headers import fetch  # noqa: E402

CUDA_CORE = "cuda-core==1.2.2"          # the newest cuda-core 1.2.x on PyPI
LIMIT = 64 * 2 ** 20                     # what one device call may carry, the working tree included
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64", "manylinux_2_12_x86_64", "manylinux2010_x86_64"]
# per release: library wheel -> {file in the wheel: extra names it also gets (symlinks)}
LIBRARIES = {
    "13.0": {},                          # the machine's own 13.0 wheels serve
    "13.5": {"nvidia-nvjitlink==13.5.37": {"nvidia/cu13/lib/libnvJitLink.so.13": []}},
    "12.9": {
        "nvidia-cuda-runtime-cu12==12.9.79": {"nvidia/cuda_runtime/lib/libcudart.so.12": []},
        "nvidia-cuda-nvrtc-cu12==12.9.86": {"nvidia/cuda_nvrtc/lib/libnvrtc.so.12": [],
                                            "nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.9": []},
        "nvidia-nvjitlink-cu12==12.9.86": {"nvidia/nvjitlink/lib/libnvJitLink.so.12": []},
        # the CUDA 12 wheel names NVVM libnvvm.so; its soname is libnvvm.so.4
        "nvidia-cuda-nvcc-cu12==12.9.86": {"nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so": ["libnvvm.so.4"],
                                           "nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc": []},
    },
}


def pip(*args):
    cmd = [sys.executable, "-m", "pip", *args, "--disable-pip-version-check", "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr[-3000:]}")


def platform_args():
    out = ["--only-binary=:all:", "--python-version", "3.12", "--implementation", "cp"]
    for p in PLATFORMS:
        out += ["--platform", p]
    return out


def download(spec, dest):
    pip("download", "--no-deps", "-d", str(dest), *platform_args(), spec)
    name = spec.split("==")[0].replace("-", "_")
    found = sorted(Path(dest).glob(f"{name}-{spec.split('==')[1]}-*.whl"))
    if not found:
        sys.exit(f"no wheel of {spec} in {dest}")
    return found[0]


def stage(release, root, cache, ours=None):
    """Lay out the archive's content for `release` under `root`; returns the preload list."""
    site = root / "site"
    if ours:
        shutil.copytree(ours, root / "ours", symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    pip("install", "--no-deps", "--no-compile", "--target", str(site), *platform_args(),
        f"cuda-bindings=={TWINS[release]}", CUDA_CORE)
    preload = []
    for spec, files in LIBRARIES[release].items():
        wheel = download(spec, cache)
        with zipfile.ZipFile(wheel) as z:
            for member, aliases in files.items():
                target = site / member
                target.parent.mkdir(parents=True, exist_ok=True)
                with z.open(member) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                for alias in aliases:
                    (target.parent / alias).symlink_to(target.name)
                if ".so" in target.name and "builtins" not in target.name:
                    preload.append(str((target.parent / (aliases[0] if aliases else target.name)).relative_to(root)))
    shutil.copytree(fetch.include_dir(release), root / "include", symlinks=True)
    (root / "preload").write_text("\n".join(preload) + "\n")
    return preload


def pack(root, archive):
    """One solid xz stream (dictionary larger than the libraries, so repeats across them count)."""
    tar = archive.with_suffix("")
    with tarfile.open(tar, "w") as t:
        for name in ("site", "include", "preload", "ours"):
            if (root / name).exists():
                t.add(root / name, arcname=name)
    with open(archive, "wb") as out:
        subprocess.run(["xz", "-T1", "--lzma2=preset=9,dict=384MiB", "-c", str(tar)], stdout=out, check=True)
    tar.unlink()


def tree_size():
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, check=True).stdout.split(b"\0")
    return sum((REPO / os.fsdecode(f)).stat().st_size for f in files if f and (REPO / os.fsdecode(f)).is_file())


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/client_carry.py")
    ap.add_argument("--release", action="append", choices=sorted(LIBRARIES))
    ap.add_argument("--out", default=str(REPO / ".carry"))
    ap.add_argument("--cache", default=str(REPO / "build" / "client-carry"), help="downloaded wheels")
    ap.add_argument("--ours", action="append", default=[], metavar="VER=DIR",
                    help="a build of ours for VER and CPython 3.12 (pip install --target DIR), packed as ours/: "
                         "scripts/client_releases.sh then uses it instead of building there")
    a = ap.parse_args(argv)
    ours = dict(o.split("=", 1) for o in a.ours)
    cache = Path(a.cache)
    cache.mkdir(parents=True, exist_ok=True)
    tree = tree_size()
    print(f"working tree: {tree / 2 ** 20:.1f} MiB")
    status = 0
    for release in a.release or sorted(LIBRARIES):
        folder = Path(a.out) / f"cuda-{release}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        with tempfile.TemporaryDirectory(prefix=f"carry-{release}.") as tmp:
            preload = stage(release, Path(tmp), cache, ours.get(release))
            raw = sum(f.stat().st_size for f in Path(tmp).rglob("*") if f.is_file() and not f.is_symlink())
            pack(Path(tmp), folder / "carry.tar.xz")
        size = (folder / "carry.tar.xz").stat().st_size
        fits = tree + size <= LIMIT
        status |= not fits
        print(f"CUDA {release}: {folder.relative_to(REPO) if folder.is_relative_to(REPO) else folder}/carry.tar.xz "
              f"{size / 2 ** 20:.1f} MiB ({raw / 2 ** 20:.0f} MiB unpacked; preloads {', '.join(Path(p).name for p in preload)}); "
              f"with the working tree {(tree + size) / 2 ** 20:.1f} MiB of {LIMIT / 2 ** 20:.0f}"
              + ("" if fits else "  TOO LARGE for one call"))
    return status


if __name__ == "__main__":
    sys.exit(main())
