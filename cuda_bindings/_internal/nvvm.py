"""Entry-point addresses of the NVVM library (libnvvm): `_inspect_function_pointers()` and
`_inspect_function_pointer(name)` (see cuda.bindings._loader.inspector)."""
from cuda.bindings._loader import inspector

_inspect_function_pointers, _inspect_function_pointer = inspector('nvvm')
