"""Bad-argument calls of every public function of one module, run in this process:

    python -m tests.fuzz.cases MODULE [FUNCTION ...]

For each function (every public callable that is not a class) and each of its first POSITIONS
parameters, the call is made with that argument replaced by each value of BAD (the others 0),
then with one argument too many and with none.  Before each call one JSON line names it
([function, position, value]); after it one line says how it ended: ["ok"], or ["raised",
exception class].  faulthandler is on, so a crash leaves the case that caused it as the last
named line and a Python traceback on stderr: tests/test_fuzz.py runs this in batches and
starts again after the crashing function.  A last line "DONE" says the batch finished.

An argument error (TypeError, ValueError, OverflowError) must say which argument it is about:
its message names a parameter of the function, or the function itself (a wrong number of
arguments), or, where the message is NVIDIA's package's own (raised there without a note, so
ours adds none), the error's `detail` attribute does.  One that does not ends as
["unnamed", exception class, message]."""
import enum
import faulthandler
import importlib
import inspect
import json
import os
import re
import sys

POSITIONS = 4


class _Other(enum.IntEnum):
    """A member of an enum no function takes."""
    MEMBER = 1


# argument values a wrapper must refuse, or pass to the library, without crashing
BAD = {
    "None": None, "0": 0, "-1": -1, "2**31": 2 ** 31, "2**64": 2 ** 64, "-2**63-1": -2 ** 63 - 1,
    "3.5": 3.5, "nan": float("nan"), "True": True, "'x'": "x", "''": "", "b''": b"", "b'x'": b"x",
    "bytearray(1)": bytearray(1), "memoryview(b'')": memoryview(b""), "[]": [], "[None]*4": [None] * 4,
    "['x']": ["x"], "[object()]": [object()], "[-1]": [-1], "(1, 2)": (1, 2), "{}": {},
    "object()": object(), "_Other.MEMBER": _Other.MEMBER, "type": int,
}


# Handle parameters whose handle the library itself dereferences: NVRTC's program, nvJitLink's
# linker handle, NVVM's program.  A handle is a pointer, and one made by other code (cuda.core
# makes NVRTC programs in C and passes them as ints) cannot be told from any other nonzero int,
# so a made-up address reaches the library, which crashes on it (as it does under NVIDIA's
# package; docs/conformance.md).  What the wrappers can refuse they do: None, negative and
# too-large values, other types, and a handle after its destroy call.  These parameters are
# given every BAD value except a plausible address.
HANDLES_THE_LIBRARY_READS = {"nvrtc": "prog", "nvjitlink": "handle", "nvvm": "prog", "nvfatbin": "handle"}
ADDRESS = "2**31"


def _emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def names_an_argument(msg, function, params):
    """Whether an error message says what it is about: a parameter, or the function."""
    return f"{function}()" in msg or any(re.search(rf"\b{re.escape(p)}\b", msg) for p in params)


def _call(name, where, f, args, params):
    _emit([name, where])
    try:
        f(*args)
    except (TypeError, ValueError, OverflowError) as e:
        # where the message is NVIDIA's own (raised bare there), ours names the argument in `detail`
        if names_an_argument("\n".join([str(e), getattr(e, "detail", None) or ""]), name, params):
            _emit(["raised", type(e).__name__])
        else:
            _emit(["unnamed", type(e).__name__, str(e)])
    except Exception as e:       # any other Python exception (a status error) is a clean end
        _emit(["raised", type(e).__name__])
    else:
        _emit(["ok"])


def functions(mod):
    return [n for n in dir(mod) if not n.startswith("_") and callable(getattr(mod, n))
            and not isinstance(getattr(mod, n), type)]


def use_stand_ins():
    """$STAND_IN_LIBS ("cufile:/path/libcufile.so.0,..."): the stand-in libraries (tests/stand_in.py)
    the bindings use instead of looking for the real ones."""
    spec = os.environ.get("STAND_IN_LIBS", "")
    if spec:
        import ctypes
        from cuda.bindings import _loader
        for item in spec.split(","):
            lib, _, path = item.partition(":")
            _loader._libs[lib] = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)


def main(argv):
    faulthandler.enable()
    use_stand_ins()
    mod = importlib.import_module(f"cuda.bindings.{argv[0]}")
    for name in argv[1:] or functions(mod):
        f = getattr(mod, name)
        try:
            n = len(inspect.signature(f).parameters)
        except (TypeError, ValueError):
            n = 0
        pnames = list(inspect.signature(f).parameters) if n else []
        for pos in range(min(n, POSITIONS)):
            for label, bad in BAD.items():
                if label == ADDRESS and pnames[pos] == HANDLES_THE_LIBRARY_READS.get(argv[0]):
                    continue
                args = [0] * n
                args[pos] = bad
                _call(name, f"{pos}={label}", f, args, pnames)
        _call(name, "one too many", f, [0] * (n + 1), pnames)
        if n:
            _call(name, "none", f, [], pnames)
    _emit("DONE")


if __name__ == "__main__":
    main(sys.argv[1:])
