"""Exception classes that libraries built on cuda.bindings import from this path: raised by the
loader when a CUDA library is absent (NotSupportedError) or lacks an entry point
(FunctionNotFoundError).  Both are RuntimeErrors, the class the loader raised before they existed.
A FunctionNotFoundError's message is NVIDIA's package's (`function nvJitLinkGetLinkedLTOIR is not
found`); where the library came from and what to install is its `detail` (with_detail).
A driver function that the installed driver lacks is reported by a FunctionNotFoundWarning instead,
and its call returns CUDA_ERROR_NOT_FOUND."""


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
