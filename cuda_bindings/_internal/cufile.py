"""Entry-point addresses of the cuFile library (libcufile.so.0):
`_inspect_function_pointers()` and `_inspect_function_pointer(name)` (see
cuda.bindings._loader.inspector).  In a build without cufile bindings, importing this module raises
ImportError."""
from cuda.bindings._loader import inspector

_inspect_function_pointers, _inspect_function_pointer = inspector('cufile')
