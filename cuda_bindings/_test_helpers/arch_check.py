"""Whether an NVML query is expected to work on a GPU of a given architecture, for pytest suites.

`hardware_supports_nvml()` says whether NVML answers at all here (some platforms have an NVML that
supports nothing).  `unsupported_before(device, arch)` wraps an NVML query in a test:

- `arch` None or "HAS_INFOROM", or a device whose architecture NVML does not know: the query may
  or may not be supported; NotSupportedError from it skips the test;
- a device older than `arch` (a DeviceArch member, or "FERMI"): the query must raise
  NotSupportedError (the test fails if it does not), and the test is then skipped;
- otherwise the query must work: any error fails the test.
"""
import contextlib
import functools

import pytest

from cuda.bindings import nvml

# the architectures given by name rather than as a DeviceArch member: NVML's numbering
_NAMED = {"FERMI": 1}


@functools.cache
def hardware_supports_nvml():
    """True if NVML initialises and reports the driver branch; False where it reports the query
    unsupported (or an unknown error): a platform whose NVML does not serve queries."""
    nvml.init_v2()
    try:
        nvml.system_get_driver_branch()
        return True
    except (nvml.NotSupportedError, nvml.UnknownError):
        return False
    finally:
        nvml.shutdown()


def _arch_number(arch):
    if isinstance(arch, nvml.DeviceArch):
        return int(arch)
    return _NAMED.get(arch, 0)


@contextlib.contextmanager
def unsupported_before(device, expected_device_arch):
    """Run the body (an NVML query on `device`) as the device's architecture says it should go."""
    arch = nvml.device_get_architecture(device)
    if expected_device_arch in (None, "HAS_INFOROM") or arch == nvml.DeviceArch.UNKNOWN:
        try:
            yield
        except nvml.NotSupportedError:
            pytest.skip(f"Unsupported call for device architecture {nvml.DeviceArch(arch).name} "
                        f"on device '{nvml.device_get_name(device)}'")
    elif int(arch) < _arch_number(expected_device_arch):
        with pytest.raises(nvml.NotSupportedError):
            yield
        name = getattr(expected_device_arch, "name", expected_device_arch)
        pytest.skip(f"Unsupported before {name}, got {nvml.device_get_name(device)}")
    else:
        yield
