"""numba-cuda's interprocess tests and cuda.core's IPC programs on a GPU machine, under NVIDIA's
package and under ours, printed side by side.

    python scripts/ipc_clients.py --ours DIR [--deps DIR] [--out DIR] [--module M ...]

DIR is a `pip install --target` folder holding our build (scripts/gpu_check.sh makes it and calls
this with `ipc` in GPU_CHECK_STEPS); NVIDIA's package is the one the machine's Python imports when
DIR is not on the path; --deps as in scripts/client_check.py.

1. numba-cuda's test modules that start processes (IPC handles opened in spawned children,
   multiprocessing, initialisation in a child): its parallel runner (`-m N`, what
   scripts/client_check.py uses) cannot start them from its worker processes, so here each module
   runs alone in a serial runner, `python -m numba.runtests -v MODULE`, under one package and then
   the other (never both at once: the children share the GPU);
2. tests/clients/ipc_programs.py --gpu, each program in a process of its own (cuda.core's
   IPC-enabled memory pool, buffers and events handed to spawned children).

Logs and ipc_clients.json go to --out; the summary is printed last. Exit status 1 if a test or
program passes under NVIDIA's package but not under ours, 2 if DIR's build is not the cuda.bindings
imported, 3 if the machine has no numba-cuda or cuda.core to run (nothing compared).
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))
from client_check import PASSING, counts, environment, parse_suite, which_bindings  # noqa: E402
from tests.clients import ROW_STACK_ALIAS  # noqa: E402
from tests.clients.ipc_programs import PROGRAMS  # noqa: E402

# numba-cuda 0.30.4's modules (numba_cuda/numba/cuda/tests/) whose tests start processes
MODULES = [
    "numba.cuda.tests.cudapy.test_ipc",
    "numba.cuda.tests.cudapy.test_multiprocessing",
    "numba.cuda.tests.cudapy.test_multigpu",
    "numba.cuda.tests.cudapy.test_multithreads",
    "numba.cuda.tests.cudadrv.test_init",
    "numba.cuda.tests.cudadrv.test_detect",
    "numba.cuda.tests.cudadrv.test_runtime",
]


def run_module(env, module, log, timeout):
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, "-m", "numba.runtests", "-v", module], env=env, capture_output=True,
                           text=True, timeout=timeout, cwd=tempfile.gettempdir())
        out, rc = p.stdout + "\n" + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") + "\n" + (e.stderr or b"").decode(errors="replace")
        rc = "timeout"
    log.append(out)
    tests, ran = parse_suite(out)
    return {"tests": tests, "ran": ran, "exit": rc, "seconds": round(time.time() - t0, 1), "tail": out[-600:]}


def run_program(env, name, timeout):
    try:
        p = subprocess.run([sys.executable, "-m", "tests.clients.ipc_programs", "--gpu", name], env=env,
                           capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir())
        out, err = p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out, err = (e.stdout or b"").decode(errors="replace"), "timeout"
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")][1:]
    result = rows[0] if rows else {"name": name, "ok": False, "error": f"no result: {err[-500:]}"}
    return result, f"### {name}\n{out}\n---- stderr\n{err}"


def fmt(c, ran, rc):
    return (f"{c.get('passed', 0) + c.get('expected failure', 0)}/{c.get('failed', 0)}/{c.get('error', 0)}/"
            f"{c.get('skipped', 0)} of {ran if ran is not None else '?'}" + ("" if rc == 0 else f" (exit {rc})"))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/ipc_clients.py")
    ap.add_argument("--ours", required=True)
    ap.add_argument("--deps", default=None)
    ap.add_argument("--out", default="/tmp/ipc_clients")
    ap.add_argument("--module", action="append", help="numba-cuda test module (repeatable; default: the list above)")
    ap.add_argument("--module-timeout", type=int, default=300)
    ap.add_argument("--program-timeout", type=int, default=300)
    a = ap.parse_args(argv)
    modules = a.module or MODULES
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    site = Path(tempfile.mkdtemp(prefix="ipc_clients_site."))
    (site / "sitecustomize.py").write_text(ROW_STACK_ALIAS)
    envs = {"nvidia": environment(site, None, a.deps), "ours": environment(site, a.ours, a.deps)}
    where = {p: which_bindings(e) for p, e in envs.items()}
    if not where["ours"].startswith((str(Path(a.ours).resolve()), a.ours)):
        print(f"our build is not the cuda.bindings imported: {where}")
        return 2
    have = {}
    for lib, probe in (("numba-cuda", "import numba.cuda"), ("cuda.core", "import cuda.core")):
        have[lib] = subprocess.run([sys.executable, "-c", probe], env=envs["nvidia"], capture_output=True,
                                   timeout=300).returncode == 0
    report = {"bindings": where, "have": have, "numba": {}, "programs": {}}
    lines = [f"cuda.bindings: {p}: {w}" for p, w in where.items()]

    # 1. numba-cuda's modules, serially, one package after the other
    lost = []
    if have["numba-cuda"]:
        lines.append(f"{'numba-cuda module (passed/failed/errors/skipped)':58s} {'NVIDIA':>30s}   {'ours':>30s}")
        numba_logs = []                  # one file: the device tool brings back few files
        for module in modules:
            res = {}
            for p, e in envs.items():
                numba_logs.append(f"\n######## {module} under {p}\n")
                res[p] = run_module(e, module, numba_logs, a.module_timeout)
            (out / "numba_modules.log").write_text("".join(numba_logs))
            report["numba"][module] = {p: {"counts": counts(r["tests"]), "ran": r["ran"], "exit": r["exit"],
                                           "seconds": r["seconds"]} for p, r in res.items()}
            cells = {p: fmt(counts(r["tests"]), r["ran"], r["exit"]) for p, r in res.items()}
            lines.append(f"{module:58s} {cells['nvidia']:>30s}   {cells['ours']:>30s}")
            for p, r in res.items():      # a module that ran nothing: what it said last
                if r["exit"] != 0 and not r["tests"]:
                    lines.append(f"    {p} ran nothing; its last words: " + " | ".join(r["tail"].strip().splitlines()[-4:]))
            nv, ours = res["nvidia"]["tests"], res["ours"]["tests"]
            for t, k in sorted(nv.items()):
                if k in PASSING and ours.get(t) not in PASSING:
                    lost.append(f"{t}: ours {ours.get(t, 'absent')}")
            for t, k in sorted(ours.items()):
                if k in PASSING and nv.get(t) not in PASSING:
                    lines.append(f"    passes on ours only: {t} (NVIDIA's {nv.get(t, 'absent')})")
        lines.append(f"numba-cuda tests passing on NVIDIA's but not on ours: {len(lost)}")
        lines.extend(f"    {t}" for t in lost)
    else:
        lines.append("numba-cuda: not installed for this Python, its tests not run")

    # 2. cuda.core's IPC programs
    lost_programs = []
    if have["cuda.core"]:
        logs = []
        results = {p: {} for p in envs}
        for name, _, _ in PROGRAMS:
            for p, e in envs.items():
                results[p][name], log = run_program(e, name, a.program_timeout)
                logs.append(f"[{p}] {log}")
        (out / "ipc_programs.log").write_text("\n".join(logs))
        report["programs"] = {p: {n: r["ok"] for n, r in res.items()} for p, res in results.items()}
        total = len(PROGRAMS)
        lines.append(f"cuda.core IPC programs: NVIDIA's {sum(r['ok'] for r in results['nvidia'].values())}/{total}, "
                     f"ours {sum(r['ok'] for r in results['ours'].values())}/{total}")
        for name, _, _ in PROGRAMS:
            nv, ours = results["nvidia"][name], results["ours"][name]
            if not (nv["ok"] and ours["ok"]):
                lines.append(f"    {name}: NVIDIA's {'ok' if nv['ok'] else 'FAILED ' + nv.get('error', '')[:300]}; "
                             f"ours {'ok' if ours['ok'] else 'FAILED ' + ours.get('error', '')[:300]}")
            if nv["ok"] and not ours["ok"]:
                lost_programs.append(name)
        lines.append(f"cuda.core IPC programs passing on NVIDIA's but not on ours: {len(lost_programs)} "
                     f"{lost_programs or ''}")
    else:
        lines.append("cuda.core: not installed for this Python, its IPC programs not run")

    report["lost"] = {"numba": lost, "programs": lost_programs}
    (out / "ipc_clients.json").write_text(json.dumps(report, indent=1))
    print("\n==== IPC client check summary\n" + "\n".join(lines))
    if not have["numba-cuda"] and not have["cuda.core"]:
        return 3
    return 1 if lost or lost_programs else 0


if __name__ == "__main__":
    sys.exit(main())
