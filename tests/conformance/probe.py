"""Runs conformance probes under whichever `cuda.bindings` this interpreter imports.

    python probe.py SPEC.json OUT.jsonl --shard I/N [--expect-under DIR | --expect-not-under DIR]

A stand-alone script (it imports nothing from the repository): run once under our package and
once under the reference.  It imports the package, checks `cuda.bindings.__file__`, warms the
libraries up, and then, for each probe group of its shard, forks a worker that runs the group's
probes and reports one JSON line per probe through a pipe.  A worker that dies (segfault, abort)
or stays silent for --hang seconds is replaced by a new fork that goes on after the probe it was
running; that probe is recorded as {"crash": SIGNAL} or {"hang": seconds}.  Each line of OUT is
{probe id: observation}; an observation is a small dict of strings, never a raw address.
"""
import argparse
import ctypes
import enum
import faulthandler
import hashlib
import inspect
import json
import operator
import os
import re
import select
import signal
import sys

if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]          # this folder's modules are the harness, not something to import here

import numpy  # noqa: E402

BUF = 16384                  # set from the spec: the size of the buffers probes pass and own
KERNEL = ""                  # set from the spec: the NVRTC source of the probes' program
NVVM_IR = ""                 # set from the spec: the NVVM IR module of the probes' NVVM programs
M = {}                       # lib -> module under test
STUB = None                  # the stand-in libcuda.so.1, when it is the one loaded
STAND_INS = {}               # lib -> the stand-in library (tests/stand_in.py) loaded for it
DEFAULT_STATUS = int(os.environ.get("CUDA_STUB_STATUS") or 999)
LABELS = {}                  # address -> label, for the buffers a probe owns
SPANS = []                   # (start, label) of the BUF-sized buffers a probe owns
KEEP = []                    # objects a probe's arguments need alive
CTX = {}                     # per worker: NVRTC program, nvJitLink handle, NVVM program, PTX


# ---------------------------------------------------------------------------------------------
# values

def _addr_of(v):
    """The address a binding would use for v, or None."""
    try:
        if isinstance(v, bytes):
            return ctypes.cast(ctypes.c_char_p(v), ctypes.c_void_p).value
        if isinstance(v, bytearray):
            return ctypes.addressof((ctypes.c_char * max(len(v), 1)).from_buffer(v)) if v else None
        if type(v).__module__ == "numpy":
            return v.ctypes.data
        if isinstance(v, ctypes._SimpleCData) or isinstance(v, ctypes.Array):
            return ctypes.addressof(v)
        if hasattr(v, "getPtr"):
            return int(v.getPtr())
    except Exception:
        return None
    return None


def owned(v, label):
    a = _addr_of(v)
    if a:
        LABELS.setdefault(a, label)
    KEEP.append(v)
    return v


def buffer():
    b = ctypes.create_string_buffer(BUF)
    LABELS.setdefault(ctypes.addressof(b), "@buf")
    SPANS.append((ctypes.addressof(b), "@buf"))
    KEEP.append(b)
    return b


class Missing(Exception):
    """The module under test has no such name."""


def get(lib, name):
    try:
        return getattr(M[lib], name)
    except AttributeError:
        raise Missing(name) from None


