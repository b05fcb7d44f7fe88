"""Helpers beside the bindings, as NVIDIA's package offers them (every build has all of them):

* ``get_cuda_native_handle(obj)``: the C value of a driver or runtime handle object;
* ``get_ptx_ver(ptx)``: the PTX ISA version a PTX text declares (``.version 8.8`` -> "8.8");
* ``get_minimal_required_cuda_ver_from_ptx_ver(ptx_version)``: the oldest CUDA whose driver,
  nvPTXCompiler and nvJitLink read that PTX ISA version (1000 * major + 10 * minor);
* ``check_nvvm_compiler_options(options)``: whether the installed libNVVM accepts those options;
* ``warn_if_cuda_major_version_mismatch()``: one UserWarning per process where the driver is of
  an older CUDA major than this build;
* ``envvar_bool(name, default=False)``: an environment variable read as a bool.

Importing this module opens no library.
"""
from ._envvar import envvar_bool
from ._nvvm_utils import check_nvvm_compiler_options
from ._ptx_utils import get_minimal_required_cuda_ver_from_ptx_ver, get_ptx_ver
from ._version_check import warn_if_cuda_major_version_mismatch

__all__ = ["check_nvvm_compiler_options", "envvar_bool", "get_cuda_native_handle",
           "get_minimal_required_cuda_ver_from_ptx_ver", "get_ptx_ver", "warn_if_cuda_major_version_mismatch"]


def get_cuda_native_handle(obj):
    """The C value of a driver or runtime handle object (CUstream, cudaStream_t, CUevent,
    cudaEvent_t, CUgraph, ...) as an int: the address a C library would receive."""
    from cuda.bindings._base import _Handle
    if not isinstance(obj, _Handle):
        raise TypeError(f"expected a cuda.bindings handle object, not {type(obj).__name__}")
    return int(obj)
