"""Python bindings for CUDA 13.0 (driver, runtime, NVRTC, nvJitLink, NVVM), generated from the
headers.

Importing this package is cheap: the submodules (``driver``, ``runtime``, ``nvrtc``,
``nvjitlink``, ``nvvm``) are imported on request, and no CUDA library is opened until a call
needs it.
``python -m cuda.bindings`` prints what is installed and which libraries and devices it finds.
"""

__version__ = "13.0.0"

#: The CUDA release whose headers the bindings were generated from.
__cuda_version__ = "13.0"
