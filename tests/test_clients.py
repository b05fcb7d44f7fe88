"""The libraries built on cuda.bindings, on ours, without a GPU: cuda.core 1.2.0 and numba-cuda
0.30.4 (installed with their pinned dependencies into build/clients/, or the folder
CUDA_BINDINGS_CLIENTS_DIR names).

- the distribution's name, version and `all` extra are what the clients' requirements ask for;
- every compiled module of cuda.core that imports on NVIDIA's 13.0.3 imports on ours (its
  modules cimport our cydriver/cynvrtc/cynvjitlink/cynvvm: a C-API signature mismatch fails the
  import);
- the no-GPU programs of tests/clients/programs.py pass on ours: NVRTC, nvJitLink and NVVM driven
  by cuda.core's compiled code, and numba-cuda compiling a kernel to PTX through our NVVM.
The GPU side (numba-cuda's own test suite, the GPU programs, both packages in one run) is
scripts/client_check.sh.
"""
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuda.bindings import __cuda_version__

# NVIDIA's 13.0.3 is the reference of the 13.0 build only (other releases: docs/cuda-versions.md)
pytestmark = pytest.mark.skipif(__cuda_version__ != "13.0",
                                reason=f"compares with NVIDIA's cuda-bindings 13.0.3; this build is for CUDA {__cuda_version__}")

from clients import ROW_STACK_ALIAS
from conformance import run as conformance_run

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = ("cuda-core==1.2.0", "numba-cuda==0.30.4", "numba==0.68.0", "llvmlite==0.50.0",
           "cuda-pathfinder==1.9.0")

# The .pth file of numba-cuda (it routes `numba.cuda` to numba_cuda) is read only from a site
# directory, so the client folder is added as one; numpy.row_stack is restored for numba-cuda.
SITECUSTOMIZE = "import site\nsite.addsitedir({clients!r})\n" + ROW_STACK_ALIAS


@pytest.fixture(scope="session")
def clients(tmp_path_factory):
    try:
        folder = conformance_run.pip_target(ROOT / "build" / "clients", CLIENTS, "CUDA_BINDINGS_CLIENTS_DIR",
                                            "cuda_core-1.2.0.dist-info/METADATA", "the client libraries")
    except conformance_run.SetupError as e:       # no network, no folder given: a failure, not a skip
        pytest.fail(str(e), pytrace=False)
    site = tmp_path_factory.mktemp("clients-site")
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE.format(clients=str(folder)))
    return folder, site


def _run(clients, code_or_args, bindings_dir=None, timeout=600):
    """Run python under ours (the installed package) or, with bindings_dir, NVIDIA's copy there."""
    folder, site = clients
    path = [str(site)] + ([str(bindings_dir)] if bindings_dir else []) + [str(ROOT)] + [p for p in sys.path if p]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = os.pathsep.join(path)
    argv = [sys.executable] + (["-c", code_or_args] if isinstance(code_or_args, str) else list(code_or_args))
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=str(folder.parent))


def _json_lines(proc):
    lines = [json.loads(l) for l in proc.stdout.splitlines() if l.startswith("{")]
    assert lines, f"no output (rc {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return lines


def test_distribution_is_cuda_bindings_13_with_an_all_extra():
    import cuda.bindings
    dist = importlib.metadata.distribution("cuda-bindings")
    assert dist.version == cuda.bindings.__version__
    assert dist.version.split(".")[0] == "13"       # cuda-core[cu13] asks for cuda-bindings[all]==13.*
    assert "all" in dist.metadata.get_all("Provides-Extra")
    all_reqs = {r.split(";")[0].split("~")[0].split("=")[0].strip() for r in dist.requires or [] if 'extra == "all"' in r}
    assert {"nvidia-cuda-runtime", "nvidia-cuda-nvrtc", "nvidia-nvjitlink", "nvidia-nvvm"} <= all_reqs, all_reqs


IMPORT_ALL = r"""
import importlib, importlib.util, json, pathlib, sys
import cuda.bindings
root = pathlib.Path(importlib.util.find_spec("cuda.core").submodule_search_locations[0])
names = sorted({".".join(("cuda", "core") + p.relative_to(root).with_suffix("").with_suffix("").parts)
                for p in root.rglob("*.so") if p.parts[len(root.parts)] != "cu12"})
res = {}
for n in names:
    try:
        importlib.import_module(n)
        res[n] = "ok"
    except Exception as e:
        res[n] = f"{type(e).__name__}: {e}"[:300]
print(json.dumps({"cuda.bindings": cuda.bindings.__file__, "modules": res}))
"""


def test_cuda_core_compiled_modules_import_on_ours_wherever_they_do_on_nvidias(clients):
    ref = conformance_run.reference_dir("13.0")
    ours, theirs = (_json_lines(_run(clients, IMPORT_ALL, d))[-1] for d in (None, ref))
    assert not ours["cuda.bindings"].startswith(str(ref)) and theirs["cuda.bindings"].startswith(str(ref))
    ok_theirs = {n for n, r in theirs["modules"].items() if r == "ok"}
    assert len(ok_theirs) >= 40, theirs["modules"]     # the 13.x modules; NVML's fail on both
    lost = {n: ours["modules"].get(n, "absent") for n in ok_theirs if ours["modules"].get(n) != "ok"}
    assert not lost, f"cuda.core modules that import on NVIDIA's 13.0.3 but not on ours: {lost}"
    print(f"\ncuda.core compiled modules importing: ours {sum(r == 'ok' for r in ours['modules'].values())}, "
          f"NVIDIA's 13.0.3 {len(ok_theirs)}, of {len(ours['modules'])}")


def test_client_programs_without_a_gpu_pass_on_ours(clients):
    proc = _run(clients, ["-m", "tests.clients.programs"])
    lines = _json_lines(proc)
    import cuda.bindings
    assert lines[0]["cuda.bindings"] == cuda.bindings.__file__
    results = {r["name"]: r for r in lines[1:]}
    from clients.programs import PROGRAMS
    expected = {name for name, needs_gpu, _ in PROGRAMS if not needs_gpu}
    assert set(results) == expected, proc.stderr[-3000:]
    failed = {n: r["error"] + "\n" + r.get("traceback", "") for n, r in results.items() if not r["ok"]}
    assert not failed, failed
