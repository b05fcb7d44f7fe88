"""Runs a case module (tests/fuzz/cases.py, tests/fuzz/gpu_cases.py) in child processes, so that
a case that crashes or hangs the interpreter cannot take the test run down with it.

The child prints one JSON line naming each case (its first item is the function or case the
batch is resumed after) and one line with how the case ended, then "DONE".  A child that stops
early crashed (or hung, and was killed): the crash is recorded against the last case it named
(as "after it ended" where that case had reported its end: the harm it did showed later), and a
new child goes on with the names after it."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(module, args, todo, env, timeout):
    """([(case, outcome)], [(case, what)]) for `python -m module *args *todo`, todo being the
    names still to run; the second list holds the crashes and hangs."""
    results, crashes = [], []
    todo = list(todo)
    while todo:
        try:
            r = subprocess.run([sys.executable, "-m", module, *args, *todo], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=timeout)
            out, err, rc = r.stdout, r.stderr, r.returncode
        except subprocess.TimeoutExpired as e:
            out, err, rc = (e.stdout or b"").decode(), (e.stderr or b"").decode(), "timeout"
        last, named, done = None, None, False
        for line in out.splitlines():
            item = json.loads(line)
            if item == "DONE":
                done = True
                break
            if last is None:
                last = named = item
            else:
                results.append((last, item))
                last = None
        if done:
            break
        what = f"exit {rc}: " + " | ".join(err.strip().splitlines()[:6])
        crashes.append((named, what if last is not None or named is None else "after it ended, " + what))
        todo = todo[todo.index(named[0]) + 1:] if named else todo[1:]
    return results, crashes
