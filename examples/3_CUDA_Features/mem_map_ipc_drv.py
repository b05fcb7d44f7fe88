"""Sharing device memory between processes with the virtual memory management API, port of the
CUDA sample memMapIPCDrv.

API area: exportable physical allocations and their import in other processes: cuMemCreate with
requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, cuMemExportToShareableHandle
(a file descriptor), cuMemImportFromShareableHandle, cuMemAddressReserve, cuMemMap,
cuMemSetAccess, cuMemUnmap, cuMemAddressFree, cuMemRelease; also cuCtxEnablePeerAccess between
the selected devices, cuModuleLoadDataEx with JIT options and
cuOccupancyMaxActiveBlocksPerMultiprocessor.

As in the sample, the parent picks the devices that support virtual memory management and POSIX
file descriptor handles and are peers of each other, creates one 4 MiB allocation per child
process on the first of them, and exports each as a file descriptor. The children are started
with multiprocessing's "spawn" method (a new interpreter, never a fork of a process that has used
CUDA); the file descriptors travel to them over a Unix domain socket (socket.send_fds, SCM_RIGHTS).
Each child imports every allocation, maps them one after the other into a range of its own
address space, and in step i fills buffer (i + id) % n with its id, all children stepping in
lock-step through a barrier; each then checks that its own buffer holds the id of the child after
it, the last writer. The sample runs one process per device; with PROCESSES_PER_DEVICE = 2 this
port runs two per device, so that a single GPU already shares memory between processes. Finally
the parent maps the allocations itself and checks every buffer.

Run: python examples/3_CUDA_Features/mem_map_ipc_drv.py
Exit status: 0 when every buffer holds what it should, 1 otherwise, 3 when no device supports
this kind of IPC (or there is no CUDA device).
"""
import ctypes
import multiprocessing
import os
import socket
import sys
import tempfile
import threading

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, requirement_not_met  # noqa: E402
from common import cu13  # noqa: E402
from common.drv_helpers import compute_capability, find_device  # noqa: E402
from cuda.bindings import driver  # noqa: E402

MAX_DEVICES = 32
PROCESSES_PER_DEVICE = 2
DATA_BUF_SIZE = 4 * 1024 * 1024
TIMEOUT = 120  # seconds any process waits for the others
IPC_HANDLE_TYPE = driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR

MEMMAP_IPC_KERNEL = b"""
// fill sz bytes at ptr with val (grid-stride loop)
extern "C" __global__ void memMapIpc_kernel(char *ptr, int sz, char val)
{
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < sz; idx += gridDim.x * blockDim.x)
        ptr[idx] = val;
}
"""


