"""cuda.bindings.cudla (CUDA 13.5 builds): without the library (x86_64 machines have none) every call
raises an error that says why; on a stand-in libcudla.so.1 (tests/stand_in.py) the calls pass
what they should and the struct classes, enums and CudlaError are NVIDIA's."""
import struct

import pytest

import stand_in
from _support import run_python
from cuda.bindings._version import CUDA_VERSION

pytestmark = pytest.mark.skipif(CUDA_VERSION < 13050, reason="cuDLA's bindings come with the CUDA 13.5 build")


def test_missing_library_says_why():
    # a child process: the library must not have been looked for, nor a stand-in loaded, before
    r = run_python(
        "from cuda.bindings import cudla\n"
        "assert cudla.Status.SUCCESS == 0 and cudla.DevAttribute().ptr\n"
        "try:\n"
        "    cudla.get_version()\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, '|', e)\n"
        "else:\n"
        "    print('LOADED')\n",
        env={"LD_LIBRARY_PATH": ""})
    assert r.returncode == 0, r.stderr
    if "LOADED" in r.stdout:
        pytest.skip("this machine has a libcudla.so.1")
    kind, _, msg = r.stdout.partition(" | ")
    assert kind in ("NotSupportedError", "RuntimeError"), r.stdout
    assert "libcudla.so.1" in msg and ("DLA" in msg or "JetPack" in msg), msg


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    s = stand_in.StandIn(stand_in.build("cudla", tmp_path_factory.mktemp("cudla")), "cudla")
    yield s
    s.reset()


@pytest.fixture
def stub(lib):
    lib.reset()
    return lib


def test_calls_on_a_stand_in(stub):
    from cuda.bindings import cudla
    stub.write("cudlaGetVersion", 0, struct.pack("<Q", 1005000))
    assert cudla.get_version() == 1005000
    stub.write("cudlaDeviceGetCount", 0, struct.pack("<Q", 2))
    assert cudla.device_get_count() == 2
    stub.write("cudlaCreateDevice", 1, struct.pack("<Q", 0x9000))
    dev = cudla.create_device(1, cudla.Mode.CUDA_DLA)
    assert dev == 0x9000 and stub.args()[0] == 1 and stub.args()[2] == 0
    stub.write("cudlaMemRegister", 3, struct.pack("<Q", 0xD000))
    assert cudla.mem_register(dev, 0x4000, 256, 0) == 0xD000
    assert stub.args()[1:3] == [0x4000, 256]
    attr = cudla.device_get_attribute(dev, cudla.DevAttributeType.DEVICE_VERSION)
    assert isinstance(attr, cudla.DevAttribute) and stub.args()[2] == attr.ptr
    stub.status("cudlaGetLastError", 7)
    assert cudla.get_last_error(dev) == 7                 # the status is the answer: not raised
    stub.status("cudlaSetTaskTimeoutInMs", 1)
    with pytest.raises(cudla.CudlaError) as e:
        cudla.set_task_timeout_in_ms(dev, 10)
    assert e.value.status == 1 and str(e.value) == "ERROR_INVALID_PARAM (1)"
    assert cudla.check_status(0) is None
    with pytest.raises(cudla.CudlaError):
        cudla.check_status(7)
    cudla.destroy_device(dev)
    # no DLA hardware here to see what cuDLA does with a destroyed device: passed on, as NVIDIA's
    # package passes it (codegen/overrides.py HANDLE_CHECKS)
    cudla.get_last_error(dev)
    assert stub.last() == "cudlaGetLastError"
    with pytest.raises(ValueError, match="module_size|p_module"):
        cudla.module_load_from_memory(0x9100, b"abc", 16, 0)


def test_an_attribute_of_no_member_is_refused_as_nvidias_refuses_it(stub):
    # module_get_attributes reads its union by the attribute: one of none raises NVIDIA's
    # ValueError, before the call, without a note; ours names the argument in its `detail`
    from cuda.bindings import cudla
    stub.reset()
    with pytest.raises(ValueError) as e:
        cudla.module_get_attributes(0x9100, -1)
    assert str(e.value) == "Unknown attribute type: -1"
    assert "module_get_attributes() argument 'attr_type'" in e.value.detail
    assert not hasattr(e.value, "__notes__")
    assert stub.last() is None


def test_enum_members_also_answer_to_their_c_names():
    from cuda.bindings import cudla
    assert cudla.Status.ErrorInvalidParam is cudla.Status.ERROR_INVALID_PARAM
    assert cudla.ScratchMemoryConfig.MAX is cudla.ScratchMemoryConfig.CONFIG_MAX
    assert [m.name for m in cudla.FenceType] == ["FENCE", "FENCE_SOF"]


def test_fences_and_tensor_addresses_read_as_their_count_says():
    from cuda.bindings import cudla
    wait = cudla.WaitEvents()
    assert wait.pre_fences == [] and "num_events" not in dir(wait)
    fences = cudla.Fence(2)
    fences.type = [cudla.FenceType.FENCE, cudla.FenceType.FENCE_SOF]
    wait.pre_fences = fences
    assert len(wait.pre_fences) == 2
    assert list(wait.pre_fences.type) == [cudla.FenceType.FENCE, cudla.FenceType.FENCE_SOF]
    assert memoryview(wait).cast("B")[8:12].cast("I")[0] == 2      # numEvents, after the pointer
    task = cudla.Task()
    assert len(task.input_tensor) == 0 and "num_input_tensors" not in dir(task)
    task.input_tensor = [0x1000, 0x2000, 0x3000]
    assert list(task.input_tensor) == [0x1000, 0x2000, 0x3000]
    signal = cudla.SignalEvents()
    signal.dev_ptrs = [0x4000]
    assert list(signal.dev_ptrs) == [0x4000] and signal.eof_fences == []      # its pointer is still NULL
    assert memoryview(signal).cast("B")[16:20].cast("I")[0] == 1     # numEvents, which counts both
