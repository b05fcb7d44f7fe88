#!/usr/bin/env bash
# Benchmarks of our cuda.bindings against NVIDIA's cuda-bindings and plain C, on a machine with an
# NVIDIA GPU, nvcc, Cython and numpy, and NVIDIA's cuda-bindings installed in this Python:
#
#   bash benchmarks/run.sh
#
# 1. copies the checkout (without build outputs) to a scratch folder and builds it there exactly
#    as scripts/gpu_check.sh does: `pip install --no-build-isolation --no-deps --target $DEST .`
#    (timed), then checks that PYTHONPATH=$DEST imports cuda.bindings from $DEST;
# 2. builds the wheel from the same build tree (`pip wheel --no-build-isolation --no-deps`), for
#    its size;
# 3. the second API, `cuda.bindings._v2` (prepare_v2): NVIDIA's release with it and ours built for
#    CUDA 13.5, each in its own folder, when both are to be had (see "The _v2 phase" below);
# 4. compiles benchmarks/kernels.cu (cubin, sm_90), the C twin benchmarks/overhead_c.c (-lcuda)
#    and the Cython floor benchmarks/floor.pyx; the no-op driver and NVML (benchmarks/stub_driver.c,
#    benchmarks/stub_nvml.c) and the driver probe (benchmarks/drvprobe.c, in front of the real
#    libcuda.so.1);
# 5. runs benchmarks/measure.py: first a CPU probe (a short Python loop in a fresh process pinned
#    to each CPU, three times; every process is then pinned to the fastest), then the per-call
#    cases in alternating fresh processes (real driver, no-op driver, _v2, driver probe), each
#    process timing a gauge (the Cython floor) before every case, import times, time to the first
#    cuInit, the client loops of benchmarks/clients.py (numba-cuda and cuda.core as installed);
#    then, within BENCH_BUDGET_SECONDS of the start, runs again the per-call processes whose
#    floor is above 1.2 x the run's fastest and gives more rounds to the rows whose ranges still
#    overlap;
#    a case timed while the CPU ran slowly (the gauge between its repeats) is timed again, and
#    the figures still timed slowly are left out, the others rescaled to one speed (calls.timed,
#    measure.by_speed); each real-driver case of more than a trivial call is followed in its
#    process by its C form (floor.twin_ns, calls.py --twin), and its figure taken by that twin
#    (measure.by_twin: the driver's own time differs from process to process)
#    -> benchmarks/results.json; then benchmarks/report.py -> docs/benchmarks.md;
# 6. if $OUT is set, writes run.log and build.log there as they grow, and copies benchmarks.md
#    and results.json there at the end; a short summary (report.py --summary) is printed last.
#
# Environment: PYTHON (python3), DEST (/tmp/ours), BENCH_ROUNDS (5), BENCH_MAX_ROUNDS (31: the
# rounds a case whose two intervals still overlap may get), BENCH_EXTRA_SECONDS (240: the time
# those extra rounds may take, per phase), BENCH_ATTEMPTS (2: processes at most for a per-call
# process whose floor is too high, the first included), BENCH_RERUN_SECONDS (40: the time those
# may take, per phase and pass), BENCH_BUDGET_SECONDS (540: the optional work, processes run again
# and extra rounds, stops this many seconds after the start, so that the whole run stays within a
# 10-minute command), BENCH_PROBE_ROUNDS (3: processes per package on the driver probe),
# BENCH_PROBE_ARMS (experiments on the probe: "VERSION:FLAGS ...", e.g. ":1", ours with its entry
# points asked with CU_GET_PROC_ADDRESS_LEGACY_STREAM), BENCH_IMPORT_REPEATS (9),
# BENCH_CPU (auto: the fastest CPU by the probe; a number: that CPU, as before; none: not pinned),
# BENCH_SKIP_BUILD=1 (reuse the builds in $DEST and $DEST_V2; no build time, no wheel),
# BENCH_NO_WHEEL=1, BUILD_TIMEOUT (420 s), COLD_BUILD_SECONDS_2CORE (the cold build time measured
# on the 2-core CI-like machine, shown in the table), CUDA_BINDINGS_WHEEL_DIR (default: .whl/ of
# the checkout, as in scripts/gpu_check.sh), BENCH_COMMIT (shown when the checkout has no git
# metadata), BENCH_PHASES (measure.py's phases, comma-separated: calls, stub_calls, v2_calls,
# probe_calls, imports, first_init, clients; default all of them), BENCH_NO_GPU=1 (a machine
# without a GPU or nvcc: the no-op driver phases alone, stub_calls and v2_calls, to try the
# measurement code; no kernels, C twin or probes), BENCH_RESULTS and BENCH_DOC (where results.json
# and the report are written: benchmarks/results.json, docs/benchmarks.md).
#
# The _v2 phase (ours against NVIDIA's `cuda.bindings._v2`, on the no-op driver) runs only when
# both packages' `cuda.bindings._v2.driver` and `._v2.nvrtc` import; otherwise the report says why.
#   BENCH_V2_NVIDIA   a folder where NVIDIA's cuda-bindings with _v2 (13.5.0) is installed; unset:
#                     $CUDA_BINDINGS_WHEEL_DIR/cuda_bindings-13.5.0-*.whl (this Python's tag, e.g.
#                     cp312 on the GPU machine) is installed into /tmp/nvidia-13.5.0 (pip --no-index
#                     --no-deps --target), with a cuda_pathfinder-*.whl found there (13.5.0 needs
#                     cuda-pathfinder >= 1.4.2)
#   BENCH_V2_OURS     a folder where ours with _v2 is installed (any folder with a cuda.bindings
#                     that has _v2: here, for a test, NVIDIA's own); unset: this checkout is built
#                     for CUDA 13.5 into DEST_V2 (/tmp/ours-13.5) with
#                       CUDA_BINDINGS_CUDA_VERSION=13.5
#                       CUDA_BINDINGS_INCLUDE_DIR=$BENCH_V2_INCLUDE_DIR (default: headers/cuda-13.5/
#                       include of this checkout, carried there: a complete CUDA 13.5 include folder)
#                     when BENCH_V2=1, or when BENCH_V2=auto (the default) and the checkout has
#                     _v2 sources (a name starting with _v2 under cuda_bindings/ or
#                     generated/cuda-13.5/); BENCH_V2=0: no _v2 phase
# Needs no network.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$(pwd)

