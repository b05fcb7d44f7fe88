"""nvFatbin for real: a fatbin built from NVRTC's PTX, cubin and LTO-IR on the CPU (no GPU needed),
its contents checked, and the error paths."""
import struct

import pytest

from _support import LazyModule, nvrtc, ok

nvfatbin = LazyModule("cuda.bindings.nvfatbin")

SOURCE = b"""
extern "C" __global__ void twice(float *x, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""
FATBIN_MAGIC = 0xBA55ED50
# the kind of each entry of a fatbin (its 16-bit first field)
KIND_PTX, KIND_ELF, KIND_LTOIR = 1, 2, 8


def compiled(options, what):
    """SOURCE compiled by NVRTC with `options`; `what` is "PTX", "CUBIN" or "LTOIR"."""
    prog = ok(nvrtc.nvrtcCreateProgram(SOURCE, b"twice.cu", 0, [], []))
    try:
        ok(nvrtc.nvrtcCompileProgram(prog, len(options), options))
        size = ok(getattr(nvrtc, f"nvrtcGet{what}Size")(prog))
        out = bytearray(size)
        ok(getattr(nvrtc, f"nvrtcGet{what}")(prog, out))
        return bytes(out)
    finally:
        ok(nvrtc.nvrtcDestroyProgram(prog))


@pytest.fixture(scope="module")
def inputs():
    return {"ptx": compiled([b"-arch=compute_90"], "PTX"),
            "cubin": compiled([b"-arch=sm_90"], "CUBIN"),
            "ltoir": compiled([b"-arch=sm_90", b"-dlto"], "LTOIR")}


@pytest.fixture
def handle():
    h = nvfatbin.create([], 0)
    yield h
    try:
        nvfatbin.destroy(h)
    except ValueError:      # the test destroyed it itself
        pass


def entries(fatbin):
    """(kind, payload size, header bytes) of each entry of a fatbin."""
    magic, version, hsize, size = struct.unpack_from("<IHHQ", fatbin, 0)
    assert magic == FATBIN_MAGIC and hsize == 16 and hsize + size == len(fatbin)
    out, off = [], hsize
    while off < len(fatbin):
        kind, _, ehsize, psize = struct.unpack_from("<HHIQ", fatbin, off)
        out.append((kind, psize, fatbin[off:off + ehsize]))
        off += ehsize + psize
    assert off == len(fatbin)
    return out


def built(h):
    size = nvfatbin.size(h)
    assert isinstance(size, int) and size > 16
    buf = bytearray(size)
    assert nvfatbin.get(h, buf) is None
    return bytes(buf)


def test_version_is_the_libraries():
    from cuda.bindings._version import CUDA_MAJOR
    major, minor = nvfatbin.version()
    assert major == CUDA_MAJOR and minor >= 0


def test_fatbin_from_ptx_cubin_and_ltoir(handle, inputs):
    ptx, cubin, ltoir = inputs["ptx"], inputs["cubin"], inputs["ltoir"]
    assert cubin[:4] == b"\x7fELF" and b".entry twice" in ptx
    assert nvfatbin.add_ptx(handle, ptx, len(ptx), "90", "twice.ptx", "") is None
    assert nvfatbin.add_cubin(handle, cubin, len(cubin), "90", "twice.cubin") is None
    assert nvfatbin.add_ltoir(handle, ltoir, len(ltoir), "90", "twice.ltoir", "") is None
    fatbin = built(handle)
    kinds = [k for k, _, _ in entries(fatbin)]
    assert sorted(kinds) == [KIND_PTX, KIND_ELF, KIND_LTOIR]
    # the cubin is stored as it is (PTX and LTO-IR are compressed); every entry is for sm_90
    assert cubin in fatbin
    assert [len(p) for k, p, _ in [(k, cubin, h) for k, s, h in entries(fatbin) if k == KIND_ELF]] == [len(cubin)]
    assert all(struct.pack("<I", 90) in h for _, _, h in entries(fatbin))


def test_inputs_as_any_buffer(handle, inputs):
    import numpy as np
    cubin = inputs["cubin"]
    nvfatbin.add_cubin(handle, np.frombuffer(cubin, dtype=np.uint8), len(cubin), "90", "a")
    nvfatbin.add_cubin(handle, bytearray(cubin), len(cubin), "90", "b")
    assert [k for k, _, _ in entries(built(handle))] == [KIND_ELF, KIND_ELF]


def test_library_errors_raise_nvfatbin_error(handle, inputs):
    ptx = inputs["ptx"]
    with pytest.raises(nvfatbin.nvFatbinError) as e:
        nvfatbin.add_ptx(handle, ptx, len(ptx), "sm_90", "x", "")      # the arch is a number
    assert e.value.status == nvfatbin.Result.ERROR_INVALID_ARCH
    assert str(e.value).startswith("ERROR_INVALID_ARCH (9)")
    with pytest.raises(nvfatbin.nvFatbinError) as e:
        nvfatbin.add_cubin(handle, b"\0" * 64, 64, "90", "not-elf")
    assert e.value.status != nvfatbin.Result.SUCCESS
    with pytest.raises(nvfatbin.nvFatbinError) as e:
        nvfatbin.create(["-no-such-option"], 1)
    assert e.value.status == nvfatbin.Result.ERROR_UNRECOGNIZED_OPTION


def test_error_string():
    assert nvfatbin.get_error_string(nvfatbin.Result.ERROR_INVALID_ARCH) == "invalid architecture"
    assert isinstance(nvfatbin.get_error_string(0), str)


def test_argument_errors_name_the_argument(handle, inputs):
    cubin = inputs["cubin"]
    # a refused buffer raises NVIDIA's own ValueError ("buf must be ...", without a note): ours,
    # naming the argument, is its `detail`
    with pytest.raises(ValueError, match="^buf must be ") as excinfo:
        nvfatbin.add_cubin(handle, cubin[:100], 200, "90", "short")       # fewer bytes than size
    assert "argument 'code'" in excinfo.value.detail and not hasattr(excinfo.value, "__notes__")
    with pytest.raises(TypeError, match="arch"):
        nvfatbin.add_cubin(handle, cubin, len(cubin), None, "x")
    with pytest.raises(ValueError, match="^buf must be ") as excinfo:
        nvfatbin.add_cubin(handle, "text", 4, "90", "x")
    assert "argument 'code'" in excinfo.value.detail and not hasattr(excinfo.value, "__notes__")
    with pytest.raises((TypeError, OverflowError), match="size"):
        nvfatbin.add_cubin(handle, cubin, -1, "90", "x")


def test_get_checks_the_buffer_against_the_size_asked_for(inputs):
    # nvFatbinSize finishes the fatbin, and nvFatbinGet fails before it was called: get may not
    # ask itself, so it checks against what the caller asked for, as NVIDIA's package calls it
    h = nvfatbin.create([], 0)
    try:
        nvfatbin.add_cubin(h, inputs["cubin"], len(inputs["cubin"]), "90", "k")
        with pytest.raises(nvfatbin.nvFatbinError) as e:      # not asked for: the library says
            nvfatbin.get(h, bytearray(1 << 16))
        assert e.value.status == nvfatbin.Result.ERROR_INTERNAL
        size = nvfatbin.size(h)
        with pytest.raises(ValueError, match="buffer"):
            nvfatbin.get(h, bytearray(size - 1))     # smaller than size(): refused, not overrun
        out = bytearray(size)
        nvfatbin.get(h, out)
        assert out[:4] != bytes(4)
    finally:
        nvfatbin.destroy(h)


def test_destroyed_handle_is_refused(inputs):
    h = nvfatbin.create([], 0)
    nvfatbin.destroy(h)
    with pytest.raises(ValueError, match="destroyed"):
        nvfatbin.size(h)
    with pytest.raises(ValueError, match="destroyed"):
        nvfatbin.destroy(h)
    with pytest.raises(ValueError, match="handle"):
        nvfatbin.size(8)              # no nvFatbin handle lies in the first page


def test_many_handles_keep_their_own_sizes_and_states(inputs):
    # the sizes asked for and the destroyed handles are kept in C maps keyed by the handle
    # (_base.pxd's __cb_sizemap): with many handles at once, destroyed in a scrambled order, each
    # live one keeps its own answer, each destroyed one stays refused, and a new handle at a
    # destroyed one's address is live and inherits no answer
    import random

    cubin, ptx = inputs["cubin"], inputs["ptx"]
    sizes = {}
    for i in range(300):
        h = nvfatbin.create([], 0)
        nvfatbin.add_cubin(h, cubin, len(cubin), "90", f"k{i}")
        if i % 3 == 0:    # a second entry: a larger fatbin
            nvfatbin.add_ptx(h, ptx, len(ptx), "90", f"p{i}", "")
        sizes[h] = nvfatbin.size(h)
    assert len(set(sizes.values())) == 2
    order = list(sizes)
    random.Random(7).shuffle(order)
    dead, live = order[:200], order[200:]
    for h in dead:
        nvfatbin.destroy(h)
    try:
        for h in dead:
            with pytest.raises(ValueError, match="destroyed"):
                nvfatbin.size(h)
        for h in live:
            with pytest.raises(ValueError, match=f"get writes {sizes[h]}"):
                nvfatbin.get(h, bytearray(sizes[h] - 1))
            nvfatbin.get(h, bytearray(sizes[h]))
        fresh = [nvfatbin.create([], 0) for _ in range(100)]
        try:
            assert set(fresh) & set(dead), "the library gave no new handle a freed address"
            for h in fresh:
                nvfatbin.add_cubin(h, cubin, len(cubin), "90", "k")
                with pytest.raises(nvfatbin.nvFatbinError):     # not asked for: the library says
                    nvfatbin.get(h, bytearray(16))
        finally:
            for h in fresh:
                nvfatbin.destroy(h)
    finally:
        for h in live:
            nvfatbin.destroy(h)


def test_result_enum():
    R = nvfatbin.Result
    assert R.SUCCESS == 0 and R(9) is R.ERROR_INVALID_ARCH
    with pytest.raises(ValueError):
        R(12345)
