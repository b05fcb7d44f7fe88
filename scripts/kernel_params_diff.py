#!/usr/bin/env python3
"""Kernel parameters on a GPU: our `cuda.bindings` against NVIDIA's `cuda-bindings`, byte for byte.

Every documented `kernelParams` form goes through every launch API, once with our build and once
with NVIDIA's package, each in a child process. The kernels (NVRTC, for the device's architecture)
copy each parameter they receive, byte for byte, into a `__device__` buffer that is read back;
they never dereference a parameter, so a wrongly packed pointer changes bytes but cannot fault.

  forms  numpy-ptrs       numpy uint64 array of the addresses of one numpy array per argument
         numpy-ptrs-int   the same as the int `ptrs.ctypes.data`
         ctypes-ptrs      ctypes `c_void_p` array of `ctypes.addressof` of ctypes values
         ctypes-ptrs-int  the same as the int `ctypes.addressof(array)`
         py-values        `(values, types)`: Python values with ctypes types
         ctypes-values    `(values, types)`: ctypes instances (`c_int(5)` with `c_int`; a
                          `ctypes.Structure` instance with its class)
         none-objects     type None: `CUdeviceptr(x)`, handles, enum members, a Structure
         voidp-ints       type `c_void_p` with an int (where the plain type is not c_void_p)
         voidp-objects    type `c_void_p` with a binding object
         none-aliased     type None with `T(_ptr=address)`; the memory there is written afterwards
         voidp-aliased    type `c_void_p` with `T(_ptr=address)`, likewise
  APIs   cuLaunchKernel, cuLaunchCooperativeKernel, cuLaunchKernelEx, runtime cudaLaunchKernel
         (func: a cudaKernel_t from cudaLibraryLoadData, or what a probe finds the module takes),
         graph-node (CUDA_KERNEL_NODE_PARAMS, cuGraphAddKernelNode, instantiate, launch).
  types  TYPE_SETS below, one kernel each; a form is tried on a set where it changes how at
         least one parameter is passed.

A case (types, form, API) records each parameter's bytes and what they are (`value`: the value
passed; `getPtr()`: the address of the binding object's storage; `stale`: what an aliased object's
memory held before it was written; `other`), or the error status or exception. A difference: bytes
that differ, or a case one package accepts and the other rejects (rejected by both is none). Where
NVIDIA's package lacks an API (its runtime module has no cudaLaunchKernel), ours is compared with
NVIDIA's cuLaunchKernel for the same case (marked *). A case that kills its worker is recorded as a
crash, and a new worker goes on after it.

    python scripts/kernel_params_diff.py [--ours DIR] [--ref-dir DIR ...] [--json FILE] [--inspect]

--ours: our build folder (default $DEST, else /tmp/ours), put first on PYTHONPATH; its
`cuda.bindings.__file__` must start there. References: the machine's installed cuda-bindings
(PYTHONPATH unset; it must not be ours; --no-installed skips it), and each --ref-dir or
$KERNEL_PARAMS_REF_DIRS (':'-separated) folder holding another copy (for example
`pip install --target DIR cuda-bindings==13.0.3`). --inspect needs no GPU: each (types, form) is
packed through `CUDA_KERNEL_NODE_PARAMS.kernelParams` and the void*[] read back instead of launched.
scripts/gpu_check.sh runs it after building into $DEST. The last line printed is the summary.
Exit status: 0 no differences, 1 differences, 2 a worker failed, 3 no reference to compare with.
"""
import argparse
import ctypes as C
import json
import os
import struct
import subprocess
import sys
import tempfile

RESTART = 75                 # a worker's exit status after a sticky error: go on in a new process
OUT_BYTES = 256              # the kernels' output buffer
STALE = 0x0BAD0BAD0BAD0BAD   # an aliased object's memory when the object is made
FALLBACK = {"cudaLaunchKernel": "cuLaunchKernel"}  # where the reference lacks the first


class KpStruct(C.Structure):
    _fields_ = [("a", C.c_int), ("b", C.c_float), ("c", C.c_double)]


class Param:
    """One kernel parameter: C type, bytes (struct format), value, ctypes type, numpy dtype, and
    obj(driver, runtime): the object passed with type None; cls(driver, runtime): T of T(_ptr=)."""

    def __init__(self, c, fmt, value, ctype, dtype, obj=None, cls=None):
        self.c, self.value, self.ctype, self.dtype, self.obj, self.cls = c, value, ctype, dtype, obj, cls
        self.expected = struct.pack(fmt, *(value if isinstance(value, tuple) else (value,)))
        self.size = len(self.expected)
        self.align = 8 if c == "kp_struct" else self.size


