"""Device memory, events and memory pools shared between processes (one GPU is enough).

Each test starts a child interpreter (`python tests/ipc_child.py FD`: a fresh process, never a fork
of one that initialised CUDA) connected by a Unix SOCK_SEQPACKET socket; handles travel as their
64 `reserved` bytes, a memory pool's file descriptor with socket.send_fds / socket.recv_fds.
"""
import ctypes
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from _support import REPO_ROOT, ok, python_env, run_python

pytestmark = pytest.mark.gpu

CHILD = REPO_ROOT / "tests" / "ipc_child.py"
SIZE = 1 << 16

KERNELS = r"""
extern "C" __global__ void wait_flag(volatile int *flag, int *out, int value, unsigned long long timeout_ns)
{
    // one thread: wait until the host sets *flag (mapped pinned memory), then store value;
    // -1 instead when the host never does (the test then fails rather than hangs)
    unsigned long long start, now;
    int released = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        if (*flag != 0) { released = 1; break; }
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < timeout_ns);
    out[0] = released ? value : -1;
}

extern "C" __global__ void add_one_from(int *b)
{
    b[1] = b[0] + 1;
}
"""
WAIT_TIMEOUT_NS = 30_000_000_000


class Child:
    """A child process running one role of tests/ipc_child.py, and the socket to it."""

    def __init__(self, role, params, fds=()):
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen([sys.executable, str(CHILD), str(theirs.fileno())],
                                     pass_fds=[theirs.fileno()], env=python_env(),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        theirs.close()
        mine.settimeout(120)
        self.sock = mine
        self.send(dict(params, role=role), fds)

    def send(self, obj, fds=()):
        socket.send_fds(self.sock, [json.dumps(obj).encode()], list(fds))

    def recv(self):
        try:
            data, _, _, _ = socket.recv_fds(self.sock, 1 << 20, 4)
        except socket.timeout:
            raise AssertionError(f"the child said nothing for 120 s{self._output(kill=True)}") from None
        if not data:
            raise AssertionError(f"the child closed the socket{self._output()}")
        msg = json.loads(data)
        if "error" in msg:
            raise AssertionError(f"the child failed:\n{msg['error']}{self._output()}")
        return msg

    def _output(self, kill=False):
        if kill:
            self.proc.kill()
        try:
            out, err = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        return f"\n(exit {self.proc.returncode})\n--- stdout\n{out}\n--- stderr\n{err}"

    def finish(self):
        try:
            out, err = self.proc.communicate(timeout=120)
        finally:
            self.sock.close()
        assert self.proc.returncode == 0, f"child exited {self.proc.returncode}\n{out}\n{err}"

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()
        self.sock.close()


@pytest.fixture
def child_processes():
    started = []

    def start(role, params, fds=()):
        c = Child(role, params, fds)
        started.append(c)
        return c

    yield start
    for c in started:
        c.kill()


@pytest.fixture
def cubin_path(cu, nvrtc_compile, tmp_path):
    path = tmp_path / "ipc_kernels.cubin"
    path.write_bytes(nvrtc_compile(KERNELS, cu.arch, fmt="cubin"))
    return path


def patterns(size):
    rng = np.random.default_rng(size)
    first = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
    return first, bytes(reversed(first))


# --- memory handles ------------------------------------------------------------------------------------


@pytest.mark.parametrize("child_api", ["driver", "runtime"])
@pytest.mark.parametrize("parent_api", ["driver", "runtime"])
def test_child_opens_the_parents_buffer_writes_it_and_the_parent_sees_the_bytes(cu, child_processes,
                                                                                 parent_api, child_api):
    """cuIpcGetMemHandle / cudaIpcGetMemHandle in the parent, cuIpcOpenMemHandle /
    cudaIpcOpenMemHandle in the child (the handle is the same C struct in both APIs): the child
    reads what the parent put there and writes new bytes the parent then reads."""
    from cuda.bindings import runtime
    d = cu.driver
    first, second = patterns(SIZE)
    if parent_api == "driver":
        buf = ok(d.cuMemAlloc(SIZE))
        ok(d.cuMemcpyHtoD(buf, first, SIZE))
        handle = ok(d.cuIpcGetMemHandle(buf))
        assert isinstance(handle, d.CUipcMemHandle)
    else:
        ok(runtime.cudaSetDevice(0))
        buf = ok(runtime.cudaMalloc(SIZE))
        ok(runtime.cudaMemcpy(buf, first, SIZE, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
        handle = ok(runtime.cudaIpcGetMemHandle(buf))
        assert isinstance(handle, runtime.cudaIpcMemHandle_t)
    try:
        raw = bytes(handle.reserved)
        assert len(raw) == d.CU_IPC_HANDLE_SIZE == 64 and raw != bytes(64)
        assert ctypes.string_at(handle.getPtr(), 64) == raw
        child = child_processes("mem", {"api": child_api, "handle": raw.hex(), "size": SIZE,
                                        "write": second.hex()})
        reply = child.recv()
        child.finish()
        assert reply["pointer_type"] == ("CUdeviceptr" if child_api == "driver" else "int")
        assert bytes.fromhex(reply["read"]) == first, "the child did not read the parent's bytes"
        out = bytearray(SIZE)
        ok(d.cuMemcpyDtoH(out, buf, SIZE))
        assert bytes(out) == second, "the parent does not see the child's bytes"
    finally:
        if parent_api == "driver":
            ok(d.cuMemFree(buf))
        else:
            ok(runtime.cudaFree(buf))


ZERO_HANDLES = r"""
import json
from cuda.bindings import driver as d
assert int(d.cuInit(0)[0]) == 0
dev = d.cuDeviceGet(0)[1]
ctx = d.cuDevicePrimaryCtxRetain(dev)[1]
assert int(d.cuCtxSetCurrent(ctx)[0]) == 0
mem = d.cuIpcOpenMemHandle(d.CUipcMemHandle(), d.CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
event = d.cuIpcOpenEventHandle(d.CUipcEventHandle())
print(json.dumps({"mem": [mem[0].name, mem[1] is None], "event": [event[0].name, event[1] is None]}))
"""


def test_a_handle_of_zeros_is_refused_with_a_status(cu):
    """64 zero bytes are no handle: both opens return an error status and None (in a child, so
    that a driver fault cannot end the session)."""
    proc = run_python(ZERO_HANDLES, timeout=120)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    for what in ("mem", "event"):
        status, output_is_none = got[what]
        assert status != "CUDA_SUCCESS" and output_is_none, got


# --- event handles -------------------------------------------------------------------------------------


def _mapped_flag(d):
    host = ok(d.cuMemHostAlloc(4, d.CU_MEMHOSTALLOC_DEVICEMAP))
    flag = ctypes.c_int32.from_address(host)
    flag.value = 0
    return host, flag, ok(d.cuMemHostGetDevicePointer(host, 0))


def test_parent_records_an_ipc_event_the_child_waits_on_it(cu, child_processes, cubin_path):
    """Driver API. The parent queues a kernel blocked on a host flag (it then writes b[0] = 42) and
    records its interprocess event behind it; the child opens the event and the buffer, makes a
    stream wait on the event and queues b[1] = b[0] + 1. Only then does the parent release the flag:
    b == [42, 43] shows the child's kernel ran after the parent's; without the wait it would have
    read b[0] == 0 while the parent's kernel was still blocked."""
    d = cu.driver
    buf = ok(d.cuMemAlloc(8))
    ok(d.cuMemsetD32(buf, 0, 2))
    host, flag, flag_dev = _mapped_flag(d)
    flags = d.CUevent_flags.CU_EVENT_INTERPROCESS | d.CUevent_flags.CU_EVENT_DISABLE_TIMING
    event = ok(d.cuEventCreate(flags))
    stream = ok(d.cuStreamCreate(d.CUstream_flags.CU_STREAM_NON_BLOCKING))
    mod = ok(d.cuModuleLoadData(cubin_path.read_bytes()))
    try:
        eh, mh = ok(d.cuIpcGetEventHandle(event)), ok(d.cuIpcGetMemHandle(buf))
        assert isinstance(eh, d.CUipcEventHandle) and isinstance(mh, d.CUipcMemHandle)
        wait_flag = ok(d.cuModuleGetFunction(mod, b"wait_flag"))
        args = ((int(flag_dev), int(buf), 42, WAIT_TIMEOUT_NS),
                (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64))
        ok(d.cuLaunchKernel(wait_flag, 1, 1, 1, 1, 1, 1, 0, stream, args, 0))
        ok(d.cuEventRecord(event, stream))
        child = child_processes("event_wait", {"event": bytes(eh.reserved).hex(), "mem": bytes(mh.reserved).hex(),
                                               "cubin": str(cubin_path)})
        try:
            queued = child.recv()
            assert queued["event_type"] == "CUevent"
            assert queued["query_before"] == "CUDA_ERROR_NOT_READY", queued
            time.sleep(0.5)          # a child kernel that did not wait would have run by now
        finally:
            flag.value = 1
        ok(d.cuStreamSynchronize(stream))
        done = child.recv()
        child.finish()
        assert done["query_after"] == "CUDA_SUCCESS"
        assert done["b"] == [42, 43], f"the child's kernel did not wait for the parent's event: {done['b']}"
    finally:
        flag.value = 1
        ok(d.cuStreamSynchronize(stream))
        ok(d.cuModuleUnload(mod))
        ok(d.cuStreamDestroy(stream))
        ok(d.cuEventDestroy(event))
        ok(d.cuMemFreeHost(host))
        ok(d.cuMemFree(buf))


def test_child_records_the_parents_ipc_event_the_parent_waits_on_it(cu, child_processes, cubin_path):
    """Runtime API, the other way round: the child records the parent's interprocess event behind
    its own kernel blocked on its own host flag (b[0] = 42 when released); the parent's stream waits
    on the event and queues b[1] = b[0] + 1, then tells the child to release its flag."""
    from cuda.bindings import runtime
    d = cu.driver
    ok(runtime.cudaSetDevice(0))
    buf = ok(runtime.cudaMalloc(8))
    ok(runtime.cudaMemset(buf, 0, 8))
    event = ok(runtime.cudaEventCreateWithFlags(runtime.cudaEventInterprocess | runtime.cudaEventDisableTiming))
    stream = ok(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    mod = ok(d.cuModuleLoadData(cubin_path.read_bytes()))
    child = None
    try:
        eh, mh = ok(runtime.cudaIpcGetEventHandle(event)), ok(runtime.cudaIpcGetMemHandle(buf))
        assert isinstance(eh, runtime.cudaIpcEventHandle_t) and isinstance(mh, runtime.cudaIpcMemHandle_t)
        child = child_processes("event_record", {"event": bytes(eh.reserved).hex(), "mem": bytes(mh.reserved).hex(),
                                                 "cubin": str(cubin_path)})
        recorded = child.recv()
        assert recorded["event_type"] == "cudaEvent_t"
        ok(runtime.cudaStreamWaitEvent(stream, event, 0))
        add_one = ok(d.cuModuleGetFunction(mod, b"add_one_from"))
        ok(d.cuLaunchKernel(add_one, 1, 1, 1, 1, 1, 1, 0, stream, ((buf,), (ctypes.c_void_p,)), 0))
        assert runtime.cudaEventQuery(event)[0] == runtime.cudaError_t.cudaErrorNotReady
        time.sleep(0.5)              # a parent kernel that did not wait would have run by now
        child.send({"go": True})
        assert child.recv() == {"done": True}
        ok(runtime.cudaStreamSynchronize(stream))
        child.finish()
        child = None
        b = np.zeros(2, dtype=np.int32)
        ok(runtime.cudaMemcpy(b, buf, 8, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        assert b.tolist() == [42, 43], f"the parent's kernel did not wait for the child's record: {b.tolist()}"
        assert runtime.cudaEventQuery(event) == (runtime.cudaError_t.cudaSuccess,)
    finally:
        if child is None:
            ok(runtime.cudaStreamSynchronize(stream))
            ok(d.cuModuleUnload(mod))
            ok(runtime.cudaStreamDestroy(stream))
            ok(runtime.cudaEventDestroy(event))
            ok(runtime.cudaFree(buf))
        else:
            # the child failed: the parent's stream may wait on a record that never completes, so
            # its resources are left to the context's end rather than waited for
            child.kill()


# --- memory pools -------------------------------------------------------------------------------------


@pytest.mark.parametrize("child_api", ["driver", "runtime"])
def test_memory_pool_exported_as_a_file_descriptor_over_a_unix_socket(cu, child_processes, child_api):
    """cuMemPoolCreate with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, cuMemPoolExportToShareableHandle
    (an int: a file descriptor of this process), cuMemPoolExportPointer; the fd travels with
    socket.send_fds; the child imports the pool and the pointer, reads, writes; the parent sees it."""
    d = cu.driver
    POSIX_FD = d.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    attr = d.CUdevice_attribute
    if not ok(d.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, cu.dev)):
        pytest.skip("the device has no stream-ordered memory pools")
    if not ok(d.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, cu.dev)) & int(POSIX_FD):
        pytest.skip("the device's memory pools cannot be exported as POSIX file descriptors")
    first, second = patterns(SIZE)
    props = d.CUmemPoolProps()
    props.allocType = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    props.handleTypes = POSIX_FD
    props.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    props.location.id = int(cu.dev)
    pool = ok(d.cuMemPoolCreate(props))
    stream = ok(d.cuStreamCreate(d.CUstream_flags.CU_STREAM_NON_BLOCKING))
    ptr = None
    try:
        ptr = ok(d.cuMemAllocFromPoolAsync(SIZE, pool, stream))
        ok(d.cuMemcpyHtoDAsync(ptr, first, SIZE, stream))
        ok(d.cuStreamSynchronize(stream))
        fd = ok(d.cuMemPoolExportToShareableHandle(pool, POSIX_FD, 0))
        assert type(fd) is int and fd >= 0
        os.fstat(fd)                                   # a real descriptor of this process
        share = ok(d.cuMemPoolExportPointer(ptr))
        assert isinstance(share, d.CUmemPoolPtrExportData)
        raw = bytes(share.reserved)
        assert len(raw) == 64 and raw != bytes(64)
        try:
            child = child_processes("pool", {"api": child_api, "export": raw.hex(), "size": SIZE,
                                             "write": second.hex()}, fds=[fd])
        finally:
            os.close(fd)                               # the child has its own copy now
        reply = child.recv()
        child.finish()
        expected = ["CUmemoryPool", "CUdeviceptr"] if child_api == "driver" else ["cudaMemPool_t", "int"]
        assert reply["types"] == expected
        assert bytes.fromhex(reply["read"]) == first, "the child did not read the parent's bytes"
        out = bytearray(SIZE)
        ok(d.cuMemcpyDtoH(out, ptr, SIZE))
        assert bytes(out) == second, "the parent does not see the child's bytes"
    finally:
        if ptr is not None:
            ok(d.cuMemFreeAsync(ptr, stream))
        ok(d.cuStreamSynchronize(stream))
        ok(d.cuStreamDestroy(stream))
        ok(d.cuMemPoolDestroy(pool))


def test_memory_pool_export_of_a_pool_without_handle_types_is_refused(cu):
    d = cu.driver
    props = d.CUmemPoolProps()
    props.allocType = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    props.handleTypes = d.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE
    props.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    props.location.id = int(cu.dev)
    pool = ok(d.cuMemPoolCreate(props))
    try:
        res = d.cuMemPoolExportToShareableHandle(
            pool, d.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)
        assert isinstance(res[0], d.CUresult) and res[0] != d.CUresult.CUDA_SUCCESS and res[1] is None, res
    finally:
        ok(d.cuMemPoolDestroy(pool))


FABRIC_EXPORT = r"""
import json, sys
from cuda.bindings import driver as d
assert int(d.cuInit(0)[0]) == 0
dev = d.cuDeviceGet(0)[1]
ctx = d.cuDevicePrimaryCtxRetain(dev)[1]
assert int(d.cuCtxSetCurrent(ctx)[0]) == 0
FABRIC = d.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_FABRIC
if not d.cuDeviceGetAttribute(d.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, dev)[1]:
    print(json.dumps({"skip": "the device has no fabric handles"})); sys.exit(0)
prop = d.CUmemAllocationProp()
prop.type = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
prop.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
prop.location.id = 0
prop.requestedHandleTypes = FABRIC
size = d.cuMemGetAllocationGranularity(prop, d.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM)[1]
err, handle = d.cuMemCreate(size, prop, 0)
if int(err) != 0:
    print(json.dumps({"skip": "cuMemCreate with a fabric handle type returned %s (no IMEX channel?)" % err.name})); sys.exit(0)
err, shared = d.cuMemExportToShareableHandle(handle, FABRIC, 0)
out = {"status": err.name, "type": type(shared).__name__}
if isinstance(shared, d.CUmemFabricHandle):
    out["nonzero"] = bytes(shared.data) != bytes(64)
    err2, imported = d.cuMemImportFromShareableHandle(shared, FABRIC)
    out["import"] = err2.name
    if imported is not None:
        d.cuMemRelease(imported)
d.cuMemRelease(handle)
print(json.dumps(out))
"""


def test_fabric_handle_export_is_a_CUmemFabricHandle(cu):
    """CU_MEM_HANDLE_TYPE_FABRIC: the driver writes a 64-byte CUmemFabricHandle where the handle
    goes; NVIDIA's package returns it as a CUmemFabricHandle (a POSIX fd as an int). Run in a child:
    written into 8 bytes, the 64 would overrun the caller's stack."""
    proc = run_python(FABRIC_EXPORT, timeout=120)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    if "skip" in got:
        pytest.skip(got["skip"])
    assert got["status"] == "CUDA_SUCCESS", got
    assert got["type"] == "CUmemFabricHandle", got
    assert got["nonzero"] and got["import"] == "CUDA_SUCCESS", got
