#!/usr/bin/env bash
# The GPU machine's checks of the private C layers and of cuda.bindings._v2, in one run of at most
# ten minutes (no network needed):
#
#   bash scripts/gpu_session.sh
#
# Carry (git-ignored): headers/cuda-12.9, headers/cuda-13.0, headers/cuda-13.5 (python -m
# headers.fetch --all), .carry (nv-pxd/<twin>/cuda/bindings: the .pxd files of NVIDIA's 12.9.10,
# 13.0.3 and 13.5.0 wheels; v2-tests.tar.xz: scripts/v2_tests.py --pack), .whl (NVIDIA's 13.5.0 and
# cuda-pathfinder wheels for this machine's Python).
#
# 1. builds ours for 13.0, 12.9 and 13.5 at once, each into /tmp/ours-<VER> (scripts/gpu_build.sh:
#    pip install --no-build-isolation --no-deps --target, the carried headers);
# 2. per release, scripts/private_client.py --gpu: a C++ client of the private layers built against
#    our .pxd files and against NVIDIA's of the release's twin, each imported and called on ours
#    (cuda.bindings.__file__ checked); 12.9 without its NVRTC, nvJitLink and NVVM calls
#    (--driver-only: this machine has the CUDA 13 libraries only);
#    (GPU_SESSION_CLIENTS=0 leaves this step out);
# 3. NVIDIA's 13.5.0 installed from .whl into /tmp/nvidia-13.5.0; scripts/v2_tests.py runs NVIDIA's
#    own _v2 tests under it and under ours (13.5), and lists the tests that pass only under NVIDIA's;
#    then under ours 13.0 and 12.9 beside it, for their counts (NVIDIA has no _v2 for those
#    releases, and their headers lack functions the tests call: not a pass/fail of the session);
# 4. the _v2 examples and tests (tests/test_v2.py, tests/test_examples.py -k v2) under ours 13.5
#    and 13.0, with the GPU required (CUDA_BINDINGS_REQUIRE_GPU=1);
# 5. a summary, last. Logs go to $OUT (else /tmp/gpu_session). Exit 1 if anything failed.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$(pwd)
PY=${PYTHON:-python3}
LOG=${OUT:-/tmp/gpu_session}
mkdir -p "$LOG"
export PYTHONUNBUFFERED=1
SUMMARY=()
STATUS=0
note() { SUMMARY+=("$1"); echo "== $1"; }
failed() { note "FAILED: $1"; STATUS=1; }

declare -A TWIN=([12.9]=12.9.10 [13.0]=13.0.3 [13.5]=13.5.0)

t0=$SECONDS
while IFS= read -r line; do
    case "$line" in FAILED:*) failed "${line#FAILED: }" ;; *) note "$line" ;; esac
done < <(bash scripts/gpu_build.sh 13.0 12.9 13.5)

for ver in 13.0 12.9 13.5; do
    [ "${GPU_SESSION_CLIENTS:-1}" = 0 ] && { note "private clients: left out (GPU_SESSION_CLIENTS=0)"; break; }
    only=""
    [ "$ver" = 12.9 ] && only="--driver-only"
    for root in "/tmp/ours-$ver" "$REPO/.carry/nv-pxd/${TWIN[$ver]}"; do
        what=$([ "$root" = "/tmp/ours-$ver" ] && echo ours || echo "NVIDIA ${TWIN[$ver]}")
        if PYTHONPATH=/tmp/ours-$ver timeout 300 "$PY" scripts/private_client.py --gpu $only --pxd-root "$root" \
                --work "/tmp/client-$ver-${what// /_}" >"$LOG/client-$ver-${what// /_}.log" 2>&1; then
            note "private client $ver, built against $what's .pxd: $(tail -n 1 "$LOG/client-$ver-${what// /_}.log")"
        else
            failed "private client $ver against $what's .pxd"
            tail -n 20 "$LOG/client-$ver-${what// /_}.log"
        fi
    done
done

rm -rf /tmp/nvidia-13.5.0
"$PY" -m pip install -q --no-index --no-deps --target /tmp/nvidia-13.5.0 .whl/cuda_bindings-13.5.0-*.whl .whl/cuda_pathfinder-*.whl \
    >"$LOG/nvidia-install.log" 2>&1 || failed "installing NVIDIA's 13.5.0 from .whl"
timeout 300 "$PY" scripts/v2_tests.py --run nvidia=/tmp/nvidia-13.5.0 --run ours=/tmp/ours-13.5 \
    --tests .carry/v2-tests.tar.xz --out "$LOG/v2-tests" >"$LOG/v2-tests.log" 2>&1
rc=$?
note "NVIDIA's _v2 tests (exit $rc): $(tail -n 4 "$LOG/v2-tests.log" | tr '\n' ' ')"
[ $rc -eq 0 ] || STATUS=1
timeout 300 "$PY" scripts/v2_tests.py --run nvidia=/tmp/nvidia-13.5.0 --run ours-13.0=/tmp/ours-13.0 \
    --run ours-12.9=/tmp/ours-12.9 --rerun-budget 0 --tests .carry/v2-tests.tar.xz --out "$LOG/v2-tests-older" \
    >"$LOG/v2-tests-older.log" 2>&1
note "NVIDIA's _v2 tests under ours 13.0 and 12.9 (counts only): $(grep -E '^(nvidia|ours-1)' "$LOG/v2-tests-older.log" | tr '\n' ' ')"

for ver in 13.5 13.0; do
    CUDA_BINDINGS_REQUIRE_GPU=1 CUDA_BINDINGS_EXPECT_PREFIX=/tmp/ours-$ver PYTHONPATH=/tmp/ours-$ver \
        CUDA_BINDINGS_REFERENCE_DIR=/tmp/nvidia-13.5.0 \
        timeout 300 "$PY" -m pytest tests/test_v2.py tests/test_examples.py -k "v2" -q -rs -p no:cacheprovider \
        >"$LOG/v2-pytest-$ver.log" 2>&1
    rc=$?
    note "_v2 tests and examples under ours $ver (exit $rc): $(tail -n 1 "$LOG/v2-pytest-$ver.log")"
    [ $rc -eq 0 ] || STATUS=1
done

printf '\n==== summary (%s s)\n' "$((SECONDS - t0))"
printf '%s\n' "${SUMMARY[@]}"
exit $STATUS