PY=${PYTHON:-python3}
DEST=${DEST:-/tmp/ours}
DEST_V2=${DEST_V2:-/tmp/ours-13.5}
ROUNDS=${BENCH_ROUNDS:-5}
REPEATS=${BENCH_IMPORT_REPEATS:-9}
CPU=${BENCH_CPU:-auto}
NO_GPU=${BENCH_NO_GPU:-0}
PHASES=calls,stub_calls,v2_calls,probe_calls,imports,first_init,clients
[ "$NO_GPU" = 1 ] && PHASES=stub_calls,v2_calls
BUDGET=${BENCH_BUDGET_SECONDS:-540}
RESULTS=${BENCH_RESULTS:-$REPO/benchmarks/results.json}
DOC=${BENCH_DOC:-$REPO/docs/benchmarks.md}
WORK=$(mktemp -d /tmp/bench.XXXXXX)
LOGS=${OUT:-$WORK}      # with $OUT set, the logs are written there as they grow
mkdir -p "$LOGS"
LOG=$LOGS/run.log
BLOG=$LOGS/build.log
export CUDA_BINDINGS_WHEEL_DIR=${CUDA_BINDINGS_WHEEL_DIR:-$REPO/.whl}
export PYTHONUNBUFFERED=1
T_START=$(date +%s)

: >"$BLOG"

