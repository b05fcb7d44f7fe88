"""Entry-point addresses of the cuDLA library (libcudla.so.1; 13.5 builds, DLA hardware):
`_inspect_function_pointers()` and `_inspect_function_pointer(name)` (see
cuda.bindings._loader.inspector).  In a build without cudla bindings, importing this module raises
ImportError."""
from cuda.bindings._loader import inspector

_inspect_function_pointers, _inspect_function_pointer = inspector('cudla')