def value(d, lib):
    """A descriptor (see spec.py) -> a Python value in module M[lib]."""
    k, a = d[0], d[1:]
    if k in ("int", "float", "str"):
        return a[0]
    if k == "b":
        return a[0].encode()
    if k == "none":
        return None
    if k == "obj":
        return object()
    if k == "np_uint64":
        return numpy.uint64(a[0])
    if k == "bytes":
        return owned(b"\0" * a[0], "@bytes")
    if k == "numpy":
        return owned(numpy.zeros(a[0], dtype=numpy.uint8), "@numpy")
    if k == "ctypes":
        return owned((ctypes.c_char * a[0])(), "@ctypes")
    if k == "addr":
        return ctypes.addressof(buffer())
    if k == "cls":
        return owned(get(lib, a[0])(*[value(x, lib) for x in a[1:]]), "@" + a[0])
    if k == "inst":    # a struct instance, or a view of a zeroed buffer where a package needs one
        cls = get(lib, a[0])       # (anonymous members; the .new() probes compare constructors)
        if not a[1]:
            try:
                return owned(cls(), "@" + a[0])
            except TypeError:
                pass
        return owned(cls(_ptr=ctypes.addressof(buffer())), "@" + a[0])
    if k == "enum":
        return getattr(get(lib, a[0]), a[1])
    if k == "list":
        return [value(x, lib) for x in a[0]]
    if k == "mod":
        return value(a[1], a[0])
    if k == "ctx":
        return context(a[0])
    if k == "sizedbuf":
        r = get(lib, a[0])(value(a[1], lib))
        return owned(bytearray(r[1] if isinstance(r, tuple) else r), "@out")
    raise ValueError(f"unknown descriptor {d!r}")


def _ok(r):
    if int(r[0]) != 0:
        raise RuntimeError(f"context setup failed: {r!r}")
    return r[1] if len(r) == 2 else r[1:]


def context(what):
    """NVRTC/nvJitLink/NVVM objects made with the package under test ("..._new": a fresh one)."""
    nvrtc, nvjitlink, nvvm = M["nvrtc"], M["nvjitlink"], M["nvvm"]
    if what == "nvvm_prog_new":
        p = nvvm.create_program()
        nvvm.add_module_to_program(p, NVVM_IR.encode(), len(NVVM_IR), "k.ll")
        return p
    if what == "prog_new":
        return _ok(nvrtc.nvrtcCreateProgram(KERNEL.encode(), b"k.cu", 0, [], []))
    if what == "fatbin_new":
        return M["nvfatbin"].create([], 0)
    if what == "linker_new":
        h = nvjitlink.create(1, ["-arch=sm_90"])
        nvjitlink.add_data(h, nvjitlink.InputType.PTX, context("ptx"), len(context("ptx")), "k.ptx")
        return h
    if what in CTX:
        return CTX[what]
    if what == "prog":
        p = context("prog_new")
        _ok(nvrtc.nvrtcAddNameExpression(p, b"t<int>"))
        _ok(nvrtc.nvrtcCompileProgram(p, 1, [b"--gpu-architecture=compute_90"]))
        CTX[what] = p
    elif what == "ptx":
        p = context("prog")
        out = bytearray(_ok(nvrtc.nvrtcGetPTXSize(p)))
        _ok(nvrtc.nvrtcGetPTX(p, out))
        CTX[what] = bytes(out)
    elif what == "nvvm_prog":
        p = context("nvvm_prog_new")
        nvvm.compile_program(p, 1, ["-arch=compute_90"])
        CTX[what] = p
    elif what == "nvvm_ir":
        CTX[what] = NVVM_IR.encode()
    elif what == "nvvm_ir_size":
        CTX[what] = len(NVVM_IR)
    elif what == "ptx_size":
        CTX[what] = len(context("ptx"))
    elif what == "ptx_file":
        path = os.path.join(os.environ.get("CONFORMANCE_TMP", "/tmp"), f"k-{os.getpid()}.ptx")
        with open(path, "wb") as fh:
            fh.write(context("ptx"))
        CTX[what] = path
    elif what == "fatbin":
        CTX[what] = context("fatbin_new")
    elif what == "linker":
        h = context("linker_new")
        nvjitlink.complete(h)
        CTX[what] = h
    return CTX[what]


# ---------------------------------------------------------------------------------------------
# observations: strings that compare equal across packages when the behaviour is the same

REAL_LIBRARY = False   # set while a call into a real library (NVRTC, nvJitLink, NVVM) is observed


def _int(v):
    if v in LABELS:
        return LABELS[v]
    for start, label in SPANS:
        if start < v < start + BUF:
            return f"{label}+{v - start}"
    if 2 ** 40 <= v < 2 ** 48 or (REAL_LIBRARY and v >= 2 ** 16):
        return "<addr>"           # a heap or mmap address (a real library's handle): never compared
    return str(v)


