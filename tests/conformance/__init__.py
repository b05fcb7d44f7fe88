"""Differential conformance suite: our cuda.bindings against NVIDIA's cuda-bindings of the same
CUDA release (12.9 against 12.9.10, 13.0 against 13.0.3, 13.5 against 13.5.0: run.TWINS).

spec.py builds the probe list from the generator's model, stub.py a stand-in libcuda.so.1,
probe.py runs the probes under one package, run.py runs both and compares; departures.py lists
the deliberate differences.  See docs/conformance.md.
"""
