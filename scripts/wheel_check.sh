#!/usr/bin/env bash
# The 13.0 wheel as a user gets it: built and repaired (scripts/build_wheels.sh, this Python),
# installed with its test requirements into a fresh virtual environment from a local wheelhouse
# alone (`pip install --no-index --only-binary=:all:`: no index, no source build, so no compiler),
# and the test suite run against that installed copy (CUDA_BINDINGS_EXPECT_PREFIX: the session
# stops unless cuda.bindings is imported from the environment).  .ci/run runs it.
#
#   bash scripts/wheel_check.sh [VER]     (default 13.0; work folder WHEEL_CHECK_DIR, build/wheel-check)
set -eu -o pipefail
cd "$(dirname "$0")/.."
VER=${1:-13.0}
PY=${PYTHON:-python3}
WORK=${WHEEL_CHECK_DIR:-build/wheel-check}
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
WHEEL_PYTHONS=$(command -v "$PY") WHEEL_OUT="$WORK/ours" AUDITWHEEL_PYTHON="$PY" bash scripts/build_wheels.sh "$VER"
wheel=$(ls "$WORK"/ours/cuda_bindings-*.whl)
# the wheel's requirements and its test extra's, as wheels (pip's index here; --no-index below)
"$PY" - "$wheel" >"$WORK/requirements.txt" <<'PYEOF'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    for line in z.read(meta).decode().splitlines():
        if line.startswith("Requires-Dist: "):
            req, _, marker = line[len("Requires-Dist: "):].partition(";")
            if not marker or re.search(r"extra\s*==\s*['\"]test['\"]", marker):
                print(req.strip())
PYEOF
"$PY" -m pip download -q --only-binary=:all: -d "$WORK/deps" -r "$WORK/requirements.txt"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q --no-index --only-binary=:all: --find-links "$WORK/ours" \
    --find-links "$WORK/deps" "cuda-bindings[test]"
where=$(cd /tmp && "$WORK/venv/bin/python" -c "import cuda.bindings as b; print(b.__file__, b.__version__, b.__cuda_version__)")
echo "installed from the wheel: $where"
case "$where" in "$WORK/venv/"*) ;; *) echo "cuda.bindings is not the installed wheel's" >&2; exit 1 ;; esac
CUDA_BINDINGS_EXPECT_PREFIX="$WORK/venv" "$WORK/venv/bin/python" -m pytest tests -q -p no:cacheprovider
