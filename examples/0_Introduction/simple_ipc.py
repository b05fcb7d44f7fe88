"""Interprocess communication: processes on one or more GPUs work on device buffers another process
allocated, port of the CUDA sample simpleIPC.

The parent picks every device with unified addressing, in the default compute mode and able to
access the memory of the devices already picked (peer access is enabled between them), allocates a
64 MiB buffer and an interprocess event on each, and writes their IPC handles
(cudaIpcGetMemHandle, cudaIpcGetEventHandle) into a shared-memory block (a file in /dev/shm,
mapped). Then it starts one child process per device (this script again, with the child's index).
Each child opens every buffer and event (cudaIpcOpenMemHandle, cudaIpcOpenEventHandle; the
handles are read in place, as views of the shared memory) and, in as many steps as there are
processes, fills the next buffer round the ring with its index: its stream waits on the buffer's
event, a kernel writes, the event is recorded again; a barrier in the shared memory (atomic counts
through GCC's libatomic) keeps the processes in step. At the end each child checks that its own
buffer holds the index of the process after it.

Two additions to the C sample: with a single usable device two children run on it (with one, the
last writer of a buffer would be the process that checks it); and the parent, once the children
are done, copies every buffer back and checks it too, seeing the bytes other processes wrote.

Exit status: 0 on a correct result, 1 on a wrong one or a failed child, 3 when there is no CUDA
device able to share memory this way (none, or none with unified addressing in the default compute
mode), the system is not Linux, or libatomic is missing.
"""
import ctypes
import mmap
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, requirement_not_met  # noqa: E402
from common.toolkit import HostAtomics, rt_check, runtime_device_count  # noqa: E402
from cuda.bindings import driver, runtime  # noqa: E402

SHM_NAME = "simpleIPCshm"
# For direct NVLink and PCIe peers at most 8 peers at a time are possible; NVSwitch systems have
# no such limit.
MAX_DEVICES = 32
DATA_SIZE = 64 << 20                 # 64 MiB per buffer
IPC_HANDLE_SIZE = 64                 # cudaIpcMemHandle_t and cudaIpcEventHandle_t: 64 opaque bytes
BARRIER_TIMEOUT_S = 120.0            # a process missing from the barrier this long is an error
CHILD_TIMEOUT_S = 300.0

SIMPLE_KERNEL = b"""
extern "C" __global__ void simpleKernel(char *ptr, int sz, char val)
{
    // every thread of the grid strides over the whole buffer
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < sz; i += stride)
        ptr[i] = val;
}
"""


class ShmStruct(ctypes.Structure):
    """The block the processes share: who runs where, the barrier, every buffer's and event's
    IPC handle."""
    _fields_ = [
        ("nprocesses", ctypes.c_size_t),
        ("barrier", ctypes.c_int),
        ("sense", ctypes.c_int),
        ("devices", ctypes.c_int * MAX_DEVICES),
        ("memHandle", (ctypes.c_char * IPC_HANDLE_SIZE) * MAX_DEVICES),
        ("eventHandle", (ctypes.c_char * IPC_HANDLE_SIZE) * MAX_DEVICES),
    ]


def mem_handle_address(shm, i):
    return ctypes.addressof(shm) + ShmStruct.memHandle.offset + i * IPC_HANDLE_SIZE


def event_handle_address(shm, i):
    return ctypes.addressof(shm) + ShmStruct.eventHandle.offset + i * IPC_HANDLE_SIZE


class SharedMemory:
    """The sample's sharedMemoryCreate / sharedMemoryOpen on Linux: a named file in /dev/shm
    (the temporary folder where there is none), mapped into the process."""

    def __init__(self, name, size, create):
        folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
        self.path = os.path.join(folder, name)
        self.owner = create
        fd = os.open(self.path, os.O_RDWR | (os.O_CREAT | os.O_EXCL if create else 0), 0o600)
        try:
            if create:
                os.ftruncate(fd, size)
            self.map = mmap.mmap(fd, size)
        finally:
            os.close(fd)

    def close(self):
        try:
            self.map.close()
        except BufferError:          # a view of it is still alive (an error on the way): unmapped at exit
            pass
        if self.owner:
            os.unlink(self.path)


def barrier_wait(atomics, shm, n):
    """A sense-reversing barrier of n processes on two ints of the shared block."""
    barrier = ctypes.addressof(shm) + ShmStruct.barrier.offset
    sense = ctypes.addressof(shm) + ShmStruct.sense.offset
    deadline = time.monotonic() + BARRIER_TIMEOUT_S

    def spin_while(value):
        while atomics.load_u32(sense) == value:
            if time.monotonic() > deadline:
                raise TimeoutError(f"barrier: a process did not arrive in {BARRIER_TIMEOUT_S:.0f} s")
            time.sleep(0)

    # check in
    count = atomics.fetch_add(barrier, 1) + 1
    if count == n:                   # last one in
        atomics.exchange(sense, 1)
    spin_while(0)
    # check out
    count = atomics.fetch_sub(barrier, 1) - 1
    if count == 0:                   # last one out
        atomics.exchange(sense, 0)
    spin_while(1)


