"""Every public function of every module, called with bad arguments (tests/fuzz/cases.py), ends in
a Python exception or a returned status: never a crash, an abort or a hang; and an argument
error (TypeError, ValueError, OverflowError) names the argument it is about.

NVRTC, nvJitLink and NVVM run against their real libraries; the driver and the runtime against
the stand-in libcuda.so.1 (every entry point returns CUDA_ERROR_UNKNOWN), so no GPU is needed.
Each module runs in child processes: after a crash the batch starts again after the function
that crashed, and the crash is reported with its case and the fault's traceback."""
import pytest

from _support import python_env, stand_in_env

MODULES = ["driver", "runtime", "nvrtc", "nvjitlink", "nvvm", "nvfatbin", "cufile", "nvml", "cudla"]
# cuFile, NVML and cuDLA on stand-ins (tests/stand_in.py: every entry point returns success and
# writes nothing); nvFatbin on its real library
STAND_INS = ("cufile", "nvml", "cudla")
TIMEOUT = 600       # seconds for one batch; a hang ends it and is reported


def run_module(lib, env):
    """(functions, cases, outcomes {"ok" | exception name: count}, problems [(case, what)]): a
    problem is a crash, a hang or an argument error that names no argument."""
    import importlib
    from fuzz import batches               # tests/fuzz: tests/ is on sys.path (conftest.py)
    from fuzz.cases import functions
    todo = functions(importlib.import_module(f"cuda.bindings.{lib}"))
    results, problems = batches.run("tests.fuzz.cases", [lib], todo, env, TIMEOUT)
    outcomes = {}
    for case, end in results:
        key = "ok" if end[0] == "ok" else end[1]
        outcomes[key] = outcomes.get(key, 0) + 1
        if end[0] == "unnamed":
            problems.append((case, f"{end[1]} naming no argument: {end[2]}"))
    return len(todo), len(results) + len(problems), outcomes, problems


@pytest.mark.parametrize("lib", MODULES)
def test_bad_arguments_never_crash(lib, stand_in_driver, tmp_path):
    import importlib.util
    if importlib.util.find_spec(f"cuda.bindings.{lib}") is None:
        pytest.skip(f"this build (CUDA {__import__('cuda.bindings').bindings.__cuda_version__}) has no {lib} bindings")
    # the driver and the runtime on the stand-in driver, every entry point answering 999 (unknown)
    env = python_env(stand_in_env(stand_in_driver, 999) if lib in ("driver", "runtime") else None)
    if lib in STAND_INS:
        import stand_in
        env["STAND_IN_LIBS"] = f"{lib}:{stand_in.build(lib, tmp_path)}"
    total, cases, outcomes, problems = run_module(lib, env)
    crashes = [p for p in problems if "naming no argument" not in p[1]]
    print(f"fuzz {lib}: {total} functions, {cases} cases, crashes {len(crashes)}, unnamed argument "
          f"errors {len(problems) - len(crashes)}; outcomes {outcomes}")
    assert problems == []
    assert total > 0 and cases > 10 * total
    # the wrappers refuse most of these values themselves, with a Python exception
    assert sum(v for k, v in outcomes.items() if k != "ok") > cases // 2


def test_values_that_crashed_now_raise_naming_the_parameter():
    """Found by this suite: a negative buffer length (cuDeviceGetName, cuDeviceGetPCIBusId,
    cudaDeviceGetPCIBusId) and a small int as a handle the library dereferences (NVRTC's
    program, nvJitLink's handle, NVVM's program) crashed the process."""
    from cuda.bindings import driver, nvjitlink, nvrtc, nvvm, runtime
    for call, words in [
            (lambda: driver.cuDeviceGetName(-1, 0), "length cannot be negative: -1"),
            (lambda: driver.cuDeviceGetPCIBusId(-1, 0), "length cannot be negative: -1"),
            (lambda: runtime.cudaDeviceGetPCIBusId(-1, 0), "length cannot be negative: -1"),
            (lambda: nvrtc.nvrtcGetPTXSize(True), "prog 0x1 is not an NVRTC program"),
            (lambda: nvrtc.nvrtcDestroyProgram(4095), "prog 0xfff is not the address of an NVRTC program"),
            (lambda: nvjitlink.complete(16), "handle 0x10 is not an nvJitLink handle"),
            (lambda: nvvm.destroy_program(1), "prog 0x1 is not an NVVM program")]:
        with pytest.raises(ValueError, match=words):
            call()
    # 0 (NULL) stays the library's to refuse, with its own status
    assert nvrtc.nvrtcGetPTXSize(0)[0] == nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_PROGRAM
