"""The package's PEP 517 build backend: setuptools', plus the CUDA headers as build requirements.

``get_requires_for_build_wheel`` (and ``_editable``) add to setuptools' own requirements the
pinned header wheels of the release built (``$CUDA_BINDINGS_CUDA_VERSION``, else the pins'
default) that pip can install on this machine, as ``project==version``
(``headers.fetch.build_requirements``).  So pip gets them as it gets setuptools and Cython: from
its index, a ``--find-links`` wheelhouse, with ``--no-index``, through its cache and its
configuration.  The build then finds them in the build environment (``headers.fetch``, source 3).
Nothing is asked where ``$CUDA_BINDINGS_INCLUDE_DIR`` is set or the header cache is current.
docs/headers.md says what is left to ``headers/fetch.py`` and why.
"""
import sys
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every other hook is setuptools')

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from headers import fetch  # noqa: E402


def get_requires_for_build_wheel(config_settings=None):
    return _setuptools.get_requires_for_build_wheel(config_settings) + fetch.build_requirements()


def get_requires_for_build_editable(config_settings=None):
    return _setuptools.get_requires_for_build_editable(config_settings) + fetch.build_requirements()
