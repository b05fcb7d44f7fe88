"""Our Cython C-API matches NVIDIA's cuda-bindings 13.0.3 (no GPU needed).

A compiled Cython client (cuda.core, or anything built with `from cuda.bindings cimport cydriver`)
imports each cdef function it uses from the module's `__pyx_capi__` by name, and the import fails
unless the capsule's name (the function's C signature as Cython spells it) equals the one the
client was compiled with. So every function in the reference must be present in ours with the
same signature string; functions we have beyond the reference are fine.
"""
import ctypes
import importlib
import json
from pathlib import Path

import pytest

from cuda.bindings import __cuda_version__

# NVIDIA's 13.0.3 is the reference of the 13.0 build only (other releases: docs/cuda-versions.md)
pytestmark = pytest.mark.skipif(__cuda_version__ != "13.0",
                                reason=f"compares with NVIDIA's cuda-bindings 13.0.3; this build is for CUDA {__cuda_version__}")

REFERENCE = Path(__file__).resolve().parent / "data" / "cuda-bindings-13.0.3.capi.json"
CAPI = json.loads(REFERENCE.read_text())

# PyCapsule_GetName through a prototype of our own (no change to ctypes.pythonapi's shared one)
_capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))


def signatures(module):
    """{function: signature string} of a module's Cython C-API."""
    capi = getattr(importlib.import_module("cuda.bindings." + module), "__pyx_capi__", {})
    return {name: _capsule_name(capsule).decode() for name, capsule in capi.items()}


@pytest.mark.parametrize("module", sorted(CAPI))
def test_capi_matches_the_reference(module):
    ours, ref = signatures(module), CAPI[module]
    missing = sorted(name for name in ref if name not in ours)
    differ = sorted(name for name in ref if name in ours and ours[name] != ref[name])
    lines = [f"missing   {n}: {ref[n]}" for n in missing]
    lines += [f"differs   {n}:\n  reference: {ref[n]}\n  ours:      {ours[n]}" for n in differ]
    assert not lines, (f"{module}: {len(missing)} missing, {len(differ)} differ of {len(ref)}\n"
                       + "\n".join(lines))


def test_reference_covers_the_modules():
    assert {"cydriver", "cyruntime", "cynvrtc", "cynvjitlink", "cynvvm"} <= set(CAPI)
    assert all(len(CAPI[m]) > 10 for m in CAPI)