def mem_map_allocate_and_export_memory(backing_device, alloc_size, count):
    """memMapAllocateAndExportMemory: `count` allocations on backing_device, each exported as a
    file descriptor. Returns (allocation handles, file descriptors)."""
    prop = driver.CUmemAllocationProp()
    prop.type = driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = backing_device
    # ask for allocations that can be exported as POSIX file descriptors
    prop.requestedHandleTypes = IPC_HANDLE_TYPE

    granularity = check(driver.cuMemGetAllocationGranularity(
        prop, driver.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
    if alloc_size % granularity:
        raise SystemExit("Allocation size is not a multiple of minimum supported granularity for this device.")

    handles, fds = [], []
    for _ in range(count):
        handle = check(driver.cuMemCreate(alloc_size, prop, 0))
        handles.append(handle)
        fds.append(check(driver.cuMemExportToShareableHandle(handle, IPC_HANDLE_TYPE, 0)))
    return handles, fds


def mem_map_import_and_map_memory(d_ptr, map_size, fds, map_device):
    """memMapImportAndMapMemory: import each file descriptor, map it after the previous one,
    release the handle (the mapping keeps the memory), then give map_device access to all."""
    access = driver.CUmemAccessDesc()
    access.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    access.location.id = map_device
    access.flags = driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    for i, fd in enumerate(fds):
        # (void *)(uintptr_t)fd: the descriptor travels as the pointer's value
        handle = check(driver.cuMemImportFromShareableHandle(fd, IPC_HANDLE_TYPE))
        check(driver.cuMemMap(int(d_ptr) + i * map_size, map_size, 0, handle, 0))
        check(driver.cuMemRelease(handle))
    check(driver.cuMemSetAccess(d_ptr, len(fds) * map_size, [access], 1))


def map_handles(d_ptr, map_size, handles, map_device):
    """The parent's mapping of its own allocation handles, for its check."""
    access = driver.CUmemAccessDesc()
    access.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    access.location.id = map_device
    access.flags = driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    for i, handle in enumerate(handles):
        check(driver.cuMemMap(int(d_ptr) + i * map_size, map_size, 0, handle, 0))
    check(driver.cuMemSetAccess(d_ptr, len(handles) * map_size, [access], 1))


def mem_map_unmap_and_free_memory(d_ptr, size):
    check(driver.cuMemUnmap(d_ptr, size))
    check(driver.cuMemAddressFree(d_ptr, size))


def mem_map_get_device_function(dev):
    """Compile the kernel to PTX and JIT it with cuModuleLoadDataEx, as the sample loads its PTX:
    with an info log buffer and at most 32 registers."""
    major, minor = compute_capability(dev)
    ptx = compile_source(MEMMAP_IPC_KERNEL, f"{major}{minor}", fmt="ptx", name=b"memMapIpc_kernel.cu")
    jit_log_buffer_size = 1024
    jit_log_buffer = bytearray(jit_log_buffer_size)
    jit = driver.CUjit_option
    options = [jit.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, jit.CU_JIT_INFO_LOG_BUFFER, jit.CU_JIT_MAX_REGISTERS]
    values = [jit_log_buffer_size, jit_log_buffer, 32]
    module = check(driver.cuModuleLoadDataEx(ptx, len(options), options, values))
    log = bytes(jit_log_buffer).split(b"\0", 1)[0].decode(errors="replace")
    return module, check(driver.cuModuleGetFunction(module, b"memMapIpc_kernel")), log


def child_process(dev_id, proc_id, proc_count, socket_path, start_barrier, step_barrier):
    """childProcess: runs in a spawned interpreter. Exits 0 when its buffer checks out."""
    threads = 128
    check(driver.cuInit(0))
    # connect first: the parent accepts once every child has checked in at the barrier
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(TIMEOUT)
    sock.connect(socket_path)
    start_barrier.wait(TIMEOUT)

    # receive all the allocations' file descriptors shared by the parent
    _msg, fds, _flags, _addr = socket.recv_fds(sock, 16, proc_count)
    if len(fds) != proc_count:
        print(f"Process {proc_id}: received {len(fds)} file descriptors, expected {proc_count}")
        sys.exit(1)

    device = check(driver.cuDeviceGet(dev_id))
    ctx = check(cu13.cuCtxCreate(driver.CUctxCreateParams(), 0, device))
    stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    module, kernel, _log = mem_map_get_device_function(device)

    blocks = check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel, threads, 0))
    blocks *= check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device))

    # reserve the virtual addresses for all the allocations, then import and map them there
    d_ptr = check(driver.cuMemAddressReserve(proc_count * DATA_BUF_SIZE, DATA_BUF_SIZE, 0, 0))
    mem_map_import_and_map_memory(d_ptr, DATA_BUF_SIZE, fds, dev_id)

    # imported: the file descriptors and the socket are no longer needed
    for fd in fds:
        os.close(fd)
    sock.close()

    for i in range(proc_count):
        buffer_id = (i + proc_id) % proc_count
        ptr = driver.CUdeviceptr(int(d_ptr) + buffer_id * DATA_BUF_SIZE)
        args = ((ptr, DATA_BUF_SIZE, proc_id), (None, ctypes.c_int, ctypes.c_byte))
        check(driver.cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, stream, args, None))
        check(driver.cuStreamSynchronize(stream))
        # every sibling has pushed this step's work before any goes on: the data is deterministic
        step_barrier.wait(TIMEOUT)
        if proc_id == 0:
            print(f"Step {i} done", flush=True)

    print(f"Process {proc_id}: verifying...", flush=True)
    verification_buffer = np.empty(DATA_BUF_SIZE, dtype=np.int8)
    check(driver.cuMemcpyDtoHAsync(verification_buffer, int(d_ptr) + proc_id * DATA_BUF_SIZE,
                                   DATA_BUF_SIZE, stream))
    check(driver.cuStreamSynchronize(stream))
    # the last step's writer of my buffer is the sibling just after me
    compare_id = (proc_id + 1) % proc_count
    bad = np.flatnonzero(verification_buffer != compare_id)
    if bad.size:
        j = int(bad[0])
        print(f"Process {proc_id}: Verification mismatch at {j}: {int(verification_buffer[j])} != {compare_id}")

    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    # unmapping frees the imported memory: its handles were released after mapping
    mem_map_unmap_and_free_memory(d_ptr, proc_count * DATA_BUF_SIZE)
    check(driver.cuCtxDestroy(ctx))
    sys.exit(1 if bad.size else 0)


