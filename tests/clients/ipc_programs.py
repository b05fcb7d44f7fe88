"""cuda.core's interprocess memory and events, in spawned child processes (a GPU is needed).

cuda.core 1.2 shares device memory between processes through an IPC-enabled memory pool
(DeviceMemoryResource with DeviceMemoryResourceOptions(ipc_enabled=True)): the pool travels as a
file descriptor (IPCAllocationHandle), a buffer as an IPCBufferDescriptor, and multiprocessing
pickles both for it; events made with EventOptions(ipc_enabled=True) travel as an
IPCEventDescriptor. Underneath are cuMemPoolExportToShareableHandle, cuMemPoolImportFromShareableHandle,
cuMemPoolExportPointer, cuMemPoolImportPointer, cuIpcGetEventHandle and cuIpcOpenEventHandle,
reached through our cydriver C-API.

    python -m tests.clients.ipc_programs [--gpu] [NAME ...]

prints, as tests/clients/programs.py does, one JSON line with the cuda.bindings in use, then one per
program: {"name": ..., "ok": true|false, "error": "..."}. Without --gpu nothing runs (every program
needs a device). Children are started with multiprocessing's 'spawn' method: fresh interpreters
that import the same cuda.bindings (PYTHONPATH is inherited).
"""
import ctypes
import json
import multiprocessing
import struct
import sys
import traceback

PROGRAMS = []          # (name, needs_gpu, function)
TIMEOUT_S = 120
SIZE = 1 << 20

KERNELS = r'''
extern "C" __global__ void wait_flag(volatile int *flag, int *out, int value, unsigned long long timeout_ns)
{
    // one thread: store value once the host sets *flag, -1 if it never does
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
'''


def program(fn):
    PROGRAMS.append((fn.__name__, True, fn))
    return fn


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def _device():
    from cuda.core import Device
    dev = Device(0)
    dev.set_current()
    return dev


def _host_bytes(dev, stream, buf):
    """The bytes of a device buffer, through a pinned host buffer."""
    from cuda.core import LegacyPinnedMemoryResource
    host = LegacyPinnedMemoryResource().allocate(buf.size)
    buf.copy_to(host, stream=stream)
    stream.sync()
    data = ctypes.string_at(int(host.handle), buf.size)
    host.close()
    return data


def _kernel(dev, name):
    from cuda.core import Program, ProgramOptions
    return Program(KERNELS, "c++", ProgramOptions(arch=f"sm_{dev.arch}")).compile("cubin").get_kernel(name)


def _ipc_pool(dev):
    from cuda.core import DeviceMemoryResource, DeviceMemoryResourceOptions
    mr = DeviceMemoryResource(dev, DeviceMemoryResourceOptions(ipc_enabled=True))
    check(mr.is_ipc_enabled and not mr.is_mapped, "an IPC-enabled pool of this process")
    return mr


