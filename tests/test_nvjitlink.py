"""nvJitLink for real: NVRTC output linked into cubins on the CPU (no GPU needed)."""
import inspect
import json

import numpy as np
import pytest

from _support import LazyModule, nvrtc, ok, run_python
from cuda.bindings._version import CUDA_MAJOR

nvjitlink = LazyModule("cuda.bindings.nvjitlink")

SOURCE = b"""
extern "C" __global__ void twice(float *x, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""

ELF_MAGIC = b"\x7fELF"


def nvrtc_output(options, kind):
    """Compile SOURCE with NVRTC; kind 'ptx' or 'ltoir'. PTX keeps its closing NUL."""
    prog = ok(nvrtc.nvrtcCreateProgram(SOURCE, b"twice.cu", 0, [], []))
    try:
        res = nvrtc.nvrtcCompileProgram(prog, len(options), options)
        if res[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
            log = bytearray(size)
            nvrtc.nvrtcGetProgramLog(prog, log)
            pytest.fail(f"NVRTC failed: {res!r}\n{bytes(log).decode(errors='replace')}")
        if kind == "ptx":
            size = ok(nvrtc.nvrtcGetPTXSize(prog))
            out = bytearray(size)
            ok(nvrtc.nvrtcGetPTX(prog, out))
        else:
            size = ok(nvrtc.nvrtcGetLTOIRSize(prog))
            assert size > 0
            out = bytearray(size)
            ok(nvrtc.nvrtcGetLTOIR(prog, out))
        return bytes(out)
    finally:
        ok(nvrtc.nvrtcDestroyProgram(prog))


@pytest.fixture(scope="module")
def ptx():
    data = nvrtc_output([b"--gpu-architecture=compute_90"], "ptx")
    assert b".entry twice" in data
    return data


@pytest.fixture(scope="module")
def ltoir():
    data = nvrtc_output([b"-dlto", b"--gpu-architecture=compute_90"], "ltoir")
    assert data[:4] != ELF_MAGIC and b".entry" not in data  # LTO-IR is neither a cubin nor PTX
    return data


@pytest.fixture
def handles():
    """Collects linker handles; destroys them all after the test."""
    made = []
    yield made
    for h in made:
        nvjitlink.destroy(h)


def new_linker(handles, *options):
    opts = [o.encode() if isinstance(o, str) else o for o in options]
    h = nvjitlink.create(len(opts), opts)
    assert isinstance(h, int) and h != 0
    handles.append(h)
    return h


def read_log(h, which):
    size = getattr(nvjitlink, f"get_{which}_log_size")(h)
    assert isinstance(size, int) and size >= 0
    buf = bytearray(size)
    if size:
        getattr(nvjitlink, f"get_{which}_log")(h, buf)
    return bytes(buf).rstrip(b"\0")


def linked_cubin(h):
    size = nvjitlink.get_linked_cubin_size(h)
    assert isinstance(size, int) and size > 0
    out = bytearray(size)
    assert nvjitlink.get_linked_cubin(h, out) is None
    return bytes(out)


# --- the module -------------------------------------------------------------------------------


def test_version():
    v = nvjitlink.version()
    assert v[0] == CUDA_MAJOR and len(v) == 2 and all(type(x) is int for x in v), v


def test_enums():
    R, T = nvjitlink.Result, nvjitlink.InputType
    assert R.SUCCESS == 0 and R(0) is R.SUCCESS
    assert R.ERROR_INVALID_INPUT == 3
    assert CUDA_MAJOR < 13 or R.ERROR_INCORRECT_INPUT_TYPE == 12      # new in 13.0
    assert (T.NONE, T.CUBIN, T.PTX, T.LTOIR, T.FATBIN, T.OBJECT, T.LIBRARY, T.INDEX, T.ANY) == (0, 1, 2, 3, 4, 5, 6, 7, 10)
    assert T.PTX.name == "PTX" and T(3) is T.LTOIR
    with pytest.raises(ValueError):
        R(12345)


def test_signatures_match_the_reference():
    expected = {
        "create": "create(num_options, options)",
        "add_data": "add_data(handle, input_type, data, size, name)",
        "add_file": "add_file(handle, input_type, file_name)",
        "complete": "complete(handle)",
        "get_linked_cubin": "get_linked_cubin(handle, cubin)",
        "get_linked_cubin_size": "get_linked_cubin_size(handle)",
        "get_linked_ptx": "get_linked_ptx(handle, ptx)",
        "get_error_log": "get_error_log(handle, log)",
        "get_info_log": "get_info_log(handle, log)",
        "destroy": "destroy(handle)",
    }
    for name, sig in expected.items():
        # help() prints the signature; the docstring starts with the summary
        f = getattr(nvjitlink, name)
        assert f"{name}({', '.join(inspect.signature(f).parameters)})" == sig


# --- linking -----------------------------------------------------------------------------------


def test_link_ptx_to_cubin(handles, ptx):
    h = new_linker(handles, "-arch=sm_90")
    assert nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), b"twice.ptx") is None
    assert nvjitlink.complete(h) is None
    cubin = linked_cubin(h)
    assert cubin[:4] == ELF_MAGIC
    assert b"twice" in cubin  # the kernel's symbol name is in the ELF string table
    assert read_log(h, "error") == b""


def test_info_log_with_verbose(handles, ptx):
    h = new_linker(handles, "-arch=sm_90", "-verbose")
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), b"twice.ptx")
    nvjitlink.complete(h)
    info = read_log(h, "info")
    # the lines vary between runs of one process tree (a warm machine left out the "Compiling
    # entry function 'twice' for 'sm_90'" line once); the function's properties are always there
    assert b"Function properties for 'twice'" in info or b"for 'sm_90'" in info, info


def test_output_into_numpy_array_and_int_address(handles, ptx):
    h = new_linker(handles, "-arch=sm_90")
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), b"twice.ptx")
    nvjitlink.complete(h)
    reference = linked_cubin(h)
    arr = np.zeros(len(reference), dtype=np.uint8)
    nvjitlink.get_linked_cubin(h, arr)
    assert arr.tobytes() == reference
    arr2 = np.zeros(len(reference), dtype=np.uint8)
    nvjitlink.get_linked_cubin(h, arr2.ctypes.data)
    assert arr2.tobytes() == reference


def test_add_file(handles, ptx, tmp_path):
    path = tmp_path / "twice.ptx"
    path.write_bytes(ptx.rstrip(b"\0"))
    h = new_linker(handles, "-arch=sm_90")
    nvjitlink.add_file(h, nvjitlink.InputType.PTX, str(path).encode())
    nvjitlink.complete(h)
    assert linked_cubin(h)[:4] == ELF_MAGIC


def test_two_inputs_link_into_one_cubin(handles, ptx):
    other = nvrtc_output([b"--gpu-architecture=compute_90", b"-DX"], "ptx").replace(b"twice", b"again")
    h = new_linker(handles, "-arch=sm_90")
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), b"a.ptx")
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, other, len(other), b"b.ptx")
    nvjitlink.complete(h)
    cubin = linked_cubin(h)
    assert b"twice" in cubin and b"again" in cubin


def test_lto_ir_links_to_cubin(handles, ltoir):
    h = new_linker(handles, b"-arch=sm_90", b"-lto")
    nvjitlink.add_data(h, nvjitlink.InputType.LTOIR, ltoir, len(ltoir), b"twice.ltoir")
    nvjitlink.complete(h)
    cubin = linked_cubin(h)
    assert cubin[:4] == ELF_MAGIC
    assert b"twice" in cubin


def test_lto_can_also_give_ptx(handles, ltoir):
    h = new_linker(handles, b"-arch=sm_90", b"-lto", b"-ptx")
    nvjitlink.add_data(h, nvjitlink.InputType.LTOIR, ltoir, len(ltoir), b"twice.ltoir")
    nvjitlink.complete(h)
    size = nvjitlink.get_linked_ptx_size(h)
    assert size > 0
    out = bytearray(size)
    nvjitlink.get_linked_ptx(h, out)
    assert b".entry twice" in bytes(out)


# --- errors ------------------------------------------------------------------------------------


def check_error(excinfo, expected):
    err = excinfo.value
    assert isinstance(err, nvjitlink.nvJitLinkError)
    assert type(err.status) is int, f"status is the int the call returned, as in NVIDIA's: {err.status!r}"
    assert err.status == expected, err.status
    assert expected.name in str(err), str(err)


def test_bad_input_raises_with_status_and_error_log(handles):
    h = new_linker(handles, "-arch=sm_90")
    junk = b"this is not PTX\0"
    with pytest.raises(nvjitlink.nvJitLinkError) as excinfo:
        nvjitlink.add_data(h, nvjitlink.InputType.PTX, junk, len(junk), b"junk.ptx")
        nvjitlink.complete(h)  # in case the library only notices here
    err = excinfo.value
    assert type(err.status) is int
    assert err.status != nvjitlink.Result.SUCCESS
    assert str(err) == f"{nvjitlink.Result(err.status).name} ({err.status})"
    log = read_log(h, "error")
    assert b"junk.ptx" in log, log


def test_wrong_input_type_is_reported(handles, ptx):
    h = new_linker(handles, "-arch=sm_90")
    with pytest.raises(nvjitlink.nvJitLinkError) as excinfo:
        nvjitlink.add_data(h, nvjitlink.InputType.CUBIN, ptx, len(ptx), b"not_a.cubin")
    assert type(excinfo.value.status) is int
    assert excinfo.value.status != nvjitlink.Result.SUCCESS


def test_unknown_option_raises():
    with pytest.raises(nvjitlink.nvJitLinkError) as excinfo:
        nvjitlink.create(1, [b"-no-such-option"])
    check_error(excinfo, nvjitlink.Result.ERROR_UNRECOGNIZED_OPTION)


@pytest.mark.skipif(CUDA_MAJOR < 13, reason="CUDA 13's library reports Result.ERROR_NULL_INPUT; the 12.x one reports ERROR_INVALID_INPUT (its header spells the later code as that one)")
def test_null_handle_raises():
    with pytest.raises(nvjitlink.nvJitLinkError) as excinfo:
        nvjitlink.get_linked_cubin_size(0)
    check_error(excinfo, nvjitlink.Result.ERROR_NULL_INPUT)


def test_ptx_of_a_non_lto_link_is_invalid_input(handles, ptx):
    h = new_linker(handles, "-arch=sm_90")
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), b"twice.ptx")
    nvjitlink.complete(h)
    with pytest.raises(nvjitlink.nvJitLinkError) as excinfo:
        nvjitlink.get_linked_ptx_size(h)
    check_error(excinfo, nvjitlink.Result.ERROR_INVALID_INPUT)


@pytest.mark.skipif(CUDA_MAJOR < 13, reason="CUDA 13's signature (Result.ERROR_LTO_NOT_ENABLED, new in 13.0); the 12.x one differs (docs/cuda-changelog.md)")
def test_lto_ir_without_lto_option_fails(handles, ltoir):
    h = new_linker(handles, "-arch=sm_90")
    with pytest.raises(nvjitlink.nvJitLinkError) as excinfo:
        nvjitlink.add_data(h, nvjitlink.InputType.LTOIR, ltoir, len(ltoir), b"twice.ltoir")
        nvjitlink.complete(h)
    check_error(excinfo, nvjitlink.Result.ERROR_LTO_NOT_ENABLED)


HELPER = b'extern "C" __device__ float helper(float v) { return v * 3.0f + 1.0f; }'
USER = b"""
extern "C" __device__ float helper(float v);
extern "C" __global__ void apply(float *x, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = helper(x[i]);
}
"""


def lto_unit(source, name):
    prog = ok(nvrtc.nvrtcCreateProgram(source, name, 0, [], []))
    try:
        opts = [b"-dlto", b"-rdc=true", b"--gpu-architecture=compute_90"]
        assert nvrtc.nvrtcCompileProgram(prog, len(opts), opts) == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)
        out = bytearray(ok(nvrtc.nvrtcGetLTOIRSize(prog)))
        ok(nvrtc.nvrtcGetLTOIR(prog, out))
        return bytes(out)
    finally:
        ok(nvrtc.nvrtcDestroyProgram(prog))


def test_lto_across_two_units_inlines_the_helper(handles):
    helper, user = lto_unit(HELPER, b"helper.cu"), lto_unit(USER, b"user.cu")
    h = new_linker(handles, b"-arch=sm_90", b"-lto", b"-ptx")
    nvjitlink.add_data(h, nvjitlink.InputType.LTOIR, helper, len(helper), b"helper.ltoir")
    nvjitlink.add_data(h, nvjitlink.InputType.LTOIR, user, len(user), b"user.ltoir")
    nvjitlink.complete(h)
    out = bytearray(nvjitlink.get_linked_ptx_size(h))
    nvjitlink.get_linked_ptx(h, out)
    ptx = bytes(out)
    assert b".entry apply" in ptx
    assert b"0f40400000" in ptx  # helper's 3.0f, inlined into the kernel: the link optimised across units
    assert b"call" not in ptx.split(b".entry apply", 1)[1]
    # and the same inputs give a cubin
    h2 = new_linker(handles, b"-arch=sm_90", b"-lto")
    nvjitlink.add_data(h2, nvjitlink.InputType.LTOIR, helper, len(helper), b"helper.ltoir")
    nvjitlink.add_data(h2, nvjitlink.InputType.LTOIR, user, len(user), b"user.ltoir")
    nvjitlink.complete(h2)
    assert linked_cubin(h2)[:4] == ELF_MAGIC


def test_unresolved_symbol_fails_with_log(handles):
    user = lto_unit(USER, b"user.cu")
    h = new_linker(handles, b"-arch=sm_90", b"-lto")
    with pytest.raises(nvjitlink.nvJitLinkError) as excinfo:
        nvjitlink.add_data(h, nvjitlink.InputType.LTOIR, user, len(user), b"user.ltoir")
        nvjitlink.complete(h)
    assert type(excinfo.value.status) is int
    assert excinfo.value.status != nvjitlink.Result.SUCCESS
    assert nvjitlink.Result(excinfo.value.status).name in str(excinfo.value)
    assert b"helper" in read_log(h, "error")


def test_wrong_python_types_raise_typeerror():
    with pytest.raises(TypeError):
        nvjitlink.get_linked_cubin_size("handle")
    with pytest.raises(TypeError):
        nvjitlink.create(1, [1.5])                     # an option is a str or an address


def test_a_numpy_option_address_nvidias_refuses_is_refused_as_there():
    # NVIDIA's package takes only int items as option addresses (TypeError "an integer is required"
    # for a numpy integer); ours takes any integer, and refuses one that is no address as there
    import numpy
    for options in (numpy.arange(1, 3, dtype=numpy.uint8), [numpy.uint64(5)]):     # the first page
        with pytest.raises(TypeError) as excinfo:
            nvjitlink.create(len(options), options)
        assert str(excinfo.value) == "an integer is required"
        assert not hasattr(excinfo.value, "__notes__")      # NVIDIA's raises it bare
        assert "argument 'options'" in excinfo.value.detail
        assert "is the address of no C string" in excinfo.value.detail


NULL_INPUT = 10      # Result.ERROR_NULL_INPUT (CUDA 13); the 12.x library reports INVALID_INPUT


def test_options_take_the_forms_nvidias_package_takes(handles):
    import ctypes
    opt = ctypes.create_string_buffer(b"-arch=sm_90")
    array = (ctypes.c_void_p * 1)(ctypes.addressof(opt))
    for options in (["-arch=sm_90"], ("-arch=sm_90",), [ctypes.addressof(opt)], ctypes.addressof(array),
                    [b"-arch=sm_90"]):                  # (bytes: ours also takes them)
        h = nvjitlink.create(1, options)
        handles.append(h)
        assert nvjitlink.get_error_log_size(h) == 0
    # a str is the sequence of its characters, and an empty list or 0 is NULL, as there: the
    # library says what it makes of them
    with pytest.raises(nvjitlink.nvJitLinkError) as e:
        nvjitlink.create(1, "-arch=sm_90")
    assert e.value.status == nvjitlink.Result.ERROR_UNRECOGNIZED_OPTION
    for null in ([], 0):
        with pytest.raises(nvjitlink.nvJitLinkError) as e:     # (the 12.x library: INVALID_INPUT)
            nvjitlink.create(1, null)
        assert e.value.status in (nvjitlink.Result.ERROR_INVALID_INPUT, NULL_INPUT)
    # more options counted than given: the library would read pointers past the list (it crashes)
    with pytest.raises(RuntimeError, match="fewer than the count 2"):
        nvjitlink.create(2, ["-arch=sm_90"])


def test_null_buffers_reach_the_library_as_in_nvidias_package(handles, ptx):
    # 0 is NULL, and so is None where NVIDIA's package of the release takes it (12.9.10, 13.5.0;
    # 13.0.3 refuses None with ValueError): the library reports it
    from cuda.bindings import __cuda_version__
    h = new_linker(handles, "-arch=sm_90")
    nones = [0] if __cuda_version__ == "13.0" else [0, None]
    for null in nones:
        with pytest.raises(nvjitlink.nvJitLinkError) as e:
            nvjitlink.get_error_log(h, null)
        assert e.value.status in (nvjitlink.Result.ERROR_INVALID_INPUT, NULL_INPUT)
        with pytest.raises(nvjitlink.nvJitLinkError) as e:
            nvjitlink.add_data(h, nvjitlink.InputType.PTX, null, 0, "x.ptx")
        assert str(e.value) == "ERROR_INVALID_INPUT (3)"
    if __cuda_version__ == "13.0":
        for call in (lambda: nvjitlink.get_error_log(h, None),
                     lambda: nvjitlink.add_data(h, nvjitlink.InputType.PTX, None, 0, "x.ptx")):
            with pytest.raises(ValueError, match="^buf must be ") as e:      # NVIDIA's message ...
                call()
            assert "not None" in e.value.detail                               # ... ours in `detail`


# Run in a child: without the size check the library writes the whole cubin into the small
# buffer, which corrupts the heap and may end the interpreter later, not at the call (so it was
# before the bindings compared the buffer with the size query).
_SMALL_BUFFER = r"""
import json
from cuda.bindings import nvjitlink, nvrtc
src = b'extern "C" __global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }'
err, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=compute_90"])
err, n = nvrtc.nvrtcGetPTXSize(prog)
ptx = bytearray(n)
nvrtc.nvrtcGetPTX(prog, ptx)
h = nvjitlink.create(2, [b"-arch=sm_90", b"-verbose"])
nvjitlink.add_data(h, nvjitlink.InputType.PTX, bytes(ptx), n, b"k.ptx")
nvjitlink.complete(h)
out = {"cubin_size": nvjitlink.get_linked_cubin_size(h), "info_size": nvjitlink.get_info_log_size(h)}
for name, call in [
    ("cubin", lambda: nvjitlink.get_linked_cubin(h, bytearray(16))),
    ("info_log", lambda: nvjitlink.get_info_log(h, bytearray(1))),
]:
    try:
        call()
        out[name] = "no error"
    except Exception as e:
        out[name] = type(e).__name__ + ": " + str(e)
