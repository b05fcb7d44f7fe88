"""Our Cython C-API matches NVIDIA's cuda-bindings of the same CUDA release (no GPU needed).

A compiled Cython client (cuda.core, or anything built with `from cuda.bindings cimport cydriver`)
imports each cdef function it uses from the module's `__pyx_capi__` by name, and the import fails
unless the capsule's name (the function's C signature as Cython spells it) equals the one the
client was compiled with. So every function in the reference must be present in ours with the
same signature string; functions we have beyond the reference are fine.

The reference of each release is the dump of NVIDIA's package that the conformance suite compares
with (conformance.run.TWINS: 12.9.10, 13.0.3, 13.5.0), in tests/data/cuda-bindings-<twin>.capi.json.
"""
import ctypes
import importlib
import json
from pathlib import Path

import pytest

from cuda.bindings import __cuda_version__

from conformance.run import TWINS

DATA = Path(__file__).resolve().parent / "data"
TWIN = TWINS[__cuda_version__]
REFERENCE = DATA / f"cuda-bindings-{TWIN}.capi.json"
CAPI = json.loads(REFERENCE.read_text())
# The Cython modules compared.  NVIDIA's 12.9.10 and 13.5.0 also have cycufile, cynvml, cynvfatbin
# and cycudla (13.0.3: cycufile); when this package gains a module, add it here: from then on a
# reference that has it and a build that lacks it fails, like the five below.
MODULES = ("cydriver", "cyruntime", "cynvrtc", "cynvjitlink", "cynvvm")

# PyCapsule_GetName through a prototype of our own (no change to ctypes.pythonapi's shared one)
_capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))


def signatures(module):
    """{function: signature string} of a module's Cython C-API."""
    capi = getattr(importlib.import_module("cuda.bindings." + module), "__pyx_capi__", {})
    return {name: _capsule_name(capsule).decode() for name, capsule in capi.items()}


@pytest.mark.parametrize("module", MODULES)
def test_capi_matches_the_reference(module):
    if module not in CAPI:
        pytest.skip(f"NVIDIA's {TWIN} has no {module}")
    ours, ref = signatures(module), CAPI[module]
    missing = sorted(name for name in ref if name not in ours)
    differ = sorted(name for name in ref if name in ours and ours[name] != ref[name])
    lines = [f"missing   {n}: {ref[n]}" for n in missing]
    lines += [f"differs   {n}:\n  reference: {ref[n]}\n  ours:      {ours[n]}" for n in differ]
    assert not lines, (f"{module} (CUDA {__cuda_version__}, NVIDIA's {TWIN}): {len(missing)} missing, "
                       f"{len(differ)} differ of {len(ref)}\n" + "\n".join(lines))


def test_every_release_has_its_reference():
    for release, twin in TWINS.items():
        data = json.loads((DATA / f"cuda-bindings-{twin}.capi.json").read_text())
        assert set(MODULES) <= set(data), f"{twin} lacks {set(MODULES) - set(data)}"
        assert all(len(data[m]) > 10 for m in MODULES), twin
