"""cuda.bindings.cufile on a stand-in libcufile (tests/stand_in.py): the struct classes and their
dtypes, the enums, cuFileError, what each kind of function passes and returns, and the argument
errors.  No GPU and no GPUDirect Storage needed; the GPU tests are in test_gpu_cufile.py."""
import struct

import numpy as np
import pytest

import stand_in
from cuda.bindings._version import __cuda_version__
from _support import LazyModule

cufile = LazyModule("cuda.bindings.cufile")


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    s = stand_in.StandIn(stand_in.build("cufile", tmp_path_factory.mktemp("cufile")), "cufile")
    yield s
    s.reset()


@pytest.fixture
def stub(lib):
    lib.reset()
    return lib


def test_enums_are_the_headers_with_short_names():
    assert cufile.OpError.SUCCESS == 0
    assert cufile.OpError.INVALID_VALUE == 5022 and cufile.OpError(5027).name == "HANDLE_NOT_REGISTERED"
    assert cufile.FileHandleType.OPAQUE_FD == 1
    assert cufile.BoolConfigParameter.PROPERTIES_ALLOW_COMPAT_MODE == 1
    assert cufile.Opcode.WRITE == 1 and cufile.BatchMode.BATCH == 1
    assert cufile.Status.COMPLETE == 16
    from cuda.bindings import driver
    assert cufile.pyCUresult is driver.CUresult
    with pytest.raises(ValueError):
        cufile.OpError(1)


def test_descr_layout_fields_and_views():
    d = cufile.Descr()
    assert len(d) == 1 and d.ptr == int(d) != 0
    dt = cufile.descr_dtype
    assert dt.names == ("type", "handle", "fs_ops") and dt.itemsize == 24
    assert dt.fields["handle"][1] == 8 and dt["handle"].fields["fd"][1] == dt["handle"].fields["handle"][1] == 0
    d.type = cufile.FileHandleType.OPAQUE_FD
    d.handle.fd = 7                          # a view of the union inside d
    d.fs_ops = 0
    raw = bytes(memoryview(d))
    assert struct.unpack_from("<i", raw, 0)[0] == 1 and struct.unpack_from("<i", raw, 8)[0] == 7
    assert d.type == 1 and d.handle.fd == 7
    # views of the same memory
    a = np.frombuffer(bytearray(raw), dtype=dt)
    v = cufile.Descr.from_data(a)
    assert v == d and v.handle.fd == 7
    v.handle.fd = 9
    assert a["handle"]["fd"][0] == 9 and d.handle.fd == 7
    w = cufile.Descr.from_ptr(d.ptr, owner=d)
    w.handle.fd = 11
    assert d.handle.fd == 11
    r = cufile.Descr.from_ptr(d.ptr, readonly=True)
    with pytest.raises(ValueError, match="read-only"):
        r.type = 2
    b = cufile.Descr.from_buffer(bytearray(48))
    assert len(b) == 2
    with pytest.raises(ValueError, match="multiple"):
        cufile.Descr.from_buffer(bytearray(10))
    with pytest.raises(ValueError, match="NULL"):
        cufile.Descr.from_ptr(0)
    with pytest.raises(ValueError, match="dtype"):
        cufile.Descr.from_data(np.zeros(3))


def test_arrays_of_structs():
    io = cufile.IOParams(3)
    assert len(io) == 3 and cufile.io_params_dtype.itemsize == 64
    io[1].fh = 0x1000
    io[2].u.batch.size_ = 4096
    assert list(io.fh) == [0, 0x1000, 0]
    assert list(io.u["batch"]["size_"]) == [0, 0, 4096]
    tail = io[1:]
    assert len(tail) == 2 and tail.ptr == io.ptr + 64 and tail[0].fh == 0x1000
    io.opcode = cufile.Opcode.WRITE                 # a field of every item
    assert list(io.opcode) == [1, 1, 1]
    with pytest.raises(IndexError):
        io[3]
    with pytest.raises(ValueError, match="negative"):
        cufile.IOParams(-1)
    with pytest.raises(TypeError):
        cufile.IOParams("2")


