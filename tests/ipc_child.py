"""The child side of the interprocess tests (tests/test_gpu_ipc.py, tests/test_ipc_handles.py).

Run as `python tests/ipc_child.py FD`: FD is a Unix SOCK_SEQPACKET socket inherited from the
parent. Every message either way is one JSON object; file descriptors ride along with a message
(socket.send_fds / socket.recv_fds). The first message names the role and its parameters; the
child answers as the role says, or with {"error": traceback} and exit status 1.

Imported as the module `ipc_child`, it gives the functions that multiprocessing's spawned
children run (`rebuild_from_bytes`, `reserved_of`).
"""
import ctypes
import json
import os
import socket
import sys
import traceback

WAIT_TIMEOUT_NS = 30_000_000_000     # a kernel waiting on a host flag gives up after 30 s


# --- messages ---------------------------------------------------------------------------------------

def send(sock, obj, fds=()):
    socket.send_fds(sock, [json.dumps(obj).encode()], list(fds))


def recv(sock):
    data, fds, _, _ = socket.recv_fds(sock, 1 << 20, 4)
    if not data:
        raise EOFError("the other process closed the socket")
    return json.loads(data), fds


def ok(result):
    err = result[0]
    if int(err) != 0:
        raise RuntimeError(f"call failed: {err!r}")
    return result[1] if len(result) == 2 else (None if len(result) == 1 else result[1:])


# --- spawned by multiprocessing (no GPU needed) -----------------------------------------------------

def _class(name):
    module, _, cls = name.rpartition(".")
    from importlib import import_module
    return getattr(import_module(f"cuda.bindings.{module}"), cls)


def rebuild_from_bytes(name, data):
    """Build a `name` (e.g. 'driver.CUipcMemHandle') from its `reserved` bytes; return what the
    object says its bytes are and what its C memory holds."""
    obj = _class(name)()
    obj.reserved = data
    raw = ctypes.string_at(obj.getPtr(), len(data))
    return bytes(obj.reserved), raw, os.getpid()


def reserved_of(obj):
    """The bytes of a handle that arrived (pickled) in this process, and of its C memory."""
    return bytes(obj.reserved), ctypes.string_at(obj.getPtr(), len(obj.reserved)), os.getpid()


# --- roles --------------------------------------------------------------------------------------------

def _init(api):
    if api == "driver":
        from cuda.bindings import driver
        ok(driver.cuInit(0))
        dev = ok(driver.cuDeviceGet(0))
        ctx = ok(driver.cuDevicePrimaryCtxRetain(dev))
        ok(driver.cuCtxSetCurrent(ctx))
    else:
        from cuda.bindings import runtime
        ok(runtime.cudaSetDevice(0))
        ok(runtime.cudaFree(0))           # makes the primary context current for the driver calls too


