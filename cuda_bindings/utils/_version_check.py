"""A warning, once per process, where the driver is of an older CUDA major than this build."""
import threading
import warnings

from ._envvar import envvar_bool

#: Setting it to a true value (``1``) silences the warning (see ``envvar_bool``).
DISABLE_VARIABLE = "CUDA_PYTHON_DISABLE_MAJOR_VERSION_WARNING"
_lock = threading.Lock()
_checked = False


def warn_if_cuda_major_version_mismatch():
    """Warn (UserWarning) if the installed driver supports an older CUDA major than the one these
    bindings are built for: a CUDA 13 build on a CUDA 12 driver.  Runs once per process: later
    calls do nothing, whatever the first one did.  The first call raises NotSupportedError where
    there is no driver and RuntimeError where the driver does not tell its version.
    ``CUDA_PYTHON_DISABLE_MAJOR_VERSION_WARNING=1`` silences it (``0``, empty or unset: not)."""
    global _checked
    with _lock:
        if _checked:
            return
        _checked = True
    if envvar_bool(DISABLE_VARIABLE, False):
        return
    from cuda.bindings import _loader, driver
    from cuda.bindings._version import CUDA_MAJOR, CUDA_VERSION, __cuda_version__

    err, version = driver.cuDriverGetVersion()
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuDriverGetVersion failed ({err!r}): the driver does not tell which CUDA it supports")
    if version // 1000 < CUDA_MAJOR:
        warnings.warn(
            f"cuda.bindings is built for CUDA {__cuda_version__}, and the NVIDIA driver supports CUDA "
            f"{version // 1000}.{version % 1000 // 10} at most (cuDriverGetVersion = {version}): calls that need "
            f"CUDA {CUDA_MAJOR} fail. Install {_loader.needs(CUDA_VERSION)}, or use cuda.bindings built for CUDA "
            f"{version // 1000}. Set {DISABLE_VARIABLE}=1 to silence this warning.", UserWarning, stacklevel=2)
