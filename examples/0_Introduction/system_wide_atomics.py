"""System-wide atomics: the GPU and the CPU update the same words of managed memory at the same
time, port of the CUDA sample systemWideAtomics.

A kernel applies atomicAdd_system, atomicExch_system, atomicMax_system, atomicMin_system,
atomicInc_system, atomicDec_system, atomicCAS_system, atomicAnd_system, atomicOr_system and
atomicXor_system to ten integers in memory from cudaMallocManaged; while it runs, the host applies
the same operations to the same integers with its own atomic instructions (GCC's libatomic, called
through ctypes). The final values are checked against what every operation of both sides together
must give. Where the device can also access pageable host memory, the test is repeated on a plain
numpy array (the sample's USE_HMM variant).

Exit status: 0 on a correct result, 1 on a wrong one, 3 when there is no CUDA device, the device
cannot access managed memory concurrently with the CPU, or libatomic is missing.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import (check, compile_source, device_arch, release_device,  # noqa: E402
                    requirement_not_met, select_device)
from common.toolkit import HostAtomics, host_array, rt_check  # noqa: E402
from cuda.bindings import driver, runtime  # noqa: E402

NUM_BLOCKS = 64
NUM_THREADS = 256
HOST_LOOPS = 2000

INC_LIMIT = 17
DEC_LIMIT = 137
MIN_START = 1 << 30
HOST_EXCH_BASE = 1_000_000

ATOMIC_KERNEL = b"""
#define INC_LIMIT 17
#define DEC_LIMIT 137

extern "C" __global__ void atomicKernel(int *atom_arr)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;

    atomicAdd_system(&atom_arr[0], 10);                         // sum
    atomicExch_system(&atom_arr[1], (int)tid);                  // any one of the values written
    atomicMax_system(&atom_arr[2], (int)tid);                   // maximum
    atomicMin_system(&atom_arr[3], (int)tid + 100);             // minimum
    atomicInc_system((unsigned int *)&atom_arr[4], INC_LIMIT);  // count modulo INC_LIMIT + 1
    atomicDec_system((unsigned int *)&atom_arr[5], DEC_LIMIT);  // count down modulo DEC_LIMIT + 1

    // compare-and-swap loop adding one, by one thread of each warp (keeps the contention sane)
    if (threadIdx.x % 32 == 0) {
        int old = *(volatile int *)&atom_arr[6];
        int seen;
        while ((seen = atomicCAS_system(&atom_arr[6], old, old + 1)) != old)
            old = seen;
    }

    atomicAnd_system(&atom_arr[7], ~(1 << (tid % 16)));        // clears bits 0..15
    atomicOr_system(&atom_arr[8], 1 << (tid % 16));            // sets bits 0..15
    atomicXor_system(&atom_arr[9], (int)tid);
}
"""


def compile_kernel(arch):
    return compile_source(ATOMIC_KERNEL, arch, fmt="cubin", name=b"systemWideAtomics.cu")


def initial_values():
    a = np.zeros(10, dtype=np.int32)
    a[3] = MIN_START
    a[7] = -1  # all bits set
    return a


def host_updates(atomics, base, loops):
    """The CPU's share: the same operations as the kernel, on the same words; returns what it did."""
    addr = [base + 4 * i for i in range(10)]
    done = {"exch": [], "max": [], "min": [], "xor": 0, "cas": 0}
    for i in range(loops):
        atomics.fetch_add(addr[0], 10)
        v = HOST_EXCH_BASE + i
        atomics.exchange(addr[1], v)
        done["exch"].append(v)
        m = 3 * i
        atomics.update(addr[2], lambda old, m=m: max(old, m))
        done["max"].append(m)
        m = 50 + (i % 1000)
        atomics.update(addr[3], lambda old, m=m: min(old, m))
        done["min"].append(m)
        atomics.update(addr[4], lambda old: 0 if old >= INC_LIMIT else old + 1)
        atomics.update(addr[5], lambda old: DEC_LIMIT if old == 0 or old > DEC_LIMIT else old - 1)
        atomics.update(addr[6], lambda old: (old + 1) & 0xFFFFFFFF)  # a compare-and-swap loop
        done["cas"] += 1
        atomics.fetch_and(addr[7], ~(1 << (16 + i % 8)))  # clears bits 16..23
        atomics.fetch_or(addr[8], 1 << (16 + i % 8))      # sets bits 16..23
        atomics.fetch_xor(addr[9], i)
        done["xor"] ^= i
    return done


