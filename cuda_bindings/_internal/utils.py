"""Exception classes that libraries built on cuda.bindings import from this path: raised by the
loader when a CUDA library is absent (NotSupportedError) or lacks an entry point
(FunctionNotFoundError).  Both are RuntimeErrors, the class the loader raised before they existed.
A driver function that the installed driver lacks is reported by a FunctionNotFoundWarning instead,
and its call returns CUDA_ERROR_NOT_FOUND."""


class NotSupportedError(RuntimeError):
    """The CUDA library a call needs could not be found or loaded."""


class FunctionNotFoundError(RuntimeError):
    """The loaded CUDA library does not export the entry point a call needs (it is older than
    the headers the bindings were generated from)."""


class FunctionNotFoundWarning(RuntimeWarning):
    """A driver call found its entry point missing from the installed driver (older than the
    headers the bindings were generated from) and returned CUDA_ERROR_NOT_FOUND; the message says
    which driver it needs.  Issued once per function."""
