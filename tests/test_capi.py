"""Our Cython C-API matches NVIDIA's cuda-bindings of the same CUDA release (no GPU needed).

A compiled Cython client (cuda.core, or anything built with `from cuda.bindings cimport cydriver`)
imports each cdef function it uses from the module's `__pyx_capi__` by name, and the import fails
unless the capsule's name (the function's C signature as Cython spells it) equals the one the
client was compiled with. So every function in the reference must be present in ours with the
same signature string; functions we have beyond the reference are fine.

The reference of each release is the dump of NVIDIA's package that the conformance suite compares
with (conformance.run.TWINS: 12.9.10, 13.0.3, 13.5.0), in tests/data/cuda-bindings-<twin>.capi.json;
that of its private C layers (`_internal.*`, `_bindings.*`: the modules a client compiled against
NVIDIA's `cuda/bindings/_internal/driver.pxd` binds to) in cuda-bindings-<twin>.private.capi.json.
A client compiled against those .pxd files of NVIDIA's, imported and called on ours:
scripts/private_client.py (test_private_client_built_against_nvidia_pxd).
"""
import ctypes
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cuda.bindings import __cuda_version__

from conformance.run import TWINS

DATA = Path(__file__).resolve().parent / "data"
TWIN = TWINS[__cuda_version__]
REFERENCE = DATA / f"cuda-bindings-{TWIN}.capi.json"
CAPI = json.loads(REFERENCE.read_text())
PRIVATE = json.loads((DATA / f"cuda-bindings-{TWIN}.private.capi.json").read_text())
#: the private layers compared here (13.5.0's `_v2` is a Python API of its own, not a C layer)
PRIVATE_LAYERS = sorted(m for m in PRIVATE if m.startswith(("_internal.", "_bindings.")))
# The Cython modules compared.  Every reference has the first five; NVIDIA's 12.9.10 has cycufile,
# cynvml and cynvfatbin too, 13.0.3 cycufile, 13.5.0 all four (LIBRARY_MODULES): where a
# reference has one, a build that lacks it fails.
CORE_MODULES = ("cydriver", "cyruntime", "cynvrtc", "cynvjitlink", "cynvvm")
LIBRARY_MODULES = ("cycufile", "cynvfatbin", "cynvml", "cycudla")
MODULES = CORE_MODULES + LIBRARY_MODULES

# PyCapsule_GetName through a prototype of our own (no change to ctypes.pythonapi's shared one)
_capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))


def signatures(module):
    """{function: signature string} of a module's Cython C-API."""
    capi = getattr(importlib.import_module("cuda.bindings." + module), "__pyx_capi__", {})
    return {name: _capsule_name(capsule).decode() for name, capsule in capi.items()}


def _compare(module, ref):
    """Fails naming every function of ref (the reference's C-API of module) that ours lacks or
    whose signature string differs."""
    try:
        ours = signatures(module)
    except ImportError as e:
        pytest.fail(f"NVIDIA's {TWIN} has {module}; this build does not: {e}")
    missing = sorted(name for name in ref if name not in ours)
    differ = sorted(name for name in ref if name in ours and ours[name] != ref[name])
    lines = [f"missing   {n}: {ref[n]}" for n in missing]
    lines += [f"differs   {n}:\n  reference: {ref[n]}\n  ours:      {ours[n]}" for n in differ]
    assert not lines, (f"{module} (CUDA {__cuda_version__}, NVIDIA's {TWIN}): {len(missing)} missing, "
                       f"{len(differ)} differ of {len(ref)}\n" + "\n".join(lines))


@pytest.mark.parametrize("module", MODULES)
def test_capi_matches_the_reference(module):
    if module not in CAPI or "__import_error__" in CAPI[module]:
        pytest.skip(f"NVIDIA's {TWIN} has no {module}")
    _compare(module, CAPI[module])


@pytest.mark.parametrize("module", PRIVATE_LAYERS)
def test_private_capi_matches_the_reference(module):
    _compare(module, PRIVATE[module])


