#!/usr/bin/env bash
# The GPU check of other pinned CUDA releases than the default one (no network needed).
#
#   scripts/gpu_releases.sh 12.9 13.5
#
# For each release VER: scripts/gpu_check.sh with CUDA_BINDINGS_CUDA_VERSION=VER, building into
# /tmp/ours-VER (GPU_CHECK_SKIP_BUILD=1 reuses it), logs in $OUT/VER (else /tmp/gpu_check/VER).
# A CUDA 12 release needs the -cu12 libraries (libcudart.so.12, libnvrtc.so.12, libnvJitLink.so.12,
# libnvvm.so.4): where the machine has no -cu12 wheels, GPU_RELEASES_CU12_HOME names a folder laid
# out like a toolkit (lib64/, nvvm/lib64/), given to that run as CUDA_HOME.
# Ends with each run's summary and one line per release; exits 1 if any run failed.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
BASE=${OUT:-/tmp/gpu_check}
LINES=()
status=0
for ver in "$@"; do
    log="$BASE/$ver"
    mkdir -p "$log"
    home=${CUDA_HOME:-}
    if [ "${ver%%.*}" = 12 ] && [ -n "${GPU_RELEASES_CU12_HOME:-}" ]; then
        home=$GPU_RELEASES_CU12_HOME
    fi
    t0=$SECONDS
    CUDA_BINDINGS_CUDA_VERSION=$ver DEST=/tmp/ours-$ver OUT=$log CUDA_HOME=$home \
        bash scripts/gpu_check.sh -rs >"$log/gpu_check.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    LINES+=("CUDA $ver: exit $rc in $((SECONDS - t0)) s; $(grep -m1 -E '^pytest: .*\(exit' "$log/summary.txt" 2>/dev/null || echo 'no pytest line')")
done
for ver in "$@"; do
    printf '\n==== CUDA %s summary\n' "$ver"
    cat "$BASE/$ver/summary.txt" 2>/dev/null || tail -n 30 "$BASE/$ver/gpu_check.out"
done
printf '\n==== releases\n'
printf '%s\n' "${LINES[@]}"
exit $status