def _numpy_backed(cls):
    """Whether the module says NVIDIA's module of this release backs `cls` with a numpy record array
    (every class in 13.0.3): its nested structs and arrays read through numpy (test_records.py)."""
    return cls.__name__ in (cls.__dict__.get("_c_numpy_records") or ())


@pytest.mark.skipif("not hasattr(cufile, 'StatsLevel2')", reason="cuFile's statistics came with cuFile 1.15 (CUDA 13.0)")
def test_nested_structs_and_arrays():
    s2 = cufile.StatsLevel2()
    s2.basic.read_ops.ok = 5
    assert s2.basic.read_ops.ok == 5
    numpy_backed = _numpy_backed(cufile.StatsLevel2)
    lead = (1,) if numpy_backed else ()             # a record array of one struct
    hist = s2.read_size_kb_hist
    assert hist.dtype == np.uint64 and hist.shape == lead + (32,)
    hist[..., 3] = 9                                # a view: writes reach the struct
    assert s2.read_size_kb_hist[..., 3] == 9
    s2.write_size_kb_hist = list(range(32))
    assert s2.write_size_kb_hist[..., 31] == 31
    with pytest.raises(ValueError):
        s2.write_size_kb_hist = [1, 2]
    if numpy_backed:
        s2.basic = 3                                # numpy broadcasts a number over the struct
        assert s2.basic.read_ops.err == 3
    else:
        with pytest.raises(TypeError):
            s2.basic = 3
    with pytest.raises(OverflowError):
        s2.basic.read_ops.ok = -1
    s3 = cufile.StatsLevel3()
    stats = s3.per_gpu_stats
    assert (stats.shape == (1, 16) if _numpy_backed(cufile.StatsLevel3) else len(stats) == 16)
    assert stats[0].uuid.dtype == np.int8


def test_struct_argument_is_passed_by_address(stub):
    d = cufile.Descr()
    stub.write("cuFileHandleRegister", 0, struct.pack("<Q", 0xABC000))
    fh = cufile.handle_register(d)
    assert fh == 0xABC000
    assert stub.last() == "cuFileHandleRegister" and stub.args()[1] == d.ptr
    assert cufile.handle_register(d.ptr) == 0xABC000 and stub.args()[1] == d.ptr
    with pytest.raises(TypeError, match="descr"):
        cufile.handle_register("descr")
    with pytest.raises(TypeError, match="descr"):
        cufile.handle_register(cufile.IOEvents())


def test_errors_carry_the_status_and_the_cuda_error(stub):
    stub.status("cuFileDriverOpen", 5022)
    with pytest.raises(cufile.cuFileError) as e:
        cufile.driver_open()
    assert e.value.status == 5022 and e.value.cuda_error is None
    assert str(e.value) == "INVALID_VALUE (5022): invalid arguments"
    stub.status("cuFileDriverOpen", 5011 + (700 << 32))      # CU_FILE_CUDA_DRIVER_ERROR, CUDA 700
    with pytest.raises(cufile.cuFileError) as e:
        cufile.driver_open()
    assert (e.value.status, e.value.cuda_error) == (5011, 700)
    assert str(e.value).endswith("; CUDA status: CUDA_ERROR_ILLEGAL_ADDRESS (700)")
    assert cufile.op_status_error(cufile.OpError.HANDLE_NOT_REGISTERED) == "file descriptor is not registered"
    import pickle
    again = pickle.loads(pickle.dumps(e.value))
    assert (again.status, again.cuda_error) == (5011, 700)


def test_read_and_write_return_the_byte_count(stub):
    # NVIDIA's 13.0.3 returns None from both (its count is lost); 12.9.10 and 13.5.0 return it
    counted = __cuda_version__ != "13.0"
    stub.status("cuFileRead", 4096)
    assert cufile.read(0x1000, 0x2000, 4096, 0, 0) == (4096 if counted else None)
    assert stub.args()[:3] == [0x1000, 0x2000, 4096]
    stub.status("cuFileWrite", -5)                  # -errno: returned, as the C API does
    assert cufile.write(0x1000, 0x2000, 4096, 0, 0) == (-5 if counted else None)
    stub.status("cuFileWrite", -1)                  # -1: errno says what failed (a status error)
    with pytest.raises((cufile.cuFileError, ValueError)):
        cufile.write(0x1000, 0x2000, 4096, 0, 0)


