"""Documented-invalid inputs handed to the real driver and runtime (tests/fuzz/gpu_cases.py): NULL
and destroyed handles, sizes past an allocation, devices that do not exist.  Each case runs in a
child process (tests/fuzz/batches.py), so a crash in the driver is caught and reported, not
fatal.  No case may crash or hang, other than the driver's own crashes listed in DRIVER_CRASHES;
each must end in an error status or a Python exception, except the few inputs the driver accepts
(ACCEPTED)."""
import pytest

from _support import python_env

pytestmark = pytest.mark.gpu

# Cases that return success: inputs the documentation names as no-ops, and a few invalid ones
# the driver accepts (driver 580, CUDA 13.0).
ACCEPTED = {
    "cudaFree(NULL)": "documented: \"If devPtr is 0, no operation is performed\"",
    "cuMemFree(NULL)": "the driver treats it as the no-op the runtime documents for cudaFree(NULL)",
    "cuTexObjectDestroy(0)": "texture and surface objects are plain numbers; the driver ignores 0",
    "cuSurfObjectDestroy(0)": "as cuTexObjectDestroy(0)",
    "cuTexObjectDestroy(destroyed texture)": "the driver ignores a texture object it no longer knows",
}

# Cases that crash inside the driver itself: a stream, context or library used after its destroy
# call (the driver frees the object and reads the freed memory; whether a given case crashes
# depends on what reused that memory, so each is listed as one that may crash).  The wrappers
# cannot tell these from live handles: a handle is a pointer value that other libraries in the
# process (cuda.core, CuPy, numba-cuda, C extensions) create, copy as an int and destroy too, so
# refusing destroyed ones would need a registry of every create and destroy call in the process,
# and a lookup in it on every call that takes a handle (every launch and copy).  Events, modules,
# graphs, pools and memory are checked by the driver: their cases end in an error status.
# docs/reliability.md has the table.
DRIVER_CRASHES = {
    "cuStreamQuery(destroyed stream)": "segfault in libcuda",
    "cuStreamSynchronize(destroyed stream)": "segfault in libcuda in one run, CUDA_ERROR_INVALID_CONTEXT in another",
    "cuStreamDestroy(destroyed stream)": "segfault in libcuda in one run (a second destroy), "
                                         "CUDA_ERROR_INVALID_CONTEXT in another",
    "cuLaunchKernel(on a destroyed stream)": "may segfault, as the stream cases above",
    "cudaStreamSynchronize(destroyed stream)": "may segfault, as the stream cases above",
    "cuLibraryUnload(unloaded library)": "segfault in libcuda (a second unload)",
    "cuCtxSetCurrent(destroyed context)": "returns CUDA_SUCCESS; the next driver call segfaults",
    "cuCtxPushCurrent(destroyed context)": "returns CUDA_SUCCESS; the next driver call segfaults",
}


def test_invalid_inputs_reach_the_driver_without_a_crash():
    from fuzz import batches               # tests/fuzz: tests/ is on sys.path (conftest.py)
    from fuzz.gpu_cases import CASES
    results, crashes = batches.run("tests.fuzz.gpu_cases", [], list(CASES), python_env(), 300)
    width = max(map(len, CASES))
    for (name,), end in results:
        print(f"{name:<{width}}  {end[0]}: {end[1]}")
    for case, what in crashes:
        print(f"{case[0] if case else '?':<{width}}  CRASH {what}")
    crashed = {case[0] if case else "?" for case, _ in crashes}
    assert crashed <= set(DRIVER_CRASHES), crashes
    # every case ended or crashed (one that crashed "after it ended" is in both lists)
    assert {name for (name,), _ in results} | crashed == set(CASES)
    succeeded = {name for (name,), end in results if end[0] == "status" and end[1] in ("CUDA_SUCCESS", "cudaSuccess")}
    assert succeeded - set(DRIVER_CRASHES) == set(ACCEPTED)
    # host buffers shorter than the byte count are refused before the call, naming the argument
    raised = {name: end[1] for (name,), end in results if end[0] == "raised"}
    assert raised["cuMemcpyHtoD(host buffer too small)"].startswith(
        "ValueError: cuMemcpyHtoD() argument 'srcHost': the bytearray has room for 16 bytes; the call uses 1048576")
    assert raised["cudaMemcpy(host buffer too small)"].startswith(
        "ValueError: cudaMemcpy() argument 'src': the bytes has room for 1 bytes; the call uses 1048576")
    print(f"gpu bad inputs: {len(CASES)} cases, {len(results)} ended cleanly "
          f"({len(results) - len(raised)} with an error status, {len(raised)} raised), crashes {len(crashes)}")