def devptr(v):
    return Param("CUdeviceptr", "<Q", v, C.c_uint64, "u8", lambda d, rt: d.CUdeviceptr(v), lambda d, rt: d.CUdeviceptr)


def pointer(c, v):
    return Param(c, "<Q", v, C.c_void_p, "u8", lambda d, rt: d.CUdeviceptr(v), lambda d, rt: d.CUdeviceptr)


def handle(v, name, rt_module=False):
    cls = (lambda d, rt: getattr(rt, name)) if rt_module else (lambda d, rt: getattr(d, name))
    return Param("void*", "<Q", v, C.c_void_p, "u8", lambda d, rt: cls(d, rt)(v), cls)


def enum(v, member):  # member(driver, runtime) -> an enum member whose value is v
    return Param("kp_enum", "<i", v, C.c_int, "i4", member)


def char(v):
    return Param("char", "<c", v, C.c_char, "S1")


P = 0x7F3A12345670
TYPE_SETS = {
    "ints": [Param("signed char", "<b", -2, C.c_byte, "i1"), Param("short", "<h", -12345, C.c_short, "i2"),
             Param("int", "<i", -123456789, C.c_int, "i4"),
             Param("long long", "<q", -(1 << 40) - 12345, C.c_longlong, "i8")],
    "uints": [Param("unsigned char", "<B", 0xA5, C.c_ubyte, "u1"),
              Param("unsigned short", "<H", 0xBEEF, C.c_ushort, "u2"),
              Param("unsigned int", "<I", 0xDEADBEEF, C.c_uint, "u4"),
              Param("unsigned long long", "<Q", 0xFEDCBA9876543210, C.c_ulonglong, "u8")],
    "floats": [Param("float", "<f", 1.1, C.c_float, "f4"), Param("double", "<d", -3.141592653589793, C.c_double, "f8"),
               Param("float", "<f", 2.5e-3, C.c_float, "f4")],
    "bool-char": [Param("bool", "<?", True, C.c_bool, "?"), char(b"Z"), Param("bool", "<?", False, C.c_bool, "?")],
    "pointers": [pointer("void*", P), pointer("float*", P + 0x1000)],
    "struct": [char(b"S"),
               Param("kp_struct", "<ifd", (3, 1.5, -2.25), None, "struct", lambda d, rt: KpStruct(3, 1.5, -2.25)),
               Param("int", "<i", 0x01020304, C.c_int, "i4")],
    "enums": [enum(2, lambda d, rt: d.CUmemorytype.CU_MEMORYTYPE_DEVICE), char(b"E"),
              enum(999, lambda d, rt: d.CUresult.CUDA_ERROR_UNKNOWN),
              enum(3, lambda d, rt: rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice)],
    "devptr": [devptr(P + 0x2000), Param("int", "<i", 77, C.c_int, "i4"), devptr(P + 0x3008)],
    "handles": [handle(0x55AA000012345678, "CUstream"), Param("int", "<i", -5, C.c_int, "i4"),
                handle(0x66BB000087654320, "CUevent")],
    "rt-handles": [handle(0x77CC000011112222, "cudaStream_t", True), handle(0x77CC000033334444, "cudaEvent_t", True)],
    "mixed": [char(b"M"), Param("double", "<d", -2.5, C.c_double, "f8"), Param("short", "<h", -300, C.c_short, "i2"),
              devptr(P + 0x4000), Param("float", "<f", 3.25, C.c_float, "f4"),
              enum(3, lambda d, rt: d.CUmemorytype.CU_MEMORYTYPE_ARRAY), Param("bool", "<?", True, C.c_bool, "?"),
              Param("long long", "<q", -(1 << 50) + 7, C.c_longlong, "i8")],
}
POINTER_TYPES = ("void*", "float*", "CUdeviceptr")
FORMS = ["numpy-ptrs", "numpy-ptrs-int", "ctypes-ptrs", "ctypes-ptrs-int", "py-values", "ctypes-values",
         "none-objects", "voidp-ints", "voidp-objects", "none-aliased", "voidp-aliased"]
