# distutils: language = c++
# cython: language_level=3
"""Exception classes that libraries built on cuda.bindings import from this path: raised by the
loader when a CUDA library is absent (NotSupportedError) or lacks an entry point
(FunctionNotFoundError).  Both are RuntimeErrors, the class the loader raised before they existed.
A FunctionNotFoundError's message is NVIDIA's package's (`function nvJitLinkGetLinkedLTOIR is not
found`); where the library came from and what to install is its `detail` (with_detail).
A driver function that the installed driver lacks is reported by a FunctionNotFoundWarning instead,
and its call returns CUDA_ERROR_NOT_FOUND.

At the C level (utils.pxd), the converters that NVIDIA's module of this name gives compiled
clients: a Python sequence or address to the C array a call takes, a buffer to its address."""
cimport cpython
from cython.operator cimport dereference as deref
from libcpp.utility cimport move

class NotSupportedError(RuntimeError):
    """The CUDA library a call needs could not be found or loaded."""


class FunctionNotFoundError(RuntimeError):
    """The loaded CUDA library does not export the entry point a call needs (it is older than
    the headers the bindings were generated from)."""


def with_note(error, note):
    """`error` with `note` added as a PEP 678 note: tracebacks show it under the message, `str()`
    is the message alone (Python 3.10, which has no add_note, keeps the note in __notes__)."""
    if hasattr(error, "add_note"):
        error.add_note(note)
    else:
        error.__notes__ = [*getattr(error, "__notes__", ()), note]
    return error


#: The environment variable that asks for the PEP 678 notes with_detail would add (README.md).
ERROR_NOTES = "CUDA_BINDINGS_ERROR_NOTES"


def with_detail(error, name, text):
    """`error` with `text`, what ours knows beyond NVIDIA's message, as its attribute `name`.  Where
    NVIDIA's package raises the same exception without a note, ours adds none either: pytest's
    `match=` (8 and later), IPython, logging and tracebacks all show notes.  CUDA_BINDINGS_ERROR_NOTES=1
    in the environment (read at each raise) asks for `text` as a note too."""
    setattr(error, name, text)
    from cuda.bindings.utils._envvar import envvar_bool
    if envvar_bool(ERROR_NOTES, False):
        with_note(error, text)
    return error


class FunctionNotFoundWarning(RuntimeWarning):
    """A driver call found its entry point missing from the installed driver (older than the
    headers the bindings were generated from) and returned CUDA_ERROR_NOT_FOUND; the message says
    which driver it needs.  Issued once per function."""


def absent_module(name, why):
    """The error importing module `name` raises in a build whose NVIDIA twin has no such module:
    the ModuleNotFoundError Python raises for a missing module (class, message and `name` as in
    NVIDIA's package, which raises it without a note), with `why` as its `detail` (with_detail)."""
    return with_detail(ModuleNotFoundError(f"No module named {name!r}", name=name), "detail", why)


# ----------------------------------------------------------------------------- the C level

cdef bint is_nested_sequence(data):
    """Whether data is a sequence whose every item is a sequence."""
    if not cpython.PySequence_Check(data):
        return False
    for item in data:
        if not cpython.PySequence_Check(item):
            return False
    return True


cdef void* get_buffer_pointer(buf, Py_ssize_t size, readonly=True) except*:
    """The address of buf: an int as it is, else the memory of a one-dimensional contiguous buffer
    (writable unless readonly) of `size` bytes (-1: any size). The caller keeps buf alive while
    the address is used."""
    cdef cpython.Py_buffer view
    cdef void* p
    if isinstance(buf, int):
        return <void*><intptr_t>buf
    flags = cpython.PyBUF_ANY_CONTIGUOUS | (0 if readonly else cpython.PyBUF_WRITABLE)
    try:
        cpython.PyObject_GetBuffer(buf, &view, flags)
    except Exception as e:
        raise ValueError(_buffer_error(readonly)) from e
    p, n, ndim = view.buf, view.len, view.ndim
    cpython.PyBuffer_Release(&view)
    if (size != -1 and n != size) or ndim != 1:
        raise ValueError(_buffer_error(readonly))
    return p


def _buffer_error(readonly):
    from .. import _version
    return _version.BUFFER_ERROR.format(adj="" if readonly else "writable ", size="bytes")


cdef int get_resource_ptr(nullable_unique_ptr[vector[ResT]] &in_out_ptr, object obj, ResT* __unused) except 1:
    cdef vector[ResT]* items
    if not cpython.PySequence_Check(obj):       # an address: borrowed
        in_out_ptr.reset(<vector[ResT]*><intptr_t>obj, False)
        return 0
    n = len(obj)
    items = new vector[ResT](n)
    in_out_ptr.reset(items, True)               # owned at once: an item that fails leaks nothing
    for i in range(n):
        deref(items)[i] = obj[i]
    return 0


cdef int get_resource_ptrs(nullable_unique_ptr[vector[PtrT*]] &in_out_ptr, object obj, PtrT* __unused) except 1:
    cdef vector[PtrT*]* items
    if not cpython.PySequence_Check(obj):
        in_out_ptr.reset(<vector[PtrT*]*><intptr_t>obj, False)
        return 0
    n = len(obj)
    items = new vector[PtrT*](n)
    in_out_ptr.reset(items, True)
    for i in range(n):
        deref(items)[i] = <PtrT*><intptr_t>obj[i]
    return 0


cdef int get_nested_resource_ptr(nested_resource[ResT] &in_out_ptr, object obj, ResT* __unused) except 1:
    """A sequence of sequences (of str, for char: each encoded and NUL-terminated) is copied; a
    sequence of ints is the inner arrays' addresses; an int is the address of that array."""
    cdef nullable_unique_ptr[vector[intptr_t]] ptrs
    cdef nullable_unique_ptr[vector[vector[ResT]]] inner
    cdef vector[intptr_t]* addresses
    cdef vector[vector[ResT]]* copies
    cdef bytes text
    if is_nested_sequence(obj):
        n = len(obj)
        copies = new vector[vector[ResT]](n)
        inner.reset(copies, True)
        addresses = new vector[intptr_t](n)
        ptrs.reset(addresses, True)
        for i, item in enumerate(obj):
            if ResT is char:
                text = (<str?>item).encode()
                deref(copies)[i].assign(<char*>text, <char*>text + len(text) + 1)
            else:
                deref(copies)[i] = item
            deref(addresses)[i] = <intptr_t>deref(copies)[i].data()
    elif cpython.PySequence_Check(obj):
        n = len(obj)
        addresses = new vector[intptr_t](n)
        ptrs.reset(addresses, True)
        for i in range(n):
            deref(addresses)[i] = <intptr_t>obj[i]
        inner.reset(NULL, False)
    else:
        ptrs.reset(<vector[intptr_t]*><intptr_t>obj, False)
        inner.reset(NULL, False)
    in_out_ptr.ptrs = move(ptrs)
    in_out_ptr.nested_resource_ptr = move(inner)
    return 0
