"""cuda.bindings.nvml on a stand-in libnvidia-ml (tests/stand_in.py): the exception classes, the
enums (those of the header's enums and those of its #define groups), the struct classes and
dtypes, and what each kind of function passes and returns: counts, strings, versioned structs,
arrays sized by asking the library first, structs filled from the function's own arguments.
The same calls on the real driver are in test_gpu_nvml.py."""
import pickle
import struct

import numpy as np
import pytest

import stand_in
from _support import LazyModule

nvml = LazyModule("cuda.bindings.nvml")
DEVICE = 0x10000                      # a handle as the stand-in returns it (not in the first page)
INSUFFICIENT_SIZE = 7


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    s = stand_in.StandIn(stand_in.build("nvml", tmp_path_factory.mktemp("nvml")), "nvml")
    yield s
    s.reset()


@pytest.fixture
def stub(lib):
    lib.reset()
    return lib


def test_one_exception_class_per_status(stub):
    assert issubclass(nvml.NotSupportedError, nvml.NvmlError)
    assert nvml.MemoryError is nvml.NvmlMemoryError and nvml.TimeoutError is nvml.NvmlTimeoutError
    assert nvml.MemoryError is not MemoryError
    for member in nvml.Return:
        if member.value == 0:
            continue
        with pytest.raises(nvml.NvmlError) as e:
            nvml.check_status(member.value)
        assert e.value.status == member.value
        assert type(e.value).__name__ in (
            "".join(w.capitalize() for w in member.name[len("ERROR_"):].split("_")) + "Error",
            "NvmlMemoryError", "NvmlTimeoutError")
    assert str(nvml.NotSupportedError(3)) == "stand-in: status 3"      # nvmlErrorString's text
    assert nvml.check_status(0) == 0
    assert nvml.check_status_size(INSUFFICIENT_SIZE) == 0
    with pytest.raises(nvml.NoPermissionError):
        nvml.check_status_size(4)
    with pytest.raises(nvml.NvmlError) as e:
        nvml.check_status(12345)
    assert type(e.value) is nvml.NvmlError
    again = pickle.loads(pickle.dumps(nvml.GpuIsLostError(15)))
    assert type(again) is nvml.GpuIsLostError and again.status == 15


def test_enums_of_the_header_and_of_its_define_groups():
    assert nvml.Return.ERROR_INSUFFICIENT_SIZE == INSUFFICIENT_SIZE
    assert nvml.BrandType.BRAND_TESLA == 2
    assert nvml.TemperatureSensors.TEMPERATURE_GPU == 0
    assert nvml.FieldId.DEV_ECC_CURRENT == 1
    assert nvml.ClocksEventReasons.EVENT_REASON_GPU_IDLE == 1
    assert nvml.EventType.PSTATE == 4
    assert nvml.EventType.MIG_CONFIG_CHANGE == 0x100      # nvmlEventMigConfigChange, without "Type"
    assert nvml.EncoderQuery.HEVC == nvml.EncoderType.HEVC == 1
    assert nvml.VgpuPgpu.HOMOGENEOUS_MODE == 1
    assert nvml.FanControlPolicy.TEMPERATURE_CONTINUOUS_SW == 0
    from cuda.bindings import __cuda_version__
    # the pinned header's value: 13.0's nvml.h has 18 links, NVML 13.4's (12.9's pin) and 13.5's 36
    assert nvml.NVLINK_MAX_LINKS == (18 if __cuda_version__ == "13.0" else 36)


def test_members_answer_to_the_names_clients_use():
    # the C name without NVML_ (cuda.core's system module reads ClockType.CLOCK_GRAPHICS): the
    # same member, not another one; iteration gives each member once, by its short name
    assert nvml.ClockType.CLOCK_GRAPHICS is nvml.ClockType.GRAPHICS
    assert nvml.ClockType.__members__["CLOCK_MEM"] is nvml.ClockType.MEM
    assert [m.name for m in nvml.ClockType] == ["GRAPHICS", "SM", "MEM", "VIDEO", "COUNT"]
    assert nvml.CoolerTarget.THERMAL_GPU is nvml.CoolerTarget.GPU
    assert nvml.NvlinkVersion.VERSION_2_0 == 2
    assert not hasattr(nvml.ValueType, "VALUE_TYPE_DOUBLE")        # not every enum has them