def role_mem(sock, p):
    """Open the parent's buffer from its IPC handle, read it, write new bytes, close it."""
    api, size = p["api"], p["size"]
    data = bytes.fromhex(p["write"])
    out = bytearray(size)
    _init(api)
    if api == "driver":
        from cuda.bindings import driver
        h = driver.CUipcMemHandle()
        h.reserved = bytes.fromhex(p["handle"])
        ptr = ok(driver.cuIpcOpenMemHandle(h, driver.CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
        kind = type(ptr).__name__
        ok(driver.cuMemcpyDtoH(out, ptr, size))
        ok(driver.cuMemcpyHtoD(ptr, data, size))
        ok(driver.cuCtxSynchronize())
        ok(driver.cuIpcCloseMemHandle(ptr))
    else:
        from cuda.bindings import runtime
        h = runtime.cudaIpcMemHandle_t()
        h.reserved = bytes.fromhex(p["handle"])
        ptr = ok(runtime.cudaIpcOpenMemHandle(h, runtime.cudaIpcMemLazyEnablePeerAccess))
        kind = type(ptr).__name__
        D2H, H2D = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
        ok(runtime.cudaMemcpy(out, ptr, size, D2H))
        ok(runtime.cudaMemcpy(ptr, data, size, H2D))
        ok(runtime.cudaDeviceSynchronize())
        ok(runtime.cudaIpcCloseMemHandle(ptr))
    send(sock, {"read": bytes(out).hex(), "pointer_type": kind})


def _load(path, *names):
    from cuda.bindings import driver
    with open(path, "rb") as f:
        mod = ok(driver.cuModuleLoadData(f.read()))
    return mod, [ok(driver.cuModuleGetFunction(mod, n.encode())) for n in names]


def role_event_wait(sock, p):
    """Driver API. The parent recorded its event behind a kernel blocked on a host flag; here a
    stream waits on that event, then a kernel sets b[1] = b[0] + 1."""
    from cuda.bindings import driver
    _init("driver")
    eh = driver.CUipcEventHandle()
    eh.reserved = bytes.fromhex(p["event"])
    mh = driver.CUipcMemHandle()
    mh.reserved = bytes.fromhex(p["mem"])
    event = ok(driver.cuIpcOpenEventHandle(eh))
    buf = ok(driver.cuIpcOpenMemHandle(mh, driver.CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
    mod, (add_one,) = _load(p["cubin"], "add_one_from")
    stream = ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    ok(driver.cuStreamWaitEvent(stream, event, 0))
    ok(driver.cuLaunchKernel(add_one, 1, 1, 1, 1, 1, 1, 0, stream, ((int(buf),), (ctypes.c_void_p,)), 0))
    before = driver.cuEventQuery(event)[0]
    send(sock, {"queued": True, "query_before": before.name, "event_type": type(event).__name__})
    ok(driver.cuStreamSynchronize(stream))
    after = driver.cuEventQuery(event)[0]
    b = (ctypes.c_int32 * 2)()
    ok(driver.cuMemcpyDtoH(b, buf, 8))
    ok(driver.cuStreamDestroy(stream))
    ok(driver.cuModuleUnload(mod))
    ok(driver.cuIpcCloseMemHandle(buf))
    ok(driver.cuEventDestroy(event))
    send(sock, {"b": list(b), "query_after": after.name})


def role_event_record(sock, p):
    """Runtime API. Record the parent's event here, behind a kernel blocked on this process's host
    flag (it writes b[0] = 42 when released); release it when the parent says go."""
    from cuda.bindings import driver, runtime
    _init("runtime")
    eh = runtime.cudaIpcEventHandle_t()
    eh.reserved = bytes.fromhex(p["event"])
    mh = runtime.cudaIpcMemHandle_t()
    mh.reserved = bytes.fromhex(p["mem"])
    event = ok(runtime.cudaIpcOpenEventHandle(eh))
    buf = ok(runtime.cudaIpcOpenMemHandle(mh, runtime.cudaIpcMemLazyEnablePeerAccess))
    host = ok(runtime.cudaHostAlloc(4, runtime.cudaHostAllocMapped))
    flag = ctypes.c_int32.from_address(host)
    flag.value = 0
    flag_dev = ok(runtime.cudaHostGetDevicePointer(host, 0))
    mod, (wait_flag,) = _load(p["cubin"], "wait_flag")
    stream = ok(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    args = ((flag_dev, buf, 42, WAIT_TIMEOUT_NS), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64))
    ok(driver.cuLaunchKernel(wait_flag, 1, 1, 1, 1, 1, 1, 0, stream, args, 0))
    ok(runtime.cudaEventRecord(event, stream))
    send(sock, {"recorded": True, "event_type": type(event).__name__})
    msg, _ = recv(sock)
    assert msg.get("go"), msg
    flag.value = 1
    ok(runtime.cudaStreamSynchronize(stream))
    ok(runtime.cudaStreamDestroy(stream))
    ok(driver.cuModuleUnload(mod))
    ok(runtime.cudaFreeHost(host))
    ok(runtime.cudaIpcCloseMemHandle(buf))
    ok(runtime.cudaEventDestroy(event))
    send(sock, {"done": True})


def role_pool(sock, p, fds):
    """Import the parent's memory pool from the file descriptor that came with the message, then
    its allocation from the pointer's export data; read it, write new bytes, free, destroy."""
    api, size = p["api"], p["size"]
    data = bytes.fromhex(p["write"])
    out = bytearray(size)
    if len(fds) != 1:
        raise AssertionError(f"expected one file descriptor with the message, got {fds}")
    fd = fds[0]
    _init(api)
    if api == "driver":
        from cuda.bindings import driver
        pool = ok(driver.cuMemPoolImportFromShareableHandle(
            fd, driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0))
        os.close(fd)
        share = driver.CUmemPoolPtrExportData()
        share.reserved = bytes.fromhex(p["export"])
        ptr = ok(driver.cuMemPoolImportPointer(pool, share))
        kinds = [type(pool).__name__, type(ptr).__name__]
        ok(driver.cuMemcpyDtoH(out, ptr, size))
        ok(driver.cuMemcpyHtoD(ptr, data, size))
        ok(driver.cuCtxSynchronize())
        ok(driver.cuMemFree(ptr))
        ok(driver.cuMemPoolDestroy(pool))
    else:
        from cuda.bindings import runtime
        pool = ok(runtime.cudaMemPoolImportFromShareableHandle(
            fd, runtime.cudaMemAllocationHandleType.cudaMemHandleTypePosixFileDescriptor, 0))
        os.close(fd)
        share = runtime.cudaMemPoolPtrExportData()
        share.reserved = bytes.fromhex(p["export"])
        ptr = ok(runtime.cudaMemPoolImportPointer(pool, share))
        kinds = [type(pool).__name__, type(ptr).__name__]
        D2H, H2D = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
        ok(runtime.cudaMemcpy(out, ptr, size, D2H))
        ok(runtime.cudaMemcpy(ptr, data, size, H2D))
        ok(runtime.cudaDeviceSynchronize())
        ok(runtime.cudaFree(ptr))
        ok(runtime.cudaMemPoolDestroy(pool))
    send(sock, {"read": bytes(out).hex(), "types": kinds})


ROLES = {"mem": role_mem, "event_wait": role_event_wait, "event_record": role_event_record}


def main(argv):
    sock = socket.socket(fileno=int(argv[1]))
    try:
        msg, fds = recv(sock)
        role = msg.pop("role")
        if role == "pool":
            role_pool(sock, msg, fds)
        else:
            ROLES[role](sock, msg)
    except BaseException:
        try:
            send(sock, {"error": traceback.format_exc()})
        except OSError:
            pass
        print(traceback.format_exc(), file=sys.stderr)
        return 1
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
