"""NVML on the real driver, each value checked against the driver API's answer (cuDeviceGetCount,
cuDeviceGetName, cuDeviceGetUuid, cuDeviceGetPCIBusId, cuDeviceTotalMem, cuMemGetInfo) or, where
only NVML and nvidia-smi say it, against `nvidia-smi --query-gpu=... --format=csv`."""
import os
import shutil
import subprocess
import uuid as uuidlib

import pytest

from _support import LazyModule, driver, ok

nvml = LazyModule("cuda.bindings.nvml")
pytestmark = pytest.mark.gpu

SMI_FIELDS = ["pci.bus_id", "name", "uuid", "memory.total", "clocks.max.sm", "temperature.gpu",
              "power.draw", "mig.mode.current"]


@pytest.fixture(scope="module")
def session():
    nvml.init_v2()
    yield
    nvml.shutdown()


def smi():
    """nvidia-smi's answers by PCI bus id (upper case), or None without nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return None
    out = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(SMI_FIELDS)}", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        return None
    rows = {}
    for line in out.stdout.strip().splitlines():
        vals = [v.strip() for v in line.split(",")]
        rows[vals[0].upper()] = dict(zip(SMI_FIELDS, vals))
    return rows


def cuda_devices():
    ok(driver.cuInit(0))
    n = ok(driver.cuDeviceGetCount())
    return [ok(driver.cuDeviceGet(i)) for i in range(n)]


def bus_id(dev):
    raw = ok(driver.cuDeviceGetPCIBusId(64, dev))
    return raw.split(b"\0", 1)[0].decode().upper()


def same_bus(a, b):
    """PCI bus ids of the driver (0000:65:00.0) and NVML (00000000:65:00.0) compare equal."""
    def norm(s):
        dom, rest = s.upper().split(":", 1)
        return int(dom, 16), rest
    return norm(a) == norm(b)


def test_device_count_names_uuids_and_bus_ids(session):
    devices = cuda_devices()
    count = nvml.device_get_count_v2()
    if "CUDA_VISIBLE_DEVICES" not in os.environ:
        assert count == len(devices)
    assert count >= len(devices)
    for dev in devices:
        h = nvml.device_get_handle_by_pci_bus_id_v2(bus_id(dev))
        assert isinstance(h, int) and h
        pci = nvml.device_get_pci_info_v3(h)
        assert same_bus(pci.bus_id, bus_id(dev))
        name = ok(driver.cuDeviceGetName(256, dev)).split(b"\0", 1)[0].decode()
        assert nvml.device_get_name(h) == name
        cu_uuid = ok(driver.cuDeviceGetUuid(dev))
        assert nvml.device_get_uuid(h) == "GPU-" + str(uuidlib.UUID(bytes=bytes(cu_uuid.bytes)))
        assert nvml.device_get_handle_by_uuid(nvml.device_get_uuid(h)) == h
        idx = nvml.device_get_index(h)
        assert nvml.device_get_handle_by_index_v2(idx) == h
        major, minor = nvml.device_get_cuda_compute_capability(h)
        assert (major, minor) == (
            ok(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)),
            ok(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)))


def test_memory_against_the_driver(session):
    for dev in cuda_devices():
        h = nvml.device_get_handle_by_pci_bus_id_v2(bus_id(dev))
        total = ok(driver.cuDeviceTotalMem(dev))
        v1 = nvml.device_get_memory_info(h)
        v2 = nvml.device_get_memory_info_v2(h)
        assert v2.version == (2 << 24) | nvml.memory_v2_dtype.itemsize
        assert v1.total == v2.total
        # used counts the reserved memory (nvml.h), or it is apart (what nvidia-smi -q shows)
        assert v2.free + v2.used in (v2.total, v2.total - v2.reserved)
        # the driver's total is what NVML calls total, less what it keeps for itself
        assert v1.total - v2.reserved <= total <= v1.total
        ctx = ok(driver.cuDevicePrimaryCtxRetain(dev))
        try:
            ok(driver.cuCtxSetCurrent(ctx))
            free, cu_total = ok(driver.cuMemGetInfo())
            assert cu_total == total and free <= v1.total
            bar1 = nvml.device_get_bar1_memory_info(h)
            assert bar1.bar1_total >= bar1.bar1_used
        finally:
            ok(driver.cuDevicePrimaryCtxRelease(dev))


def test_clocks_power_temperature_utilization(session):
    rows = smi()
    for dev in cuda_devices():
        h = nvml.device_get_handle_by_pci_bus_id_v2(bus_id(dev))
        sm = nvml.device_get_clock_info(h, nvml.ClockType.CLOCK_SM)
        sm_max = nvml.device_get_max_clock_info(h, nvml.ClockType.CLOCK_SM)
        assert 0 < sm <= sm_max
        temp = nvml.device_get_temperature_v(h, nvml.TemperatureSensors.TEMPERATURE_GPU)
        assert 0 < temp < 120
        power = nvml.device_get_power_usage(h)             # milliwatts
        limit = nvml.device_get_enforced_power_limit(h)
        assert 0 < power <= 2 * limit
        util = nvml.device_get_utilization_rates(h)
        assert 0 <= util.gpu <= 100 and 0 <= util.memory <= 100
        if rows:
            row = next(r for b, r in rows.items() if same_bus(b, bus_id(dev)))
            assert int(row["clocks.max.sm"]) == sm_max
            assert abs(int(row["temperature.gpu"]) - temp) <= 5
            assert int(row["memory.total"]) == nvml.device_get_memory_info(h).total >> 20
            assert row["name"] == nvml.device_get_name(h) and row["uuid"] == nvml.device_get_uuid(h)
            if row["power.draw"].replace(".", "", 1).isdigit():
                assert abs(float(row["power.draw"]) * 1000 - power) <= max(0.3 * power, 30000)


def test_processes_and_mig_mode(session):
    rows = smi()
    dev = cuda_devices()[0]
    h = nvml.device_get_handle_by_pci_bus_id_v2(bus_id(dev))
    ctx = ok(driver.cuDevicePrimaryCtxRetain(dev))
    try:
        ok(driver.cuCtxSetCurrent(ctx))
        ptr = ok(driver.cuMemAlloc(64 << 20))
        procs = nvml.device_get_compute_running_processes_v3(h)
        assert isinstance(procs, nvml.ProcessInfo)
        pids = [int(procs[i].pid) for i in range(len(procs))]   # (one record: .pid is a scalar, as NVIDIA's)
        # NVML reports host pids: inside a container this process may be listed under another one
        if os.getpid() in pids:
            mine = procs[pids.index(os.getpid())]
            assert mine.used_gpu_memory >= 64 << 20
        assert all(p > 0 for p in pids)
        ok(driver.cuMemFree(ptr))
    finally:
        ok(driver.cuDevicePrimaryCtxRelease(dev))
    try:
        current, pending = nvml.device_get_mig_mode(h)
    except nvml.NotSupportedError:
        return
    assert current in (0, 1) and pending in (0, 1)
    if rows:
        row = next(r for b, r in rows.items() if same_bus(b, bus_id(dev)))
        assert row["mig.mode.current"] in ({0: "Disabled", 1: "Enabled"}[current], "[N/A]")


def test_nvlink_state(session):
    h = nvml.device_get_handle_by_index_v2(0)
    states = []
    for link in range(nvml.NVLINK_MAX_LINKS):
        try:
            states.append(nvml.device_get_nvlink_state(h, link))
        except (nvml.NotSupportedError, nvml.InvalidArgumentError):
            break
    assert all(s in (0, 1) for s in states)


def test_errors_on_the_real_library(session):
    with pytest.raises(nvml.InvalidArgumentError) as e:
        nvml.device_get_name(0)                  # NULL: the library's own refusal
    assert e.value.status == nvml.Return.ERROR_INVALID_ARGUMENT and str(e.value)
    with pytest.raises(ValueError, match="device"):
        nvml.device_get_name(16)                 # no device handle lies in the first page
    with pytest.raises(nvml.NotFoundError):
        nvml.device_get_handle_by_uuid("GPU-00000000-0000-0000-0000-000000000000")
    with pytest.raises(nvml.InvalidArgumentError):
        nvml.device_get_handle_by_index_v2(1 << 20)
    assert nvml.error_string(nvml.Return.ERROR_NOT_SUPPORTED) == str(nvml.NotSupportedError(3))
    assert nvml.system_get_cuda_driver_version_v2() == ok(driver.cuDriverGetVersion())
    assert nvml.system_get_driver_version().split(".")[0].isdigit()
