"""Exceptions as NVIDIA's package raises them: for each kind of exception ours raises where NVIDIA's
raises the same (a library's status error, NVIDIA's own argument error, the import of a module its
release lacks), the class, str() and PEP 678 notes are compared with NVIDIA's twin of this build's
release (tests/conformance/run.py TWINS), run on the same inputs with the same library files.
NVIDIA's raises these without a note, and a note is not invisible (pytest's `match=` reads the
message and its notes together, and every traceback prints them), so ours adds none; what ours
knows beyond NVIDIA's message is an attribute (`nvvmError.program_log`, `detail`), which
CUDA_BINDINGS_ERROR_NOTES=1 also shows as a note (README.md, "Types and exceptions")."""
import json
import os
import subprocess
import sys
import tempfile

import pytest

from cuda.bindings import __cuda_version__

from conformance import run

# Each case: a name, the expression making the handle `P` the call takes (in a child process: `p()`
# a fresh NVVM program, `bad()` one holding IR that does not parse, `h()` a fresh nvJitLink handle,
# `f()` a fresh nvFatbin handle), the call, and the attribute holding what ours knows beyond the
# message (None: nothing beyond it).
CASES = [
    ("nvvm.compile.bad-ir", "bad()",
     "nvvm.compile_program(P, 0, [])", "program_log"),
    ("nvvm.verify.bad-ir", "bad()",
     "nvvm.verify_program(P, 0, [])", "program_log"),
    ("nvvm.compile.bad-option", "bad()",
     "nvvm.compile_program(P, 1, ['-no-such-option'])", "program_log"),
    ("nvvm.compile.no-module", "p()", "nvvm.compile_program(P, 0, [])", None),
    ("nvvm.add_module.buffer-str", "p()", "nvvm.add_module_to_program(P, 'text', 4, 'x.ll')", "detail"),
    ("nvvm.get_program_log.buffer-bytes", "p()", "nvvm.get_program_log(P, 'x')", "detail"),
    ("nvjitlink.create.bad-option", "0", "nvjitlink.create(1, ['-fictitious_option'])", None),
    ("nvjitlink.create.numpy-address", "0", "nvjitlink.create(1, [numpy.uint64(5)])", "detail"),
    ("nvjitlink.add_data.buffer-str", "h()", "nvjitlink.add_data(P, nvjitlink.InputType.PTX, 'text', 4, 'x')",
     "detail"),
    ("nvfatbin.add_cubin.buffer-str", "f()", "nvfatbin.add_cubin(P, 'text', 4, '90', 'x')", "detail"),
    ("nvfatbin.add_ptx.bad-arch", "f()", "nvfatbin.add_ptx(P, PTX, len(PTX), 'no-arch', 'x', '')", None),
    ("_fast_enum.import", "0", "import cuda.bindings._internal._fast_enum", "detail"),
]

