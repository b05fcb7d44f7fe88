"""The rule of the `gpu` and `two_gpus` markers (tests/conftest.py), for every machine and setting,
with the device probe's answer stood in (no GPU needed).

Fewer devices than a test needs: a skip, unless CUDA_BINDINGS_REQUIRE_GPU (one device) or
CUDA_BINDINGS_REQUIRE_GPUS=N (up to N) promises them; then a failure. So a one-GPU machine run with
CUDA_BINDINGS_REQUIRE_GPUS=1 skips the two-GPU tests and a two-GPU one run with
CUDA_BINDINGS_REQUIRE_GPUS=2 cannot.
"""
import sys

import pytest

import conftest

NO_DRIVER = ("skip", "driver.cuInit raised RuntimeError: no libcuda.so.1")


@pytest.fixture
def machine(monkeypatch):
    """machine(count, **env): the probe says `count` devices (0: no usable driver); env set."""
    for name in ("CUDA_BINDINGS_REQUIRE_GPU", "CUDA_BINDINGS_REQUIRE_GPUS"):
        monkeypatch.delenv(name, raising=False)

    def set_up(count, **env):
        if count:
            monkeypatch.setattr(conftest, "_gpu_state", ("ok", f"{count} device(s)"))
        else:
            monkeypatch.setattr(conftest, "_gpu_state", NO_DRIVER)
        monkeypatch.setattr(conftest, "_gpu_count", count)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return conftest.gpu_requirement

    return set_up


def test_conftest_module_is_the_one_pytest_loaded():
    assert sys.modules["conftest"] is conftest and hasattr(conftest, "gpu_requirement")


@pytest.mark.parametrize("count, env, needed, action, reason", [
    # no setting: a machine short of devices skips, saying how many it found
    (0, {}, 1, "skip", "no usable GPU: driver.cuInit raised RuntimeError: no libcuda.so.1"),
    (0, {}, 2, "skip", "needs 2 CUDA devices, found 0 (driver.cuInit raised RuntimeError: no libcuda.so.1)"),
    (1, {}, 1, "run", ""),
    (1, {}, 2, "skip", "needs 2 CUDA devices, found 1"),
    (2, {}, 2, "run", ""),
    (4, {}, 2, "run", ""),
    # CUDA_BINDINGS_REQUIRE_GPU=1 promises one device, not two
    (0, {"CUDA_BINDINGS_REQUIRE_GPU": "1"}, 1, "fail", "CUDA_BINDINGS_REQUIRE_GPU is set but no usable GPU: "
                                                       "driver.cuInit raised RuntimeError: no libcuda.so.1"),
    (1, {"CUDA_BINDINGS_REQUIRE_GPU": "1"}, 2, "skip", "needs 2 CUDA devices, found 1"),
    (1, {"CUDA_BINDINGS_REQUIRE_GPU": "0"}, 2, "skip", "needs 2 CUDA devices, found 1"),
    # CUDA_BINDINGS_REQUIRE_GPUS=N promises N
    (1, {"CUDA_BINDINGS_REQUIRE_GPUS": "1"}, 2, "skip", "needs 2 CUDA devices, found 1"),
    (0, {"CUDA_BINDINGS_REQUIRE_GPUS": "1"}, 1, "fail", "CUDA_BINDINGS_REQUIRE_GPUS=1 but no usable GPU: "
                                                        "driver.cuInit raised RuntimeError: no libcuda.so.1"),
    (1, {"CUDA_BINDINGS_REQUIRE_GPUS": "2"}, 2, "fail", "CUDA_BINDINGS_REQUIRE_GPUS=2 but needs 2 CUDA devices, found 1"),
    (1, {"CUDA_BINDINGS_REQUIRE_GPUS": "2"}, 1, "run", ""),
    (2, {"CUDA_BINDINGS_REQUIRE_GPUS": "2"}, 2, "run", ""),
    (0, {"CUDA_BINDINGS_REQUIRE_GPUS": "0"}, 1, "skip", "no usable GPU: driver.cuInit raised RuntimeError: "
                                                        "no libcuda.so.1"),
])
def test_gpu_requirement(machine, count, env, needed, action, reason):
    assert machine(count, **env)(needed) == (action, reason)


def test_a_failed_probe_fails_whatever_is_needed(machine, monkeypatch):
    rule = machine(0)
    monkeypatch.setattr(conftest, "_gpu_state", ("error", "the GPU probe exited with -11"))
    assert rule(1) == ("fail", "GPU probe failed: the GPU probe exited with -11")
    assert rule(2) == ("fail", "GPU probe failed: the GPU probe exited with -11")


def test_a_malformed_count_is_a_usage_error(machine):
    machine(1, CUDA_BINDINGS_REQUIRE_GPUS="two")
    with pytest.raises(pytest.UsageError, match="CUDA_BINDINGS_REQUIRE_GPUS must be a device count"):
        conftest.required_gpus()


def test_examples_needing_two_gpus_say_so():
    """The examples that exit 3 on one GPU declare GPUS_NEEDED = 2, which tests/test_examples.py and
    scripts/gpu_check.sh read."""
    from test_examples import EXAMPLES_DIR, gpus_needed
    needing = {p.relative_to(EXAMPLES_DIR).as_posix() for p in EXAMPLES_DIR.rglob("*.py") if gpus_needed(p) > 1}
    assert {"0_Introduction/simple_p2p.py", "2_Concepts_and_Techniques/halo_exchange_multi_gpu.py"} <= needing
    assert all(gpus_needed(EXAMPLES_DIR / n) == 2 for n in needing)
    assert gpus_needed(EXAMPLES_DIR / "0_Introduction" / "simple_ipc.py") == 1
