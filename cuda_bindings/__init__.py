"""Python bindings for CUDA (driver, runtime, NVRTC, nvJitLink, NVVM), generated from the
headers of one CUDA release: ``__cuda_version__`` says which.

Importing this package is cheap: the submodules (``driver``, ``runtime``, ``nvrtc``,
``nvjitlink``, ``nvvm``) are imported on request, and no CUDA library is opened until a call
needs it.
``python -m cuda.bindings`` prints what is installed and which libraries and devices it finds.
"""

# the release this build is for; `X as X` re-exports them for type checkers (a py.typed package's
# plain imports are private to it)
from ._version import __cuda_version__ as __cuda_version__
from ._version import __version__ as __version__
