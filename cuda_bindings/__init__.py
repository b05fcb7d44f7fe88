"""Python bindings for CUDA (driver, runtime, NVRTC, nvJitLink, NVVM), generated from the
headers of one CUDA release: ``__cuda_version__`` says which.

Importing this package is cheap: the submodules (``driver``, ``runtime``, ``nvrtc``,
``nvjitlink``, ``nvvm``) are imported on request, and no CUDA library is opened until a call
needs it.
``python -m cuda.bindings`` prints what is installed and which libraries and devices it finds.
"""

from ._version import __cuda_version__, __version__  # noqa: F401  (the release this build is for)
