"""Exception classes that libraries built on cuda.bindings import from this path: raised by the
loader when a CUDA library is absent (NotSupportedError) or lacks an entry point
(FunctionNotFoundError).  Both are RuntimeErrors, the class the loader raised before they existed."""


class NotSupportedError(RuntimeError):
    """The CUDA library a call needs could not be found or loaded."""


class FunctionNotFoundError(RuntimeError):
    """The loaded CUDA library does not export the entry point a call needs (it is older than
    the headers the bindings were generated from)."""
