"""Differential conformance: every public name of our cuda.bindings probed side by side with
NVIDIA's cuda-bindings of the release this build is for (its twin: conformance.run.TWINS), on a
stand-in libcuda.so.1 (no GPU).  How it works and how to list a deliberate departure:
docs/conformance.md.  The whole run happens once, in a session fixture; each test below reports
one family's differences, grouped by kind, with examples."""
import collections
import re

import pytest

from cuda.bindings import __cuda_version__

from conformance import run
from conformance.departures import DEPARTURES
from conformance.spec import FAMILIES


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


def test_every_release_has_a_twin():
    import sys
    sys.path.insert(0, str(run.ROOT))
    from headers import fetch
    assert set(fetch.versions()) <= set(run.TWINS), "name NVIDIA's release for each pinned one in run.TWINS"
    assert __cuda_version__ in run.TWINS


def test_probes_ran_to_the_end_under_both_packages(conformance):
    assert conformance["release"] == __cuda_version__
    assert not conformance["problems"], "\n".join(conformance["problems"])
    assert conformance["probes"] > 20000, f"only {conformance['probes']} probes ran"


@pytest.mark.parametrize("lib, family", FAMILIES, ids=[f"{a}.{b}" for a, b in FAMILIES])
def test_no_unlisted_differences(conformance, lib, family):
    mine = [d for d in conformance["differences"] if run.family(d[0])[:2] == (lib, family)]
    if mine:
        part = dict(conformance, differences=mine)
        pytest.fail(f"{len(mine)} differences from NVIDIA's cuda-bindings {conformance['twin']} in {lib}.{family} "
                    f"(deliberate ones go in tests/conformance/departures.py):\n"
                    + run.summary_text(part, limit=25, totals=False), pytrace=False)


def test_every_listed_departure_is_still_needed(conformance):
    used = collections.Counter(reason for *_, reason in conformance["departures"])
    # entries for kernel-parameter cases (ids kparams.*) are used by scripts/kernel_params_diff.py,
    # which compares launches on a GPU
    stale = [f"{entry[0]}: {entry[-1]}" for entry in DEPARTURES
             if run.covers(entry, __cuda_version__) and not used[entry[-1]]
             and not re.sub(r"^re:\^?", "", entry[0]).startswith("kparams")]
    assert not stale, (f"departures.py entries listed for CUDA {__cuda_version__} that cover no difference "
                       "there:\n  " + "\n  ".join(stale))


_FAMILY_NAMED = re.compile(r"(^|\\?\.|\()(name|const|enum|handle|struct|field|fn|record)(\\?\.|\||\))")


def test_departure_entries_are_well_formed():
    reasons = [entry[-1] for entry in DEPARTURES]
    assert len(reasons) == len(set(reasons)), "reasons must be unique (the stale check counts by reason)"
    for entry in DEPARTURES:
        assert len(entry) == 5, entry
        pattern, expected, releases, kind, _ = entry
        assert releases == "all" or set(releases.split()) <= set(run.TWINS), entry
        assert kind in run.KINDS, f"{pattern}: kind {kind!r} is none of {sorted(run.KINDS)}"
        # one behaviour in one place: the pattern names the probe family it covers, and no
        # observation is a wildcard
        assert _FAMILY_NAMED.search(pattern), f"{pattern}: name the probe family (fn, field, ...)"
        for side in expected or ():
            assert side is None or "*" not in side.values(), f"{pattern}: no wildcard observations"


def test_a_difference_must_be_of_its_entrys_kind():
    # an entry that matches a difference of another kind does not cover it
    entry = (r"re:\.fn\.", None, "all", "accepts-more", "r")
    accepted = ("x.fn.f.p:voidp=none", {"ret": "(0)"}, {"exc": "TypeError"})
    refused_by_ours = ("x.fn.f.p:voidp=none", {"exc": "TypeError"}, {"ret": "(0)"})
    assert run.departure(*accepted, table=[entry]) == (entry, None)
    assert run.departure(*refused_by_ours, table=[entry]) == (None, entry)
    # a status error is not a refusal: where NVIDIA's raises one, the input was accepted
    status = ("x.fn.f.p:voidp=none", {"ret": "(0)"}, {"exc": "nvvmError", "msg": "ERROR_INVALID_INPUT (4)"})
    assert run.departure(*status, table=[entry]) == (None, entry)
    crash = (r"re:\.fn\.", None, "all", "avoids-crash", "c")
    assert run.departure("x.fn.f.p:voidp=int", {"exc": "ValueError"}, {"crash": "SIGSEGV"}, table=[crash])[0] == crash
    assert run.departure("x.fn.f.p:voidp=int", {"crash": "SIGSEGV"}, {"exc": "ValueError"}, table=[crash])[0] is None
