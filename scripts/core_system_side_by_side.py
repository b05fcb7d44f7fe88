#!/usr/bin/env python3
"""cuda.core's `system` module (NVML through `cuda.bindings.nvml`) on our build and on NVIDIA's
cuda-bindings, side by side (needs a GPU and cuda-core installed).

Each package runs in a child process that imports cuda.core and asks its `system` module what it
knows: the module-level queries (device count, driver and NVML versions, whether cuda.core finds
the bindings' NVML usable: `CUDA_BINDINGS_NVML_IS_COMPATIBLE`), then, for every device, what
`cuda.core.Device(i).to_system_device()` answers (name, UUID, PCI bus id, architecture, memory,
clocks, temperature, utilization, processes, MIG mode, NVLink count, ...). Each answer is the
value or the exception's type and message. The parent prints one row per question with both
answers and marks the rows that differ; values that change from one moment to the next (free
memory, clocks, temperature, utilization, power) are compared by type only.

    python scripts/core_system_side_by_side.py [--ours DIR] [--reference DIR]

--ours: our build folder (default $DEST, else /tmp/ours), put first on PYTHONPATH; NVIDIA's is
the machine's installed cuda-bindings (PYTHONPATH unset), or the copy in --reference DIR (a
`pip install --target` folder of NVIDIA's package of our build's release), put first on
PYTHONPATH. cuda.core turns its device queries on only where the bindings' version says they
have the NVML it needs (`CUDA_BINDINGS_NVML_IS_COMPATIBLE`: `cuda.bindings._version.
__version_tuple__` 12.9.6 or newer within 12.x, or 13.2.0 or newer, and `cuda.bindings.nvml`
imports; our builds carry their twin's version, docs/cuda-versions.md), so compare a build with
NVIDIA's package of the same release. Exit status: 0 no difference, 1 differences, 2 a child
failed, 3 cuda.core or a GPU is missing.
"""
import argparse
import json
import os
import subprocess
import sys

# (label, expression over `system`, `core`, `sd` (the system device), `i`; varies over time?)
MODULE_QUERIES = [
    ("CUDA_BINDINGS_NVML_IS_COMPATIBLE", "system.CUDA_BINDINGS_NVML_IS_COMPATIBLE", False),
    ("get_num_devices()", "system.get_num_devices()", False),
    ("get_driver_branch()", "system.get_driver_branch()", False),
    ("get_kernel_mode_driver_version()", "system.get_kernel_mode_driver_version()", False),
    ("get_user_mode_driver_version()", "system.get_user_mode_driver_version()", False),
    ("get_nvml_version()", "system.get_nvml_version()", False),
    ("get_process_name(own pid)", "system.get_process_name(os.getpid())", False),
    ("Device.get_device_count()", "system.Device.get_device_count()", False),
]
DEVICE_QUERIES = [
    ("index", "sd.index", False),
    ("name", "sd.name", False),
    ("uuid", "sd.uuid", False),
    ("pci_bus_id", "sd.pci_bus_id", False),
    ("arch", "str(sd.arch)", False),
    ("brand", "str(sd.brand)", False),
    ("serial", "sd.serial", False),
    ("minor_number", "sd.minor_number", False),
    ("numa_node_id", "sd.numa_node_id", False),
    ("cuda_compute_capability", "sd.cuda_compute_capability", False),
    ("is_persistence_mode_enabled", "sd.is_persistence_mode_enabled", False),
    ("is_c2c_enabled", "sd.is_c2c_enabled", False),
    ("memory_info.total", "sd.memory_info.total", False),
    ("memory_info.free", "sd.memory_info.free", True),
    ("memory_info.used", "sd.memory_info.used", True),
    ("bar1_memory_info.total", "sd.bar1_memory_info.total", False),
    ("attributes.multiprocessor_count", "sd.attributes.multiprocessor_count", False),
    ("pci_info.domain/bus/device", "(sd.pci_info.domain, sd.pci_info.bus, sd.pci_info.device)", False),
    ("clock graphics current MHz", "sd.get_clock('graphics').get_current_mhz()", True),
    ("clock graphics max MHz", "sd.get_clock('graphics').get_max_mhz()", False),
    ("clock memory max MHz", "sd.get_clock('memory').get_max_mhz()", False),
    ("performance_state", "sd.performance_state", True),
    ("supported_pstates", "sd.supported_pstates", False),
    ("temperature.sensor()", "sd.temperature.sensor()", True),
    ("utilization.gpu", "sd.utilization.gpu", True),
    ("utilization.memory", "sd.utilization.memory", True),
    ("compute_running_processes (count)", "len(sd.compute_running_processes)", True),
    ("mig.is_mig_device", "sd.mig.is_mig_device", False),
    ("mig.mode", "sd.mig.mode", False),
    ("get_nvlink_count()", "sd.get_nvlink_count()", False),
    ("num_fans", "sd.num_fans", False),
    ("inforom.image_version", "sd.inforom.image_version", False),
    ("current_clock_event_reasons", "[str(r) for r in sd.current_clock_event_reasons]", True),
    ("to_cuda_device().device_id", "sd.to_cuda_device().device_id", False),
]

