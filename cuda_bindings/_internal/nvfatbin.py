"""Entry-point addresses of the nvFatbin library (libnvfatbin):
`_inspect_function_pointers()` and `_inspect_function_pointer(name)` (see
cuda.bindings._loader.inspector).  In a build without nvfatbin bindings, importing this module raises
ImportError."""
from cuda.bindings._loader import inspector

_inspect_function_pointers, _inspect_function_pointer = inspector('nvfatbin')