def test_count_name_and_uuid(stub):
    stub.write("nvmlDeviceGetCount_v2", 0, struct.pack("<I", 2))
    assert nvml.device_get_count_v2() == 2
    stub.write("nvmlDeviceGetHandleByIndex_v2", 1, struct.pack("<Q", DEVICE))
    h = nvml.device_get_handle_by_index_v2(1)
    assert h == DEVICE and stub.args()[0] == 1
    stub.write("nvmlDeviceGetName", 1, b"Stand-in GPU\0garbage")
    assert nvml.device_get_name(h) == "Stand-in GPU"
    assert stub.args()[0] == DEVICE and stub.args()[2] >= 96        # NVML_DEVICE_NAME_V2_BUFFER_SIZE
    stub.write("nvmlDeviceGetUUID", 1, b"GPU-0123\0")
    assert nvml.device_get_uuid(h) == "GPU-0123"
    stub.write("nvmlDeviceGetCudaComputeCapability", 1, struct.pack("<i", 9))
    stub.write("nvmlDeviceGetCudaComputeCapability", 2, struct.pack("<i", 0))
    assert nvml.device_get_cuda_compute_capability(h) == (9, 0)


def test_versioned_struct_outputs(stub):
    raw = np.zeros(1, dtype=nvml.memory_v2_dtype)
    raw["total"], raw["free"], raw["used"] = 80 << 30, 60 << 30, 20 << 30
    stub.write("nvmlDeviceGetMemoryInfo_v2", 1, raw.tobytes()[4:], offset=4)
    # written after the version, which the wrapper sets before the call: the stand-in leaves it
    mem = nvml.device_get_memory_info_v2(DEVICE)
    assert isinstance(mem, nvml.Memory_v2)
    assert mem.version == (2 << 24) | nvml.memory_v2_dtype.itemsize      # nvmlMemory_v2
    assert (mem.total, mem.free, mem.used) == (80 << 30, 60 << 30, 20 << 30)
    assert nvml.memory_v2_dtype.names == ("version", "total", "reserved", "free", "used")
    util = nvml.device_get_utilization_rates(DEVICE)
    assert (util.gpu, util.memory) == (0, 0) and isinstance(util, nvml.Utilization)
    pci = nvml.PciInfo()
    pci.bus_id = "00000000:65:00.0"
    assert pci.bus_id == "00000000:65:00.0"
    with pytest.raises(ValueError):
        pci.bus_id = "x" * 40


def test_arrays_sized_by_asking_first(stub):
    info = np.zeros(2, dtype=nvml.process_info_dtype)
    info["pid"] = [101, 202]
    info["used_gpu_memory"] = [1 << 20, 2 << 20]
    name = "nvmlDeviceGetComputeRunningProcesses_v3"
    stub.write(name, 1, struct.pack("<I", 2))
    stub.write(name, 2, info.tobytes())
    stub.if_null(name, 2, INSUFFICIENT_SIZE)
    procs = nvml.device_get_compute_running_processes_v3(DEVICE)
    assert isinstance(procs, nvml.ProcessInfo) and len(procs) == 2
    assert list(procs.pid) == [101, 202] and procs[1].used_gpu_memory == 2 << 20
    assert stub.calls(name) == 2
    # none running: the first call says so
    stub.reset()
    stub.write(name, 1, struct.pack("<I", 0))
    assert len(nvml.device_get_compute_running_processes_v3(DEVICE)) == 0
    stub.reset()
    stub.status(name, 3)
    with pytest.raises(nvml.NotSupportedError):
        nvml.device_get_compute_running_processes_v3(DEVICE)


def test_mig_instance_lists_are_sized_by_the_possible_placements(stub):
    # nvmlDeviceGetGpuInstances takes no NULL array to report a count: the wrapper makes room for
    # as many instances as the profile has possible placements, and returns the handles written
    bound, name = "nvmlDeviceGetGpuInstancePossiblePlacements_v2", "nvmlDeviceGetGpuInstances"
    stub.write(bound, 3, struct.pack("<I", 3))
    stub.write(name, 2, struct.pack("<3Q", 0x5000, 0x6000, 0x7000))
    stub.write(name, 3, struct.pack("<I", 2))
    got = nvml.device_get_gpu_instances(DEVICE, 5)
    assert type(got).__name__ == "_memoryviewslice"          # a Cython memoryview, as NVIDIA's
    assert list(got) == [0x5000, 0x6000]
    assert stub.args()[:2] == [DEVICE, 5]
    assert stub.calls(bound) == 1 and stub.calls(name) == 1
    # a count above the room made is never read past it
    stub.write(name, 3, struct.pack("<I", 9))
    assert list(nvml.device_get_gpu_instances(DEVICE, 5)) == [0x5000, 0x6000, 0x7000]
    # the bound's failure is the call's
    stub.reset()
    stub.status(bound, 3)
    with pytest.raises(nvml.NotSupportedError):
        nvml.device_get_gpu_instances(DEVICE, 5)
    assert stub.calls(name) == 0
    # no possible placement: none, without asking for the instances (as NVIDIA's)
    stub.reset()
    assert len(nvml.device_get_gpu_instances(DEVICE, 5)) == 0 and stub.calls(name) == 0
    stub.reset()
    bound, name = "nvmlGpuInstanceGetComputeInstancePossiblePlacements", "nvmlGpuInstanceGetComputeInstances"
    stub.write(bound, 3, struct.pack("<I", 1))
    stub.write(name, 2, struct.pack("<Q", 0x8000))
    stub.write(name, 3, struct.pack("<I", 1))
    assert list(nvml.gpu_instance_get_compute_instances(0x5000, 0)) == [0x8000]
    stub.write(name, 3, struct.pack("<I", 0))
    assert list(nvml.gpu_instance_get_compute_instances(0x5000, 0)) == []


