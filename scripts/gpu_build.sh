#!/usr/bin/env bash
# Builds ours for the given CUDA releases at once, each into /tmp/ours-<VER>, on the GPU machine
# (no network: the headers carried in headers/cuda-<VER>), and checks that each imports from there
# for its release:
#
#   bash scripts/gpu_build.sh 13.0 13.5
#
# pip install --no-build-isolation --no-deps --target /tmp/ours-<VER> from a clean copy of the
# checkout in /tmp/src-<VER>; each build's output goes to $LOG/build-<VER>.log ($OUT, else
# /tmp/gpu_session).  Prints one line per release ("built ..." or "FAILED: ...") and the time,
# and exits 1 if a build failed.  scripts/gpu_session.sh builds with it; so does a benchmark run
# that reuses the builds (benchmarks/run.sh with BENCH_SKIP_BUILD=1).
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$(pwd)
PY=${PYTHON:-python3}
LOG=${OUT:-/tmp/gpu_session}
mkdir -p "$LOG"
[ $# -gt 0 ] || { echo "usage: $0 VERSION..." >&2; exit 2; }

build() {   # build VER: ours for CUDA VER into /tmp/ours-VER
    local ver=$1 src=/tmp/src-$1
    rm -rf "$src" "/tmp/ours-$ver"
    mkdir -p "$src"
    tar -C "$REPO" --exclude=./.git --exclude=./build --exclude='*.so' --exclude=./.carry --exclude=./.whl \
        --exclude=./.ref --exclude='./headers/cuda-*' -cf - . | tar -C "$src" -xf -
    (cd "$src" && CUDA_BINDINGS_CUDA_VERSION=$ver CUDA_BINDINGS_INCLUDE_DIR=$REPO/headers/cuda-$ver/include \
        timeout 420 "$PY" -m pip install -q --no-build-isolation --no-deps --target "/tmp/ours-$ver" .)
}

t0=$SECONDS
for ver in "$@"; do
    build "$ver" >"$LOG/build-$ver.log" 2>&1 &
done
wait
status=0
for ver in "$@"; do
    if PYTHONPATH=/tmp/ours-$ver "$PY" -c "import cuda.bindings as b, sys; sys.exit(not b.__file__.startswith('/tmp/ours-$ver/') or b.__cuda_version__ != '$ver')"; then
        echo "built $ver into /tmp/ours-$ver"
    else
        echo "FAILED: build $ver (see build-$ver.log)"
        tail -n 30 "$LOG/build-$ver.log" >&2
        status=1
    fi
done
echo "builds: $((SECONDS - t0)) s"
exit $status
