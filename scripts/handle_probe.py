"""What the real CUDA libraries do with a handle in the first page of memory (1, 8, 4095).

    python scripts/handle_probe.py [--release 13.5] [--libs nvml,cufile,nvfatbin,nvjitlink,nvvm]

Our bindings refuse a handle value below 4096 (no object lies in the first page) before calling
the library; NVIDIA's package passes it on.  That refusal is a departure NVIDIA's callers can see
unless the library crashes on such a handle.  This script asks the libraries themselves, without
any binding: for each entry point of `cy<lib>.pxd` (the release's generated declarations) that
takes a library handle, a forked child loads the library with ctypes, calls the entry point with
the handle and zeroed memory or a number (0, then 64) for every other argument, and reports the
status it returned or the signal that killed it.  NVML is initialised first (nvmlInit_v2), cuFile's
driver opened (cuFileDriverOpen), as a program does before it has handles.  The last line is the
summary.
"""
import argparse
import collections
import ctypes
import json
import os
import re
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: library -> (shared object, handle types, set-up call)
LIBS = {
    "nvml": ("libnvidia-ml.so.1", ("nvmlDevice_t", "nvmlUnit_t", "nvmlGpuInstance_t", "nvmlComputeInstance_t",
                                   "nvmlEventSet_t", "nvmlGpmSample_t"), "nvmlInit_v2"),
    "cufile": ("libcufile.so.0", ("CUfileHandle_t", "CUfileBatchHandle_t"), "cuFileDriverOpen"),
    "nvfatbin": ("libnvfatbin.so", ("nvFatbinHandle",), None),
    "nvjitlink": ("libnvJitLink.so", ("nvJitLinkHandle",), None),
    "nvvm": ("libnvvm.so", ("nvvmProgram",), None),
}
VALUES = (1, 8, 4095)
_DECL = re.compile(r"^cdef\s+[\w\s*]+?\b(\w+)\((.*)\)\s*except", re.M)


def declarations(release, lib):
    """[(C name, [parameter C types])] of cy<lib>.pxd for `release`."""
    folder = ROOT / ("cuda_bindings" if release == "13.0" else f"generated/cuda-{release}")
    path = folder / f"cy{lib}.pxd"
    out = []
    for name, params in _DECL.findall(path.read_text()):
        types = [re.sub(r"\s*\b\w+$", "", p.strip()) if not p.strip().endswith("*") else p.strip()
                 for p in params.split(",") if p.strip() and p.strip() != "void"]
        out.append((name, types))
    return out


def find_library(soname):
    """A loadable path for soname: the system loader's, else the pip wheels' folders."""
    try:
        ctypes.CDLL(soname)
        return soname
    except OSError:
        pass
    for base in sys.path:
        for sub in ("nvidia/cu13/lib", "nvidia/cu12/lib", "nvidia/cufile/lib", "nvidia/nvjitlink/lib",
                    "nvidia/cuda_nvcc/nvvm/lib64", "nvidia/cu13/nvvm/lib64", "nvidia/nvfatbin/lib"):
            d = Path(base) / sub
            for f in sorted(d.glob(soname + "*")) if d.is_dir() else ():
                return str(f)
    return None


def call_in_child(path, setup, name, types, slot, value, scalar):
    """The status the entry point returned, or the signal's name."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            lib = ctypes.CDLL(path)
            if setup:
                getattr(lib, setup)()
            bufs = [ctypes.create_string_buffer(1 << 16) for _ in types]
            args = [ctypes.c_uint64(value) if i == slot else
                    ctypes.c_uint64(ctypes.addressof(bufs[i]) if "*" in t else scalar) for i, t in enumerate(types)]
            f = getattr(lib, name)
            f.restype = ctypes.c_int64
            res = f(*args)
            os.write(w, str(res & 0xFFFFFFFF if res >= 0 else res).encode())
        except Exception as e:
            os.write(w, f"error {type(e).__name__}".encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 4096):
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return signal.Signals(os.WTERMSIG(status)).name
    return data.decode() or "no result"


def _worst(results):
    """A signal if either call died of one, else the first status."""
    results = list(results)
    return next((x for x in results if x.startswith("SIG")), results[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", default="13.5")
    ap.add_argument("--libs", default=",".join(LIBS))
    ap.add_argument("--json")
    a = ap.parse_args()
    report, lines = {}, []
    for lib in a.libs.split(","):
        soname, handles, setup = LIBS[lib]
        path = find_library(soname)
        if path is None:
            lines.append(f"{lib}: {soname} not found")
            continue
        rows = {}
        for name, types in declarations(a.release, lib):
            slots = [i for i, t in enumerate(types) if t in handles]
            if not slots or len(types) > 6:
                continue
            # every other argument valid memory (64 KiB, zeroed) or a number: 0, and 64 (a library may
            # return early on a zero count or size before it looks at the handle)
            rows[name] = {v: _worst(call_in_child(path, setup, name, types, slots[0], v, n) for n in (0, 64))
                          for v in VALUES}
        report[lib] = {"library": path, "calls": rows}
        crashed = sorted(n for n, r in rows.items() if any(x.startswith("SIG") for x in r.values()))
        statuses = collections.Counter(x for r in rows.values() for x in r.values() if not x.startswith("SIG"))
        lines.append(f"{lib} ({path}): {len(rows)} entry points x {len(VALUES)} handle values; crashed "
                     f"{len(crashed)} entry points ({', '.join(crashed[:6])}{' ...' if len(crashed) > 6 else ''}); "
                     f"statuses otherwise {dict(statuses.most_common(5))}")
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1))
    print("\n".join(lines))
    print("handle probe summary: " + "; ".join(f"{lib} crashed {sum(any(x.startswith('SIG') for x in r.values()) for r in v['calls'].values())}/{len(v['calls'])}"
                                            for lib, v in report.items()))


if __name__ == "__main__":
    main()
