"""The PTX ISA version of a PTX text, and the CUDA release that first reads it."""
import re

# The first `.version` directive: blanks, then <digits>.<digits> (ASCII digits).
_VERSION = re.compile(r"\.version\s+([0-9]+\.[0-9]+)")

#: PTX ISA version -> the first CUDA release (1000 * major + 10 * minor) whose driver JIT,
#: nvPTXCompiler and nvJitLink read it, from the PTX ISA release history.
PTX_ISA_CUDA = {
    "1.0": 1000, "1.1": 1010, "1.2": 2000, "1.3": 2010, "1.4": 2020,
    "2.0": 3000, "2.1": 3010, "2.2": 3020, "2.3": 4000,
    "3.0": 4010, "3.1": 5000, "3.2": 5050,
    "4.0": 6000, "4.1": 6050, "4.2": 7000, "4.3": 7050,
    "5.0": 8000,
    "6.0": 9000, "6.1": 9010, "6.2": 9020, "6.3": 10000, "6.4": 10010, "6.5": 10020,
    # CUDA 11.x: PTX ISA 7.x, one minor each
    **{f"7.{i}": 11000 + 10 * i for i in range(9)},
    # CUDA 12.x: 8.0-8.5 for 12.0-12.5, then 8.6 for 12.7 (12.6 kept 8.5), 8.7 for 12.8, 8.8 for 12.9
    **{f"8.{i}": 12000 + 10 * i for i in range(6)}, "8.6": 12070, "8.7": 12080, "8.8": 12090,
    # CUDA 13.x: 9.x, one minor each
    **{f"9.{i}": 13000 + 10 * i for i in range(6)},
}


def get_ptx_ver(ptx):
    """The PTX ISA version ("8.8") that the first ``.version`` directive of the PTX text `ptx`
    declares.  ValueError if it has none; TypeError if `ptx` is not a str (decode the bytes NVRTC
    or nvJitLink give first)."""
    if not isinstance(ptx, str):
        raise TypeError(f"get_ptx_ver() argument 'ptx' must be str, not {type(ptx).__name__}"
                        + (" (decode the PTX bytes first)" if isinstance(ptx, (bytes, bytearray, memoryview)) else ""))
    m = _VERSION.search(ptx)
    if m is None:
        raise ValueError("the PTX text has no .version directive (a line like '.version 8.8'): is it PTX?")
    return m.group(1)


def get_minimal_required_cuda_ver_from_ptx_ver(ptx_version):
    """The oldest CUDA release (1000 * major + 10 * minor, e.g. 12090 for CUDA 12.9) whose
    driver, nvPTXCompiler or nvJitLink loads PTX of the ISA version `ptx_version` ("8.8", as
    ``get_ptx_ver`` gives it).  ValueError for a version not in the table (``PTX_ISA_CUDA``)."""
    try:
        return PTX_ISA_CUDA[ptx_version]
    except (KeyError, TypeError):
        raise ValueError(f"unknown PTX ISA version {ptx_version!r}: known are "
                         f"{min(PTX_ISA_CUDA, key=_key)} to {max(PTX_ISA_CUDA, key=_key)} "
                         f"(given as text, e.g. '8.8')") from None


def _key(version):
    major, minor = version.split(".")
    return int(major), int(minor)
