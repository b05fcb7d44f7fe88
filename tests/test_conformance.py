"""Differential conformance: every public name of our cuda.bindings probed side by side with
NVIDIA's cuda-bindings 13.0.3, on a stand-in libcuda.so.1 (no GPU).  How it works and how to list
a deliberate departure: docs/conformance.md.  The whole run happens once, in a session fixture;
each test below reports one family's differences, grouped by kind, with examples."""
import collections
import re

import pytest

from cuda.bindings import __cuda_version__

# NVIDIA's 13.0.3 is the reference of the 13.0 build only (other releases: docs/cuda-versions.md)
pytestmark = pytest.mark.skipif(__cuda_version__ != "13.0",
                                reason=f"compares with NVIDIA's cuda-bindings 13.0.3; this build is for CUDA {__cuda_version__}")

from conformance import run
from conformance.departures import DEPARTURES

FAMILIES = [(lib, fam) for lib in ("driver", "runtime") for fam in ("name", "const", "enum", "handle", "struct",
                                                                     "field", "fn")]
FAMILIES += [(lib, fam) for lib in ("nvrtc", "nvjitlink", "nvvm") for fam in ("name", "enum", "fn")]


@pytest.fixture(scope="session")
def conformance():
    try:
        res = run.run(log=lambda *a: None)
    except run.SetupError as e:      # no reference package, no compiler: a failure, not a skip
        res = e
    if isinstance(res, run.SetupError):
        pytest.fail(f"conformance suite could not be set up: {res}", pytrace=False)
    print("\n" + run.total_line(res))
    return res


def test_probes_ran_to_the_end_under_both_packages(conformance):
    assert not conformance["problems"], "\n".join(conformance["problems"])
    assert conformance["probes"] > 20000, f"only {conformance['probes']} probes ran"


@pytest.mark.parametrize("lib, family", FAMILIES, ids=[f"{a}.{b}" for a, b in FAMILIES])
def test_no_unlisted_differences(conformance, lib, family):
    mine = [d for d in conformance["differences"] if run.family(d[0])[:2] == (lib, family)]
    if mine:
        part = dict(conformance, differences=mine)
        pytest.fail(f"{len(mine)} differences from NVIDIA's cuda-bindings 13.0.3 in {lib}.{family} "
                    f"(deliberate ones go in tests/conformance/departures.py):\n"
                    + run.summary_text(part, limit=25, totals=False), pytrace=False)


def test_every_listed_departure_is_still_needed(conformance):
    used = collections.Counter(reason for *_, reason in conformance["departures"])
    # entries for kernel-parameter cases (ids kparams.*) are used by scripts/kernel_params_diff.py,
    # which compares launches on a GPU
    stale = [f"{pattern}: {reason}" for pattern, _, reason in DEPARTURES
             if not used[reason] and not re.sub(r"^re:\^?", "", pattern).startswith("kparams")]
    assert not stale, "departures.py entries that cover no difference any more:\n  " + "\n  ".join(stale)