def is_enum_class(cls):
    """An enum class: enum.Enum's, or one of NVIDIA's FastEnum kind (12.9.x, 13.5: an int subclass
    whose metaclass gives __members__, a name -> member dict of members with .name and .value)."""
    if not isinstance(cls, type):
        return False
    if issubclass(cls, enum.Enum):
        return True
    members = getattr(cls, "__members__", None)
    return (issubclass(cls, int) and isinstance(members, dict)
            and all(hasattr(m, "name") and hasattr(m, "value") for m in list(members.values())[:3]))


def is_enum_member(v):
    return isinstance(v, enum.Enum) or (isinstance(v, int) and type(v) is not int and type(v) is not bool
                                        and is_enum_class(type(v)) and hasattr(v, "name"))


def norm(v):
    """A short, address-free rendering of a value (type included)."""
    if v is None or isinstance(v, bool):
        return repr(v)
    if is_enum_member(v):
        return f"{type(v).__name__}.{v.name}"
    if type(v) is int:
        return _int(v)
    if type(v) is float:
        return repr(v)
    if isinstance(v, str):
        return repr(v[:60])
    if isinstance(v, (bytes, bytearray)):
        raw = bytes(v)
        body = repr(raw) if len(raw) <= 24 else f"[{len(raw)}]#{hashlib.sha1(raw).hexdigest()[:8]}"
        return (type(v).__name__ + ":" + body) if isinstance(v, bytearray) or len(raw) > 24 else body
    if isinstance(v, (list, tuple)):
        items = [norm(x) for x in v[:8]] + ([f"...{len(v)}"] if len(v) > 8 else [])
        return ("(%s)" if isinstance(v, tuple) else "[%s]") % ", ".join(items)
    name = type(v).__name__
    try:
        return f"{name}({_int(operator.index(v))})"
    except Exception:
        pass
    try:
        return f"{name}({_int(int(v))})"
    except Exception:
        return f"<{name}>"


def kind(v):
    """Only the type of a value (for outputs that a no-op driver never wrote: a C string there is
    whatever the binding's buffer held, so not even its length is compared)."""
    if isinstance(v, (list, tuple)):
        items = ", ".join(kind(x) for x in v[:8])
        return ("(%s)" if isinstance(v, tuple) else f"list[{len(v)}]:[%s]") % items
    if is_enum_member(v):
        return type(v).__name__ if int(v.value) != 0 else f"{type(v).__name__}.{v.name}"
    return type(v).__name__


def _repr(v):
    return re.sub(r"0x[0-9a-fA-F]{9,}", "0xADDR", repr(v))[:300]


def exc_obs(e):
    """An exception as an observation: its class, and its str() unless it is one of Python's own
    exceptions (TypeError, ValueError ...: an argument refused, whose wording the rule leaves free,
    docs/conformance.md); a library's status error is compared word for word.  Its PEP 678 notes,
    where it has any, whatever its class: pytest's match= and every traceback show them, so a note
    NVIDIA's does not add is a difference (their count and first 80 characters)."""
    obs = {"exc": type(e).__name__}
    if type(e).__module__ != "builtins":
        obs["msg"] = re.sub(r"0x[0-9a-fA-F]{9,}", "0xADDR", str(e))[:300]
    notes = getattr(e, "__notes__", None)
    if notes:
        obs["notes"] = f"{len(notes)}: " + re.sub(r"0x[0-9a-fA-F]{9,}", "0xADDR", str(notes[0]))[:80]
    return obs


# ---------------------------------------------------------------------------------------------
# probe operations: each returns an observation dict (or {id: observation} for the multi ones)