def child_process(id):
    atomics = HostAtomics.load()
    if atomics is None:
        requirement_not_met("GCC's libatomic (libatomic.so.1), used for the barrier between processes")
    threads = 128
    ppid = os.getppid()
    lshm_name = f"{SHM_NAME}{ppid}"
    print(f"CP: lshmName = {lshm_name}")
    try:
        info = SharedMemory(lshm_name, ctypes.sizeof(ShmStruct), create=False)
    except OSError as e:
        print(f"Failed to open the shared memory block: {e}")
        return 1
    shm = ShmStruct.from_buffer(info.map)
    proc_count = int(shm.nprocesses)
    device = int(shm.devices[id])

    print(f"Process {id}: Starting on device {device}...")

    rt_check(runtime.cudaSetDevice(device))
    rt_check(runtime.cudaFree(0))            # the primary context, current for the driver calls too
    prop = rt_check(runtime.cudaGetDeviceProperties(device))
    stream = rt_check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    module = check(driver.cuModuleLoadData(compile_source(SIMPLE_KERNEL, f"{prop.major}{prop.minor}",
                                                          name=b"simpleIPC.cu")))
    kernel = check(driver.cuModuleGetFunction(module, b"simpleKernel"))
    blocks = check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel, threads, 0))
    blocks *= prop.multiProcessorCount

    # Open and keep every allocation and event the parent made. The handles are read in place:
    # each handle object is a view of its 64 bytes in the shared block.
    ptrs, events = [], []
    for i in range(proc_count):
        # no peer access needs enabling for allocations on other devices
        mem_handle = runtime.cudaIpcMemHandle_t(_ptr=mem_handle_address(shm, i))
        ptrs.append(rt_check(runtime.cudaIpcOpenMemHandle(mem_handle, runtime.cudaIpcMemLazyEnablePeerAccess)))
        event_handle = runtime.cudaIpcEventHandle_t(_ptr=event_handle_address(shm, i))
        events.append(rt_check(runtime.cudaIpcOpenEventHandle(event_handle)))

    # In each step every process works on the next buffer round the ring (buffers the parent made,
    # possibly on other devices). The stream waits on the buffer's event for the work already
    # queued on it by another process, writes, and records the event for the next one; the CPU
    # goes on queueing.
    for i in range(proc_count):
        buffer_id = (i + id) % proc_count
        # wait for the buffer to be ready
        rt_check(runtime.cudaStreamWaitEvent(stream, events[buffer_id], 0))
        # the kernel writes this process's index into it
        args = ((ptrs[buffer_id], DATA_SIZE, id), (ctypes.c_void_p, ctypes.c_int, ctypes.c_byte))
        check(driver.cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, stream, args, 0))
        # the buffer is ready for the next process after this work
        rt_check(runtime.cudaEventRecord(events[buffer_id], stream))
        # every process queues this step before any goes on, so none races ahead and records an
        # event before another waited on its previous record
        barrier_wait(atomics, shm, proc_count)
        if id == 0:
            print(f"Step {i} done")

    # wait for my own buffer, copy it here and check it
    verification = np.empty(DATA_SIZE, dtype=np.int8)
    rt_check(runtime.cudaStreamWaitEvent(stream, events[id], 0))
    rt_check(runtime.cudaMemcpyAsync(verification, ptrs[id], DATA_SIZE,
                                     runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
    # and for everything queued
    rt_check(runtime.cudaStreamSynchronize(stream))

    print(f"Process {id}: verifying...")
    # the last writer of my buffer is the process after me
    compare_id = (id + 1) % proc_count
    mismatches = np.flatnonzero(verification != compare_id)
    for j in mismatches[:10]:
        print(f"Process {id}: Verification mismatch at {j}: {verification[j]} != {compare_id}")

    for i in range(proc_count):
        rt_check(runtime.cudaIpcCloseMemHandle(ptrs[i]))
        rt_check(runtime.cudaEventDestroy(events[i]))
    rt_check(runtime.cudaStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    del shm
    info.close()

    print(f"Process {id} complete!")
    return 0 if mismatches.size == 0 else 1


def parent_process():
    if not sys.platform.startswith("linux"):
        requirement_not_met("this port shares memory through /dev/shm and spawns processes the Linux way")
    if HostAtomics.load() is None:
        requirement_not_met("GCC's libatomic (libatomic.so.1), used for the barrier between processes")
    pid = os.getpid()
    lshm_name = f"{SHM_NAME}{pid}"
    print(f"PP: lshmName = {lshm_name}")

    dev_count = runtime_device_count(1)

    info = SharedMemory(lshm_name, ctypes.sizeof(ShmStruct), create=True)
    try:
        return run_parent(info, dev_count)
    finally:
        info.close()


def run_parent(info, dev_count):
    shm = ShmStruct.from_buffer(info.map)
    ctypes.memset(ctypes.addressof(shm), 0, ctypes.sizeof(ShmStruct))

    # Every device that can access the memory of all those picked before it. The children are
    # new processes (started with exec, never forked), so CUDA being initialised here is fine.
    for i in range(dev_count):
        prop = rt_check(runtime.cudaGetDeviceProperties(i))
        # CUDA IPC needs unified addressing
        if not prop.unifiedAddressing:
            print(f"Device {i} does not support unified addressing, skipping...")
            continue
        # two processes use each device (this one and a child): no exclusive or prohibited mode
        mode = rt_check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeMode, i))
        if mode != runtime.cudaComputeMode.cudaComputeModeDefault:
            print(f"Device {i} is in an unsupported compute mode for this sample")
            continue

        all_peers = True
        for j in range(shm.nprocesses):
            can_access_peer_ji = rt_check(runtime.cudaDeviceCanAccessPeer(shm.devices[j], i))
            can_access_peer_ij = rt_check(runtime.cudaDeviceCanAccessPeer(i, shm.devices[j]))
            if not can_access_peer_ij or not can_access_peer_ji:
                all_peers = False
                break
        if all_peers:
            # Not needed for IPC, but it sets the peers up; where a GPU allows only 8 peers at a
            # time, this takes devices out of cudaDeviceCanAccessPeer for the later ones.
            for j in range(shm.nprocesses):
                rt_check(runtime.cudaSetDevice(i))
                rt_check(runtime.cudaDeviceEnablePeerAccess(shm.devices[j], 0))
                rt_check(runtime.cudaSetDevice(shm.devices[j]))
                rt_check(runtime.cudaDeviceEnablePeerAccess(i, 0))
            shm.devices[shm.nprocesses] = i
            shm.nprocesses += 1
            if shm.nprocesses >= MAX_DEVICES:
                break
        else:
            print(f"Device {i} is not peer capable with some other selected peers, skipping")

    if shm.nprocesses == 0:
        del shm
        requirement_not_met("no CUDA device supports IPC (unified addressing, default compute mode)")
    if shm.nprocesses == 1:
        print(f"One device takes part: two processes run on device {shm.devices[0]}")
        shm.devices[1] = shm.devices[0]
        shm.nprocesses = 2
    nprocesses = int(shm.nprocesses)

    # a buffer and an event per process, their handles into the shared block
    ptrs, events = [], []
    for i in range(nprocesses):
        rt_check(runtime.cudaSetDevice(shm.devices[i]))
        ptr = rt_check(runtime.cudaMalloc(DATA_SIZE))
        mem_handle = rt_check(runtime.cudaIpcGetMemHandle(ptr))
        ctypes.memmove(mem_handle_address(shm, i), mem_handle.getPtr(), IPC_HANDLE_SIZE)
        event = rt_check(runtime.cudaEventCreateWithFlags(runtime.cudaEventDisableTiming
                                                          | runtime.cudaEventInterprocess))
        event_handle = rt_check(runtime.cudaIpcGetEventHandle(event))
        ctypes.memmove(event_handle_address(shm, i), event_handle.getPtr(), IPC_HANDLE_SIZE)
        ptrs.append(ptr)
        events.append(event)

    # start the children: this script again, with the child's index
    sys.stdout.flush()
    processes = []
    for i in range(nprocesses):
        processes.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), str(i)]))

    # and wait for them
    failed = []
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    for i, process in enumerate(processes):
        try:
            rc = process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            rc = process.wait()
        if rc != 0:
            print(f"Process {i} failed! (exit status {rc})")
            failed.append(i)

    # Clean up, checking on the way what the children left in each buffer: buffer i was last
    # written by process i + 1 (round the ring).
    wrong = 0
    host = np.empty(DATA_SIZE, dtype=np.int8)
    for i in range(nprocesses):
        rt_check(runtime.cudaSetDevice(shm.devices[i]))
        rt_check(runtime.cudaEventSynchronize(events[i]))
        if not failed:
            rt_check(runtime.cudaMemcpy(host, ptrs[i], DATA_SIZE, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
            bad = int(np.count_nonzero(host != (i + 1) % nprocesses))
            print(f"Parent: buffer {i} on device {shm.devices[i]} holds {host[0]} "
                  f"({bad} byte(s) differ from {(i + 1) % nprocesses})")
            wrong += bad
        rt_check(runtime.cudaEventDestroy(events[i]))
        rt_check(runtime.cudaFree(ptrs[i]))
    del shm

    good = not failed and wrong == 0
    print(f"{nprocesses} processes: {'Test passed' if good else 'WRONG RESULT'}")
    return 0 if good else 1


def main():
    if len(sys.argv) == 1:
        return parent_process()
    return child_process(int(sys.argv[1]))


if __name__ == "__main__":
    sys.exit(main())
