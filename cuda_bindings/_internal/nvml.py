"""Entry-point addresses of NVML (libnvidia-ml.so.1, which comes with the NVIDIA driver):
`_inspect_function_pointers()` and `_inspect_function_pointer(name)` (see
cuda.bindings._loader.inspector).  In a build without nvml bindings, importing this module raises
ImportError."""
from cuda.bindings._loader import inspector

_inspect_function_pointers, _inspect_function_pointer = inspector('nvml')
