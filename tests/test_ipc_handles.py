"""IPC handle objects carried to another process (no GPU needed).

An IPC handle is 64 opaque bytes (`reserved`); a program hands it to another process as those bytes
or, with multiprocessing, as the pickled object. Children here are spawned interpreters
(multiprocessing's 'spawn' start method): they import cuda.bindings afresh.
"""
import copy
import ctypes
import json
import multiprocessing
import os
import pickle

import pytest

import ipc_child
from _support import driver, run_python, runtime, stand_in_env

HANDLES = ["driver.CUipcMemHandle", "driver.CUipcEventHandle", "runtime.cudaIpcMemHandle_t",
           "runtime.cudaIpcEventHandle_t", "driver.CUmemPoolPtrExportData", "runtime.cudaMemPoolPtrExportData"]


def _class(name):
    module, _, cls = name.partition(".")
    return getattr(driver if module == "driver" else runtime, cls)


def _payload(name):
    # distinct bytes per class, no zero byte (a C string copy would stop there)
    seed = sum(name.encode())
    return bytes((seed + 37 * i) % 255 + 1 for i in range(64))


@pytest.fixture(scope="module")
def spawned():
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        yield pool


@pytest.mark.parametrize("name", HANDLES)
def test_handle_built_from_bytes_is_those_bytes_in_its_c_memory(name):
    cls = _class(name)
    data = _payload(name)
    h = cls()
    assert h.reserved == bytes(64)
    h.reserved = data
    assert h.reserved == data and type(h.reserved) is bytes
    assert ctypes.string_at(h.getPtr(), 64) == data
    assert cls(_ptr=h.getPtr()).reserved == data       # a view of the same 64 bytes


@pytest.mark.parametrize("name", HANDLES)
def test_handle_rebuilt_from_its_bytes_in_a_spawned_child(name, spawned):
    data = _payload(name)
    h = _class(name)()
    h.reserved = data
    as_seen, c_memory, pid = spawned.apply(ipc_child.rebuild_from_bytes, (name, bytes(h.reserved)))
    assert pid != os.getpid()
    assert as_seen == data and c_memory == data


# NVIDIA's packages (12.9.10, 13.0.3, 13.5.0) do not pickle these structs (TypeError: "no default
# __reduce__ due to non-trivial __cinit__"); ours pickles a struct as its C bytes.
@pytest.mark.parametrize("name", HANDLES)
def test_handle_pickles_and_unpickles_in_a_spawned_child(name, spawned):
    """multiprocessing pickles the arguments of a call into a child: the handle arrives with its
    bytes, in memory it owns."""
    data = _payload(name)
    h = _class(name)()
    h.reserved = data
    back = pickle.loads(pickle.dumps(h))
    assert type(back) is type(h) and back.reserved == data and back.getPtr() != h.getPtr()
    as_seen, c_memory, pid = spawned.apply(ipc_child.reserved_of, (h,))
    assert pid != os.getpid()
    assert as_seen == data and c_memory == data


@pytest.mark.parametrize("name", HANDLES)
def test_handle_copies_own_their_bytes(name):
    data = _payload(name)
    h = _class(name)()
    h.reserved = data
    for c in (copy.copy(h), copy.deepcopy(h)):
        assert type(c) is type(h) and c.reserved == data and c.getPtr() != h.getPtr()
    c = copy.copy(h)
    h.reserved = bytes(64)
    assert c.reserved == data


@pytest.mark.parametrize("name", HANDLES)
def test_handle_bytes_longer_than_the_handle_are_refused(name):
    h = _class(name)()
    with pytest.raises(ValueError):
        h.reserved = bytes(65)
    assert h.reserved == bytes(64)


# As NVIDIA's 13.0.3 does ("ValueError: reserved length must be 64, is 2"): a truncated handle
# would go to the driver as another handle.
@pytest.mark.parametrize("name", HANDLES)
def test_handle_bytes_shorter_than_the_handle_are_refused(name):
    h = _class(name)()
    with pytest.raises(ValueError, match="reserved length must be 64, is 2"):
        h.reserved = b"\x01\x02"
    assert h.reserved == bytes(64)


