"""FastEnum and FastEnumMetaclass, where NVIDIA's cuda-bindings of this build's release has this
module (12.9.x, 13.2 onwards): the classes of cuda.bindings._internal._fast_enum_impl, which makes
the enums of the 12.9 and 13.5 builds.  numba-cuda registers them with its type inference (an enum
of this kind is typed as an integer enum), cuda.core defines its own `DeviceArch(FastEnum)`.  The
CUDA 13.0 build keeps `enum.IntEnum`, as NVIDIA's 13.0 package does, and importing this module
fails there as it does on that package (ModuleNotFoundError), so clients take the same path on each
build as on NVIDIA's package of that release."""
from .. import _version
from .utils import absent_module

if not getattr(_version, "FAST_ENUM", False):
    raise absent_module(__name__, f"this build (CUDA {_version.__cuda_version__}) makes its enums with enum.IntEnum, "
                                  "as NVIDIA's cuda-bindings of that release does, which has no such module")

from ._fast_enum_impl import FastEnum, FastEnumMetaclass  # noqa: E402

__all__ = ["FastEnum", "FastEnumMetaclass"]
