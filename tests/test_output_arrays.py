"""Output arrays are sized by their count: a C function that writes `count` items gets room for
`count` items, and a list of them comes back.

The calls run on stand-ins (tests/conformance/stub.py) that write the array as the real library
would (`cuStubFill`: as many bytes as `count` items take, the bytes 1, 2, 3, ...).  A wrapper that
hands C a single slot would have C write past it (a stack or heap overflow) and return one value,
not a list: each call runs in a child process, so a crash fails the test instead of ending the
session.

The converse: a parameter that points to one struct (cuArrayCreate's descriptor) takes that struct,
not a list.
"""
import os
import sys
import textwrap

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _support import run_python, stand_in_env  # noqa: E402

# function -> (C argument index of the array, the item: "handle" | "u32" | a struct class name,
# the Python call's arguments for n items, written with `m` for the module)
CASES = {
    "cuLibraryEnumerateKernels": (0, "handle", "n, None"),
    "cuModuleEnumerateFunctions": (0, "handle", "n, None"),
    "cuGraphGetNodes": (1, "handle", "None, n"),
    "cuDevSmResourceSplitByCount": (0, "CUdevResource", "n, m.CUdevResource(), 0, 0"),
    "cuDevSmResourceSplit": (0, "CUdevResource",
                             "n, m.CUdevResource(), 0, [m.CU_DEV_SM_RESOURCE_GROUP_PARAMS() for _ in range(n)]"),
    "cuDeviceGetHostAtomicCapabilities": (0, "u32", "[list(m.CUatomicOperation)[0]] * n, n, 0"),
    "cuDeviceGetP2PAtomicCapabilities": (0, "u32", "[list(m.CUatomicOperation)[0]] * n, n, 0, 1"),
    "cudaLibraryEnumerateKernels": (0, "handle", "n, None"),
    "cudaGraphGetNodes": (1, "handle", "None, n"),
    "cudaDevSmResourceSplitByCount": (0, "cudaDevResource", "n, m.cudaDevResource(), 0, 0"),
    "cudaDevSmResourceSplit": (0, "cudaDevResource",
                               "n, m.cudaDevResource(), 0, [m.cudaDevSmResourceGroupParams() for _ in range(n)]"),
    "cudaDeviceGetHostAtomicCapabilities": (0, "u32", "[list(m.cudaAtomicOperation)[0]] * n, n, 0"),
    "cudaDeviceGetP2PAtomicCapabilities": (0, "u32", "[list(m.cudaAtomicOperation)[0]] * n, n, 0, 1"),
}

CHILD = """
import ctypes, sys
from cuda.bindings import driver, runtime, _loader
name, n, runtime_stub = {name!r}, {n}, {runtime_stub!r}
m = runtime if name.startswith("cuda") else driver
if not hasattr(m, name):
    print("absent"); sys.exit(0)
lib = ctypes.CDLL(runtime_stub if m is runtime else "libcuda.so.1")
if m is runtime:
    _loader._libs["runtime"] = lib       # the runtime's entry points are the stand-in's
item = {item!r}
size = {{"handle": 8, "u32": 4}}.get(item) or m.sizeof(getattr(m, item))
lib.cuStubFill({out}, n * size)          # C writes n items into the array argument
res = getattr(m, name)({args})
lib.cuStubFill(-1, 0)
assert int(res[0]) == 0, res
items = res[1]
assert isinstance(items, list), f"{{name}} returned {{items!r}}, not a list"
assert len(items) == n, f"{{name}}: {{len(items)}} items for a count of {{n}}"
for i, x in enumerate(items):
    raw = (int(x).to_bytes(size, "little") if item in ("handle", "u32")
           else ctypes.string_at(x.getPtr(), size))
    assert raw == bytes((i * size + j + 1) & 0xff for j in range(size)), f"{{name}}: item {{i}} is {{raw.hex()}}"
print("ok", type(items[0]).__name__)
"""


@pytest.fixture(scope="module")
def stand_in_runtime(tmp_path_factory):
    """A stand-in runtime library with the runtime functions of CASES."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, root)
    try:
        from tests.conformance import stub
    finally:
        sys.path.remove(root)
    return stub.build_library([n for n in CASES if n.startswith("cuda")], tmp_path_factory.mktemp("rtstub"),
                              "libcudart_stand_in.so")


@pytest.mark.parametrize("n", [1, 3, 64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_output_array_holds_count_items(name, n, stand_in_driver, stand_in_runtime):
    out, item, args = CASES[name]
    code = CHILD.format(name=name, n=n, runtime_stub=stand_in_runtime, item=item, out=out, args=args)
    r = run_python(textwrap.dedent(code), env=stand_in_env(stand_in_driver, 0))
    assert r.returncode == 0, f"{name} with a count of {n} (exit {r.returncode}):\n{r.stdout}{r.stderr[-3000:]}"
    if r.stdout.strip() == "absent":
        pytest.skip(f"{name} is not in this build's release")
    assert r.stdout.strip().startswith("ok"), r.stdout


def test_one_array_descriptor_is_what_cuArrayCreate_gets(stand_in_driver):
    code = """
    import ctypes
    from cuda.bindings import driver
    lib = ctypes.CDLL("libcuda.so.1")
    lib.cuStubArgs.restype = ctypes.POINTER(ctypes.c_uint64)
    desc = driver.CUDA_ARRAY_DESCRIPTOR()
    desc.Width, desc.Height, desc.NumChannels = 64, 32, 1
    desc.Format = driver.CUarray_format.CU_AD_FORMAT_FLOAT
    err, array = driver.cuArrayCreate(desc)
    assert int(err) == 0 and isinstance(array, driver.CUarray), (err, array)
    print(lib.cuStubArgs()[1] == desc.getPtr())
    """
    r = run_python(textwrap.dedent(code), env=stand_in_env(stand_in_driver, 0))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["True"]      # the descriptor's own memory, read by C