def op_call(lib, name, args, opts):
    fn = get(lib, name)
    vals = [value(a, lib) for a in args]
    bufs = [v for v in vals if isinstance(v, bytearray)]
    if STUB is not None and lib == "driver":
        STUB.cuStubReset()
        STUB.cuStubSetStatus(opts.get("status", DEFAULT_STATUS))
    global REAL_LIBRARY
    REAL_LIBRARY = lib in ("nvrtc", "nvjitlink", "nvvm", "nvfatbin")
    stand_in = STAND_INS.get(lib)
    if stand_in is not None:
        stand_in.stubReset()
    try:
        r = fn(*vals)
        obs = {"ret": norm(r) if opts.get("values") else kind(r)}
    except BaseException as e:
        obs = exc_obs(e)
    finally:
        REAL_LIBRARY = False
        if STUB is not None:
            STUB.cuStubSetStatus(DEFAULT_STATUS)
    if bufs and "ret" in obs:
        obs["bufs"] = norm(bufs)
    if stand_in is not None:        # the entry point the call reached last, if any
        last = stand_in.stubLast()
        obs["sym"] = last.decode() if last else None
    if "stub" in opts and STUB is not None:
        last = STUB.cuStubLast()
        obs["sym"] = last.decode() if last else None
        if last:
            regs = STUB.cuStubArgs()
            shown = []
            for reg, pname, how, arg in opts["stub"]:
                raw = regs[reg]
                if how[0] == "int":
                    shown.append(f"{pname}={_int(raw & ((1 << (8 * how[1])) - 1))}")
                elif len(how) > 1:     # a copy is fine; NULL only matters where None was passed
                    null = raw == 0 and (arg < 0 or vals[arg] is None)
                    shown.append(f"{pname}={'NULL' if null else '<ptr>'}")
                else:
                    shown.append(f"{pname}={'NULL' if raw == 0 else LABELS.get(raw, '<ptr>')}")
            obs["args"] = ", ".join(shown)
    return obs


def op_sig(lib, name):
    fn = get(lib, name)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return {"sig": "unavailable"}
    parts = []
    for p in sig.parameters.values():
        s = ("*" if p.kind == p.VAR_POSITIONAL else "**" if p.kind == p.VAR_KEYWORD else "") + p.name
        if p.default is not p.empty:
            s += "=" + norm(p.default)
        parts.append(s)
    return {"sig": "(" + ", ".join(parts) + ")"}


def op_new(lib, name, args):
    return {"new": norm(get(lib, name)(*[value(a, lib) for a in args]))}


def _store(addr, size, v):
    ctypes.memmove(addr, int(v).to_bytes(size, "little"), size)


def op_view(lib, name, size, first_field):
    """T(_ptr=address): getPtr() is the address, and the object shows later writes there."""
    b = buffer()
    a = ctypes.addressof(b)
    if size:
        _store(a, size, 42)
    obj = get(lib, name)(_ptr=a)
    obs = {"getPtr": _int(int(obj.getPtr()))}
    read = (lambda: norm(int(obj))) if size else (lambda: norm(getattr(obj, first_field))) if first_field else None
    if read:
        obs["value"] = read()
        _store(a, size or 8, 43 if size else 0x0101010101010101)
        obs["after_write"] = read()
    return obs


def op_getptr(lib, desc, size):
    obj = value(desc, lib)
    p = obj.getPtr()
    obs = {"type": type(p).__name__, "nonzero": bool(p)}
    if size and p:
        obs["holds"] = int.from_bytes(ctypes.string_at(int(p), size), "little")
    return obs


def op_unary(lib, desc, what, other):
    obj = value(desc, lib)
    f = {"int": lambda: norm(int(obj)), "index": lambda: norm(operator.index(obj)),
         "repr": lambda: _repr(obj), "hash": lambda: "identity" if hash(obj) == object.__hash__(obj) else norm(hash(obj)), "bool": lambda: repr(bool(obj)),
         "eq_same": lambda: repr(obj == value(desc, lib)), "ne_same": lambda: repr(obj != value(desc, lib)),
         "eq_int": lambda: repr(obj == 5), "eq_other": lambda: repr(obj == value(other, lib))}[what]
    return {what: f()}


def op_sizeof(lib, name):
    return {"sizeof": norm(M[lib].sizeof(get(lib, name)))}


def op_alias(lib, name, base):
    a, b = get(lib, name), get(lib, base)
    return {"alias": "same" if a is b else "subclass" if isinstance(a, type) and issubclass(a, b) else "unrelated"}


