#!/usr/bin/env python3
"""cuFile without GPUDirect Storage: which set-up lets a device buffer go to a file and back?

    python scripts/cufile_diagnose.py [--ours DIR] [--only ours|nvidia] [--dirs D1,D2] [--full]

Runs a matrix of variants, each in a fresh process (cuFile keeps its configuration per process),
with our cuda.bindings and with NVIDIA's (the copy found when DIR, where ours is, is taken off
PYTHONPATH), and prints one line per variant and package: the first call that failed and how
(cuFile status, CUDA status), or "ok" with what was read back; then, for each failing variant,
the tail of the cufile.log it wrote.  Variants:

  * the cufile.json given by CUFILE_ENV_PATH_JSON: none, `properties.allow_compat_mode`, plus the
    `execution.*` keys, plus `fs.generic.posix_unaligned_writes`, each with logging at TRACE into
    the variant's folder;
  * environment: CUFILE_FORCE_COMPAT_MODE=true, or not;
  * the same settings made through set_parameter_bool before driver_open;
  * the file on each folder of --dirs (default: this folder's filesystem, /dev/shm (tmpfs)),
    opened with O_DIRECT or without;
  * device buffers registered with buf_register, or not;
  * the descriptor passed to handle_register as the Descr object or as its address.
By default the base set-up and each setting changed alone (12 variants per folder and package,
about a minute); --full runs every combination.

Each variant: driver_open, handle_register, (buf_register), write 1 MiB from a device buffer,
read it back into another, compare on the host, batch I/O (one write, one read) where the first
part worked, deregister, driver_close.  Exit status 0 when some variant worked with our package,
1 otherwise, 3 without a GPU.  Needs a CUDA device, the cuFile library (nvidia-cufile) and numpy.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

SIZE = 1 << 20

CHILD = r'''
import ctypes, json, os, sys, traceback
V = json.loads(sys.argv[1])
def out(**kw):
    print("RESULT " + json.dumps(kw), flush=True)
try:
    import numpy as np
    import cuda.bindings
    from cuda.bindings import cufile, driver
except Exception as e:
    out(step="import", error=f"{type(e).__name__}: {e}"); sys.exit(0)
where = os.path.dirname(cuda.bindings.__file__)
version = getattr(cuda.bindings, "__version__", "?")
step = "start"
def status_of(e):
    s = getattr(e, "status", None)
    c = getattr(e, "cuda_error", None)
    try:
        s = f"{cufile.OpError(int(s)).name} ({int(s)})"
    except Exception:
        pass
    return s, c
def cu(r):
    if int(r[0]) != 0:
        raise RuntimeError(f"CUDA driver call failed: {r[0]!r}")
    return r[1] if len(r) == 2 else r[1:]
try:
    step = "cuInit"
    cu(driver.cuInit(0) + (None,))
    dev = cu(driver.cuDeviceGet(0))
    ctx = cu(driver.cuDevicePrimaryCtxRetain(dev))
    cu(driver.cuCtxSetCurrent(ctx) + (None,))
    n = V["size"]
    src = np.arange(n, dtype=np.uint8) * 7 + 3
    dst_host = np.zeros(n, dtype=np.uint8)
    d_src = int(cu(driver.cuMemAlloc(n)))
    d_dst = int(cu(driver.cuMemAlloc(n)))
    cu(driver.cuMemcpyHtoD(d_src, src, n) + (None,))
    cu(driver.cuMemsetD8(d_dst, 0, n) + (None,))
    for name, value in V.get("params", {}).items():
        step = f"set_parameter_bool({name})"
        cufile.set_parameter_bool(getattr(cufile.BoolConfigParameter, name), value)
    step = "driver_open"
    cufile.driver_open()
    step = "open(file)"
    flags = os.O_CREAT | os.O_RDWR | (os.O_DIRECT if V["odirect"] else 0)
    fd = os.open(V["file"], flags, 0o644)
    step = "handle_register"
    d = cufile.Descr()
    d.type = cufile.FileHandleType.OPAQUE_FD
    d.handle.fd = fd
    d.fs_ops = 0
    fh = cufile.handle_register(d if V["descr"] == "object" else d.ptr)
    if V["register"]:
        step = "buf_register(src)"
        cufile.buf_register(d_src, n, 0)
        step = "buf_register(dst)"
        cufile.buf_register(d_dst, n, 0)
    step = "write"
    w = cufile.write(fh, d_src, n, 0, 0)
    if w != n:
        raise RuntimeError(f"write returned {w}, not {n}")
    step = "read"
    r = cufile.read(fh, d_dst, n, 0, 0)
    if r != n:
        raise RuntimeError(f"read returned {r}, not {n}")
    step = "compare"
    cu(driver.cuMemcpyDtoH(dst_host, d_dst, n) + (None,))
    if not np.array_equal(src, dst_host):
        raise RuntimeError(f"read back {int((src != dst_host).sum())} differing bytes")
    step = "batch_io_set_up"
    batch = cufile.batch_io_set_up(2)
    io = cufile.IOParams(2)
    for i, (op, ptr, off) in enumerate([(cufile.Opcode.WRITE, d_src, n), (cufile.Opcode.READ, d_dst, 0)]):
        item = io[i]
        item.mode = cufile.BatchMode.BATCH
        item.fh = fh
        item.opcode = op
        item.cookie = i + 1
        item.u.batch.dev_ptr_base = ptr
        item.u.batch.file_offset = off
        item.u.batch.dev_ptr_offset = 0
        item.u.batch.size_ = 4096
    step = "batch_io_submit"
    cufile.batch_io_submit(batch, 1, io.ptr, 0)
    ev = cufile.IOEvents(2)
    nr = ctypes.c_uint(1)
    step = "batch_io_get_status"
    done = 0
    for _ in range(200):
        nr.value = 1
        cufile.batch_io_get_status(batch, 1, ctypes.addressof(nr), ev.ptr, 0)
        done += nr.value
        if done:
            break
    batch_ok = done == 1 and int(ev[0].status) == int(cufile.Status.COMPLETE)
    cufile.batch_io_destroy(batch)
    step = "cleanup"
    if V["register"]:
        cufile.buf_deregister(d_src)
        cufile.buf_deregister(d_dst)
    cufile.handle_deregister(fh)
    os.close(fd)
    cufile.driver_close()
    out(step="ok", where=where, version=version, batch=("ok" if batch_ok else f"status {int(ev[0].status)}"))
except Exception as e:
    st, ce = status_of(e)
    out(step=step, where=where, version=version, error=f"{type(e).__name__}: {e}", status=st, cuda_error=ce,
        trace=traceback.format_exc().splitlines()[-3:])
'''

JSONS = {
    "none": None,
    "compat": {"properties": {"allow_compat_mode": True}},
    "compat+exec": {"properties": {"allow_compat_mode": True},
                    "execution": {"max_io_queue_depth": 128, "max_io_threads": 4, "parallel_io": True,
                                  "min_io_threshold_size_kb": 8192, "max_request_parallelism": 4}},
    "compat+exec+posix": {"properties": {"allow_compat_mode": True, "use_poll_mode": False},
                          "execution": {"max_io_queue_depth": 128, "max_io_threads": 4, "parallel_io": True,
                                        "min_io_threshold_size_kb": 8192, "max_request_parallelism": 4},
                          "fs": {"generic": {"posix_unaligned_writes": True}}},
}


BASE = dict(json="compat", force=False, params=False, odirect=True, register=True, descr="object")


def variants(dirs, full):
    """The base set-up (cufile.json allowing compat mode, O_DIRECT, registered buffers) on each
    folder, then each setting changed alone, then each json with CUFILE_FORCE_COMPAT_MODE; with
    --full every combination (256 per package)."""
    if full:
        for j, force, params, folder, odirect, register, descr in itertools.product(
                list(JSONS), [False, True], [False, True], dirs, [True, False], [True, False], ["object", "ptr"]):
            yield dict(json=j, force=force, params=params, dir=folder, odirect=odirect, register=register, descr=descr)
        return
    seen = []
    changes = [{}, {"json": "none"}, {"json": "compat+exec"}, {"json": "compat+exec+posix"},
               {"force": True}, {"params": True}, {"odirect": False}, {"register": False},
               {"descr": "ptr"}, {"json": "none", "force": True}, {"json": "none", "params": True},
               {"force": True, "odirect": False, "register": False}]
    for folder in dirs:
        for ch in changes:
            v = dict(BASE, dir=folder, **ch)
            if v not in seen:
                seen.append(v)
                yield v


def run_variant(v, env_base, work):
    tag = "_".join(str(x) for x in v.values()).replace("/", "")
    folder = os.path.join(work, tag)
    os.makedirs(folder, exist_ok=True)
    env = dict(env_base)
    cfg = JSONS[v["json"]]
    if cfg is not None:
        cfg = json.loads(json.dumps(cfg))
        cfg["logging"] = {"dir": folder, "level": "TRACE"}
        path = os.path.join(folder, "cufile.json")
        with open(path, "w") as f:
            json.dump(cfg, f, indent=1)
        env["CUFILE_ENV_PATH_JSON"] = path
    env["CUFILE_LOGFILE_PATH"] = os.path.join(folder, "cufile.log")
    env["CUFILE_LOGGING_LEVEL"] = "TRACE"
    if v["force"]:
        env["CUFILE_FORCE_COMPAT_MODE"] = "true"
    data_dir = tempfile.mkdtemp(prefix="cufile-diag-", dir=v["dir"])
    spec = {"size": SIZE, "odirect": v["odirect"], "register": v["register"], "descr": v["descr"],
            "file": os.path.join(data_dir, "data.bin"),
            "params": {"PROPERTIES_ALLOW_COMPAT_MODE": True, "FORCE_COMPAT_MODE": True} if v["params"] else {}}
    try:
        r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec)], env=env, capture_output=True,
                           text=True, timeout=120)
        lines = [ln[7:] for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
        res = json.loads(lines[-1]) if lines else {"step": "crash", "error": f"exit {r.returncode}: {r.stderr[-400:]}"}
    except subprocess.TimeoutExpired:
        res = {"step": "hang", "error": "no answer in 120 s"}
    log = os.path.join(folder, "cufile.log")
    res["log_tail"] = open(log, errors="replace").read().splitlines()[-12:] if os.path.exists(log) else []
    subprocess.run(["rm", "-rf", data_dir])
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ours", help="the folder our cuda.bindings is imported from (default: found)")
    ap.add_argument("--only", choices=["ours", "nvidia"])
    ap.add_argument("--dirs", default=f"{os.getcwd()},/dev/shm")
    ap.add_argument("--full", action="store_true", help="every combination (long)")
    a = ap.parse_args()
    try:
        from cuda.bindings import driver
        err, = driver.cuInit(0)
        err, n = driver.cuDeviceGetCount()
        if int(err) != 0 or n == 0:
            print("no CUDA device: nothing to diagnose")
            return 3
    except Exception as e:
        print(f"cuda.bindings.driver unusable here: {e}")
        return 3
    import cuda.bindings
    ours = a.ours or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(cuda.bindings.__file__))))
    pp = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    packages = {"ours": dict(os.environ, PYTHONPATH=os.pathsep.join([ours] + [p for p in pp if p != ours])),
                "nvidia": dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in pp if os.path.abspath(p) != os.path.abspath(ours)))}
    if a.only:
        packages = {a.only: packages[a.only]}
    dirs = [d for d in a.dirs.split(",") if os.path.isdir(d)]
    work = tempfile.mkdtemp(prefix="cufile-diag-logs-")
    print(f"ours from {ours}; logs in {work}; folders {dirs}")
    for d in dirs:
        fs = subprocess.run(["stat", "-f", "-c", "%T", d], capture_output=True, text=True).stdout.strip()
        print(f"  {d}: {fs}")
    worked = {k: 0 for k in packages}
    failures = []
    for v in variants(dirs, a.full):
        row = []
        for name, env in packages.items():
            res = run_variant(v, env, os.path.join(work, name))
            if res["step"] == "ok":
                worked[name] += 1
                row.append(f"{name}: ok (batch {res.get('batch')})")
            else:
                row.append(f"{name}: {res['step']} -> {res.get('status') or res.get('error')}"
                           + (f" cuda {res.get('cuda_error')}" if res.get("cuda_error") else ""))
                failures.append((v, name, res))
        print(json.dumps(v), "|", " | ".join(row), flush=True)
    shown = set()
    for v, name, res in failures:
        key = (name, res["step"], str(res.get("status")))
        if key in shown:
            continue
        shown.add(key)
        print(f"\n---- {name}, {json.dumps(v)}: {res['step']}: {res.get('error')}")
        for t in res.get("trace", []):
            print("   ", t)
        print("   cufile.log tail:")
        for ln in res["log_tail"]:
            print("     ", ln)
    print("\nvariants that worked:", worked)
    return 0 if worked.get("ours") else 1


if __name__ == "__main__":
    sys.exit(main())