def select_devices():
    """The parent's device selection: VMM and POSIX file descriptor handles supported, default
    compute mode, and peer access with every device selected before."""
    dev_count = check(driver.cuDeviceGetCount())
    devices = [check(driver.cuDeviceGet(i)) for i in range(dev_count)]
    attr = driver.CUdevice_attribute
    ctxs: list[driver.CUcontext] = []
    selected: list[int] = []
    for i, dev in enumerate(devices):
        compute_mode = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev))
        vmm = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED, dev))
        ipc = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev))
        if not vmm:
            print(f"Device {i} doesn't support VIRTUAL ADDRESS MANAGEMENT.")
            continue
        if compute_mode != driver.CUcomputemode.CU_COMPUTEMODE_DEFAULT:
            print(f"Device {i} is in an unsupported compute mode for this sample")
            continue
        if not ipc:
            print(f"Device {i} does not support requested handle type for IPC, skipping...")
            continue
        all_peers = all(check(driver.cuDeviceCanAccessPeer(devices[j], dev))
                        and check(driver.cuDeviceCanAccessPeer(dev, devices[j])) for j in selected)
        if not all_peers:
            print(f"Device {i} is not peer capable with some other selected peers, skipping")
            continue
        ctx = check(cu13.cuCtxCreate(driver.CUctxCreateParams(), 0, dev))
        # enabling peer access is not needed for IPC, but sets the peers up
        for other in ctxs:
            check(driver.cuCtxSetCurrent(ctx))
            check(driver.cuCtxEnablePeerAccess(other, 0))
            check(driver.cuCtxSetCurrent(other))
            check(driver.cuCtxEnablePeerAccess(ctx, 0))
        ctxs.append(ctx)
        selected.append(i)
        if len(selected) >= MAX_DEVICES:
            break
    for ctx in ctxs:
        check(driver.cuCtxDestroy(ctx))
    return selected


def send_shareable_handles(listener, fds, nprocesses):
    """ipcSendShareableHandles: every child gets every file descriptor (SCM_RIGHTS)."""
    for _ in range(nprocesses):
        conn, _ = listener.accept()
        with conn:
            socket.send_fds(conn, [b"memmap_ipc"], fds)


def parent_process():
    find_device(0)  # cuInit; exits with "requirement not met" without a device
    selected = select_devices()
    if not selected:
        print("No CUDA devices support IPC")
        requirement_not_met("no device supports virtual memory management with POSIX file descriptor handles")
    proc_devices = [d for d in selected for _ in range(PROCESSES_PER_DEVICE)]
    nprocesses = len(proc_devices)
    first = selected[0]
    print(f"Devices {selected}: {nprocesses} processes, {PROCESSES_PER_DEVICE} per device")

    # a context for the parent's own allocations and its check at the end
    first_dev = check(driver.cuDeviceGet(first))
    parent_ctx = check(driver.cuDevicePrimaryCtxRetain(first_dev))
    check(driver.cuCtxSetCurrent(parent_ctx))
    handles, fds = mem_map_allocate_and_export_memory(first, DATA_BUF_SIZE, nprocesses)

    mp = multiprocessing.get_context("spawn")
    start_barrier = mp.Barrier(nprocesses + 1)
    step_barrier = mp.Barrier(nprocesses)
    with tempfile.TemporaryDirectory(prefix="memmap_ipc_") as tmp:
        socket_path = os.path.join(tmp, "memmap_ipc_pipe")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(socket_path)
        listener.listen(nprocesses)
        listener.settimeout(TIMEOUT)

        processes = [mp.Process(target=child_process,
                                args=(dev_id, i, nprocesses, socket_path, start_barrier, step_barrier))
                     for i, dev_id in enumerate(proc_devices)]
        for p in processes:
            p.start()

        shared = False
        try:
            # every child is connected and waiting for the handles
            start_barrier.wait(TIMEOUT)
            send_shareable_handles(listener, fds, nprocesses)
            shared = True
        except (threading.BrokenBarrierError, OSError) as e:
            print(f"Sharing the handles failed: {e!r}")
        listener.close()
        # the children hold their own copies now
        for fd in fds:
            os.close(fd)

        exit_codes = []
        for p in processes:
            p.join(TIMEOUT)
            if p.is_alive():
                p.terminate()
                p.join()
            exit_codes.append(p.exitcode)
    ok = shared and all(code == 0 for code in exit_codes)
    for i, code in enumerate(exit_codes):
        if code != 0:
            print(f"Process {i} failed! (exit code {code})")

    # the parent's check: map the allocations here too and read every buffer
    d_ptr = check(driver.cuMemAddressReserve(nprocesses * DATA_BUF_SIZE, DATA_BUF_SIZE, 0, 0))
    map_handles(d_ptr, DATA_BUF_SIZE, handles, first)
    host = np.empty(nprocesses * DATA_BUF_SIZE, dtype=np.int8)
    check(driver.cuMemcpyDtoH(host, d_ptr, host.nbytes))
    mem_map_unmap_and_free_memory(d_ptr, nprocesses * DATA_BUF_SIZE)
    expected = np.repeat((np.arange(nprocesses) + 1) % nprocesses, DATA_BUF_SIZE).astype(np.int8)
    parent_ok = bool(np.array_equal(host, expected))
    print(f"Parent: every buffer holds the id of its last writer: {'ok' if parent_ok else 'WRONG'}")

    for handle in handles:
        check(driver.cuMemRelease(handle))
    check(driver.cuCtxSetCurrent(None))
    check(driver.cuDevicePrimaryCtxRelease(first_dev))
    ok = ok and parent_ok
    print("memMapIPCDrv: " + ("PASSED" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(parent_process())
