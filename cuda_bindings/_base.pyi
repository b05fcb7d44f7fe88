"""Types of the hand-written core that the generated stubs build on: the base classes of every
handle, integer and struct class, and the names of the argument forms many functions share."""
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from typing_extensions import Buffer as _Buffer, TypeAlias

class _ArrayInterface(Protocol):
    # numpy arrays: their `__buffer__` is declared for Python 3.12 and later only
    @property
    def __array_interface__(self) -> Any: ...

# An object that exposes its memory: anything with the buffer protocol (bytes, bytearray,
# memoryview, array.array, ctypes objects, numpy arrays).
Buffer: TypeAlias = _Buffer | _ArrayInterface

class _Handle:
    """Base of every opaque handle class (CUstream, CUcontext, nvrtcProgram, ...): compares and
    hashes by its value; a function pointer class (CUhostFn, ...) by identity."""
    # (a float is truncated toward zero, as NVIDIA's package takes it)
    def __init__(self, init_value: _Handle | _IntValue | int | float | None = 0, _ptr: int = 0) -> None: ...
    def getPtr(self) -> int: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    def __bool__(self) -> bool: ...
    def __hash__(self) -> int: ...

class _IntValue:
    """Base of every integer typedef class (CUdeviceptr, CUdevice, ...): compares and hashes by
    identity, as in NVIDIA's package (int(a) == int(b) compares the values)."""
    def __init__(self, init_value: _Handle | _IntValue | int | float = 0, _ptr: int = 0) -> None: ...
    def getPtr(self) -> int: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    def __hash__(self) -> int: ...

class _Struct:
    """Base of every struct and union class: owns (or, with `_ptr`, views) one C value."""
    def __init__(self, _ptr: int = 0) -> None: ...
    def getPtr(self) -> int: ...

# A `void*` argument: an int address, a buffer (its address), a handle, integer or struct object
# (the value or memory it stands for), or None (NULL).
Address: TypeAlias = Buffer | int | _Handle | _IntValue | _Struct | None

# cuLaunchKernel's kernelParams (and kernel node parameters): None, the int address of a
# `void*[]`, a buffer of such pointers, or (values, types) packed by the binding.
KernelParams: TypeAlias = tuple[Sequence[Any], Sequence[Any]] | Buffer | int | None

def _checked(func: Callable[..., tuple[Any, ...]], ok: object,
             on_error: Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]) -> Callable[..., Any]: ...
