"""NVRTC for real: its library needs no GPU (no GPU needed)."""
import pytest

from _support import assert_failed, nvrtc, ok

KERNEL = b"""
extern "C" __global__ void scale(float *x, float a, unsigned long long n)
{
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

template <typename T>
__global__ void fill(T *x, T v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
"""


@pytest.fixture
def program():
    prog = ok(nvrtc.nvrtcCreateProgram(KERNEL, b"kernels.cu", 0, [], []))
    assert isinstance(prog, nvrtc.nvrtcProgram)
    assert int(prog) != 0
    yield prog
    ok(nvrtc.nvrtcDestroyProgram(prog))


def compile_ok(prog, *options):
    opts = [o.encode() for o in options]
    res = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if res[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
        log = bytearray(size)
        nvrtc.nvrtcGetProgramLog(prog, log)
        pytest.fail(f"compile failed: {res!r}\n{bytes(log).decode(errors='replace')}")
    assert res == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)


def test_version():
    res = nvrtc.nvrtcVersion()
    from cuda.bindings._version import CUDA_MAJOR
    assert res[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS and res[1] == CUDA_MAJOR     # a library of the build's major
    assert isinstance(res[0], nvrtc.nvrtcResult)
    assert isinstance(res[1], int) and isinstance(res[2], int)


def test_compile_to_ptx_into_bytes_and_bytearray(program):
    compile_ok(program, "--gpu-architecture=compute_90")
    size = ok(nvrtc.nvrtcGetPTXSize(program))
    assert isinstance(size, int) and size > 100

    as_bytes = b" " * size
    assert nvrtc.nvrtcGetPTX(program, as_bytes) == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)
    assert b".entry" in as_bytes
    assert b"scale" in as_bytes
    assert b".target sm_90" in as_bytes
    assert as_bytes.endswith(b"\0")

    as_bytearray = bytearray(size)
    assert nvrtc.nvrtcGetPTX(program, as_bytearray) == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)
    assert bytes(as_bytearray) == as_bytes


def test_compile_to_cubin(program):
    compile_ok(program, "--gpu-architecture=sm_90")
    size = ok(nvrtc.nvrtcGetCUBINSize(program))
    assert size > 64
    cubin = bytearray(size)
    ok(nvrtc.nvrtcGetCUBIN(program, cubin))
    assert bytes(cubin[:4]) == b"\x7fELF"


def test_compile_error_and_log():
    prog = ok(nvrtc.nvrtcCreateProgram(b"__global__ void k() { this is not valid }\n", b"broken.cu", 0, [], []))
    try:
        opts = [b"--gpu-architecture=compute_90"]
        res = nvrtc.nvrtcCompileProgram(prog, 1, opts)
        assert res == (nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION,)
        assert res[0] is nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION
        size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
        assert size > 1
        log = b" " * size
        ok(nvrtc.nvrtcGetProgramLog(prog, log))
        assert b"error" in log
        assert b"broken.cu" in log
        log2 = bytearray(size)
        ok(nvrtc.nvrtcGetProgramLog(prog, log2))
        assert bytes(log2) == log
    finally:
        ok(nvrtc.nvrtcDestroyProgram(prog))


def test_error_string():
    res = nvrtc.nvrtcGetErrorString(nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION)
    assert res == (nvrtc.nvrtcResult.NVRTC_SUCCESS, b"NVRTC_ERROR_COMPILATION")
    assert isinstance(res[1], bytes)


def test_name_expression_and_lowered_name(program):
    ok(nvrtc.nvrtcAddNameExpression(program, b"fill<float>"))
    ok(nvrtc.nvrtcAddNameExpression(program, b"fill<int>"))
    compile_ok(program, "--gpu-architecture=compute_90")
    lowered_float = ok(nvrtc.nvrtcGetLoweredName(program, b"fill<float>"))
    lowered_int = ok(nvrtc.nvrtcGetLoweredName(program, b"fill<int>"))
    assert isinstance(lowered_float, bytes)
    assert lowered_float.startswith(b"_Z") and b"fill" in lowered_float
    assert lowered_int != lowered_float
    size = ok(nvrtc.nvrtcGetPTXSize(program))
    ptx = bytearray(size)
    ok(nvrtc.nvrtcGetPTX(program, ptx))
    assert lowered_float in ptx and lowered_int in ptx


def test_headers_are_passed_as_lists():
    src = b'#include "answer.h"\nextern "C" __global__ void k(int *x) { x[0] = ANSWER; }\n'
    prog = ok(nvrtc.nvrtcCreateProgram(src, b"with_header.cu", 1, [b"#define ANSWER 4242\n"], [b"answer.h"]))
    try:
        compile_ok(prog, "--gpu-architecture=compute_90")
        size = ok(nvrtc.nvrtcGetPTXSize(prog))
        ptx = bytearray(size)
        ok(nvrtc.nvrtcGetPTX(prog, ptx))
        assert b"4242" in ptx
    finally:
        ok(nvrtc.nvrtcDestroyProgram(prog))


def test_supported_archs():
    count = ok(nvrtc.nvrtcGetNumSupportedArchs())
    archs = ok(nvrtc.nvrtcGetSupportedArchs())
    assert isinstance(archs, list)
    assert len(archs) == count > 0
    assert all(isinstance(a, int) for a in archs)
    assert 90 in archs
    assert archs == sorted(archs)


def test_failure_gives_none_outputs():
    assert_failed(nvrtc.nvrtcGetPTXSize(nvrtc.nvrtcProgram()), nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_PROGRAM)


def test_destroy_program():
    prog = ok(nvrtc.nvrtcCreateProgram(KERNEL, b"gone.cu", 0, [], []))
    assert nvrtc.nvrtcDestroyProgram(prog) == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)
