"""Calls that code written for NVIDIA's package makes, run on our build and on NVIDIA's package of
the same release (its twin), side by side: what each returns or raises.

    python scripts/behaviours.py [--reference DIR]

The release is the one the imported cuda.bindings was built for; NVIDIA's twin is taken from
DIR (default: build/conformance/reference-<twin>, where the conformance suite installs it; `{twin}`
in DIR stands for the twin's version).  NVML and cuFile run on the stand-in libraries of
tests/stand_in.py (every entry point returns success and writes nothing), loaded before either
package; NVVM on the real libNVVM.  Each case runs in a fresh process per package.  A case whose
module NVIDIA's release lacks is shown as such, and not counted.  The last line counts the cases
where the two differ.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

HANDLE = 0x10000      # a handle the stand-ins take (beyond the first page)

# (name, modules it needs, code); the code's last expression is `result`
CASES = [
    ("nvml.device_read_write_prm_v1(device, bytes)", ("nvml",),
     f"from cuda.bindings import nvml\nresult = nvml.device_read_write_prm_v1({HANDLE}, b'\\x01\\x02\\x03')"),
    ("nvml.device_get_conf_compute_gpu_attestation_report(device, nonce as bytes)", ("nvml",),
     f"from cuda.bindings import nvml\nresult = nvml.device_get_conf_compute_gpu_attestation_report({HANDLE}, b'n' * 32)"),
    ("nvml.device_get_field_values(device, FieldValue(0))", ("nvml",),
     f"from cuda.bindings import nvml\nresult = nvml.device_get_field_values({HANDLE}, nvml.FieldValue(0))"),
    ("nvml.device_get_field_values(device, [])", ("nvml",),
     f"from cuda.bindings import nvml\nresult = nvml.device_get_field_values({HANDLE}, [])"),
    ("cufile.set_parameter_string(param, int address of a C string)", ("cufile",),
     "import ctypes\nfrom cuda.bindings import cufile\ns = ctypes.create_string_buffer(b'/tmp/x')\n"
     "result = cufile.set_parameter_string(cufile.StringConfigParameter(0), ctypes.addressof(s))"),
    ("str(nvvmError) after a failed compile", ("nvvm",),
     "from cuda.bindings import nvvm\np = nvvm.create_program()\n"
     "nvvm.add_module_to_program(p, b'not IR', 6, 'm')\ntry:\n    nvvm.compile_program(p, 0, [])\n"
     "    result = 'no error'\nexcept nvvm.nvvmError as e:\n    result = (type(e).__name__, str(e))"),
    ("nvvm.add_module_to_program(prog, None, 0, name)", ("nvvm",),
     "from cuda.bindings import nvvm\nresult = nvvm.add_module_to_program(nvvm.create_program(), None, 0, 'm')"),
    ("cudaEglFrame: x = frame.frame.pPitch[0]; x.pitch = 5; frame.frame.pPitch[0].pitch", ("runtime",),
     "from cuda.bindings import runtime\nf = runtime.cudaEglFrame()\nx = f.frame.pPitch[0]\nx.pitch = 5\n"
     "first = f.frame.pPitch[0].pitch\nf.frame.pPitch = [x, x, x]\nx.pitch = 7\n"
     "result = (first, f.frame.pPitch[0].pitch, x is f.frame.pPitch[0])"),
]

_RUN = r"""
import ctypes, json, os, sys
stand_ins = [ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
             for path in filter(None, os.environ.get("BEHAVIOUR_PRELOAD", "").split(os.pathsep))]
for s in stand_ins:
    s.stubLast.restype = ctypes.c_char_p
import cuda.bindings

def show(v):
    # numbers, text and bytes by value; containers item by item; other objects by type (and length)
    if v is None or isinstance(v, (bool, int, float, str, bytes)):
        return repr(v)
    if isinstance(v, (tuple, list)):
        return type(v).__name__ + "(" + ", ".join(show(x) for x in v) + ")"
    try:
        return f"<{type(v).__name__} of {len(v)}>"
    except TypeError:
        return f"<{type(v).__name__}>"

out = {"from": cuda.bindings.__file__}
try:
    ns = {}
    exec(sys.argv[1], ns)
    out["result"] = show(ns["result"])[:200]
except ImportError as e:
    out["result"] = "(no such module)" if "cannot import name" in str(e) else f"raises ImportError: {e}"
except BaseException as e:
    out["result"] = f"raises {type(e).__name__}: {e}"[:200]
called = [s.stubLast() for s in stand_ins if s.stubLast()]
if called:
    out["result"] += f" [library reached: {called[0].decode()}]"
print(json.dumps(out))
"""


def run_case(code, pythonpath, preload):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(pythonpath), BEHAVIOUR_PRELOAD=os.pathsep.join(preload))
    p = subprocess.run([sys.executable, "-c", _RUN, code], capture_output=True, text=True, env=env,
                       cwd=tempfile.gettempdir(), timeout=120)
    if p.returncode:
        return {"result": f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}"}
    return json.loads(p.stdout.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", help="folder holding NVIDIA's twin ({twin} is replaced)")
    a = ap.parse_args()
    import cuda.bindings
    import stand_in
    from conformance import run
    release = cuda.bindings.__cuda_version__
    twin = run.twin(release)
    ref = Path((a.reference or str(run.OUT / "reference-{twin}")).replace("{twin}", twin))
    if not (ref / "cuda" / "bindings").is_dir():
        sys.exit(f"no NVIDIA cuda-bindings {twin} in {ref}: install it with pip install --target")
    ours_path = [p for p in sys.path if p and Path(p).resolve() != ref.resolve()]
    folder = Path(tempfile.mkdtemp(prefix="behaviours-"))
    preload = []
    for lib in ("nvml", "cufile"):
        try:
            preload.append(str(stand_in.build(lib, folder)))
        except Exception:        # a release without the module: its cases say so
            pass
    differ = 0
    print(f"CUDA {release}: ours ({cuda.bindings.__file__}) beside NVIDIA's {twin} ({ref})")
    for name, _, code in CASES:
        theirs = run_case(code, [str(ref)] + ours_path, preload)
        ours = run_case(code, ours_path, preload)
        absent = theirs["result"] == "(no such module)"
        same = theirs["result"] == ours["result"]
        differ += not (same or absent)
        print(f"\n{name}\n  NVIDIA's {twin}: {theirs['result']}\n  ours:  {ours['result']}\n  "
              f"{'same' if same else 'ours only (NVIDIA release lacks the module)' if absent else 'DIFFERENT'}")
    print(f"\nbehaviours: CUDA {release} vs NVIDIA's {twin}: {len(CASES)} cases, {differ} different")


if __name__ == "__main__":
    main()