def test_struct_filled_from_the_arguments(stub):
    raw = np.zeros(1, dtype=nvml.temperature_v1_dtype)
    raw["temperature"] = 42
    stub.write("nvmlDeviceGetTemperatureV", 1, raw.tobytes()[8:], offset=8)   # leaves version and sensor
    assert nvml.device_get_temperature_v(DEVICE, nvml.TemperatureSensors.TEMPERATURE_GPU) == 42
    with pytest.raises(TypeError, match="sensorType"):
        nvml.device_get_temperature_v(DEVICE, "gpu")
    with pytest.raises(OverflowError, match="sensorType"):
        nvml.device_get_temperature_v(DEVICE, 1 << 40)
    stub.reset()
    nvml.device_get_temperature_v(DEVICE, 1)
    assert stub.calls("nvmlDeviceGetTemperatureV") == 1


def test_field_values(stub):
    values = nvml.device_get_field_values(DEVICE, [nvml.FieldId.DEV_ECC_CURRENT, nvml.FieldId.DEV_ECC_PENDING])
    assert isinstance(values, nvml.FieldValue) and len(values) == 2
    assert list(values.field_id) == [1, 2]
    assert stub.args()[:3] == [DEVICE, 2, values.ptr]
    fv = nvml.FieldValue(3)
    assert nvml.device_get_field_values(DEVICE, fv) is fv and stub.args()[1] == 3
    assert nvml.device_clear_field_values(DEVICE, fv) is None       # the call only reads them


def test_no_field_values_come_back_without_a_call(stub):
    # as NVIDIA's package: the empty struct object (made of the empty list) at once
    for call in (nvml.device_get_field_values, nvml.device_clear_field_values):
        for values in ([], nvml.FieldValue(0)):
            stub.reset()
            got = call(DEVICE, values)
            assert isinstance(got, nvml.FieldValue) and len(got) == 0
            assert stub.last() is None


def test_byte_data_is_bytes(stub):
    # a PRM register's TLV data: bytes in, (the PRM status, the output bytes) back, as many as
    # the struct's dataSize says; the input and output share the struct's memory (a union)
    if not hasattr(nvml, "device_read_write_prm_v1"):
        pytest.skip("this release's nvml.h has no nvmlDeviceReadWritePRM_v1")
    assert nvml.device_read_write_prm_v1(DEVICE, b"\x01\x02\x03") == (0, b"\x01\x02\x03")
    stub.write("nvmlDeviceReadWritePRM_v1", 1, struct.pack("<II", 2, 7) + b"\x09\x08")
    assert nvml.device_read_write_prm_v1(DEVICE, bytearray(b"\x01")) == (7, b"\x09\x08")
    with pytest.raises(ValueError, match="in_data"):
        nvml.device_read_write_prm_v1(DEVICE, bytes(497))        # more than the field holds
    with pytest.raises(TypeError, match="in_data"):
        nvml.device_read_write_prm_v1(DEVICE, "text")


def test_attestation_nonce_is_bytes(stub):
    report = nvml.device_get_conf_compute_gpu_attestation_report(DEVICE, b"n" * 32)
    assert bytes(report.nonce) == b"n" * 32
    report = nvml.device_get_conf_compute_gpu_attestation_report(DEVICE, b"ab")
    assert bytes(report.nonce) == b"ab" + bytes(30)
    assert bytes(nvml.device_get_conf_compute_gpu_attestation_report(DEVICE, [1, 2]).nonce[:2]) == b"\x01\x02"