def test_handles_go_to_the_library_which_checks_them(stub):
    # cuFile reports a handle that is none (deregistered, or in the first page of memory) with a
    # status instead of crashing (scripts/handle_probe.py on the real library): ours passes it
    # on, as NVIDIA's package does, and raises what the library returns
    cufile.handle_deregister(0x5000)
    cufile.read(0x5000, 0x2000, 16, 0, 0)
    assert stub.last() == "cuFileRead" and stub.args()[0] == 0x5000
    cufile.batch_io_destroy(0x6000)
    for batch in (0x6000, 8):
        stub.reset()
        stub.status("cuFileBatchIOCancel", 5022)       # CU_FILE_INVALID_VALUE
        with pytest.raises(cufile.cuFileError) as e:
            cufile.batch_io_cancel(batch)
        assert stub.last() == "cuFileBatchIOCancel" and stub.args()[0] == batch
        assert e.value.status == 5022


def test_outputs(stub):
    stub.write("cuFileGetVersion", 0, struct.pack("<i", 1150))
    assert cufile.get_version() == 1150
    stub.write("cuFileGetParameterString", 1, b"TRACE\0")
    assert cufile.get_parameter_string(cufile.StringConfigParameter.LOGGING_LEVEL, 64) == "TRACE"
    assert stub.args()[2] == 64
    stub.write("cuFileGetParameterBool", 1, b"\x01")
    assert cufile.get_parameter_bool(cufile.BoolConfigParameter.PROPERTIES_ALLOW_COMPAT_MODE) is True
    cufile.set_parameter_string(cufile.StringConfigParameter.LOGGING_LEVEL, "TRACE")
    if hasattr(cufile, "get_stats_l1"):         # cuFile 1.15 on (CUDA 13.0); 12.9's 1.14 has neither
        stub.write("cuFileGetParameterMinMaxValue", 1, struct.pack("<Q", 1))
        stub.write("cuFileGetParameterMinMaxValue", 2, struct.pack("<Q", 256))
        assert cufile.get_parameter_min_max_value(cufile.SizeTConfigParameter.PROPERTIES_IO_BATCHSIZE) == (1, 256)
        stats = cufile.StatsLevel1()
        cufile.get_stats_l1(stats)
        assert stub.args()[0] == stats.ptr
    stub.status("cuFileUseCount", 3)
    assert cufile.use_count() is None         # NVIDIA's package returns nothing here
    assert stub.last() == "cuFileUseCount"


def test_batch_io_passes_the_arrays(stub):
    stub.write("cuFileBatchIOSetUp", 0, struct.pack("<Q", 0x7000))
    batch = cufile.batch_io_set_up(2)
    assert batch == 0x7000
    io = cufile.IOParams(2)
    cufile.batch_io_submit(batch, 2, io, 0)
    assert stub.args()[:3] == [0x7000, 2, io.ptr]
    ev = cufile.IOEvents(2)
    cufile.batch_io_get_status(batch, 1, 0x8000, ev, 0)
    assert stub.args()[:4] == [0x7000, 1, 0x8000, ev.ptr]
    cufile.batch_io_destroy(batch)
    cufile.batch_io_submit(batch, 2, io, 0)     # the library checks its batch handles itself
    assert stub.last() == "cuFileBatchIOSubmit"


@pytest.mark.skipif("not hasattr(cufile, 'IOVec')", reason="cuFileReadv came with cuFile 1.19 (CUDA 13.5)")
def test_readv_counts_the_vectors(stub):
    iov = cufile.IOVec(3)
    stub.status("cuFileReadv", 12)
    assert cufile.readv(0x1000, iov, 64) == 12
    assert stub.args()[:4] == [0x1000, iov.ptr, 3, 64]
    with pytest.raises(TypeError, match="iov"):
        cufile.readv(0x1000, iov.ptr, 64)