# The stand-in driver (tests/conformance/stub.py) writes as many pattern bytes (1, 2, 3, ...) into
# the output as the driver writes for each handle type: an int for a POSIX fd and a KMT handle, a
# pointer-sized Win32 HANDLE, a 64-byte CUmemFabricHandle. NVIDIA's 13.0.3, 12.9.10 and 13.5.0 return
# these as an int and a CUmemFabricHandle holding the 64 bytes.
SHAREABLE_EXPORTS = r"""
import ctypes, json
from cuda.bindings import driver as d
stub = ctypes.CDLL("libcuda.so.1")
T = d.CUmemAllocationHandleType
out = []
for f in ("cuMemExportToShareableHandle", "cuMemPoolExportToShareableHandle"):
    for ht, n in ((T.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 8), (T.CU_MEM_HANDLE_TYPE_WIN32, 8),
                  (T.CU_MEM_HANDLE_TYPE_WIN32_KMT, 4), (T.CU_MEM_HANDLE_TYPE_FABRIC, 64)):
        stub.cuStubFill(0, n)
        err, value = getattr(d, f)(5, ht, 0)
        stub.cuStubFill(-1, 0)
        shown = value.data.hex() if isinstance(value, d.CUmemFabricHandle) else hex(value)
        out.append([f, ht.name, err.name, type(value).__name__, shown])
print(json.dumps(out))
"""


def test_shareable_handle_export_is_typed_by_the_handle_type(stand_in_driver):
    """The export's storage is as large as what the driver writes for the handle type asked for:
    with CU_MEM_HANDLE_TYPE_FABRIC, 64 bytes that come back as a CUmemFabricHandle (into an 8-byte
    int the driver would write 56 bytes past it, on the stack)."""
    proc = run_python(SHAREABLE_EXPORTS, env=stand_in_env(stand_in_driver, 0))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    pattern = bytes(range(1, 65))
    for f in ("cuMemExportToShareableHandle", "cuMemPoolExportToShareableHandle"):
        rows = {r[1]: r[2:] for r in got if r[0] == f}
        assert rows == {
            # a C int: 4 of the 8 bytes written
            "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR": ["CUDA_SUCCESS", "int", "0x4030201"],
            "CU_MEM_HANDLE_TYPE_WIN32": ["CUDA_SUCCESS", "int", "0x807060504030201"],
            "CU_MEM_HANDLE_TYPE_WIN32_KMT": ["CUDA_SUCCESS", "int", "0x4030201"],
            "CU_MEM_HANDLE_TYPE_FABRIC": ["CUDA_SUCCESS", "CUmemFabricHandle", pattern.hex()],
        }, f


IMPORTS = r"""
import ctypes, json
from cuda.bindings import driver as d
stub = ctypes.CDLL("libcuda.so.1")
stub.cuStubArgs.restype = ctypes.POINTER(ctypes.c_uint64)
T = d.CUmemAllocationHandleType
fabric = d.CUmemFabricHandle()
fabric.data = bytes(range(64))
out = []
for label, value, ht in (("fd", 7, T.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                         ("fabric", fabric, T.CU_MEM_HANDLE_TYPE_FABRIC),
                         ("fabric bytes", bytes(fabric.data), T.CU_MEM_HANDLE_TYPE_FABRIC)):
    for f, register in (("cuMemImportFromShareableHandle", 1), ("cuMemPoolImportFromShareableHandle", 1)):
        args = (value, ht) if f == "cuMemImportFromShareableHandle" else (value, ht, 0)
        err, _ = getattr(d, f)(*args)
        passed = stub.cuStubArgs()[register]
        shows = ctypes.string_at(passed, 64).hex() if label != "fd" else passed
        out.append([f, label, err.name, shows, passed == fabric.getPtr()])
print(json.dumps(out))
"""


def test_shareable_handle_import_takes_an_fd_or_a_fabric_handle(stand_in_driver):
    """The C API passes a POSIX fd as the pointer's value and a fabric handle by its address: an
    int goes as it is; a CUmemFabricHandle (or its bytes) goes by the address of its 64 bytes.
    (NVIDIA's packages refuse the CUmemFabricHandle object: TypeError.)"""
    proc = run_python(IMPORTS, env=stand_in_env(stand_in_driver, 0))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    for f in ("cuMemImportFromShareableHandle", "cuMemPoolImportFromShareableHandle"):
        rows = {r[1]: r[2:] for r in got if r[0] == f}
        assert rows["fd"] == ["CUDA_SUCCESS", 7, False], f
        assert rows["fabric"] == ["CUDA_SUCCESS", bytes(range(64)).hex(), True], f
        assert rows["fabric bytes"][:2] == ["CUDA_SUCCESS", bytes(range(64)).hex()], f