def verify(a, host):
    """Compares the final values with what both sides' operations must give; returns the failures."""
    n_dev = NUM_BLOCKS * NUM_THREADS
    n_host = HOST_LOOPS
    tids = np.arange(n_dev)
    expected = {
        0: ("add", 10 * (n_dev + n_host)),
        2: ("max", max(int(tids.max()), max(host["max"]))),
        3: ("min", min(MIN_START, 100, min(host["min"]))),
        4: ("inc", (n_dev + n_host) % (INC_LIMIT + 1)),
        5: ("dec", (-(n_dev + n_host)) % (DEC_LIMIT + 1)),
        6: ("cas", n_dev // 32 + host["cas"]),
        7: ("and", np.int32(np.uint32(0xFF000000).view(np.int32))),
        8: ("or", 0x00FFFFFF),
        9: ("xor", int(np.bitwise_xor.reduce(tids)) ^ host["xor"]),
    }
    failures = []
    for i, (op, want) in expected.items():
        if int(a[i]) != int(want):
            failures.append(f"atom_arr[{i}] ({op}) = {int(a[i])}, expected {int(want)}")
    exch_ok = 0 <= int(a[1]) < n_dev or int(a[1]) in set(host["exch"])
    if not exch_ok:
        failures.append(f"atom_arr[1] (exch) = {int(a[1])} was never written")
    return failures


def run_test(kernel, atomics, arr, address, label):
    """Fills arr, launches the kernel on it, runs the host's share meanwhile, then checks it."""
    arr[:] = initial_values()
    check(driver.cuLaunchKernel(kernel, NUM_BLOCKS, 1, 1, NUM_THREADS, 1, 1, 0, 0,
                                ((address,), (ctypes.c_void_p,)), 0))
    host = host_updates(atomics, address, HOST_LOOPS)  # while the kernel may still be running
    rt_check(runtime.cudaDeviceSynchronize())
    failures = verify(arr, host)
    print(f"{label}: {NUM_BLOCKS * NUM_THREADS} GPU threads and {HOST_LOOPS} CPU iterations, "
          f"final values {arr.tolist()}: {'ok' if not failures else 'WRONG RESULT'}")
    for f in failures:
        print("  " + f)
    return not failures


def main():
    dev, _ctx = select_device(0)
    name = check(driver.cuDeviceGetName(128, dev)).split(b"\0", 1)[0].decode()
    rt_check(runtime.cudaSetDevice(int(dev)))
    prop = rt_check(runtime.cudaGetDeviceProperties(int(dev)))
    if not prop.managedMemory:
        requirement_not_met("the device does not support managed memory")
    if prop.major < 6:
        requirement_not_met(f"system-wide atomics need compute capability 6.0, the device has "
                            f"{prop.major}.{prop.minor}")
    if not prop.concurrentManagedAccess:
        requirement_not_met("the device cannot access managed memory concurrently with the CPU "
                            "(cudaDevAttrConcurrentManagedAccess is 0)")
    atomics = HostAtomics.load()
    if atomics is None:
        requirement_not_met("GCC's libatomic (libatomic.so.1), used for the CPU's atomic operations")

    module = check(driver.cuModuleLoadData(compile_kernel(device_arch(dev))))
    kernel = check(driver.cuModuleGetFunction(module, b"atomicKernel"))
    print(f"systemWideAtomics on {name} (compute capability {prop.major}.{prop.minor}, "
          f"pageableMemoryAccess = {prop.pageableMemoryAccess})")

    # managed memory, as the sample allocates it
    nbytes = 10 * 4
    managed = rt_check(runtime.cudaMallocManaged(nbytes, runtime.cudaMemAttachGlobal))
    arr = host_array(managed, 10, np.int32)
    good = run_test(kernel, atomics, arr, managed, "cudaMallocManaged memory")
    del arr
    rt_check(runtime.cudaFree(managed))

    # ordinary pageable host memory, where the device can use it (heterogeneous memory management)
    if prop.pageableMemoryAccess:
        host_mem = np.zeros(1024, dtype=np.int32)  # a little more than needed, page-aligned or not
        good = run_test(kernel, atomics, host_mem[:10], host_mem.ctypes.data,
                        "pageable numpy memory") and good
    else:
        print("pageable memory: skipped (the device cannot access pageable host memory)")

    check(driver.cuModuleUnload(module))
    release_device(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
