"""Helpers for test suites of libraries built on cuda.bindings (cuda.core's NVML tests import
`cuda.bindings._test_helpers.arch_check`): private, at the path where NVIDIA's cuda-bindings 12.9.x
keeps them.  NVIDIA's 13.0.3 and 13.5.0 have no such package, and in the builds for those releases
importing it fails as it does there (ModuleNotFoundError), so a client takes the same path on each
build as on NVIDIA's package of that release."""
from .. import _version
from .._internal.utils import absent_module

if not getattr(_version, "TEST_HELPERS", False):
    raise absent_module(__name__, f"this build (CUDA {_version.__cuda_version__}) has no {__name__}, as NVIDIA's "
                                  f"cuda-bindings {_version.__version__} has none")