def _run_child(target, *args):
    """Run target(queue, *args) in a spawned process; returns what it put on the queue."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(queue, *args))
    proc.start()
    try:
        reply = queue.get(timeout=TIMEOUT_S)
    finally:
        proc.join(TIMEOUT_S)
        if proc.is_alive():
            proc.kill()
    check(proc.exitcode == 0, f"the child exited with {proc.exitcode}: {reply}")
    check(reply.get("ok"), f"the child failed: {reply.get('error')}")
    return reply


def _report(queue, fn):
    try:
        queue.put(dict(fn(), ok=True))
    except BaseException as e:
        queue.put({"ok": False, "error": f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-4)}"})


# --- a buffer sent as is --------------------------------------------------------------------------------


PARENT_WORD = struct.pack("<I", 0x1234ABCD)
CHILD_WORD = struct.pack("<I", 0x5EED0001)


def _child_rewrites_buffer(queue, buf):
    def work():
        dev = _device()
        s = dev.create_stream()
        check(buf.is_mapped, "the buffer arrived mapped from the parent's pool")
        seen = _host_bytes(dev, s, buf)
        buf.fill(CHILD_WORD, stream=s)
        s.sync()
        return {"seen_parent_bytes": seen == PARENT_WORD * (buf.size // 4), "size": buf.size}
    _report(queue, work)


@program
def core_ipc_buffer_sent_to_a_spawned_child():
    """A Buffer of an IPC-enabled pool passed to multiprocessing as it is: the child maps the pool
    and the buffer, reads the parent's bytes, writes its own; the parent reads those."""
    dev = _device()
    s = dev.create_stream()
    mr = _ipc_pool(dev)
    buf = mr.allocate(SIZE, stream=s)
    buf.fill(PARENT_WORD, stream=s)
    s.sync()
    reply = _run_child(_child_rewrites_buffer, buf)
    check(reply["size"] == SIZE and reply["seen_parent_bytes"], f"the child saw the parent's bytes: {reply}")
    check(_host_bytes(dev, s, buf) == CHILD_WORD * (SIZE // 4), "the parent sees the child's bytes")
    buf.close(s)
    mr.close()


# --- the pool's handle and the buffer's descriptor, used by hand -----------------------------------------


def _child_imports_by_hand(queue, alloc_handle, descriptor):
    def work():
        from cuda.core import Buffer, DeviceMemoryResource
        dev = _device()
        s = dev.create_stream()
        mmr = DeviceMemoryResource.from_allocation_handle(dev, alloc_handle)
        check(mmr.is_mapped, "a pool imported from a handle is a mapped one")
        buf = Buffer.from_ipc_descriptor(mmr, descriptor, stream=s)
        seen = _host_bytes(dev, s, buf)
        buf.fill(CHILD_WORD, stream=s)
        s.sync()
        buf.close(s)
        mmr.close()
        return {"seen_parent_bytes": seen == PARENT_WORD * (descriptor.size // 4)}
    _report(queue, work)


@program
def core_ipc_allocation_handle_and_buffer_descriptor():
    """The pool's allocation handle (a file descriptor, duplicated into the child by multiprocessing)
    and the buffer's IPC descriptor: DeviceMemoryResource.from_allocation_handle and
    Buffer.from_ipc_descriptor in the child."""
    dev = _device()
    s = dev.create_stream()
    mr = _ipc_pool(dev)
    buf = mr.allocate(SIZE, stream=s)
    buf.fill(PARENT_WORD, stream=s)
    s.sync()
    handle = mr.allocation_handle
    check(int(handle) >= 0 and not handle.is_closed, f"the pool's handle is a file descriptor: {int(handle)}")
    descriptor = buf.ipc_descriptor
    check(descriptor.size == SIZE, f"the descriptor's size {descriptor.size}")
    reply = _run_child(_child_imports_by_hand, handle, descriptor)
    check(reply["seen_parent_bytes"], "the child saw the parent's bytes")
    check(_host_bytes(dev, s, buf) == CHILD_WORD * (SIZE // 4), "the parent sees the child's bytes")
    buf.close(s)
    mr.close()


# --- an event across processes ---------------------------------------------------------------------------


def _child_waits_on_event(queue, descriptor, buf, back):
    def work():
        import numpy as np
        from cuda.core import Event, LaunchConfig, launch
        dev = _device()
        s = dev.create_stream()
        event = Event.from_ipc_descriptor(descriptor)
        check(event.is_ipc_enabled, "the imported event is an IPC event")
        k = _kernel(dev, "add_one_from")
        s.wait(event)
        launch(s, LaunchConfig(grid=1, block=1), k, buf)
        back.put({"queued": True, "event_done_before": event.is_done})
        s.sync()
        b = np.frombuffer(_host_bytes(dev, s, buf)[:8], dtype=np.int32)
        return {"b": b.tolist()}
    _report(queue, work)


@program
def core_ipc_event_orders_work_across_processes():
    """The parent queues a kernel blocked on a host flag (it then writes b[0] = 42) and records an
    IPC event behind it; the child's stream waits on the imported event before b[1] = b[0] + 1.
    The parent releases the flag only once the child has queued its work: b == [42, 43]."""
    import numpy as np
    from cuda.core import EventOptions, LaunchConfig, LegacyPinnedMemoryResource, launch
    dev = _device()
    s = dev.create_stream()
    mr = _ipc_pool(dev)
    buf = mr.allocate(64, stream=s)
    buf.fill(0, stream=s)
    flag_buf = LegacyPinnedMemoryResource().allocate(4)
    flag = ctypes.c_int32.from_address(int(flag_buf.handle))
    flag.value = 0
    k = _kernel(dev, "wait_flag")
    launch(s, LaunchConfig(grid=1, block=1), k, flag_buf, buf, np.int32(42), np.uint64(30_000_000_000))
    event = s.record(options=EventOptions(ipc_enabled=True))   # cuda.core makes an IPC event bound to a stream
    check(event.is_ipc_enabled and not event.is_done, "an IPC event behind the blocked kernel")

    ctx = multiprocessing.get_context("spawn")
    queue, back = ctx.Queue(), ctx.Queue()
    proc = ctx.Process(target=_child_waits_on_event, args=(queue, event.ipc_descriptor, buf, back))
    proc.start()
    try:
        queued = back.get(timeout=TIMEOUT_S)
        # (the imported event's is_done reads True in the child under either package while the
        # parent's kernel still blocks: the order is proven by the values, b[1] = b[0] + 1 = 43)
        check(queued.get("queued"), f"the child queued its work: {queued}")
        import time
        time.sleep(0.5)                   # a child kernel that did not wait would have run by now
    finally:
        flag.value = 1
        try:
            reply = queue.get(timeout=TIMEOUT_S)
        finally:
            proc.join(TIMEOUT_S)
            if proc.is_alive():
                proc.kill()
    s.sync()
    check(reply.get("ok"), f"the child failed: {reply.get('error')}")
    check(reply["b"] == [42, 43], f"the child's kernel did not wait for the parent's event: {reply['b']}")
    buf.close(s)
    flag_buf.close()
    mr.close()


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    gpu = "--gpu" in args
    names = [a for a in args if not a.startswith("--")]
    import cuda.bindings
    print(json.dumps({"cuda.bindings": cuda.bindings.__file__, "version": cuda.bindings.__version__}), flush=True)
    failed = 0
    for name, needs_gpu, fn in PROGRAMS:
        if (names and name not in names) or (needs_gpu and not gpu):
            continue
        try:
            fn()
        except BaseException as e:
            failed += 1
            print(json.dumps({"name": name, "ok": False, "error": f"{type(e).__name__}: {e}"[:2000],
                              "traceback": traceback.format_exc(limit=-3)[-3000:]}), flush=True)
        else:
            print(json.dumps({"name": name, "ok": True}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    # run the functions from the module under its own name, so that the children (which import it
    # by that name) find what the parent pickled
    from tests.clients import ipc_programs
    sys.exit(ipc_programs.main())