def _offset(v, obj):
    """Where a field's value `v` keeps its memory: its offset in obj's (a view), or None."""
    off = int(v.getPtr()) - int(obj.getPtr())
    return off if 0 <= off < BUF else None


def op_fget(lib, name, anon, field):
    obj = value(["inst", name, anon], lib)
    v = getattr(obj, field)
    obs = {"get": norm(v)}
    if hasattr(v, "getPtr") and not isinstance(v, int):
        try:                                    # nested structs (and handles?) are views
            off = _offset(v, obj)
            if off is not None and not anon:
                # an object the getter makes (a NULL pointer field's value) may be given memory
                # just after the struct's own; over a buffer the probe owns, only a view lies inside
                over = get(lib, name)(_ptr=ctypes.addressof(buffer()))
                off = off if _offset(getattr(over, field), over) == off else None
            obs["offset"] = "elsewhere" if off is None else str(off)
        except Exception as e:
            obs["offset"] = type(e).__name__
    return obs


def op_fset(lib, name, anon, field, count, desc):
    obj = value(["inst", name, anon], lib)
    setattr(obj, field, value(desc, lib))
    try:
        obs = {"get": norm(getattr(obj, field))}
    except BaseException as e:
        return {"get_exc": type(e).__name__}
    if count:
        obs["count"] = norm(getattr(obj, count))
    return obs


def view_obs(obj, field, index, sub):
    """What reading a nested struct or an array-of-struct element gives: the same object on a second
    read, whether a write through it reaches the parent, and (arrays) whether the parent keeps the
    elements assigned to it or copies them.  Each step that raises is shown as its exception; a
    first read that raises is the observation."""
    def elem():
        v = getattr(obj, field)
        return v[index] if index is not None else v

    obs = {}

    def step(key, f):
        try:
            obs[key] = f()
        except Exception as e:
            obs[key] = "exc:" + type(e).__name__

    try:
        first = elem()                 # an element that cannot be read: what that read raises
    except Exception as e:
        return exc_obs(e)
    step("same", lambda: repr(first is elem()))
    kept = []

    def through():
        e = elem()
        kept.append(e)
        setattr(e, sub, 7)
        return norm(getattr(elem(), sub))
    step("through", through)
    if index is not None and kept:
        def after_assign():
            e = kept[0]
            setattr(obj, field, [e] * len(getattr(obj, field)))
            setattr(e, sub, 9)
            return norm(getattr(elem(), sub))
        step("after_assign", after_assign)
    return obs


def op_fview(lib, name, anon, field, index, sub):
    return view_obs(value(["inst", name, anon], lib), field, index, sub)


def op_rview(lib, name, field, index, sub):
    return view_obs(get(lib, name)(), field, index, sub)


def op_members(pid, lib, name):
    E = get(lib, name)
    out = {f"{pid[:-len('.members')]}.member.{k}": {"value": norm(int(v.value))} for k, v in E.__members__.items()}
    out[pid] = {"count": len(E.__members__), "iter": len(list(E))}
    return out


def op_call_cls(lib, name, args):
    return {"ret": norm(get(lib, name)(*[value(a, lib) for a in args]))}


def op_mro(lib, name):
    return {"mro": ", ".join(c.__module__.split(".")[0] + "." + c.__name__ for c in get(lib, name).__mro__)}


def op_const(lib, name):
    return {"value": norm(get(lib, name))}


def op_names(pid, lib):
    mod, out = M[lib], {}
    for k in sorted(dir(mod)):
        if k.startswith("_"):
            continue
        try:
            obj = getattr(mod, k)
        except Exception as e:
            out[f"{pid}.{k}"] = {"kind": "getattr raises " + type(e).__name__}
            continue
        if inspect.ismodule(obj):
            continue
        home = getattr(obj, "__module__", None) if (inspect.isclass(obj) or callable(obj)) else None
        if home is not None and not home.startswith("cuda."):
            continue                      # re-exported from typing, enum, ...
        kind_ = ("enum" if is_enum_class(obj) else "class" if inspect.isclass(obj)
                 else "function" if callable(obj) else type(obj).__name__)
        out[f"{pid}.{k}"] = {"kind": kind_}
    return out