APIS = ["cuLaunchKernel", "cuLaunchCooperativeKernel", "cuLaunchKernelEx", "cudaLaunchKernel", "graph-node"]
SHORT = {"cuLaunchKernel": "cuLaunch", "cuLaunchCooperativeKernel": "coop", "cuLaunchKernelEx": "Ex",
         "cudaLaunchKernel": "cudaLaunch", "graph-node": "graph", "inspect": "packed"}


def layout(params):
    """The parameters' offsets in the output buffer (natural alignment), and the total size."""
    offsets, off = [], 0
    for p in params:
        off = -(-off // p.align) * p.align
        offsets.append(off)
        off += p.size
    return offsets, off


def kernel_name(types):
    return "kp_" + types.replace("-", "_")


def kernel_source():
    lines = ["struct kp_struct { int a; float b; double c; };",
             'static_assert(sizeof(kp_struct) == 16, "kp_struct is 16 bytes");',
             "enum kp_enum { KP_ENUM_ZERO = 0, KP_ENUM_WIDE = 0x7fffffff };",
             "typedef unsigned long long CUdeviceptr;",
             f"__device__ unsigned char kp_out[{OUT_BYTES}];",
             "__device__ void kp_put(int off, const void *p, int n)",
             "{ for (int i = 0; i < n; ++i) kp_out[off + i] = ((const unsigned char *)p)[i]; }",
             'extern "C" __global__ void kp_probe() { kp_out[0] = 0x5a; }']
    for types, params in TYPE_SETS.items():
        args = ", ".join(f"{p.c} a{i}" for i, p in enumerate(params))
        body = " ".join(f"kp_put({off}, &a{i}, sizeof(a{i}));" for i, off in enumerate(layout(params)[0]))
        lines.append(f'extern "C" __global__ void {kernel_name(types)}({args}) {{ {body} }}')
    return "\n".join(lines) + "\n"


# --- forms ----------------------------------------------------------------------------------------


def own_way(form, p):
    """Whether `form` passes p its own way (else: the plain way, a Python value or a None-typed object)."""
    if form in ("py-values", "ctypes-values"):
        return True
    if form == "none-objects":
        return p.obj is not None
    if form == "voidp-ints":
        return p.c in POINTER_TYPES and p.ctype is not C.c_void_p
    if form == "voidp-objects":
        return p.c in POINTER_TYPES and p.obj is not None
    return form in ("none-aliased", "voidp-aliased") and p.cls is not None


def applicable(types, form):
    params = TYPE_SETS[types]
    if form == "py-values":
        return all(p.ctype for p in params)
    return form.startswith(("numpy-", "ctypes-")) or any(own_way(form, p) for p in params)


def cases(inspect):
    for types in TYPE_SETS:
        for form in filter(lambda f: applicable(types, f), FORMS):
            for api in ["inspect"] if inspect else APIS:
                yield types, form, api


def pair(form, p, d, rt, keep, labels):
    """The (value, type) `form` passes for p; labels gets other byte patterns worth naming."""
    import numpy as np
    if not own_way(form, p):
        return (p.value, p.ctype) if p.ctype else (p.obj(d, rt), None)
    if form == "py-values":
        return p.value, p.ctype
    if form == "ctypes-values":
        return (p.obj(d, rt), KpStruct) if p.ctype is None else (p.ctype(p.value), p.ctype)
    if form in ("none-objects", "voidp-objects"):
        return p.obj(d, rt), (None if form == "none-objects" else C.c_void_p)
    if form == "voidp-ints":
        return p.value, C.c_void_p
    holder = np.array([STALE], dtype=np.uint64)
    obj = p.cls(d, rt)(_ptr=holder.ctypes.data)
    holder[0] = p.value  # written after the object was made: an alias passes it, a copy does not
    keep.append(holder)
    labels["stale"] = struct.pack("<Q", STALE)
    return obj, (None if form == "none-aliased" else C.c_void_p)


def build(form, params, d, rt):
    """(kernelParams, objects to keep alive, per parameter {label: bytes}) for one form and type set."""
    import numpy as np
    keep, labels = [], [{} for _ in params]
    if form.startswith("numpy-ptrs"):
        holders = [np.frombuffer(p.expected, dtype=np.uint8).copy() if p.dtype == "struct"
                   else np.array([p.value], dtype=p.dtype) for p in params]
        ptrs = np.array([h.ctypes.data for h in holders], dtype=np.uint64)
        keep += [holders, ptrs]
        return (ptrs if form == "numpy-ptrs" else int(ptrs.ctypes.data)), keep, labels
    if form.startswith("ctypes-ptrs"):
        values = [p.obj(d, rt) if p.ctype is None else p.ctype(p.value) for p in params]
        arr = (C.c_void_p * len(values))(*[C.addressof(v) for v in values])
        keep += [values, arr]
        return (arr if form == "ctypes-ptrs" else C.addressof(arr)), keep, labels
    pairs = [pair(form, p, d, rt, keep, lab) for p, lab in zip(params, labels)]
    for (value, _), lab in zip(pairs, labels):
        if callable(getattr(value, "getPtr", None)):
            lab["getPtr()"] = struct.pack("<Q", value.getPtr())
    keep.append(pairs)
    return (tuple(v for v, _ in pairs), tuple(t for _, t in pairs)), keep, labels


def label_bytes(got, params, labels):
    out = []
    for p, off, lab in zip(params, layout(params)[0], labels):
        b = got[off:off + p.size]
        names = [name for name, want in [("value", p.expected)] + sorted(lab.items()) if b == want]
        out.append({"hex": b.hex(), "is": (names or ["other"])[0]})
    return out


# --- worker: one package, one process --------------------------------------------------------------


def status(res):
    err = res[0] if isinstance(res, tuple) else res
    return int(err), getattr(err, "name", None) or repr(err)


def ok(res, what):
    code, name = status(res)
    if code:
        raise RuntimeError(f"{what} returned {name}")
    return res[1] if len(res) == 2 else res[1:]


def compile_source(nvrtc, cc, fmt):
    prog = ok(nvrtc.nvrtcCreateProgram(kernel_source().encode(), b"kernel_params.cu", 0, [], []), "nvrtcCreateProgram")
    arch = f"--gpu-architecture={'sm' if fmt == 'cubin' else 'compute'}_{cc}"
    res = nvrtc.nvrtcCompileProgram(prog, 1, [arch.encode()])
    if status(res)[0]:
        log = b" " * ok(nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(f"NVRTC: {status(res)[1]}\n{log.decode(errors='replace')}")
    size, get = ((nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN) if fmt == "cubin"
                 else (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX))
    image = b" " * ok(size(prog), f"NVRTC {fmt} size")
    ok(get(prog, image), f"NVRTC {fmt}")
    nvrtc.nvrtcDestroyProgram(prog)
    return image


class Device:
    """Context, stream, the module (driver launches, graph node), the library (runtime launch)."""

    def __init__(self, d, rt, nvrtc, notes):
        self.d, self.rt, self.step = d, rt, ""
        ok(d.cuInit(0), "cuInit")
        dev = ok(d.cuDeviceGet(0), "cuDeviceGet")
        ok(d.cuCtxSetCurrent(ok(d.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")), "cuCtxSetCurrent")
        A = d.CUdevice_attribute
        cc = "".join(str(ok(d.cuDeviceGetAttribute(a, dev), "cuDeviceGetAttribute")) for a in
                     (A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
        self.stream = ok(d.cuStreamCreate(0), "cuStreamCreate")
        for fmt in ("cubin", "ptx"):  # PTX where the driver does not load NVRTC's cubin
            image = compile_source(nvrtc, cc, fmt)
            res = d.cuModuleLoadData(image)
            if status(res)[0] == 0:
                break
            notes.append(f"cuModuleLoadData({fmt}) returned {status(res)[1]}")
        self.module = ok(res, "cuModuleLoadData")
        notes.append(f"sm_{cc}, kernels loaded from {fmt}")
        self.funcs = {t: ok(d.cuModuleGetFunction(self.module, kernel_name(t).encode()), "cuModuleGetFunction")
                      for t in TYPE_SETS}
        self.out = dict.fromkeys(APIS, ok(d.cuModuleGetGlobal(self.module, b"kp_out"), "cuModuleGetGlobal")[0])
        self.rt_missing = "this runtime module has no cudaLaunchKernel"
        if getattr(rt, "cudaLaunchKernel", None) is not None:
            try:
                self.rt_missing = self.runtime_setup(image)
            except Exception as e:
                self.rt_missing = f"runtime setup failed: {type(e).__name__}: {e}"
        notes.append(self.rt_missing or self.rt_note)

    def runtime_setup(self, image):
        """Finds the `func` cudaLaunchKernel takes, trying each on a kernel without parameters."""
        d, rt = self.d, self.rt
        lib = ok(rt.cudaLibraryLoadData(image, None, None, 0, None, None, 0), "cudaLibraryLoadData")
        lib_out = ok(rt.cudaLibraryGetGlobal(lib, b"kp_out"), "cudaLibraryGetGlobal")[0]
        kern = {t: ok(rt.cudaLibraryGetKernel(lib, kernel_name(t).encode()), "cudaLibraryGetKernel")
                for t in list(TYPE_SETS) + ["probe"]}
        funcs = dict(self.funcs, probe=ok(d.cuModuleGetFunction(self.module, b"kp_probe"), "cuModuleGetFunction"))
        self.dim = rt.dim3()
        self.dim.x = self.dim.y = self.dim.z = 1
        self.rt_stream = rt.cudaStream_t(int(self.stream))
        tried = []
        ways = [("cudaKernel_t", kern, lib_out), ("int(cudaKernel_t)", {t: int(k) for t, k in kern.items()}, lib_out),
                ("driver CUfunction", funcs, self.out["cuLaunchKernel"])]
        for label, table, out in ways:
            try:
                self.reset(out)
                res = rt.cudaLaunchKernel(table["probe"], self.dim, self.dim, None, 0, self.rt_stream)
                ok(d.cuCtxSynchronize(), "cuCtxSynchronize")
                if status(res)[0] == 0 and self.read(out, 1) == b"\x5a":
                    self.rt_funcs, self.out["cudaLaunchKernel"] = table, out
                    self.rt_note = f"cudaLaunchKernel takes func as {label}" + "".join(f"; not {t}" for t in tried)
                    return None
                tried.append(f"{label} ({status(res)[1]})")
            except Exception as e:
                tried.append(f"{label} ({type(e).__name__}: {e})")
        return "cudaLaunchKernel launched the probe with no func form: " + "; ".join(tried)

    def reset(self, out):
        ok(self.d.cuMemsetD8(out, 0xAA, OUT_BYTES), "cuMemsetD8")
        ok(self.d.cuCtxSynchronize(), "cuCtxSynchronize")

    def read(self, out, n):
        buf = bytearray(n)
        ok(self.d.cuMemcpyDtoH(buf, out, n), "cuMemcpyDtoH")
        return bytes(buf)

    def launch(self, api, types, kp):
        """Launches; returns (status, the call it came from): the first failure, else the launch."""
        d, f, s = self.d, self.funcs[types], self.stream
        self.step = api
        if api == "cuLaunchKernel":
            return d.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, kp, 0), api
        if api == "cuLaunchCooperativeKernel":
            return d.cuLaunchCooperativeKernel(f, 1, 1, 1, 1, 1, 1, 0, s, kp), api
        if api == "cuLaunchKernelEx":
            cfg = d.CUlaunchConfig()
            cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = cfg.blockDimX = cfg.blockDimY = cfg.blockDimZ = 1
            cfg.sharedMemBytes, cfg.hStream, cfg.numAttrs = 0, s, 0
            return d.cuLaunchKernelEx(cfg, f, kp, 0), api
        if api == "cudaLaunchKernel":
            return self.rt.cudaLaunchKernel(self.rt_funcs[types], self.dim, self.dim, kp, 0, self.rt_stream), api
        node = d.CUDA_KERNEL_NODE_PARAMS()
        node.func = f
        node.gridDimX = node.gridDimY = node.gridDimZ = node.blockDimX = node.blockDimY = node.blockDimZ = 1
        node.sharedMemBytes = 0
        self.step = "CUDA_KERNEL_NODE_PARAMS.kernelParams"
        node.kernelParams = kp
        self.step = "graph"
        graph = ok(d.cuGraphCreate(0), "cuGraphCreate")
        try:
            res = d.cuGraphAddKernelNode(graph, None, 0, node)
            if status(res)[0]:
                return res, "cuGraphAddKernelNode"
            res = d.cuGraphInstantiate(graph, 0)
            if status(res)[0]:
                return res, "cuGraphInstantiate"
            try:
                return d.cuGraphLaunch(res[1], s), "cuGraphLaunch"
            finally:
                d.cuStreamSynchronize(s)
                d.cuGraphExecDestroy(res[1])
        finally:
            d.cuGraphDestroy(graph)


def packed(d, kp, params):
    """No GPU: the bytes a kernel node's void*[] points to, laid out as the kernel writes them."""
    node = d.CUDA_KERNEL_NODE_PARAMS()
    node.kernelParams = kp
    ptrs = (C.c_void_p * len(params)).from_address(int(node.kernelParams))
    offsets, total = layout(params)
    buf = bytearray(b"\xaa" * total)
    for p, off, ptr in zip(params, offsets, ptrs):
        if ptr:
            buf[off:off + p.size] = C.string_at(ptr, p.size)
    return bytes(buf)


def worker(args):
    out = open(args.results, "a")

    def emit(rec):
        out.write(json.dumps(rec) + "\n")
        out.flush()

    try:
        import cuda.bindings
        from cuda.bindings import driver as d, nvrtc, runtime as rt
        where = os.path.abspath(cuda.bindings.__file__)
        ours = where.startswith(os.path.join(os.path.abspath(args.prefix), ""))
        if ours != (args.worker == "ours"):
            raise RuntimeError(f"cuda.bindings was imported from {where}: " + (
                f"not from our build in {args.prefix}" if args.worker == "ours" else "that is our build"))
        notes = []
        dev = None if args.inspect else Device(d, rt, nvrtc, notes)
    except Exception as e:
        emit({"setup_error": f"{type(e).__name__}: {e}"})
        sys.exit(4)
    emit({"setup": {"where": where, "version": getattr(cuda.bindings, "__version__", "?"), "notes": notes}})
    with open(args.results) as f:
        done = {json.loads(line).get("id") for line in f if line.strip()}
    for types, form, api in cases(args.inspect):
        cid, params, step = f"{types}|{form}|{api}", TYPE_SETS[types], "build"
        if cid in done:
            continue
        emit({"id": cid, "start": True})
        rec = {"id": cid}
        try:
            if api == "cudaLaunchKernel" and dev.rt_missing:
                rec.update(outcome="missing", detail=dev.rt_missing)
            elif args.inspect:
                kp, keep, labels = build(form, params, d, rt)  # keep: alive until the next case
                step = "CUDA_KERNEL_NODE_PARAMS.kernelParams"
                rec.update(outcome="ok", params=label_bytes(packed(d, kp, params), params, labels))
            else:
                kp, keep, labels = build(form, params, d, rt)
                step = "reset"
                dev.reset(dev.out[api])
                step = "launch"
                res, call = dev.launch(api, types, kp)
                step = "after the launch"
                code, name = status(res)
                if not code:
                    call, (code, name) = "cuCtxSynchronize", status(d.cuCtxSynchronize())
                if code:
                    rec.update(outcome="error", detail=f"{call} returned {name}")
                    if call == "cuCtxSynchronize":  # sticky: the context is lost, a new process goes on
                        emit(rec)
                        sys.exit(RESTART)
                else:
                    got = dev.read(dev.out[api], layout(params)[1])
                    rec.update(outcome="ok", params=label_bytes(got, params, labels))
        except Exception as e:
            step = dev.step if step == "launch" else step
            rec.update(outcome="exception", detail=f"{step}: {type(e).__name__}: {e}"[:300])
        emit(rec)


# --- parent: run the workers, compare, report --------------------------------------------------------


def run_worker(role, pythonpath, args, results):
    """One package's worker, run again after each crash until every case has a record."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CUDA_BINDINGS_EXPECT_PREFIX")}
    env["PYTHONUNBUFFERED"] = "1"
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    argv = [sys.executable, os.path.abspath(__file__), "--worker", role, "--results", results, "--prefix", args.ours]
    for _ in range(30):
        try:
            proc = subprocess.run(argv + ["--inspect"] * args.inspect, env=env, capture_output=True, text=True,
                                  timeout=args.timeout)
            rc, tail = proc.returncode, (proc.stdout + proc.stderr)[-2000:]
        except subprocess.TimeoutExpired as e:
            rc, tail = "timeout", str(e)
        recs = [json.loads(line) for line in open(results) if line.strip()]
        if any("setup_error" in r for r in recs):
            return {"error": [r["setup_error"] for r in recs if "setup_error" in r][-1], "tail": tail}
        if rc == 0:
            setup = next(r["setup"] for r in recs if "setup" in r)
            return dict(setup, results={r["id"]: r for r in recs if "outcome" in r})
        unfinished = {r["id"] for r in recs if r.get("start")} - {r["id"] for r in recs if "outcome" in r}
        if not unfinished and rc != RESTART:
            return {"error": f"the worker exited with {rc} outside any case", "tail": tail}
        why = f"killed by signal {-rc}" if isinstance(rc, int) and rc < 0 else f"exit {rc}"
        with open(results, "a") as f:
            f.writelines(json.dumps({"id": i, "outcome": "crash", "detail": f"the worker died ({why})"}) + "\n"
                         for i in unfinished)
    return {"error": "the worker died 30 times", "tail": tail}


def same(a, b):
    return a["is"] == b["is"] and (a["is"] != "other" or a["hex"] == b["hex"])


def verdict(a, b):
    """ok, = (same bytes, not the values passed), x (rejected by both), - (an API missing), d (a
    difference listed in tests/conformance/departures.py);
    differences: # (bytes), O / N (accepted by ours / NVIDIA's only), C (a crash in one), ? (no record)."""
    if a is None or b is None:
        return "?"
    oa, ob = a["outcome"], b["outcome"]
    if "missing" in (oa, ob):
        return "-"
    if (oa == "crash") != (ob == "crash"):
        return "C"
    if oa == ob == "ok":
        if not all(same(x, y) for x, y in zip(a["params"], b["params"])):
            return "#"
        return "ok" if all(x["is"] == "value" for x in a["params"]) else "="
    return "O" if oa == "ok" else "N" if ob == "ok" else "x"


def show(rec, only=None):
    if rec["outcome"] != "ok":
        return f"{rec['outcome']}: {rec.get('detail', '')}"
    return " ".join(f"a{i}={x['hex']}" + ("" if x["is"] == "value" else f"({x['is']})")
                    for i, x in enumerate(rec["params"]) if only is None or i in only)


def listed(types, form, api, a, b):
    """The reason tests/conformance/departures.py gives for this difference, or None: a case is
    the probe id `kparams.<types>.<form>.<api>` with the observations {"outcome": ..., "exc": ...}."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:
        sys.path.insert(0, root)
    from tests.conformance.departures import DEPARTURES
    from tests.conformance.run import departure

    def obs(rec):
        detail = rec.get("detail", "")
        exc = detail.split(": ")[1] if rec["outcome"] == "exception" and detail.count(": ") >= 2 else None
        return {"outcome": rec["outcome"], **({"exc": exc} if exc else {})}
    entry, _ = departure(f"kparams.{types}.{form}.{api}", obs(a), obs(b), DEPARTURES)
    return entry[-1] if entry else None


def compare(ours, ref, ids):
    """Prints the table and the differences (those listed as deliberate departures apart);
    returns {verdict: count}."""
    name = f"NVIDIA {ref['version']}"
    print(f"\n==== ours ({ours['where']}) vs {name} ({ref['where']})")
    for who, side in (("ours", ours), (name, ref)):
        print(f"notes, {who}: " + ("; ".join(side["notes"]) or "-"))
    print("ok: same bytes, the values passed; =: same bytes, not the values passed; #: bytes differ; O / N:\n"
          "accepted by ours / NVIDIA's only; C: a crash in one; x: rejected by both; -: API missing;\n"
          f"*: {name} has no such API; compared with its " + ", ".join(f"{v} for {k}" for k, v in FALLBACK.items()))
    apis = list(dict.fromkeys(i.split("|")[2] for i in ids))
    print(f"{'types':11s} {'form':16s}" + "".join(f"{SHORT[a]:>11s}" for a in apis))
    counts, diffs, both, departures = {}, [], {}, {}
    for types, form in dict.fromkeys(tuple(i.split("|")[:2]) for i in ids):
        cells = []
        for api in apis:
            a, b = ours["results"].get(f"{types}|{form}|{api}"), ref["results"].get(f"{types}|{form}|{api}")
            star = ""
            if b and b["outcome"] == "missing" and api in FALLBACK and a and a["outcome"] != "missing":
                b, star = ref["results"].get(f"{types}|{form}|{FALLBACK[api]}"), "*"
            v = verdict(a, b)
            reason = listed(types, form, api, a, b) if v in "#ONC" else None
            if reason:
                departures.setdefault(reason, []).append(f"{types} / {form} / {api}")
                v = "d"
            counts[v] = counts.get(v, 0) + 1
            cells.append(v + star)
            where = f"{types} / {form} / {api}" + (f" (NVIDIA's: {FALLBACK[api]})" if star else "")
            if v == "?":
                diffs.append(f"{where}: no record from {'ours' if a is None else name}")
            elif v in "#ONC":
                pairs = zip(a.get("params", ()), b.get("params", ()))
                only = [i for i, (x, y) in enumerate(pairs) if not same(x, y)] if v == "#" else None
                diffs.append(f"{where}:\n    ours: {show(a, only)}\n    {name}: {show(b, only)}")
            elif v == "x":
                both.setdefault((types, form), f"ours {a.get('detail')} | {name} {b.get('detail')}")
        print(f"{types:11s} {form:16s}" + "".join(f"{c:>11s}" for c in cells))
    if diffs:
        print(f"\ndifferences ({len(diffs)}):\n" + "\n".join(diffs))
    for reason, cases in departures.items():
        print(f"\nlisted departure ({len(cases)}: {', '.join(cases)}): {reason}")
    if both:
        print("\nrejected by both (the first API's messages):")
        print("\n".join(f"  {t} / {f}: {why[:300]}" for (t, f), why in both.items()))
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", default=os.environ.get("DEST") or "/tmp/ours")
    ap.add_argument("--ref-dir", action="append", default=[])
    ap.add_argument("--no-installed", action="store_true")
    ap.add_argument("--inspect", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=int, default=300, help="seconds for one worker process")
    ap.add_argument("--worker", choices=["ours", "reference"], help=argparse.SUPPRESS)
    ap.add_argument("--results", help=argparse.SUPPRESS)
    ap.add_argument("--prefix", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    args.ours = os.path.abspath(args.ours)
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.abspath(p) != args.ours]
    refs = [] if args.no_installed else [("installed", None)]
    refs += [(p, p) for p in args.ref_dir + os.environ.get("KERNEL_PARAMS_REF_DIRS", "").split(":") if p]
    with tempfile.TemporaryDirectory(prefix="kernel_params.") as tmp:
        ours = run_worker("ours", os.pathsep.join([args.ours] + rest), args, os.path.join(tmp, "ours.jsonl"))
        done = [(label, run_worker("reference", path, args, os.path.join(tmp, f"ref{i}.jsonl")))
                for i, (label, path) in enumerate(refs)]
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ours": ours, "references": dict(done)}, f, indent=1)
    failed = [(label, r) for label, r in [("ours", ours)] + done if "error" in r]
    for label, r in failed:
        print(f"worker for {label} failed: {r['error']}\n{r['tail']}")
    good = [(label, r) for label, r in done if "error" not in r]
    if "error" in ours or not good:
        none_installed = "error" not in ours and [label for label, _ in refs] == ["installed"]
        why = "; ".join(f"{label}: {r['error']}" for label, r in failed) or "no reference package given"
        head = "not run: no NVIDIA cuda-bindings to compare with: " if none_installed else "FAILED: "
        print(f"kernel params: {head}{why}")
        return 3 if none_installed else 2
    ids = list(dict.fromkeys([*ours["results"], *(i for _, r in good for i in r["results"])]))
    parts, differ = [], bool(failed)
    for _, r in good:
        n = compare(ours, r, ids)
        diff = sum(n.get(k, 0) for k in "#ONC?")
        differ |= diff > 0
        extra = ", ".join(f"{n[k]} {w}" for k, w in (("x", "rejected by both"), ("-", "not comparable"),
                                                        ("d", "listed departures")) if n.get(k))
        kinds = ", ".join(f"{n[k]} {w}" for k, w in (("#", "in bytes"), ("N", "accepted by NVIDIA's only"),
                          ("O", "by ours only"), ("C", "crashes"), ("?", "unrecorded")) if n.get(k))
        verdict_ = f"{diff} difference{'s' * (diff > 1)} ({kinds})" if diff else "all bytes identical"
        parts.append(f"vs NVIDIA {r['version']}: {verdict_}" + (f" ({extra})" if extra else ""))
    parts += [f"{label}: worker failed" for label, _ in failed]
    runs = sum(x["outcome"] == "ok" for side in [ours] + [r for _, r in good] for x in side["results"].values())
    forms, types, apis = ({i.split("|")[k] for i in ids} for k in (1, 0, 2))
    what = "packings (no GPU)" if args.inspect else "launches"
    print(f"\nkernel params: {len(forms)} forms x {len(types)} types x {len(apis)} APIs ({len(ids)} cases), "
          f"{runs} {what}; " + "; ".join(parts))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
