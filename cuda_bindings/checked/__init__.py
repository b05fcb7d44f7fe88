"""The tuple-style modules with exceptions instead of status tuples.

`from cuda.bindings.checked import driver` (or `runtime`, `nvrtc`) gives a module whose functions
take the same arguments as `cuda.bindings.driver`'s and return only the outputs: one output bare,
several as a tuple, none as None.  A status other than success raises the library's exception:
`CUDAError` (driver), `CUDARuntimeError` (runtime) or `NVRTCError` (NVRTC), all `StatusError`s,
carrying the status enum member (`status`), its name (`name`), the library's own description
(`message`) and the function that failed (`function`); a failed `nvrtcCompileProgram` also
carries the program's compile log (`log`).

Every other name of these modules (enums, handle and struct classes, constants) is the
tuple-style module's own object, so both styles mix freely.  A checked call costs one C-level
call more than the tuple call (see docs/benchmarks.md).
"""
import importlib
import textwrap
from typing import TYPE_CHECKING, Any, ClassVar

from cuda.bindings._base import _checked

if TYPE_CHECKING:   # private names: `from cuda.bindings.checked import driver` is the submodule
    from cuda.bindings import driver as _driver, nvrtc as _nvrtc, runtime as _runtime


class StatusError(Exception):
    """A CUDA library call that returned a status other than success."""

    #: (module, function) of the library's description of a status: (status) -> (status, bytes)
    _describe: ClassVar[tuple[str, str] | None] = None

    status: Any
    name: str
    message: str | None
    function: str | None
    log: str | None

    def __init__(self, status: Any, function: str | None = None, message: str | None = None,
                 log: str | None = None) -> None:
        self.status = status
        self.name = getattr(status, "name", None) or str(int(status))
        self.message = message if message is not None else self._description(status)
        self.function = function
        self.log = log
        text = f"{self.name} ({int(status)})"
        if self.message and self.message != self.name:
            text += f": {self.message}"
        if function:
            text = f"{function}: {text}"
        if log:
            text += f"\n{log}"
        super().__init__(text)

    @classmethod
    def _description(cls, status: Any) -> str | None:
        """The library's own text for `status`, or None where it cannot say (no driver)."""
        if cls._describe is None:
            return None
        module, function = cls._describe
        try:
            err, text = getattr(importlib.import_module(f"cuda.bindings.{module}"), function)(status)
        except Exception:
            return None
        if int(err) != 0 or text is None:
            return None
        return text.decode(errors="replace")

    def __reduce__(self):
        return (type(self), (self.status, self.function, self.message, self.log))


class CUDAError(StatusError):
    """A failed driver call: `status` is a CUresult member."""
    status: "_driver.CUresult"
    _describe = ("driver", "cuGetErrorString")


class CUDARuntimeError(StatusError):
    """A failed runtime call: `status` is a cudaError_t member."""
    status: "_runtime.cudaError_t"
    _describe = ("runtime", "cudaGetErrorString")


class NVRTCError(StatusError):
    """A failed NVRTC call: `status` is an nvrtcResult member; `log` is the program's log after
    a failed compile."""
    status: "_nvrtc.nvrtcResult"
    _describe = ("nvrtc", "nvrtcGetErrorString")


def _error_log(module: Any, handle: Any, size_fn: str, log_fn: str) -> str | None:
    """The log the library keeps for `handle`, as text (None where it is empty or unreadable)."""
    try:
        err, size = getattr(module, size_fn)(handle)
        if int(err) != 0 or not size or size <= 1:
            return None
        buf = bytearray(size)
        if int(getattr(module, log_fn)(handle, buf)[0]) != 0:
            return None
    except Exception:
        return None
    return bytes(buf).rstrip(b"\0").decode(errors="replace") or None


def _checked_module(g: dict[str, Any], module: Any, error: type[StatusError], names: str,
                    logs: dict[str, tuple[str, str]] | None = None) -> tuple[Any, Any]:
    """The `__getattr__` and `__dir__` of a checked module with globals `g`: a name of `names`
    (the functions returning a status) is wrapped on first use and kept in `g`; any other name
    is `module`'s own.  `logs`: function -> (log size function, log function) whose log is read
    from the first argument's handle after a failure."""
    wrapped = frozenset(names.split())
    log_of = logs or {}
    modname = g["__name__"]
    ok = None

    def on_error(fn: Any, status: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        log = None
        spec = log_of.get(fn.__name__)
        if spec is not None:
            handle = args[0] if args else next(iter(kwargs.values()), None)
            log = _error_log(module, handle, *spec)
        raise error(status, fn.__name__, log=log)

    def __getattr__(name: str) -> Any:
        nonlocal ok
        if name not in wrapped:
            try:
                return getattr(module, name)
            except AttributeError:
                raise AttributeError(f"module {modname!r} has no attribute {name!r}") from None
        func = getattr(module, name)
        if ok is None:
            ok = _success(module)
        f = _checked(func, ok, on_error)
        f.__name__ = name
        f.__qualname__ = name
        f.__module__ = modname
        f.__doc__ = _checked_doc(func.__doc__, f"{module.__name__}.{name}", error.__name__)
        g[name] = f
        return f

    def __dir__() -> list[str]:
        return sorted(set(dir(module)) | set(g))

    return __getattr__, __dir__


def _checked_doc(doc: str | None, qualname: str, error: str) -> str:
    """The tuple function's docstring (summary line, then lines indented by 4), with a paragraph
    after the summary saying what the checked form returns."""
    lines = (doc or "").splitlines() or [""]
    note = (f"The checked form of {qualname}: returns only the outputs listed under Returns, "
            f"not the status; a failed status raises {error}.")
    body = textwrap.dedent("\n".join(lines[1:])).strip("\n")
    text = [lines[0].strip(), "", *textwrap.wrap(note, 84), "", *body.splitlines()]
    return "\n".join([text[0]] + [f"    {ln}" if ln else "" for ln in text[1:]]).rstrip()


def _success(module: Any) -> Any:
    """The success member of the module's status enum (what the tuple calls return first)."""
    for status in ("CUresult", "cudaError_t", "nvrtcResult"):
        cls = getattr(module, status, None)
        if cls is not None and cls.__module__ == module.__name__:
            return cls(0)
    raise TypeError(f"{module.__name__} has no status enum")
