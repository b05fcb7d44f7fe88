"""The calls made without releasing the GIL (codegen/overrides.py KEEP_GIL) must not be able to
block on another thread.  benchmarks/lockprobe.c counts, per call, the pthread locks, waits and
kernel entries (ioctl, poll, syscall) the driver reaches from the calling thread: every driver
entry of KEEP_GIL must reach none, and the control calls must reach some (the counter works)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from codegen import overrides  # noqa: E402

pytestmark = pytest.mark.gpu


def _include_dirs():
    dirs = []
    env = os.environ.get("CUDA_BINDINGS_INCLUDE_DIR")
    if env:
        dirs.append(env)
    nvcc = shutil.which("nvcc")
    if nvcc:
        dirs.append(str(Path(nvcc).resolve().parent.parent / "include"))
    from cuda.bindings import __cuda_version__
    # the headers of the build under test first: its enums are the ones probed
    dirs.insert(0, str(ROOT / "headers" / f"cuda-{__cuda_version__}" / "include"))
    dirs.append("/usr/local/cuda/include")
    return [d for d in dirs if (Path(d) / "cuda.h").exists()]


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    inc = _include_dirs()
    if not cc or not inc:
        pytest.fail(f"lockprobe needs a C compiler and cuda.h (compiler {cc}, include dirs {inc})")
    exe = tmp_path_factory.mktemp("lockprobe") / "lockprobe"
    subprocess.run([cc, "-O2", "-rdynamic", f"-I{inc[0]}", "-o", str(exe), str(ROOT / "benchmarks" / "lockprobe.c"),
                    "-ldl", "-lcuda", "-lpthread"], check=True, capture_output=True, text=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=300).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    # keyed by function ("cuEventQuery (completed)" -> "cuEventQuery"; "cuDeviceGetAttribute[13]" stays)
    return {r["call"] if r["call"].startswith("control") else r["call"].split(" ")[0]: r for r in rows}


def test_every_driver_keep_gil_call_is_probed_and_reaches_no_lock(probe):
    driver_calls = [n for n in overrides.KEEP_GIL if n.startswith("cu") and not n.startswith("cuda")]
    assert driver_calls
    for name in driver_calls:
        assert name in probe, f"{name} is in KEEP_GIL but benchmarks/lockprobe.c does not probe it"
        row = probe[name]
        assert row["status"] == 0, row
        assert row["per_call"] == {}, f"{name} reaches locks/waits/kernel entries: {row['per_call']}"


def test_the_counter_sees_the_drivers_locks_in_the_controls(probe):
    controls = [r for k, r in probe.items() if k.startswith("control")]
    assert controls and all(r["per_call"] for r in controls), controls


def test_argument_values_kept_under_the_gil_reach_no_lock(probe):
    from cuda.bindings import driver
    assert overrides.KEEP_GIL_UNLESS
    for fname, (arg, enum_name, excluded, _) in overrides.KEEP_GIL_UNLESS.items():
        members = getattr(driver, enum_name).__members__
        kept = {int(m) for n, m in members.items() if n not in excluded}
        kept -= {int(m) for n, m in members.items() if n in excluded}
        assert kept
        for v in sorted(kept):
            row = probe.get(f"{fname}[{v}]")
            assert row is not None, f"{fname} keeps the GIL for {arg}={v} but lockprobe does not probe it"
            if row["status"] != 0:
                continue    # a value of newer headers that this driver rejects (its error path may lock)
            assert row["per_call"] == {}, f"{fname}({arg}={v}) reaches locks/kernel entries: {row['per_call']}"
        # and the probe does see the excluded ones reach something (else the exclusion is stale)
        reached = [v for v in {int(m) for n, m in members.items() if n in excluded}
                   if probe.get(f"{fname}[{v}]", {}).get("per_call")]
        assert reached, f"none of {fname}'s excluded values reaches a lock any more: {excluded}"

