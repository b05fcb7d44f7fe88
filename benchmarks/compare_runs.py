"""Two benchmark runs side by side: do they rank the real-driver rows the same?

    python3 benchmarks/compare_runs.py A/results.json B/results.json [--min-alone-ns 100] [--check]

For every real-driver row of the per-call table (benchmarks/report.py real_rows) present in
either run: each run's ours / NVIDIA and whether its two ranges are apart, the binding-alone
difference (NVIDIA − ours on the no-op driver) of each run, and whether the runs agree on the
direction (whose median is lower).  Then the counts, and the target: every row whose
binding-alone difference exceeds --min-alone-ns in both runs (in scope) has its ranges apart in
both runs, on the same side.  --check: exit 1 when that target is missed.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
from report import f_ns, f_ratio  # noqa: E402


def in_scope(a, b, min_ns):
    """Whether a row's binding-alone difference exceeds min_ns in both runs (in the one run that
    has the figure, where only one has it)."""
    xs = [x["alone"] for x in (a, b) if x is not None and x.get("alone") is not None]
    return bool(xs) and all(abs(x) > min_ns for x in xs)


def compare(res_a, res_b, min_ns=report.ALONE_MIN_NS):
    """[(case, row of A or None, row of B or None, in scope, agree, ranked)]: agree = both runs'
    medians on the same side; ranked = both runs' ranges apart, on the same side."""
    ra, rb = report.real_rows(res_a), report.real_rows(res_b)
    out = []
    for case in list(ra) + [c for c in rb if c not in ra]:
        a, b = ra.get(case), rb.get(case)
        both = a is not None and b is not None
        agree = both and a["direction"] == b["direction"] and a["direction"] != "—"
        ranked = both and a["ranges"] == b["ranges"] and a["ranges"] in ("ours lower", "NVIDIA lower")
        out.append((case, a, b, in_scope(a, b, min_ns), agree, ranked))
    return out


def counts(rows):
    scope = [r for r in rows if r[3]]
    return {"rows": len(rows), "in_both": sum(1 for r in rows if r[1] and r[2]),
            "agree": sum(1 for r in rows if r[4]), "ranked": sum(1 for r in rows if r[5]),
            "in_scope": len(scope), "scope_agree": sum(1 for r in scope if r[4]),
            "scope_ranked": sum(1 for r in scope if r[5]),
            "scope_missed": [r[0] for r in scope if not r[5]]}


def side(x):
    if x is None:
        return "—"
    return f"{f_ratio(x['ratio'])} ({x['ranges']})"


def render(rows, names, min_ns):
    alone = lambda x: "—" if x is None or x["alone"] is None else f_ns(x["alone"])  # noqa: E731
    head = ["case", "A: ours / NVIDIA (ranges)", "B: ours / NVIDIA (ranges)", "alone A", "alone B",
            f"alone > {min_ns:g} ns", "direction", "ranked"]
    L = [f"A = {names[0]}", f"B = {names[1]}", "",
         "alone: NVIDIA − ours on the no-op driver (ns); direction: both runs' medians on the same side; "
         "ranked: both runs' ranges apart, on the same side.", ""]
    L.append(report.table(head, [(report.describe(c), side(a), side(b), alone(a), alone(b),
                                  "yes" if s else "no", "agree" if g else "DIFFER", "yes" if k else "no")
                                 for c, a, b, s, g, k in rows],
                          ["---", "---:", "---:", "---:", "---:", "---", "---", "---"]))
    n = counts(rows)
    L += ["", f"rows: {n['rows']} ({n['in_both']} in both runs); direction agrees on {n['agree']}, "
              f"ranked alike (ranges apart, same side) on {n['ranked']}.",
          f"in scope (binding-alone difference over {min_ns:g} ns in both runs): {n['in_scope']}; "
          f"direction agrees on {n['scope_agree']}, ranked alike on {n['scope_ranked']}.",
          "target (every row in scope ranked alike): " + ("met" if not n["scope_missed"] else
                                                           "missed: " + ", ".join(n["scope_missed"]))]
    return "\n".join(L)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--min-alone-ns", type=float, default=report.ALONE_MIN_NS)
    ap.add_argument("--check", action="store_true", help="exit 1 when the target is missed")
    a = ap.parse_args(argv)
    runs = []
    for path in (a.a, a.b):
        with open(path) as fh:
            runs.append(json.load(fh))
    rows = compare(runs[0], runs[1], a.min_alone_ns)
    names = [f"{p} ({r.get('machine', {}).get('date', '?')}, commit {r.get('machine', {}).get('commit') or '?'})"
             for p, r in zip((a.a, a.b), runs)]
    print(render(rows, names, a.min_alone_ns))
    return 1 if a.check and counts(rows)["scope_missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
