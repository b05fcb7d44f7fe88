"""A device buffer written to a file and read back with cuFile (cuda.bindings.cufile), GPUDirect
Storage's API; on a machine without GPUDirect Storage in its compatibility mode, which a
cufile.json allowing it turns on (written to the example's folder and named by
CUFILE_ENV_PATH_JSON, unless that variable is already set).

cuFile takes files on ext4 or xfs only (not tmpfs), and reads their filesystem's type from the
udev database: on a machine without udev (a VM, a container) it refuses every file until that
entry exists. The example picks a folder on ext4/xfs and, when the entry is missing and it runs
as root, writes it (and removes it at the end), saying so (common/cufile_env.py).

API area: cuFile: driver_open, handle_register (a Descr of the file descriptor), buf_register,
write, read, batch_io_set_up / batch_io_submit / batch_io_get_status / batch_io_destroy,
buf_deregister, handle_deregister, driver_close; the driver API for the device buffers.

Run: python examples/4_CUDA_Libraries/cufile_io.py [FOLDER]   (the file goes to a temporary
folder in FOLDER, default the first folder on ext4/xfs among $CUFILE_DATA_DIR, this checkout,
the home folder, /var/tmp and /tmp)
Exit status: 0 when the data read back is what was written, 1 otherwise, 3 when no CUDA device, no
cuFile library or no folder on a filesystem cuFile takes is available.
"""
import ctypes
import json
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, requirement_not_met, select_device  # noqa: E402
from common.cufile_env import folder_for_cufile, forget, udev_entry  # noqa: E402
from cuda.bindings import driver  # noqa: E402

SIZE = 4 << 20
CHUNK = 1 << 20


def main() -> int:
    base = folder_for_cufile(sys.argv[1:2])
    if base is None:
        return requirement_not_met("no writable folder on ext4 or xfs (cuFile takes no other filesystem)")
    folder = tempfile.mkdtemp(prefix="cufile_io-", dir=base)
    try:
        return run(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(folder: str) -> int:
    if "CUFILE_ENV_PATH_JSON" not in os.environ:
        cfg = os.path.join(folder, "cufile.json")
        with open(cfg, "w") as f:
            json.dump({"logging": {"dir": folder, "level": "ERROR"},
                       "properties": {"allow_compat_mode": True}}, f)
        os.environ["CUFILE_ENV_PATH_JSON"] = cfg
    dev, _ = select_device()
    from cuda.bindings import cufile
    src = (np.arange(SIZE) * 13 % 256).astype(np.uint8)
    d_src = check(driver.cuMemAlloc(SIZE))
    d_dst = check(driver.cuMemAlloc(SIZE))
    check(driver.cuMemcpyHtoD(d_src, src, SIZE))
    check(driver.cuMemsetD8(d_dst, 0, SIZE))
    try:
        cufile.driver_open()
    except RuntimeError as e:           # no libcufile.so.0
        return requirement_not_met(f"cuFile is not available: {e}")
    print(f"cuFile {cufile.get_version()}, compatibility mode "
          f"{'allowed' if cufile.get_parameter_bool(cufile.BoolConfigParameter.PROPERTIES_ALLOW_COMPAT_MODE) else 'off'}")
    path = os.path.join(folder, "cufile_io.bin")
    done, entry = udev_entry(folder)
    print(done)
    fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o644)
    descr = cufile.Descr()
    descr.type = cufile.FileHandleType.OPAQUE_FD
    descr.handle.fd = fd
    descr.fs_ops = 0
    try:
        fh = cufile.handle_register(descr)
    except cufile.cuFileError:
        os.close(fd)
        forget(entry)
        raise
    cufile.buf_register(int(d_src), SIZE, 0)
    cufile.buf_register(int(d_dst), SIZE, 0)
    try:
        # the whole buffer with one write, back with one read per MiB
        # (the CUDA 13.0 bindings return None from read and write, as NVIDIA's 13.0.x do; a
        # failure raises either way, and the data read back is checked below)
        written = cufile.write(fh, int(d_src), SIZE, 0, 0)
        print(f"wrote {SIZE if written is None else written} bytes to {path}")
        for off in range(0, SIZE, CHUNK):
            got = cufile.read(fh, int(d_dst), CHUNK, off, off)
            if got not in (CHUNK, None):
                print(f"read at {off} returned {got}")
                return 1
        out = np.zeros(SIZE, dtype=np.uint8)
        check(driver.cuMemcpyDtoH(out, d_dst, SIZE))
        if not np.array_equal(out, src):
            print("the data read back differs")
            return 1
        # one batch of reads: the first MiB again, into the last MiB of d_dst
        batch = cufile.batch_io_set_up(1)
        io = cufile.IOParams()
        io.mode, io.fh, io.opcode, io.cookie = cufile.BatchMode.BATCH, fh, cufile.Opcode.READ, 7
        io.u.batch.dev_ptr_base = int(d_dst)
        io.u.batch.file_offset = 0
        io.u.batch.dev_ptr_offset = SIZE - CHUNK
        io.u.batch.size_ = CHUNK
        cufile.batch_io_submit(batch, 1, io, 0)
        events = cufile.IOEvents()
        done = ctypes.c_uint(0)
        while not done.value:
            done.value = 1
            cufile.batch_io_get_status(batch, 1, ctypes.addressof(done), events, 0)
        cufile.batch_io_destroy(batch)
        check(driver.cuMemcpyDtoH(out, d_dst, SIZE))
        ok = events.status == cufile.Status.COMPLETE and np.array_equal(out[SIZE - CHUNK:], src[:CHUNK])
        print(f"batch read: status {cufile.Status(events.status).name}, {events.ret} bytes")
        print("Test " + ("passed" if ok else "FAILED"))
        return 0 if ok else 1
    finally:
        cufile.buf_deregister(int(d_src))
        cufile.buf_deregister(int(d_dst))
        cufile.handle_deregister(fh)
        os.close(fd)
        forget(entry)
        cufile.driver_close()
        check(driver.cuMemFree(d_src))
        check(driver.cuMemFree(d_dst))
        check(driver.cuDevicePrimaryCtxRelease(dev))


if __name__ == "__main__":
    sys.exit(main())