def test_hostname_is_text(stub):
    if not hasattr(nvml, "device_set_hostname_v1"):
        pytest.skip("this release's nvml.h has no nvmlDeviceSetHostname_v1")
    assert nvml.device_set_hostname_v1(DEVICE, "node-7") is None
    assert stub.last() == "nvmlDeviceSetHostname_v1"


def test_strings_and_unwrapped_fields(stub):
    stub.write("nvmlSystemGetDriverVersion", 0, b"580.159.04\0")
    assert nvml.system_get_driver_version() == "580.159.04"
    stub.write("nvmlSystemGetCudaDriverVersion_v2", 0, struct.pack("<i", 13000))
    assert nvml.system_get_cuda_driver_version_v2() == 13000


def test_handles_and_argument_errors(stub):
    with pytest.raises(TypeError, match="device"):
        nvml.device_get_name(None)
    # NVML crashes on a device handle in the first page (scripts/handle_probe.py on the real
    # library): refused before the call ...
    with pytest.raises(ValueError, match="device"):
        nvml.device_get_name(1)
    assert stub.last() is None
    # ... but not where it answers without reading the handle, nor for the handles it checks
    # (units, GPU and compute instances: NVML_ERROR_INVALID_ARGUMENT), which go to the library
    nvml.device_clear_cpu_affinity(1)
    assert stub.last() == "nvmlDeviceClearCpuAffinity"
    stub.status("nvmlUnitGetUnitInfo", 2)
    with pytest.raises(nvml.InvalidArgumentError):
        nvml.unit_get_unit_info(1)
    assert stub.calls("nvmlUnitGetUnitInfo") == 1
    with pytest.raises((TypeError, OverflowError), match="index"):
        nvml.device_get_handle_by_index_v2(-1)
    with pytest.raises(TypeError, match="pci_bus_id"):
        nvml.device_get_handle_by_pci_bus_id_v2(None)


def test_int_arguments_take_a_short_way_with_the_same_result(stub):
    # every argument an int in its C type's range: converted without the try block that names a
    # failed argument; anything else (a bool, an enum member, an int out of range, a handle the
    # checks refuse) takes that block, and the library gets the same values either way
    for index in (0, 7, 2**32 - 1, True, np.uint32(7), 7.0):
        nvml.device_get_handle_by_index_v2(index)
        assert stub.args()[0] == int(index)
    for bad, exc in ((2**32, OverflowError), (-1, OverflowError), (2**70, OverflowError), ("1", TypeError),
                     (None, TypeError)):
        stub.reset()
        with pytest.raises(exc, match="device_get_handle_by_index_v2\\(\\) argument 'index'"):
            nvml.device_get_handle_by_index_v2(bad)
        assert stub.last() is None
    gpu = nvml.ClockType.CLOCK_SM
    for device, clock in ((DEVICE, int(gpu)), (DEVICE, gpu), (0, int(gpu)), (2**63, 2**62), (2**64 - 1, -2**63)):
        stub.reset()
        nvml.device_get_clock_info(device, clock)
        device_arg, clock_arg = stub.args()[:2]         # (a C enum is 32 bits: the rest is not its)
        assert (device_arg, clock_arg % 2**32) == (device, int(clock) % 2**32), (device, clock)
    for device, clock, exc, what in ((DEVICE, 2**63, OverflowError, "type"), (DEVICE, "sm", TypeError, "type"),
                                     (-1, 0, OverflowError, "device"), (2**64, 0, OverflowError, "device"),
                                     (1, 0, ValueError, "device"), (None, 0, TypeError, "device")):
        stub.reset()
        with pytest.raises(exc, match=what):
            nvml.device_get_clock_info(device, clock)
        assert stub.last() is None, (device, clock)


def test_struct_class_mechanics():
    a = nvml.ProcessInfo(4)
    a.pid = [1, 2, 3, 4]
    assert a[2].pid == 3
    data = np.frombuffer(bytes(memoryview(a)), dtype=nvml.process_info_dtype).copy()
    assert list(data["pid"]) == [1, 2, 3, 4] and a == nvml.ProcessInfo.from_data(data)
    b = pickle.loads(pickle.dumps(a))
    assert b == a and b.ptr != a.ptr
    with pytest.raises(TypeError):
        hash(a)
    bh = nvml.BridgeChipHierarchy()
    assert "bridge_count" not in dir(bh) and len(bh.bridge_chip_info) == 0
    chips = nvml.BridgeChipInfo(2)
    chips.fw_version = [7, 8]
    bh.bridge_chip_info = chips                      # sets the hidden count too
    assert len(bh.bridge_chip_info) == 2 and bh.bridge_chip_info[1].fw_version == 8


