"""cuFile on a machine without GPUDirect Storage: compatibility mode (a cufile.json allowing it,
named by CUFILE_ENV_PATH_JSON), a device buffer written to a file and read back into another,
batch I/O, and the error paths.  Each case runs in a child process: cuFile reads its
configuration once per process.  scripts/cufile_diagnose.py tries the other set-ups when this
one fails.

The file lies on ext4 or xfs (cuFile takes no other filesystem; /tmp may be tmpfs), in a folder
examples/common/cufile_env.py picks; where the machine has no udev entry for that filesystem
(cuFile reads its type through libudev, and refuses the file without it) and the test runs as
root, it writes the entry for the run and says so."""
import json
import os
import shutil
import sys
import tempfile
import textwrap

import pytest

from _support import REPO_ROOT, run_python

sys.path.insert(0, str(REPO_ROOT / "examples"))
from common.cufile_env import folder_for_cufile, forget, udev_entry  # noqa: E402

pytestmark = pytest.mark.gpu

CHILD = textwrap.dedent(r'''
    import ctypes, os, sys
    import numpy as np
    from cuda.bindings import __cuda_version__, cufile, driver
    def cu(r):
        assert int(r[0]) == 0, r
        return r[1] if len(r) == 2 else (r[1:] if len(r) > 2 else None)
    cu(driver.cuInit(0))
    dev = cu(driver.cuDeviceGet(0))
    ctx = cu(driver.cuDevicePrimaryCtxRetain(dev))
    cu(driver.cuCtxSetCurrent(ctx))
    n = 1 << 20
    src = (np.arange(n) % 251).astype(np.uint8)
    d_src, d_dst = int(cu(driver.cuMemAlloc(n))), int(cu(driver.cuMemAlloc(n)))
    cu(driver.cuMemcpyHtoD(d_src, src, n))
    cu(driver.cuMemsetD8(d_dst, 0, n))
    # before the driver is open: its calls report that, as cuFileError
    try:
        cufile.handle_register(cufile.Descr())
    except cufile.cuFileError as e:
        print("before open:", e.status)
    cufile.driver_open()
    print("version", cufile.get_version(), "compat", cufile.get_parameter_bool(cufile.BoolConfigParameter.PROPERTIES_ALLOW_COMPAT_MODE))
    path = sys.argv[1]
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    d = cufile.Descr()
    d.type = cufile.FileHandleType.OPAQUE_FD
    d.handle.fd = fd
    d.fs_ops = 0
    fh = cufile.handle_register(d)
    cufile.buf_register(d_src, n, 0)
    cufile.buf_register(d_dst, n, 0)
    # the byte count, or None where NVIDIA's package of the release returns None (13.0.x)
    count = None if __cuda_version__ == "13.0" else n
    assert cufile.write(fh, d_src, n, 0, 0) == count
    assert os.fstat(fd).st_size == n
    with open(path, "rb") as f:
        assert f.read() == src.tobytes()
    assert cufile.read(fh, d_dst, n, 0, 0) == count
    out = np.zeros(n, dtype=np.uint8)
    cu(driver.cuMemcpyDtoH(out, d_dst, n))
    assert np.array_equal(out, src)
    # batch I/O: write the first 64 KiB at offset n, read it back into the second half of d_dst
    batch = cufile.batch_io_set_up(2)
    io = cufile.IOParams(1)
    io.mode, io.fh, io.opcode, io.cookie = cufile.BatchMode.BATCH, fh, cufile.Opcode.WRITE, 1
    io.u.batch.dev_ptr_base, io.u.batch.file_offset, io.u.batch.dev_ptr_offset, io.u.batch.size_ = d_src, n, 0, 65536
    cufile.batch_io_submit(batch, 1, io, 0)
    ev, nr = cufile.IOEvents(1), ctypes.c_uint(0)
    for _ in range(10000):
        nr.value = 1
        cufile.batch_io_get_status(batch, 1, ctypes.addressof(nr), ev, 0)
        if nr.value:
            break
    assert nr.value == 1 and ev.status == cufile.Status.COMPLETE and ev.ret == 65536, (nr.value, ev.status, ev.ret)
    cufile.batch_io_destroy(batch)
    with open(path, "rb") as f:
        f.seek(n)
        assert f.read() == src.tobytes()[:65536]
    # error paths: a second registration of a buffer (what cuFile answers is printed), a
    # descriptor that is no open file (refused), a negative size (refused before the call)
    try:
        cufile.buf_register(d_src, n, 0)
        print("error path: buf_register twice: accepted")
    except cufile.cuFileError as e:
        print("error path: buf_register twice:", cufile.OpError(e.status).name)
    bad = cufile.Descr()
    bad.type, bad.handle.fd, bad.fs_ops = cufile.FileHandleType.OPAQUE_FD, -1, 0
    try:
        cufile.handle_register(bad)
    except cufile.cuFileError as e:
        print("error path: handle_register(fd -1):", e)
    else:
        raise AssertionError("handle_register accepted fd -1")
    try:
        cufile.read(fh, d_dst, -1, 0, 0)
    except (OverflowError, TypeError, ValueError) as e:
        print("error path: read of size -1:", type(e).__name__)
    else:
        raise AssertionError("read accepted a size of -1")
    cufile.buf_deregister(d_src)
    cufile.buf_deregister(d_dst)
    cufile.handle_deregister(fh)
    # a deregistered handle goes to cuFile, which reports it (scripts/handle_probe.py), as
    # NVIDIA's package passes it on
    try:
        cufile.read(fh, d_dst, n, 0, 0)
    except cufile.cuFileError as e:
        assert e.status == cufile.OpError.HANDLE_NOT_REGISTERED, e
        print("deregistered handle reported:", e)
    else:
        raise AssertionError("read accepted a deregistered handle")
    os.close(fd)
    cufile.driver_close()
    print("OK")
''')


@pytest.fixture
def folder():
    """A temporary folder on ext4/xfs, with the udev entry cuFile needs for its filesystem."""
    base = folder_for_cufile()
    assert base, "no writable folder on ext4 or xfs (set CUFILE_DATA_DIR to one): cuFile takes no other filesystem"
    path = tempfile.mkdtemp(prefix="cufile-test-", dir=base)
    done, entry = udev_entry(path)
    print(done)
    try:
        yield path, done
    finally:
        forget(entry)
        shutil.rmtree(path, ignore_errors=True)


def test_compat_mode_write_read_and_batch(folder):
    path, setup = folder
    cfg = os.path.join(path, "cufile.json")
    with open(cfg, "w") as f:
        json.dump({"logging": {"dir": path, "level": "ERROR"},
                   "properties": {"allow_compat_mode": True},
                   "execution": {"parallel_io": True, "max_io_threads": 4}}, f)
    log_path = os.path.join(path, "cufile.log")
    r = run_python(["-c", CHILD, os.path.join(path, "data.bin")], timeout=300,
                   env={"CUFILE_ENV_PATH_JSON": cfg, "CUFILE_LOGFILE_PATH": log_path})
    log = open(log_path, errors="replace").read()[-3000:] if os.path.exists(log_path) else ""
    assert r.returncode == 0 and "OK" in r.stdout, \
        f"set-up: {setup}\n{r.stdout}\n{r.stderr[-3000:]}\ncufile.log:\n{log}"
    assert "deregistered handle reported: HANDLE_NOT_REGISTERED" in r.stdout
    assert "error path: handle_register(fd -1)" in r.stdout