print(json.dumps(out))
"""


def test_too_small_output_buffer_raises_valueerror():
    proc = run_python(_SMALL_BUFFER)
    assert proc.returncode == 0, f"the child crashed (rc {proc.returncode}):\n{proc.stderr[-2000:]}"
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    assert info["cubin_size"] > 16 and info["info_size"] > 1, info
    assert info["cubin"].startswith("ValueError"), info
    assert info["info_log"].startswith("ValueError"), info


def test_input_shorter_than_size_raises_valueerror(handles, ptx):
    # nvJitLink reads `size` bytes of the input: a buffer that holds fewer is refused before the call
    h = new_linker(handles, "-arch=sm_90")
    for data in (ptx, bytearray(ptx), np.frombuffer(ptx, dtype=np.uint8)):
        with pytest.raises(ValueError, match="^buf must be ") as e:      # NVIDIA's message ...
            nvjitlink.add_data(h, nvjitlink.InputType.PTX, data, len(ptx) + 1, "twice.ptx")
        assert f"{len(ptx)} bytes, fewer than size = {len(ptx) + 1}" in e.value.detail    # ... ours
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, np.frombuffer(ptx, dtype=np.uint8), len(ptx), "twice.ptx")
    nvjitlink.complete(h)
    assert linked_cubin(h)[:4] == ELF_MAGIC


_DESTROYED_LINKER = r"""
import json
from cuda.bindings import nvjitlink
h = nvjitlink.create(1, ["-arch=sm_90"])
nvjitlink.destroy(h)
out = {}
for name, call in [("destroy", lambda: nvjitlink.destroy(h)), ("complete", lambda: nvjitlink.complete(h)),
                   ("log_size", lambda: nvjitlink.get_error_log_size(h))]:
    try:
        call()
        out[name] = "no error"
    except Exception as e:
        out[name] = type(e).__name__ + ": " + str(e)
h2 = nvjitlink.create(1, ["-arch=sm_90"])     # may reuse the address: live again
out["new"] = nvjitlink.get_error_log_size(h2)
nvjitlink.destroy(h2)
print(json.dumps(out))
"""


def test_destroyed_handle_raises_instead_of_crashing():
    # the library frees the linker: a second destroy or any later call would read freed memory
    proc = run_python(_DESTROYED_LINKER)
    assert proc.returncode == 0, f"the child crashed (rc {proc.returncode}):\n{proc.stderr[-2000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in ("destroy", "complete", "log_size"):
        assert out[name].startswith("ValueError: handle 0x") and "was destroyed" in out[name], out
    assert out["new"] == 0, out