def test_pointer_fields_of_numbers_and_misspelt_fields():
    info = nvml.ActiveVgpuInstanceInfo_v1()
    assert list(info.vgpu_instances) == [] and "vgpu_count" not in dir(info)
    info.vgpu_instances = [5, 6, 7]                  # kept alive with the struct; the hidden count follows
    assert list(info.vgpu_instances) == [5, 6, 7]
    assert memoryview(info).cast("B")[4:8].cast("I")[0] == 3     # vgpuCount, after version
    info.vgpu_instances = None
    assert list(info.vgpu_instances) == []
    with pytest.raises(ValueError, match="vgpu_instances"):
        info.vgpu_instances = [[1, 2], [3, 4]]
    with pytest.raises(AttributeError):
        info.vgpu_instance = [1]                     # no such field: not silently a new attribute
    bar1 = nvml.BAR1Memory()
    bar1.bar1_total = 1 << 40
    assert bar1.bar1_total == 1 << 40 and nvml.ba_r1memory_dtype.names == ("bar1_total", "bar1_free", "bar1_used")


def test_arrays_counted_by_a_sibling_field():
    # fixed arrays: as many items as the (hidden) count says, up to the array's length
    st = nvml.ClkMonStatus()
    assert "clk_mon_list_size" not in dir(st) and len(st.clk_mon_list) == 0
    faults = nvml.ClkMonFaultInfo(3)
    faults.clk_api_domain = [1, 2, 3]
    st.clk_mon_list = faults
    assert len(st.clk_mon_list) == 3 and list(st.clk_mon_list.clk_api_domain) == [1, 2, 3]
    assert memoryview(st).cast("B")[4:8].cast("I")[0] == 3          # clkMonListSize, after bGlobalStatus
    # unsigned char arrays are bytes of data: numpy uint8 arrays (a nonce, a certificate); with no
    # byte in use, an empty float64 array, as NVIDIA's class reads it
    report = nvml.ConfComputeGpuAttestationReport()
    assert report.nonce.dtype == np.uint8 and report.nonce.shape == (32,)
    assert len(report.attestation_report) == 0 and report.attestation_report.dtype == np.float64
    report.attestation_report = [7, 8, 9]
    assert list(report.attestation_report) == [7, 8, 9]
    assert "attestation_report_size" not in dir(report)
    # an NVML uuid field is the ASCII "GPU-..." text
    ex = nvml.ExcludedDeviceInfo()
    ex.uuid = "GPU-1234"
    assert ex.uuid == "GPU-1234"


def test_lists_behind_pointers():
    # a pointer to structs the library fills reads as that many items; NULL as no items
    lst = nvml.ProcessDetailList_v1()
    assert lst.proc_array == [] and "num_proc_array_entries" not in dir(lst)
    items = nvml.ProcessDetail_v1(2)
    items.pid = [11, 22]
    lst.proc_array = items                           # kept alive with the struct; its count follows
    assert isinstance(lst.proc_array, nvml.ProcessDetail_v1) and list(lst.proc_array.pid) == [11, 22]
    assert memoryview(lst).cast("B")[8:12].cast("I")[0] == 2         # numProcArrayEntries
    lst.proc_array = None
    assert lst.proc_array == []
    with pytest.raises(TypeError, match="proc_array"):
        lst.proc_array = nvml.Memory()


def test_a_count_the_class_shows():
    if not hasattr(nvml, "GpuFabricInfo_v4"):
        pytest.skip("this build's nvml.h has no nvmlGpuFabricInfo_v4_t")
    fabric = nvml.GpuFabricInfo_v4()
    fabric.num_cliques = 2                           # a property, as in NVIDIA's class
    assert fabric.num_cliques == 2
    cliques = fabric.cliques
    assert isinstance(cliques, nvml.GpuFabricClique_v1)
    assert cliques.ptr == fabric.ptr + nvml.gpu_fabric_info_v4_dtype.fields["cliques"][1]
    # where the module names NVIDIA's numpy-backed classes (GpuFabricClique_v1 is none of them),
    # the array reads as its first clique, as NVIDIA's does (tests/test_records.py); else whole
    known = nvml.GpuFabricInfo_v4.__dict__.get("_c_numpy_records") is not None
    assert len(cliques) == (1 if known else 2)