say() { printf '\n==== %s (%ss)\n' "$*" "$(($(date +%s) - T_START))"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

die() {
    echo "run.sh: FAILED: $*"
    exit 1
}

# a clean copy of the checkout in $1 (no build outputs, no carried headers or wheels)
copy_checkout() {
    mkdir -p "$1"
    tar -C "$REPO" --exclude=./.git --exclude=./build --exclude=./dist --exclude='*.egg-info' \
        --exclude='./cuda_bindings/*.c' --exclude='./cuda_bindings/*.cpp' --exclude='*.so' --exclude='./headers/cuda-*' \
        --exclude='./headers/.cuda-*' --exclude=./.bench --exclude=./.whl --exclude=./.carry --exclude=__pycache__ \
        --exclude=./benchmarks/results.json -cf - . | tar -C "$1" -xf - || die "could not copy the checkout"
}

# prints "VERSION FILE" of the cuda.bindings that PYTHONPATH=$1 imports, if it has _v2 (driver and
# nvrtc) and comes from under $1; fails otherwise
v2_where() {
    PYTHONPATH="$1" "$PY" -c 'import sys, os, cuda.bindings as b
import cuda.bindings._v2.driver, cuda.bindings._v2.nvrtc
d = os.path.realpath(sys.argv[1]) + os.sep
if not os.path.realpath(b.__file__).startswith(d): sys.exit(f"cuda.bindings came from {b.__file__}, not from {d}")
print(getattr(b, "__version__", "?"), b.__file__)' "$1" 2>&1 | tail -n 1
    return "${PIPESTATUS[0]}"
}

# sets V2_OURS and V2_NVIDIA (folders) when both packages' _v2 import, else V2_NOTE (why not)
prepare_v2() {
    V2_OURS="" V2_NVIDIA="" V2_NOTE=""
    local wanted=${BENCH_V2:-auto} nv=${BENCH_V2_NVIDIA:-} ours=${BENCH_V2_OURS:-} got whl reqs
    if [ "$wanted" = 0 ]; then V2_NOTE="BENCH_V2=0"; return 0; fi
    say "the second API, cuda.bindings._v2: NVIDIA's and ours"
    if [ -z "$nv" ]; then
        nv=/tmp/nvidia-13.5.0
        whl=$(ls "$CUDA_BINDINGS_WHEEL_DIR"/cuda_bindings-13.5.0-*.whl 2>/dev/null | head -n 1)
        if [ -z "$whl" ]; then
            V2_NOTE="no NVIDIA cuda-bindings 13.5.0 wheel in $CUDA_BINDINGS_WHEEL_DIR and no BENCH_V2_NVIDIA"
            echo "_v2: $V2_NOTE"; return 0
        fi
        rm -rf "$nv"
        # in one go: pip --target leaves a top-level folder (cuda/) that is already there alone
        reqs=(cuda-bindings==13.5.0)
        compgen -G "$CUDA_BINDINGS_WHEEL_DIR/cuda_pathfinder-*.whl" >/dev/null && reqs+=(cuda-pathfinder)
        "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$nv" \
            --find-links "$CUDA_BINDINGS_WHEEL_DIR" "${reqs[@]}" >>"$BLOG" 2>&1
    fi
    if ! got=$(v2_where "$nv"); then
        V2_NOTE="NVIDIA's _v2 does not import from $nv: $got"; echo "_v2: $V2_NOTE"; return 0
    fi
    echo "NVIDIA's _v2: $got"
    if [ -z "$ours" ]; then
        ours=$DEST_V2
        if [ "$wanted" != 1 ] && [ -z "$(find "$REPO/cuda_bindings" "$REPO/generated/cuda-13.5" -name '_v2*' -print -quit 2>/dev/null)" ]; then
            V2_NOTE="ours has no cuda.bindings._v2 yet (no _v2 sources in this checkout; BENCH_V2=1 builds it anyway)"
            echo "_v2: $V2_NOTE"; return 0
        fi
        build_v2 || return 0
    fi
    if ! got=$(v2_where "$ours"); then
        V2_NOTE="ours' _v2 does not import from $ours: $got"; echo "_v2: $V2_NOTE"; return 0
    fi
    echo "ours' _v2: $got"
    V2_OURS=$ours V2_NVIDIA=$nv
}

# ours built for CUDA 13.5 into $DEST_V2 (reused with BENCH_SKIP_BUILD=1)
build_v2() {
    local inc=${BENCH_V2_INCLUDE_DIR:-$REPO/headers/cuda-13.5/include} t0 rc
    if [ "${BENCH_SKIP_BUILD:-0}" = 1 ] && [ -d "$DEST_V2/cuda/bindings" ]; then
        echo "reusing ours' 13.5 build in $DEST_V2"; return 0
    fi
    [ -f "$inc/cuda.h" ] || { V2_NOTE="no CUDA 13.5 headers in $inc (BENCH_V2_INCLUDE_DIR)"; echo "_v2: $V2_NOTE"; return 1; }
    copy_checkout "$WORK/src-13.5"     # a copy of its own: none of the 13.0 build's outputs
    rm -rf "$DEST_V2"
    t0=$(now)
    (cd "$WORK/src-13.5" && CUDA_BINDINGS_CUDA_VERSION=13.5 CUDA_BINDINGS_INCLUDE_DIR="$inc" timeout "${BUILD_TIMEOUT:-420}" \
        "$PY" -m pip install --no-build-isolation --no-deps --target "$DEST_V2" .) >>"$BLOG" 2>&1
    rc=$?
    echo "ours for CUDA 13.5: exit $rc after $(elapsed "$t0" "$(now)") s into $DEST_V2"
    [ $rc -eq 0 ] || { tail -n 20 "$BLOG"; V2_NOTE="ours' CUDA 13.5 build failed (exit $rc; build.log)"; return 1; }
}

main() {
    say "machine"
    echo "date: $(date -u +%FT%TZ); host: $(uname -srm); CPUs: $(nproc 2>/dev/null || echo ?)"
    echo "python: $("$PY" -c 'import sys; print(sys.version.split()[0], sys.executable)' 2>&1)"
    nvidia-smi -L 2>&1 || echo "(nvidia-smi failed)"
    [ "$NO_GPU" = 1 ] || command -v nvcc >/dev/null || die "nvcc is not on PATH"
    NVIDIA_WHERE=$(env -u PYTHONPATH "$PY" -c 'import cuda.bindings as b; print(b.__file__)' 2>&1) \
        || die "NVIDIA's cuda.bindings does not import with PYTHONPATH unset: $NVIDIA_WHERE"
    echo "NVIDIA's cuda.bindings: $NVIDIA_WHERE"
    case "$NVIDIA_WHERE" in "$DEST"/*) die "NVIDIA's cuda.bindings resolves to $DEST" ;; esac

    COMMIT=${BENCH_COMMIT:-}
    if [ -z "$COMMIT" ] && git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
        COMMIT=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null)
        [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ] && COMMIT="$COMMIT+changes"
    fi

    # --- build, as scripts/gpu_check.sh does it, from a clean copy --------------------------------
    BUILD_SECONDS=""
    WHEEL=""
    WHEEL_SECONDS=""
    SRC=$WORK/src
    if [ "${BENCH_SKIP_BUILD:-0}" = 1 ] && [ -d "$DEST/cuda/bindings" ]; then
        say "reusing the build in $DEST (BENCH_SKIP_BUILD=1)"
    else
        say "build into $DEST"
        copy_checkout "$SRC"
        rm -rf "$DEST"
        t0=$(now)
        (cd "$SRC" && timeout "${BUILD_TIMEOUT:-420}" "$PY" -m pip install --no-build-isolation --no-deps \
            --target "$DEST" .) >>"$BLOG" 2>&1
        rc=$?
        BUILD_SECONDS=$(elapsed "$t0" "$(now)")
        [ $rc -eq 0 ] || { tail -n 40 "$BLOG"; die "build failed (exit $rc) after $BUILD_SECONDS s"; }
        echo "built in $BUILD_SECONDS s"
    fi

    where=$(PYTHONPATH="$DEST" "$PY" -c 'import cuda.bindings as b; print(b.__file__)' 2>&1)
    echo "with PYTHONPATH=$DEST: cuda.bindings.__file__ = $where"
    case "$where" in
    "$DEST"/*) ;;
    *) die "PYTHONPATH=$DEST does not import our build (got: $where)" ;;
    esac

    if [ -n "$BUILD_SECONDS" ] && [ "${BENCH_NO_WHEEL:-0}" != 1 ]; then
        say "wheel, from the same build tree"
        t0=$(now)
        (cd "$SRC" && "$PY" -m pip wheel --no-build-isolation --no-deps -w "$WORK/wheel" .) >>"$BLOG" 2>&1
        rc=$?
        WHEEL_SECONDS=$(elapsed "$t0" "$(now)")
        WHEEL=$(ls "$WORK"/wheel/*.whl 2>/dev/null | head -n 1)
        if [ $rc -eq 0 ] && [ -n "$WHEEL" ]; then
            echo "$(basename "$WHEEL"): $(stat -c %s "$WHEEL") bytes, in $WHEEL_SECONDS s"
        else
            echo "wheel build failed (exit $rc); see build.log"
            WHEEL=""
        fi
    fi

    # --- the second API: NVIDIA's release with cuda.bindings._v2 and ours built for 13.5 -----------
    prepare_v2

    # --- kernels, C twin, Cython floor ------------------------------------------------------------
    say "kernels, C twin, Cython floor"
    CBIN=$WORK/overhead_c
    if [ "$NO_GPU" = 1 ]; then
        head -c 64 /dev/zero >"$WORK/kernels.cubin"     # the no-op driver reads none of it
        CBIN=""
    else
        nvcc -cubin -arch=sm_90 -o "$WORK/kernels.cubin" benchmarks/kernels.cu >>"$BLOG" 2>&1 \
            || { tail -n 20 "$BLOG"; die "nvcc could not build benchmarks/kernels.cu"; }
    fi
    if [ -n "$CBIN" ] && ! nvcc -O2 -o "$CBIN" benchmarks/overhead_c.c -lcuda >>"$BLOG" 2>&1; then
        CUDA_ROOT=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
        gcc -O2 -o "$CBIN" benchmarks/overhead_c.c -I"$CUDA_ROOT/include" -L"$CUDA_ROOT/lib64/stubs" \
            -L"$CUDA_ROOT/lib64" -lcuda >>"$BLOG" 2>&1 || { echo "C twin: could not compile; see build.log"; CBIN=""; }
    fi
    [ -n "$CBIN" ] && echo "C twin: $CBIN"
    FLOOR=$WORK/floor
    mkdir -p "$FLOOR"
    cp benchmarks/floor.pyx "$FLOOR/"
    FLOOR_SETUP="from Cython.Build import cythonize; from setuptools import Extension, setup; \
    setup(ext_modules=cythonize([Extension('floor', ['floor.pyx'])], quiet=True), \
    script_args=['build_ext', '--inplace', '-q'])"
    if (cd "$FLOOR" && env -u PYTHONPATH "$PY" -c "$FLOOR_SETUP") >>"$BLOG" 2>&1; then
        echo "floor: built"
    else
        echo "floor: could not build floor.pyx; see build.log"
        FLOOR=""
    fi

    # --- measure, report --------------------------------------------------------------------------
    say "lock probe: which driver calls reach a lock (benchmarks/lockprobe.c)"
    LOCKS=$WORK/lockprobe.jsonl
    if [ "$NO_GPU" != 1 ] && nvcc -O2 -Xcompiler -rdynamic -o "$WORK/lockprobe" benchmarks/lockprobe.c -ldl -lcuda -lpthread >>"$BLOG" 2>&1 \
        && "$WORK/lockprobe" >"$LOCKS" 2>>"$BLOG"; then
        cat "$LOCKS"
    else
        echo "lock probe: could not build or run; see build.log"
        LOCKS=""
    fi

    say "cuGetProcAddress flags: the same functions? (benchmarks/getproc_flags.c)"
    FLAGS=$WORK/getproc_flags.jsonl
    if [ "$NO_GPU" != 1 ] && nvcc -O2 -o "$WORK/getproc_flags" benchmarks/getproc_flags.c -lcuda >>"$BLOG" 2>&1 \
        && "$WORK/getproc_flags" >"$FLAGS" 2>>"$BLOG"; then
        cat "$FLAGS"
    else
        echo "getproc_flags: could not build or run; see build.log"
        FLAGS=""
    fi

    STUB=$WORK/stub
    mkdir -p "$STUB"
    if cc -O2 -shared -fPIC -o "$STUB/libcuda.so.1" benchmarks/stub_driver.c -ldl >>"$BLOG" 2>&1 \
        && cc -O2 -shared -fPIC -o "$STUB/libnvidia-ml.so.1" benchmarks/stub_nvml.c >>"$BLOG" 2>&1; then
        echo "no-op driver and NVML: $STUB/libcuda.so.1, $STUB/libnvidia-ml.so.1"
    else
        echo "no-op driver: could not build; see build.log"
        STUB=""
    fi

    # the real driver, for benchmarks/drvprobe.c to load behind itself
    REAL=$("$PY" -c 'import ctypes, os; ctypes.CDLL("libcuda.so.1")
for line in open("/proc/self/maps"):
    p = line.split()[-1]
    if os.path.basename(p).startswith("libcuda.so"):
        print(os.path.realpath(p)); break' 2>>"$BLOG")
    PROBE=$WORK/probe
    mkdir -p "$PROBE"
    if [ -n "$REAL" ] && cc -O2 -shared -fPIC -o "$PROBE/libcuda.so.1" benchmarks/drvprobe.c -ldl >>"$BLOG" 2>&1; then
        echo "driver probe: $PROBE/libcuda.so.1 in front of $REAL"
    else
        echo "driver probe: could not build, or no real driver found; see build.log"
        PROBE=""
    fi

    say "measure: $ROUNDS rounds of per-call cases, $REPEATS import and cuInit repeats"
    margs=(--ours "$DEST" --cubin "$WORK/kernels.cubin" --out "$RESULTS" --python "$PY"
           --rounds "$ROUNDS" --import-repeats "$REPEATS" --cpu "$CPU" --commit "$COMMIT")
    [ -n "${OUT:-}" ] && margs+=(--mirror "$OUT/results.json")
    [ -n "$CBIN" ] && margs+=(--c-binary "$CBIN")
    [ -n "$LOCKS" ] && margs+=(--lockprobe "$LOCKS")
    [ -n "$FLAGS" ] && margs+=(--getproc-flags "$FLAGS")
    [ -n "$STUB" ] && margs+=(--stub-dir "$STUB")
    [ -n "$PROBE" ] && margs+=(--probe-dir "$PROBE" --probe-real "$REAL" --probe-rounds "${BENCH_PROBE_ROUNDS:-3}")
    for arm in ${BENCH_PROBE_ARMS:-}; do margs+=(--probe-arm "$arm"); done
    margs+=(--max-rounds "${BENCH_MAX_ROUNDS:-31}" --extra-seconds "${BENCH_EXTRA_SECONDS:-240}")
    [ -n "$FLOOR" ] && margs+=(--floor-dir "$FLOOR")
    margs+=(--phases "${BENCH_PHASES:-$PHASES}")
    margs+=(--attempts "${BENCH_ATTEMPTS:-2}" --rerun-seconds "${BENCH_RERUN_SECONDS:-40}"
            --deadline "$((T_START + BUDGET))")
    if [ -n "$V2_OURS" ] && [ -n "$V2_NVIDIA" ]; then
        margs+=(--v2-ours "$V2_OURS" --v2-nvidia "$V2_NVIDIA")
    else
        margs+=(--v2-note "${V2_NOTE:-not prepared}")
    fi
    [ -n "$BUILD_SECONDS" ] && margs+=(--build-seconds "$BUILD_SECONDS")
    [ -n "$WHEEL" ] && margs+=(--wheel "$WHEEL")
    [ -n "$WHEEL_SECONDS" ] && [ -n "$WHEEL" ] && margs+=(--wheel-seconds "$WHEEL_SECONDS")
    env -u PYTHONPATH "$PY" benchmarks/measure.py "${margs[@]}" || die "measure.py failed"

    say "report"
    "$PY" benchmarks/report.py "$RESULTS" -o "$DOC" || die "report.py failed"
    [ -n "${OUT:-}" ] || cat "$DOC"
    say "done: $DOC and $RESULTS"
    "$PY" benchmarks/report.py "$RESULTS" --summary
}

main 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
if [ -n "${OUT:-}" ] && [ $rc -eq 0 ]; then
    cp "$DOC" "$OUT/benchmarks.md"
    cp "$RESULTS" "$OUT/results.json"
elif [ -n "${OUT:-}" ] && [ -f "$OUT/results.json" ]; then
    echo "run.sh: partial results in \$OUT/results.json (python3 benchmarks/report.py can render them)"
fi
if [ $rc -eq 0 ] || [ -n "${OUT:-}" ]; then
    rm -rf "$WORK"
else
    echo "run.sh: logs kept in $WORK"
fi
exit $rc
