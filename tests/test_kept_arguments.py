"""Arguments a library goes on using after the call returns stay alive until the call that
releases them (overrides.KEEP_UNTIL_RELEASE).

cuLinkCreate's option arrays: "optionValues must remain valid for the life of the CUlinkState if
output options are used" -- the driver writes CU_JIT_WALL_TIME and the log sizes into the values
array, and the log messages into the buffers it points to, until cuLinkDestroy.  A list given
from Python is converted into a C array for the call; that array (and the log buffers the list
holds) must outlive the call.  The checks run on the stand-in driver (tests/conformance/stub.py),
which records the addresses cuLinkCreate was given, in a child process.
"""
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _support import run_python, stand_in_env  # noqa: E402

PROGRAM = """
import ctypes, gc, weakref
from cuda.bindings import driver, _base
lib = ctypes.CDLL("libcuda.so.1")
lib.cuStubArgs.restype = ctypes.POINTER(ctypes.c_uint64)
J = driver.CUjit_option


class Log(bytearray):            # a bytearray that a weak reference can follow
    pass




def create(size, state_bytes):
    log = Log(size)
    opts = [J.CU_JIT_INFO_LOG_BUFFER, J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, J.CU_JIT_WALL_TIME]
    lib.cuStubFill(3, state_bytes)   # the link state the stand-in returns: bytes 1, 2, ... of stateOut
    err, state = driver.cuLinkCreate(3, opts, [log, size, 0])
    lib.cuStubFill(-1, 0)
    assert int(err) == 0, err
    args = lib.cuStubArgs()
    # cuLinkCreate(numOptions, options, optionValues, stateOut): what the driver keeps
    return state, weakref.ref(log), args[1], args[2], ctypes.addressof((ctypes.c_char * size).from_buffer(log))


first, log1, opts1, values1, buf1 = create(1024, 8)
second, log2, opts2, values2, buf2 = create(2048, 4)  # a second call must not reuse the first's arrays
gc.collect()
assert log1() is not None and log2() is not None, "a log buffer was freed while its link state lives"
assert values1 != values2 and opts1 != opts2, "the second call got the first call's arrays"
v1 = (ctypes.c_uint64 * 3).from_address(values1)
assert (v1[0], v1[1]) == (buf1, 1024), ("the first call's values were overwritten", list(v1))
o1 = (ctypes.c_int * 3).from_address(opts1)
assert list(o1) == [int(J.CU_JIT_INFO_LOG_BUFFER), int(J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES), int(J.CU_JIT_WALL_TIME)]
# the driver writes the output options back, and log text into the buffer, while the state lives
v1[1] = 5
ctypes.c_float.from_address(values1 + 16).value = 2.5
ctypes.memmove(buf1, b"linked", 6)
assert bytes(log1()[:6]) == b"linked"
print("kept", hex(int(first)), hex(int(second)), _base._kept_for("CUlinkState", first) is not None)

# a failed destroy keeps them; a successful one lets them go (given the handle's int, too)
lib.cuStubSetStatus(400)
assert int(driver.cuLinkDestroy(first)[0]) == 400
gc.collect()
print("after a failed destroy", log1() is not None)
lib.cuStubSetStatus(0)
assert int(driver.cuLinkDestroy(int(first))[0]) == 0
gc.collect()
print("after destroy", log1() is None, _base._kept_for("CUlinkState", first) is None, log2() is not None)
"""


def test_link_options_live_until_cuLinkDestroy(stand_in_driver):
    r = run_python(textwrap.dedent(PROGRAM), env=stand_in_env(stand_in_driver, 0))
    assert r.returncode == 0, f"exit {r.returncode}:\n{r.stdout}{r.stderr[-3000:]}"
    assert r.stdout.splitlines() == ["kept 0x807060504030201 0x4030201 True", "after a failed destroy True", "after destroy True True True"]