def test_every_release_has_its_private_layers():
    # the comparison above runs over these: a reference that lost a module would test nothing
    counts = {twin: {m: len(e) for m, e in json.loads((DATA / f"cuda-bindings-{twin}.private.capi.json").read_text()).items()
                     if m.startswith(("_internal.", "_bindings."))} for twin in TWINS.values()}
    assert sum(counts["12.9.10"].values()) == 1570 and len(counts["12.9.10"]) == 10
    assert sum(counts["13.0.3"].values()) == 1188 and len(counts["13.0.3"]) == 8
    assert sum(counts["13.5.0"].values()) == 1712 and len(counts["13.5.0"]) == 11
    assert counts["13.5.0"]["_internal.driver"] == 526 and counts["13.0.3"]["_bindings.cydriver"] == 470


def test_the_comparison_fails_on_a_differing_signature():
    # _compare can fail: a reference naming a signature ours does not have, and a function ours lacks
    module = PRIVATE_LAYERS[0]
    name = next(iter(PRIVATE[module]))
    with pytest.raises(AssertionError, match="1 missing, 1 differ"):
        _compare(module, {name: "int (void)", "_no_such_function": "int (void)"})


def _client(*args):
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[1] / "scripts" / "private_client.py"),
                           *args], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-6000:]
    assert proc.stdout.rstrip().splitlines()[-1].startswith("private_client:")
    return proc.stdout


def test_private_client_built_against_ours():
    # a C++ Cython module cimporting the release's driver, NVRTC, nvJitLink, NVVM and utils layers,
    # compiled against our installed .pxd files, imported and called (no GPU: the driver call
    # raises the loader's error through the layer)
    out = _client()
    assert "FAIL" not in out


def test_private_client_built_against_nvidia_pxd():
    # the same module compiled against NVIDIA's .pxd files of the release (its twin, installed by
    # the conformance suite's helper), then imported on ours
    from conformance.run import reference_dir
    out = _client("--pxd-root", str(reference_dir(__cuda_version__)))
    assert "FAIL" not in out
    assert f'"built_against": "{reference_dir(__cuda_version__)}' in out


def test_every_release_has_its_reference():
    for release, twin in TWINS.items():
        data = json.loads((DATA / f"cuda-bindings-{twin}.capi.json").read_text())
        assert set(CORE_MODULES) <= set(data), f"{twin} lacks {set(CORE_MODULES) - set(data)}"
        assert all(len(data[m]) > 10 for m in CORE_MODULES), twin
        have = {m for m in LIBRARY_MODULES if m in data and "__import_error__" not in data[m]}
        assert have == {"12.9.10": {"cycufile", "cynvfatbin", "cynvml"}, "13.0.3": {"cycufile"}}.get(
            twin, set(LIBRARY_MODULES)), twin


def test_signatures_spell_the_types_as_cython_does():
    # the comparison above can fail: a signature string is the C declaration Cython was given
    # (ssize_t as Py_ssize_t, cuDLA's const qualifiers where the header puts them)
    if "cycufile" in CAPI:
        assert CAPI["cycufile"]["cuFileRead"] == "Py_ssize_t (CUfileHandle_t, void *, size_t, off_t, off_t)"
        assert signatures("cycufile")["cuFileRead"] == CAPI["cycufile"]["cuFileRead"]
    if "cycudla" in CAPI and "__import_error__" not in CAPI["cycudla"]:
        assert signatures("cycudla")["cudlaCreateDevice"] == \
            "cudlaStatus (uint64_t const , cudlaDevHandle *const , uint32_t const )"


def test_our_build_has_the_modules_of_its_release():
    # cufile, nvml and nvfatbin come with every pinned release, cudla where the headers have
    # cudla.h (13.5 on)
    have = set()
    for m in LIBRARY_MODULES:
        try:
            importlib.import_module("cuda.bindings." + m)
            have.add(m)
        except ImportError:
            pass
    newer = tuple(map(int, __cuda_version__.split("."))) >= (13, 5)
    assert have == {"cycufile", "cynvfatbin", "cynvml"} | ({"cycudla"} if newer else set())