# the struct classes of the struct-style modules (cuFile, NVML, nvFatbin, cuDLA)

def rkind(v):
    """What a struct-style module's field or object is: its type, a numpy array's dtype and shape;
    numbers and text by value (a struct object's length is the `len` probe's)."""
    if isinstance(v, numpy.ndarray):
        return f"{type(v).__name__}[{v.dtype.str if v.dtype.fields is None else 'record'},{v.shape}]"
    if v is None or isinstance(v, (bool, int, float, str)):
        return norm(v)
    return type(v).__name__


def op_rnew(lib, name, args):
    return {"new": rkind(get(lib, name)(*[value(a, lib) for a in args]))}


def op_rlen(lib, name):
    return {"len": norm(len(get(lib, name)()))}


def op_rfields(lib, name):
    cls = get(lib, name)
    return {"fields": ", ".join(sorted(a for a in dir(cls) if not a.startswith("_")
                                       and inspect.isdatadescriptor(inspect.getattr_static(cls, a))))}


def op_rdtype(lib, name):
    dt = get(lib, name)
    descr = str(dt.descr)
    return {"names": ", ".join(dt.names or ()), "itemsize": str(dt.itemsize),
            "offsets": ", ".join(str(dt.fields[n][1]) for n in dt.names or ()),
            "descr": descr if len(descr) <= 80 else hashlib.sha1(descr.encode()).hexdigest()[:12]}


def op_rfromdata(lib, name, dtype):
    dt = get(lib, dtype) if dtype else numpy.uint8
    return {"from_data": rkind(get(lib, name).from_data(numpy.zeros(2, dtype=dt)))}


def op_req(lib, name):
    cls = get(lib, name)
    return {"eq": repr(cls() == cls())}


def op_rget(lib, name, field):
    return {"get": rkind(getattr(get(lib, name)(), field))}


def op_rset(lib, name, field, desc):
    obj = get(lib, name)()
    setattr(obj, field, value(desc, lib))
    try:
        return {"get": rkind(getattr(obj, field))}
    except BaseException as e:
        return {"get_exc": type(e).__name__}


OPS = {"call": op_call, "sig": op_sig, "new": op_new, "view": op_view, "getptr": op_getptr, "unary": op_unary,
       "sizeof": op_sizeof, "alias": op_alias, "fget": op_fget, "fset": op_fset, "call_cls": op_call_cls,
       "mro": op_mro, "const": op_const, "rnew": op_rnew, "rfields": op_rfields, "rdtype": op_rdtype,
       "rfromdata": op_rfromdata, "rlen": op_rlen, "req": op_req, "rget": op_rget, "rset": op_rset, "fview": op_fview,
       "rview": op_rview}
MULTI = {"members": op_members, "names": op_names}


def run_probe(lib, probe):
    pid, op, args = probe[0], probe[1], probe[2:]
    LABELS.clear()
    del KEEP[:], SPANS[:]
    try:
        if op in MULTI:
            return MULTI[op](pid, lib, *args)
        return {pid: OPS[op](lib, *args)}
    except Missing as e:
        return {pid: {"missing": str(e)}}
    except BaseException as e:
        return {pid: exc_obs(e)}


# ---------------------------------------------------------------------------------------------
# the fork server

def run_group(group, hang, out):
    probes, lib = group["probes"], group["lib"]
    i = 0
    while i < len(probes):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:                       # the worker
            os.close(r)
            code = 0
            try:
                for j in range(i, len(probes)):
                    line = json.dumps([j, run_probe(lib, probes[j])]) + "\n"
                    os.write(w, line.encode())
            except BaseException:
                code = 3
            os._exit(code)
        os.close(w)
        hung, pending = False, b""
        while True:
            ready, _, _ = select.select([r], [], [], hang)
            if not ready:
                hung = True
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                j, obs = json.loads(line)
                out.write(json.dumps(obs) + "\n")
                i = j + 1
        os.close(r)
        _, status = os.waitpid(pid, 0)
        if i < len(probes):
            if hung:
                obs = {"hang": hang}
            elif os.WIFSIGNALED(status):
                obs = {"crash": signal.Signals(os.WTERMSIG(status)).name}
            else:
                obs = {"crash": f"exit {os.WEXITSTATUS(status)}"}
            out.write(json.dumps({probes[i][0]: obs}) + "\n")
            print(f"probe {probes[i][0]}: {obs}", file=sys.stderr, flush=True)
            i += 1
    out.flush()


