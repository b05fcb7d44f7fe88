#!/usr/bin/env bash
# The client checks of each release's build on the GPU machine (no network needed).
#
#   bash scripts/client_releases.sh [VER...]      (default: every .carry/cuda-VER/ present)
#
# For each release VER, from .carry/cuda-VER/carry.tar.xz (made here by scripts/client_carry.py):
# unpacks NVIDIA's cuda-bindings of that release, cuda-core 1.2.2, the release's CUDA libraries the
# machine lacks and its headers into /tmp/carry-VER; builds this checkout for VER against those
# headers and runs scripts/gpu_check.sh's client step (GPU_CHECK_STEPS=clients): numba-cuda's own
# test suite and tests/clients/programs.py under NVIDIA's package of VER and under ours, at the
# same time, both on the carried libraries (loaded first in every process: --preload). 12.9 runs
# the clients' CUDA 12 flavours (cuda.core's cu12 modules, numba-cuda on CUDA 12), 13.5 the CUDA 13
# ones. Logs go to $OUT/VER (else /tmp/client_releases/VER); a short summary is printed last.
# CLIENT_RELEASES_STEPS picks gpu_check.sh's steps (default "clients"; "suites" runs the clients'
# whole test suites, scripts/client_suites.py, for SUITES_BUDGET seconds, default 420). Where the
# archive holds ours/ (client_carry.py --ours), that build is used instead of building here.
# Budget: the device tool takes 64 MiB per call, so each release travels in a call of its own,
# and a call is at most 10 minutes: the numba-cuda suite is capped (CLIENTS_SUITE_TIMEOUT, 240 s;
# a capped run says so in its exit), and at most 3 tests that pass only under NVIDIA's package are
# rerun alone (CLIENTS_MAX_RERUNS, CLIENTS_RERUN_TIMEOUT).
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
BASE=${OUT:-/tmp/client_releases}
if [ $# -eq 0 ]; then
    set -- $(ls -d .carry/cuda-*/ 2>/dev/null | sed 's#.carry/cuda-\(.*\)/#\1#')
fi
[ $# -gt 0 ] || { echo "no .carry/cuda-VER/ folder: run scripts/client_carry.py first" >&2; exit 2; }
LINES=()
status=0
# cuda.core's own tests, packed by scripts/core_tests.py --pack: for the suites step
core=()
if [ -f .carry/core-tests.tar.xz ]; then
    rm -rf /tmp/core-tests && mkdir -p /tmp/core-tests && tar -xJf .carry/core-tests.tar.xz -C /tmp/core-tests \
        && core=(SUITES_CORE_TESTS=/tmp/core-tests)
fi
for ver in "$@"; do
    t0=$SECONDS
    carry=.carry/cuda-$ver/carry.tar.xz
    dir=/tmp/carry-$ver
    log="$BASE/$ver"
    mkdir -p "$log"
    if [ ! -f "$carry" ]; then
        LINES+=("CUDA $ver: no $carry")
        status=1
        continue
    fi
    rm -rf "$dir" && mkdir -p "$dir" && tar -xJf "$carry" -C "$dir" || { LINES+=("CUDA $ver: unpacking failed"); status=1; continue; }
    preload=$(grep -v '^$' "$dir/preload" | sed "s#^#$dir/#" | paste -sd: -)
    # CUDA_HOME's nvvm/ (libdevice) for the clients that look there: the carried nvcc wheel's
    [ -d "$dir/site/nvidia/cuda_nvcc/nvvm" ] && ln -sfn site/nvidia/cuda_nvcc/nvvm "$dir/nvvm"
    echo "==== CUDA $ver: unpacked in $((SECONDS - t0)) s; NVIDIA's $(ls -d "$dir"/site/cuda_bindings-*.dist-info | sed 's#.*/cuda_bindings-\(.*\)\.dist-info#\1#'), $(ls -d "$dir"/site/cuda_core-*.dist-info | sed 's#.*/##')"
    # a CUDA 12 release has no headers on the machine: the carried ones are its CUDA_HOME (the
    # clients' runtime compilation looks there); a 13.x one keeps the machine's 13.0 wheels'
    home=${CUDA_HOME:-}
    [ "${ver%%.*}" = 12 ] && home=$dir
    # a build of ours made elsewhere for this Python (client_carry.py --ours): used, not rebuilt
    skip=0
    if [ -d "$dir/ours/cuda/bindings" ]; then
        rm -rf "/tmp/ours-$ver" && cp -a "$dir/ours" "/tmp/ours-$ver" && skip=1
    fi
    env "${core[@]}" GPU_CHECK_SKIP_BUILD=$skip GPU_CHECK_STEPS=${CLIENT_RELEASES_STEPS:-clients} SUITES_BUDGET=${SUITES_BUDGET:-420} \
        CUDA_BINDINGS_CUDA_VERSION=$ver CUDA_BINDINGS_INCLUDE_DIR="$dir/include" CUDA_HOME="$home" \
        GPU_CHECK_DEPS="$dir/site" CLIENT_CHECK_PRELOAD="$preload" \
        DEST=/tmp/ours-$ver OUT="$log" CLIENTS_TIMEOUT=${CLIENTS_TIMEOUT:-540} \
        CLIENTS_SUITE_TIMEOUT=${CLIENTS_SUITE_TIMEOUT:-240} CLIENTS_MAX_RERUNS=${CLIENTS_MAX_RERUNS:-3} \
        CLIENTS_RERUN_TIMEOUT=${CLIENTS_RERUN_TIMEOUT:-30} \
        bash scripts/gpu_check.sh >"$log/gpu_check.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    sed -n '/^==== gpu_check summary/,$p' "$log/gpu_check.out"
    LINES+=("CUDA $ver: exit $rc in $((SECONDS - t0)) s")
    while IFS= read -r line; do LINES+=("  $line"); done < <(grep -E '^(clients: (numba-cuda|client programs|cuda.bindings)|suites: )' "$log/summary.txt" 2>/dev/null)
done
printf '\n==== client check per release (ours vs NVIDIA of the same release)\n'
printf '%s\n' "${LINES[@]}"
exit $status