CHILD = r"""
import json, os, sys
out = {"file": None, "module": {}, "devices": []}
try:
    import cuda.bindings
    out["file"] = cuda.bindings.__file__
    out["version"] = getattr(cuda.bindings, "__version__", "?")
    import cuda.core as core
    from cuda.core import system
except Exception as e:
    out["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out)); sys.exit(0)
M, D = json.loads(sys.argv[1]), json.loads(sys.argv[2])

def ask(expr, **names):
    try:
        v = eval(expr, {"os": os, "system": system, "core": core}, names)
        return {"ok": repr(v), "type": type(v).__name__}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {str(e)[:200]}"}

for label, expr in M:
    out["module"][label] = ask(expr)
try:
    n = core.system.get_num_devices()
except Exception:
    n = 0
for i in range(n):
    row = {}
    try:
        sd = core.Device(i).to_system_device()
    except Exception as e:
        row["to_system_device()"] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
        out["devices"].append(row); continue
    row["to_system_device()"] = {"ok": type(sd).__name__, "type": "type"}
    for label, expr in D:
        row[label] = ask(expr, sd=sd, i=i)
    out["devices"].append(row)
print(json.dumps(out))
"""


def run(env):
    m = json.dumps([(label, e) for label, e, _ in MODULE_QUERIES])
    d = json.dumps([(label, e) for label, e, _ in DEVICE_QUERIES])
    r = subprocess.run([sys.executable, "-c", CHILD, m, d], env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or not r.stdout.strip():
        return {"error": f"child exited {r.returncode}: {r.stderr[-2000:]}"}
    return json.loads(r.stdout.strip().splitlines()[-1])


def show(a):
    if a is None:
        return "-"
    return a.get("ok") if "ok" in a else "!! " + a["error"]


def differs(a, b, varies):
    if a is None or b is None:
        return True
    if ("ok" in a) != ("ok" in b):
        return True
    if "ok" not in a:
        return a["error"].split(":")[0] != b["error"].split(":")[0]
    return a["type"] != b["type"] if varies else a["ok"] != b["ok"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", default=os.environ.get("DEST", "/tmp/ours"))
    ap.add_argument("--reference", help="a folder holding NVIDIA's cuda-bindings (default: the installed one)")
    a = ap.parse_args()
    ours_env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [a.ours] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != a.ours]))
    ref_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if a.reference:
        ref_env["PYTHONPATH"] = a.reference
    ours, ref = run(ours_env), run(ref_env)
    for name, r in (("ours", ours), ("NVIDIA's", ref)):
        print(f"{name}: cuda.bindings {r.get('version', '?')} from {r.get('file')}")
        if "error" in r:
            print(f"  {r['error']}")
    if "error" in ours or "error" in ref:
        missing = any("No module named 'cuda.core'" in r.get("error", "") for r in (ours, ref))
        return 3 if missing else 2
    if ours["file"] and not ours["file"].startswith(os.path.realpath(a.ours)) and not ours["file"].startswith(a.ours):
        print(f"our build is not the one imported: {ours['file']}")
        return 2
    rows, ndiff = [], 0
    for label, _, varies in MODULE_QUERIES:
        x, y = ours["module"].get(label), ref["module"].get(label)
        d = differs(x, y, varies)
        ndiff += d
        rows.append(("system." + label, show(x), show(y), d))
    for i in range(max(len(ours["devices"]), len(ref["devices"]))):
        od = ours["devices"][i] if i < len(ours["devices"]) else {}
        rd = ref["devices"][i] if i < len(ref["devices"]) else {}
        for label, _, varies in [("to_system_device()", "", False)] + DEVICE_QUERIES:
            x, y = od.get(label), rd.get(label)
            d = differs(x, y, varies)
            ndiff += d
            rows.append((f"device {i} {label}" + (" (varies)" if varies else ""), show(x), show(y), d))
    w0 = max(len(r[0]) for r in rows)
    w1 = min(48, max(len(str(r[1])) for r in rows))
    print(f"\n{'':{w0}}  {'ours':{w1}}  NVIDIA's")
    for label, x, y, d in rows:
        print(f"{label:{w0}}  {str(x)[:w1]:{w1}}  {str(y)[:60]}" + ("   <-- differs" if d else ""))
    if not ref["devices"] and not ours["devices"]:
        print("no device (get_num_devices() gave 0 or failed in both)")
        return 3
    print(f"\n{ndiff} differences in {len(rows)} rows")
    return 1 if ndiff else 0


if __name__ == "__main__":
    sys.exit(main())