def main():
    global STUB, BUF, KERNEL, NVVM_IR
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("out")
    ap.add_argument("--shard", default="0/1")
    ap.add_argument("--hang", type=float, default=20.0)
    ap.add_argument("--expect-under")
    ap.add_argument("--expect-not-under")
    a = ap.parse_args()
    faulthandler.enable()
    # the libraries both packages are to use, loaded first (run.py: the toolkit files our loader
    # resolves, and the stand-ins of NVML, cuFile and cuDLA): both packages' loaders take a
    # library already loaded under its name
    for path in filter(None, os.environ.get("CONFORMANCE_PRELOAD", "").split(os.pathsep)):
        ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
    import cuda.bindings
    where = os.path.abspath(cuda.bindings.__file__)
    if a.expect_under and not where.startswith(os.path.join(os.path.abspath(a.expect_under), "")):
        sys.exit(f"cuda.bindings was imported from {where}, not from under {a.expect_under}")
    if a.expect_not_under and where.startswith(os.path.join(os.path.abspath(a.expect_not_under), "")):
        sys.exit(f"cuda.bindings was imported from {where}, under {a.expect_not_under}")
    with open(a.spec) as fh:
        spec = json.load(fh)
    import importlib
    for lib in spec["libs"]:
        M[lib] = importlib.import_module(f"cuda.bindings.{lib}")
    # load the libraries once here, so workers start with them resolved
    warm_ups = {"driver": lambda: M["driver"].cuInit(0), "runtime": lambda: M["runtime"].cudaGetDeviceCount(),
                "nvrtc": lambda: M["nvrtc"].nvrtcVersion(), "nvjitlink": lambda: M["nvjitlink"].version(),
                "nvvm": lambda: M["nvvm"].version(), "nvfatbin": lambda: M["nvfatbin"].version(),
                "cufile": lambda: M["cufile"].get_version(), "nvml": lambda: M["nvml"].init_v2(),
                "cudla": lambda: M["cudla"].get_version()}
    for lib in spec["libs"]:
        try:
            warm_ups.get(lib, lambda: None)()
        except Exception as e:
            print(f"warm-up {lib}: {type(e).__name__}: {e}", file=sys.stderr)
    try:
        lib = ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOLOAD | os.RTLD_NOW)
        lib.cuStubLast.restype = ctypes.c_char_p
        lib.cuStubArgs.restype = ctypes.POINTER(ctypes.c_uint64)
        lib.cuStubSetStatus(DEFAULT_STATUS)
        STUB = lib
    except (OSError, AttributeError):
        print("libcuda.so.1 is not the conformance stub: no symbol/argument records", file=sys.stderr)
    for lib, soname in (("cufile", "libcufile.so.0"), ("nvml", "libnvidia-ml.so.1"), ("cudla", "libcudla.so.1")):
        try:
            h = ctypes.CDLL(soname, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
            h.stubLast.restype = ctypes.c_char_p
            STAND_INS[lib] = h
        except (OSError, AttributeError):
            pass
    k, n = map(int, a.shard.split("/"))
    groups = spec["groups"][k::n]
    BUF, KERNEL, NVVM_IR = spec["buf"], spec["kernel"], spec["nvvm_ir"]
    with open(a.out, "w") as out:
        out.write(json.dumps({"__meta__": {"bindings": where, "groups": len(groups)}}) + "\n")
        for g in groups:
            run_group(g, a.hang, out)
        out.write(json.dumps({"__done__": True}) + "\n")


if __name__ == "__main__":
    main()