CHILD = r"""
import ctypes, importlib, json, os, sys
for path in filter(None, os.environ["NOTES_PRELOAD"].split(os.pathsep)):
    ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
import numpy
import cuda.bindings
where = os.path.abspath(cuda.bindings.__file__)
assert where.startswith(os.environ["NOTES_UNDER"]) == (os.environ["NOTES_SIDE"] == "reference"), where

BAD = b"This is not NVVM IR"
PTX = b".version 8.0\n.target sm_90\n.address_size 64\n"

def module(name):
    try:
        return importlib.import_module("cuda.bindings." + name)
    except ImportError:
        return None

nvvm, nvjitlink, nvfatbin = module("nvvm"), module("nvjitlink"), module("nvfatbin")
p = lambda: nvvm.create_program()
h = lambda: nvjitlink.create(1, ["-arch=sm_90"])
f = lambda: nvfatbin.create([], 0)

def bad():
    q = nvvm.create_program()
    nvvm.add_module_to_program(q, BAD, len(BAD), "bad.ll")
    return q
out = {}
for name, setup, call, attr in json.loads(sys.argv[1]):
    lib = name.split(".")[0]
    if lib != "_fast_enum" and globals()[lib] is None:
        continue
    P = eval(setup)
    try:
        exec(call)
    except Exception as e:
        out[name] = {"exc": type(e).__name__, "msg": str(e), "notes": getattr(e, "__notes__", None),
                     "attr": getattr(e, attr, None) if attr else None}
    else:
        out[name] = {"exc": None}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def setting():
    try:
        ref = run.reference_dir(__cuda_version__)
        ours = run._ours_path(ref)
        preload = run.real_libraries(run.REAL_LIBS, ours)
    except run.SetupError as e:       # no reference package: a failure, not a skip
        pytest.fail(f"NVIDIA's twin could not be set up: {e}", pytrace=False)
    return ref, ours, preload


def observe(setting, side, notes=""):
    ref, ours, preload = setting
    path = ([str(ref)] if side == "reference" else []) + [str(p) for p in ours]
    env = {k: v for k, v in os.environ.items() if k != "CUDA_BINDINGS_ERROR_NOTES"}
    env.update(PYTHONPATH=os.pathsep.join(path), NOTES_PRELOAD=os.pathsep.join(preload), NOTES_SIDE=side,
               NOTES_UNDER=os.path.join(os.path.abspath(ref), ""))
    if notes:
        env["CUDA_BINDINGS_ERROR_NOTES"] = notes
    r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(CASES)], capture_output=True, text=True,
                       env=env, cwd=tempfile.gettempdir(), timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def seen(setting):
    return {side: observe(setting, side) for side in ("ours", "reference")}


@pytest.mark.parametrize("case", [c[0] for c in CASES])
def test_raises_what_nvidias_raises_without_a_note(seen, case):
    ours, ref = seen["ours"].get(case), seen["reference"].get(case)
    assert ours is not None or ref is None, f"{case}: ours lacks the module NVIDIA's has"
    if ref is None:     # a module ours has beyond NVIDIA's release (nvFatbin in 13.0)
        pytest.skip(f"NVIDIA's {run.twin(__cuda_version__)} has no {case.split('.')[0]} module")
    if case == "_fast_enum.import" and ref["exc"] is None:
        assert ours["exc"] is None          # the releases whose enums are FastEnum have the module
        return
    assert ref["exc"] is not None, ref
    assert (ours["exc"], ours["msg"]) == (ref["exc"], ref["msg"])
    assert ref["notes"] is None and ours["notes"] is None      # no note, as there


def test_what_ours_knows_beyond_the_message_is_an_attribute(seen):
    ours = seen["ours"]
    for name, _, _, attr in CASES:
        o = ours.get(name)
        if not attr or o is None or o["exc"] is None:
            continue
        assert isinstance(o["attr"], str) and o["attr"], (name, o)
    assert "bad.ll" in ours["nvvm.compile.bad-ir"]["attr"]                 # the program log
    assert "-no-such-option" in ours["nvvm.compile.bad-option"]["attr"]
    assert ours["nvvm.compile.no-module"]["attr"] is None
    assert ours["nvvm.add_module.buffer-str"]["attr"].startswith("add_module_to_program() argument 'buffer': ")
    assert ours["nvjitlink.create.numpy-address"]["attr"].startswith("create() argument 'options': ")


def test_nvvm_error_has_no_program_log_where_the_library_keeps_none():
    from cuda.bindings import nvvm
    e = nvvm.nvvmError(nvvm.Result.ERROR_COMPILATION)
    assert e.program_log is None and not hasattr(e, "__notes__")


def test_notes_are_opt_in(setting, seen):
    noted = observe(setting, "ours", notes="1")
    for name, _, _, attr in CASES:
        o, plain = noted.get(name), seen["ours"].get(name)
        if o is None or o["exc"] is None:
            continue
        # the same error, and the attribute's text as its one note (none where there is nothing more)
        assert (o["exc"], o["msg"], o["attr"]) == (plain["exc"], plain["msg"], plain["attr"]), name
        assert o["notes"] == ([o["attr"]] if o["attr"] else None), (name, o)
    off = observe(setting, "ours", notes="0")
    assert off == seen["ours"]


def test_with_detail_reads_the_switch_at_each_raise(monkeypatch):
    from cuda.bindings._internal.utils import ERROR_NOTES, with_detail
    assert ERROR_NOTES == "CUDA_BINDINGS_ERROR_NOTES"
    monkeypatch.delenv(ERROR_NOTES, raising=False)
    e = with_detail(ValueError("NVIDIA's message"), "detail", "ours")
    assert e.detail == "ours" and not hasattr(e, "__notes__") and str(e) == "NVIDIA's message"
    for on in ("1", "yes", "on"):
        monkeypatch.setenv(ERROR_NOTES, on)
        assert with_detail(ValueError("m"), "detail", "ours").__notes__ == ["ours"]
    for off in ("0", "", "off"):
        monkeypatch.setenv(ERROR_NOTES, off)
        assert not hasattr(with_detail(ValueError("m"), "detail", "ours"), "__notes__")
