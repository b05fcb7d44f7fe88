#!/usr/bin/env bash
# The check to run on a machine with an NVIDIA GPU (no network needed).
#
#   scripts/gpu_check.sh [extra pytest arguments...]
#
# 1. builds this checkout into its own folder (default /tmp/ours) with
#    `pip install --no-build-isolation --no-deps --target`, timed;
# 2. puts that folder first on PYTHONPATH and makes sure `cuda.bindings` is imported from it (a
#    regular `cuda` package installed elsewhere would shadow our namespace portion: said plainly);
# 3. runs `nvidia-smi -L`, `python -m cuda.bindings`, the whole test suite with GPU tests required
#    (CUDA_BINDINGS_REQUIRE_GPU=1: no device is a failure, not a skip) and every example. The
#    number of GPUs `nvidia-smi -L` lists (fewer where CUDA_VISIBLE_DEVICES names fewer) is
#    exported as CUDA_BINDINGS_REQUIRE_GPUS: the tests marked two_gpus, and the examples that say
#    `GPUS_NEEDED = 2`, run where there are two and are skipped with the reason where there is
#    one (an example's exit 3 is then a skip, not a failure); with two, a skip is a failure;
# 4. runs scripts/kernel_params_diff.py: every kernelParams form through every launch API, with our
#    build and with the machine's NVIDIA cuda-bindings, kernels reporting the bytes they received;
# 5. if .bench/overhead.py exists (a git-ignored copy of the shared benchmark), runs it with the
#    machine's own cuda.bindings (PYTHONPATH unset) and with ours, and prints them side by side;
# 6. with `clients` in GPU_CHECK_STEPS, runs scripts/client_check.py: numba-cuda's own test suite
#    and tests/clients/programs.py (cuda.core) under the machine's NVIDIA cuda-bindings and ours;
#    with `ipc`, scripts/ipc_clients.py: numba-cuda's interprocess test modules (serially) and
#    tests/clients/ipc_programs.py (cuda.core's IPC memory and events) under both; with `suites`,
#    scripts/client_suites.py: numba-cuda's whole test package and cuda.core's own test suite
#    (.ref/cuda-core-tests, scripts/core_tests.py) under both, SUITES_BUDGET seconds (480);
# 7. ends with a summary. It keeps going after a failure and exits 1 if anything failed.
#
# CUDA_BINDINGS_CUDA_VERSION picks the CUDA release built (headers/pins.json; the import check
# fails if the build is for another one); give each release its own DEST.
# GPU_CHECK_STEPS picks steps 3-6 (default "tests examples kparams"; add "clients" and/or "ipc",
# or give "clients" alone for the client check after the build and import check).
# GPU_CHECK_TESTS: the pytest paths and options of the tests step (default "tests": all of them);
# GPU_CHECK_EXAMPLES: an extended regular expression; only the examples whose path matches run.
# Logs go to $OUT if set (else /tmp/gpu_check): info.log build.log pytest.log examples.log
# kernel_params.log kernel_params.json bench.log summary.txt.
# Environment: PYTHON (default python3), DEST (build folder, default /tmp/ours),
# GPU_CHECK_SKIP_BUILD=1 (reuse an existing build in DEST), timeouts in seconds:
# BUILD_TIMEOUT (900), PYTEST_TIMEOUT (900), EXAMPLE_TIMEOUT (300), KPARAMS_TIMEOUT (600),
# BENCH_TIMEOUT (300), CLIENTS_TIMEOUT (900), IPC_TIMEOUT (1200), CLIENTS_SUITE_TIMEOUT (480:
# numba-cuda's suite), CLIENTS_MAX_RERUNS (30), CLIENTS_RERUN_TIMEOUT (300). KERNEL_PARAMS_REF_DIRS:
# more NVIDIA copies to compare with (see the script).
# GPU_CHECK_DEPS: a folder of packages to put after the build on the path (instead of .whl/);
# CLIENT_CHECK_PRELOAD: libraries the client runs load first (scripts/client_check.py --preload).
# Wheels the machine lacks can be put in .whl/ (x86_64, this Python): they are installed into a
# folder of their own, placed after the build on PYTHONPATH.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$(pwd)

PY=${PYTHON:-python3}
DEST=${DEST:-/tmp/ours}
DEPS="$DEST-deps"
LOG=${OUT:-/tmp/gpu_check}
WORK=$(mktemp -d /tmp/gpu_check.XXXXXX)
mkdir -p "$LOG"
export PYTHONUNBUFFERED=1
: >"$LOG/info.log"

STEPS=" ${GPU_CHECK_STEPS:-tests examples kparams} "
wanted() { [[ "$STEPS" == *" $1 "* ]]; }
FAILED=()          # names of the steps that failed
SUMMARY=()         # lines of the closing summary

say() { printf '\n==== %s\n' "$*"; }
fail() { FAILED+=("$1"); }
add() { SUMMARY+=("$1"); }
show_tail() { echo "---- last $2 lines of $1"; tail -n "$2" "$1"; echo "----"; }

# --- machine -------------------------------------------------------------------------------------
say "machine"
{
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(uname -srm)"
    echo "python: $("$PY" -c 'import sys; print(sys.version.split()[0], sys.executable)' 2>&1)"
    "$PY" -m pip list 2>/dev/null | grep -i -E '^(cuda-|cython|numpy|pytest|setuptools|nvidia-cuda)' || true
    "$PY" -c 'import cuda; f = getattr(cuda, "__file__", None); print("installed cuda package:", "regular, " + f if f else "namespace", list(cuda.__path__))' 2>&1 || true
} | tee -a "$LOG/info.log"
GPU_COUNT=0
if nvidia-smi -L 2>&1 | tee -a "$LOG/info.log"; then
    add "nvidia-smi -L: $(nvidia-smi -L 2>/dev/null | head -n 1)"
    GPU_COUNT=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
else
    add "nvidia-smi -L: FAILED"
    fail "nvidia-smi"
fi
# the devices a CUDA program here sees: CUDA_VISIBLE_DEVICES may name fewer than the machine has
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
    visible=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c -v '^ *$')
    [ "$visible" -lt "$GPU_COUNT" ] && GPU_COUNT=$visible
fi
if [ "$GPU_COUNT" -ge 2 ]; then
    add "GPUs: $GPU_COUNT; the two-GPU tests and examples run (CUDA_BINDINGS_REQUIRE_GPUS=$GPU_COUNT: none may skip)"
else
    add "GPUs: $GPU_COUNT; the two-GPU tests and examples are skipped (needs 2 CUDA devices, found $GPU_COUNT)"
fi

# --- build ---------------------------------------------------------------------------------------
# Headers: the machine's installed 13.0 wheels; pinned wheels it lacks (nvidia-cuda-crt, for
# crt/host_defines.h) are taken from .whl/ when carried there (no network on that machine). The
# nvidia-nvvm wheel (nvvm.h) is 60 MB: rather carry a complete include folder (headers/cuda-13.0/
# include of a checkout that built) and set CUDA_BINDINGS_INCLUDE_DIR to it.
export CUDA_BINDINGS_WHEEL_DIR=${CUDA_BINDINGS_WHEEL_DIR:-$REPO/.whl}
say "build into $DEST"
built=0
if [ "${GPU_CHECK_SKIP_BUILD:-0}" = 1 ] && [ -d "$DEST/cuda/bindings" ]; then
    echo "reusing the existing build in $DEST" | tee "$LOG/build.log"
    add "build: reused $DEST"
    built=1
else
    rm -rf "$DEST"
    t0=$(date +%s.%N)
    timeout "${BUILD_TIMEOUT:-900}" "$PY" -m pip install --no-build-isolation --no-deps --target "$DEST" . \
        >"$LOG/build.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ $rc -eq 0 ]; then
        size=$(du -sh "$DEST/cuda/bindings" 2>/dev/null | cut -f1)
        echo "built in ${secs} s; cuda/bindings is ${size:-?} on disk"
        add "build: ok in ${secs} s (cuda/bindings ${size:-?} on disk)"
        built=1
    else
        echo "build FAILED (exit $rc) after ${secs} s"
        show_tail "$LOG/build.log" 60
        add "build: FAILED (exit $rc) after ${secs} s"
        fail "build"
    fi
fi

path="$DEST"
if [ -n "${GPU_CHECK_DEPS:-}" ]; then
    # a folder of packages prepared elsewhere (scripts/client_releases.sh): after the build on the path
    DEPS=$GPU_CHECK_DEPS
    path="$DEST:$DEPS"
    add "extra packages from $DEPS"
    # the wheels of .whl/ too (numba-cuda's test suite imports filecheck: without it the runner stops at once)
    if compgen -G ".whl/*.whl" >/dev/null; then
        if "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$DEPS" .whl/*.whl >>"$LOG/build.log" 2>&1; then
            add "extra wheels from .whl/ into $DEPS: $(ls .whl | tr '\n' ' ')"
        else
            add "extra wheels from .whl/: FAILED to install"
            fail "extra wheels"
        fi
    fi
elif compgen -G ".whl/*.whl" >/dev/null; then
    rm -rf "$DEPS"
    if "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$DEPS" .whl/*.whl >>"$LOG/build.log" 2>&1; then
        path="$DEST:$DEPS"
        add "extra wheels from .whl/: $(ls .whl | tr '\n' ' ')"
    else
        add "extra wheels from .whl/: FAILED to install"
        fail "extra wheels"
    fi
fi

# --- which cuda.bindings is imported ---------------------------------------------------------------
say "import check"
imported=0
if [ $built = 1 ]; then
    where=$(PYTHONPATH="$path" "$PY" -c 'import cuda.bindings, sys; print(cuda.bindings.__file__)' 2>>"$LOG/info.log")
    echo "cuda.bindings.__file__ = ${where:-<import failed>}" | tee -a "$LOG/info.log"
    case "$where" in
    "$DEST"/*)
        imported=1
        built_for=$(PYTHONPATH="$path" "$PY" -c 'import cuda.bindings as c; print(c.__cuda_version__)' 2>/dev/null)
        add "import: cuda.bindings from $where (built for CUDA ${built_for:-?})"
        if [ -n "${CUDA_BINDINGS_CUDA_VERSION:-}" ] && [ "$built_for" != "$CUDA_BINDINGS_CUDA_VERSION" ]; then
            add "import: WRONG RELEASE: CUDA_BINDINGS_CUDA_VERSION=$CUDA_BINDINGS_CUDA_VERSION, the build is for ${built_for:-?}"
            fail "import"
            imported=0
        fi
        ;;
    "")
        add "import: FAILED (our build does not import; see info.log)"
        tail -n 20 "$LOG/info.log"
        fail "import"
        ;;
    *)
        cuda_pkg=$(PYTHONPATH="$path" "$PY" -c 'import cuda; print(getattr(cuda, "__file__", None) or "")' 2>/dev/null)
        if [ -n "$cuda_pkg" ]; then
            msg="import: WRONG COPY. The 'cuda' package at $cuda_pkg is a regular package (it has __init__.py), so it shadows our namespace portion in $DEST whatever PYTHONPATH says; cuda.bindings came from $where"
        else
            msg="import: WRONG COPY. cuda.bindings came from $where, not from $DEST"
        fi
        echo "$msg"
        add "$msg"
        fail "import"
        ;;
    esac
else
    add "import: not checked (no build)"
fi

if [ $imported = 1 ]; then
    export PYTHONPATH="$path"
    export CUDA_BINDINGS_EXPECT_PREFIX="$DEST"
    export CUDA_BINDINGS_REQUIRE_GPU=1
    # the count this machine has: a test needing up to that many fails rather than skips
    export CUDA_BINDINGS_REQUIRE_GPUS=${CUDA_BINDINGS_REQUIRE_GPUS:-$GPU_COUNT}
    # tests/test_clients.py takes the machine's cuda-core and numba-cuda (no network here)
    purelib=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)
    if [ -z "${CUDA_BINDINGS_CLIENTS_DIR:-}" ] && compgen -G "$purelib/cuda_core-*.dist-info" >/dev/null; then
        export CUDA_BINDINGS_CLIENTS_DIR="$purelib"
    fi

    # --- python -m cuda.bindings -----------------------------------------------------------------
    say "python -m cuda.bindings"
    if "$PY" -m cuda.bindings 2>&1 | tee -a "$LOG/info.log"; then
        add "python -m cuda.bindings: ok"
    else
        add "python -m cuda.bindings: FAILED"
        fail "python -m cuda.bindings"
    fi

    # --- tests ---------------------------------------------------------------------------------
    if wanted tests; then
    say "pytest (GPU tests required)"
    topt=()
    if "$PY" -c 'import pytest_timeout' 2>/dev/null; then
        topt=(--timeout=300)
    fi
    # the type checkers come with the test extra, which a machine without network may lack:
    # tests/test_typing.py needs no GPU and runs in CI; here it is left out, and the summary says so
    if ! "$PY" -c 'import basedpyright, mypy' 2>/dev/null; then
        topt+=(--ignore=tests/test_typing.py)
        add "pytest: tests/test_typing.py left out (basedpyright/mypy not installed)"
    fi
    read -r -a test_args <<<"${GPU_CHECK_TESTS:-tests}"
    timeout "${PYTEST_TIMEOUT:-900}" "$PY" -m pytest "${test_args[@]}" -rfEs -p no:cacheprovider \
        --junitxml="$WORK/junit.xml" "${topt[@]}" "$@" >"$LOG/pytest.log" 2>&1
    rc=$?
    counts=$("$PY" - "$WORK/junit.xml" <<'EOF' 2>/dev/null
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
t = {k: sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
passed = t["tests"] - t["failures"] - t["errors"] - t["skipped"]
print(f"{passed} passed, {t['failures']} failed, {t['errors']} errors, {t['skipped']} skipped")
EOF
)
    grep -E '^(FAILED|ERROR|SKIPPED)' "$LOG/pytest.log" | head -n 60
    tail -n 1 "$LOG/pytest.log"
    if [ $rc -eq 0 ]; then
        add "pytest: ${counts:-?} (exit 0)"
    else
        add "pytest: ${counts:-no counts (see pytest.log)} (exit $rc)"
        fail "pytest"
        [ -n "$counts" ] || show_tail "$LOG/pytest.log" 40
    fi
    fi

    # --- examples ------------------------------------------------------------------------------
    if wanted examples; then
    say "examples"
    : >"$LOG/examples.log"
    while IFS= read -r ex; do
        # an example needing several GPUs says so: `GPUS_NEEDED = N` (tests/test_examples.py reads it too)
        needs=$(sed -n 's/^GPUS_NEEDED = \([0-9][0-9]*\).*/\1/p' "$ex" | head -n 1)
        needs=${needs:-1}
        echo "### $ex" >>"$LOG/examples.log"
        timeout "${EXAMPLE_TIMEOUT:-300}" "$PY" "$ex" >"$WORK/example.out" 2>&1
        rc=$?
        cat "$WORK/example.out" >>"$LOG/examples.log"
        echo "### exit $rc" >>"$LOG/examples.log"
        case $rc in
        0) status="pass" ;;
        3)
            why=$(grep -m1 '^requirement not met' "$WORK/example.out")
            if [ "$needs" -gt 1 ] && [ "$needs" -gt "$GPU_COUNT" ]; then
                status="skip (needs $needs GPUs, found $GPU_COUNT: ${why:-no reason printed})"
            else
                status="SKIP (${why:-requirement not met}: counted as a failure here)"; fail "example $ex"
            fi
            ;;
        124) status="FAIL (timed out)"; fail "example $ex" ;;
        *) status="FAIL (exit $rc)"; fail "example $ex" ;;
        esac
        echo "$ex: $status"
        add "example $ex: $status"
    done < <(find examples -name '*.py' -not -path '*/common/*' -not -name '__init__.py' | sort \
             | grep -E -- "${GPU_CHECK_EXAMPLES:-.}")
    fi

    # --- kernel parameters, ours vs NVIDIA's package ---------------------------------------------
    if wanted kparams; then
    say "kernel parameters: every kernelParams form, ours vs NVIDIA's cuda-bindings"
    timeout "${KPARAMS_TIMEOUT:-600}" "$PY" scripts/kernel_params_diff.py --ours "$DEST" \
        --json "$LOG/kernel_params.json" >"$LOG/kernel_params.log" 2>&1
    rc=$?
    cat "$LOG/kernel_params.log"
    line=$(tail -n 1 "$LOG/kernel_params.log")
    case $rc in
    0) add "$line" ;;
    3) add "$line" ;;  # no NVIDIA package on this machine to compare with: said, not failed
    *) add "${line:-kernel params: no output} (exit $rc)"; fail "kernel params" ;;
    esac
    fi

    # --- the client steps: each a script comparing NVIDIA's package with ours, whose summary (the
    # lines after its "==== <heading>" line) is shown and added to ours, each line after KEY
    deps_arg=()
    [ "$path" = "$DEST" ] || deps_arg=(--deps "$DEPS")
    client_step() {   # client_step KEY LOGNAME HEADING CMD...: returns CMD's exit status
        local key=$1 logname=$2 heading=$3 rc summary line
        shift 3
        "$@" >"$LOG/$logname.log" 2>&1
        rc=$?
        summary=$(sed -n "/^==== $heading/,\$p" "$LOG/$logname.log" | tail -n +2)
        if [ -n "$summary" ]; then echo "$summary"; else show_tail "$LOG/$logname.log" 40; fi
        while IFS= read -r line; do [ -n "$line" ] && add "$key: $line"; done <<<"$summary"
        return $rc
    }

    # --- clients: numba-cuda's suite and cuda.core programs, NVIDIA's package vs ours --------------
    if wanted clients; then
    say "clients: numba-cuda's test suite and cuda.core programs, NVIDIA's cuda-bindings vs ours"
    client_step clients clients "client check summary" \
        timeout "${CLIENTS_TIMEOUT:-900}" "$PY" scripts/client_check.py --ours "$DEST" "${deps_arg[@]}" \
        --preload "${CLIENT_CHECK_PRELOAD:-}" --suite-timeout "${CLIENTS_SUITE_TIMEOUT:-480}" \
        --max-reruns "${CLIENTS_MAX_RERUNS:-30}" --rerun-timeout "${CLIENTS_RERUN_TIMEOUT:-300}" \
        --out "$LOG/clients"
    rc=$?
    [ $rc -eq 0 ] || { add "clients: exit $rc"; fail "clients"; }
    fi

    # --- the clients' whole test suites: numba-cuda's and cuda.core's, NVIDIA's package vs ours ---
    if wanted suites; then
    say "suites: numba-cuda's and cuda.core's own test suites, NVIDIA's cuda-bindings vs ours"
    core_arg=()
    [ -n "${SUITES_CORE_TESTS:-}" ] && core_arg=(--core-tests "$SUITES_CORE_TESTS")
    client_step suites suites "client suites summary" \
        timeout "${SUITES_TIMEOUT:-1800}" "$PY" scripts/client_suites.py --ours "$DEST" "${deps_arg[@]}" \
        "${core_arg[@]}" --preload "${CLIENT_CHECK_PRELOAD:-}" --budget "${SUITES_BUDGET:-480}" \
        --rerun-budget "${SUITES_RERUN_BUDGET:-60}" --out "$LOG/suites"
    rc=$?
    [ $rc -eq 0 ] || { add "suites: exit $rc"; fail "suites"; }
    fi

    # --- IPC clients: numba-cuda's interprocess tests and cuda.core's IPC programs -----------------
    if wanted ipc; then
    say "IPC clients: numba-cuda's interprocess tests and cuda.core's IPC programs, NVIDIA's cuda-bindings vs ours"
    client_step ipc ipc_clients "IPC client check summary" \
        timeout "${IPC_TIMEOUT:-1200}" "$PY" scripts/ipc_clients.py --ours "$DEST" "${deps_arg[@]}" \
        --out "$LOG/ipc_clients"
    rc=$?
    case $rc in
    0) ;;
    3) add "ipc: nothing compared (no numba-cuda or cuda.core on this machine)" ;;
    *) add "ipc: exit $rc"; fail "ipc clients" ;;
    esac
    fi
else
    for step in "python -m cuda.bindings" "pytest" "examples" "kernel params" "clients" "suites" "ipc"; do
        add "$step: not run ($([ $built = 1 ] && echo "our build is not the cuda.bindings imported" || echo "no build"))"
    done
fi

# --- benchmark -----------------------------------------------------------------------------------
if [ -f .bench/overhead.py ]; then
    say "benchmark: .bench/overhead.py, NVIDIA's package vs ours"
    : >"$LOG/bench.log"
    ref_where=$(env -u PYTHONPATH "$PY" -c 'import cuda.bindings; print(cuda.bindings.__file__)' 2>/dev/null)
    ref_version=$(env -u PYTHONPATH "$PY" -c 'from importlib.metadata import version; print(version("cuda-bindings"))' 2>/dev/null)
    echo "### reference: ${ref_where:-<cuda.bindings not importable>} (cuda-bindings ${ref_version:-?})" | tee -a "$LOG/bench.log"
    env -u PYTHONPATH -u CUDA_BINDINGS_EXPECT_PREFIX timeout "${BENCH_TIMEOUT:-300}" \
        "$PY" .bench/overhead.py reference >"$WORK/bench_ref.jsonl" 2>>"$LOG/bench.log"
    ref_rc=$?
    cat "$WORK/bench_ref.jsonl" >>"$LOG/bench.log"
    [ $ref_rc -eq 0 ] || { fail "benchmark (reference)"; show_tail "$LOG/bench.log" 20; }
    if [ $imported = 1 ]; then
        echo "### ours: $DEST" | tee -a "$LOG/bench.log"
        PYTHONPATH="$path" timeout "${BENCH_TIMEOUT:-300}" \
            "$PY" .bench/overhead.py ours >"$WORK/bench_ours.jsonl" 2>>"$LOG/bench.log"
        ours_rc=$?
        cat "$WORK/bench_ours.jsonl" >>"$LOG/bench.log"
        [ $ours_rc -eq 0 ] || { fail "benchmark (ours)"; show_tail "$LOG/bench.log" 20; }
    else
        ours_rc="not run"
        : >"$WORK/bench_ours.jsonl"
    fi
    table=$("$PY" - "$WORK/bench_ref.jsonl" "$WORK/bench_ours.jsonl" <<'EOF'
import json, sys

def load(path):
    rows = {}
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            rows[d["case"]] = d["ns"]
    return rows

ref, ours = load(sys.argv[1]), load(sys.argv[2])
cases = list(ref) + [c for c in ours if c not in ref]
print(f"{'case':40s} {'reference ns':>13s} {'ours ns':>10s} {'ratio':>7s}")
for c in cases:
    r, o = ref.get(c), ours.get(c)
    ratio = f"{o / r:.2f}" if r and o else "-"
    fmt = lambda v: f"{v:.1f}" if v is not None else "-"
    print(f"{c:40s} {fmt(r):>13s} {fmt(o):>10s} {ratio:>7s}")
EOF
)
    echo "$table" | tee -a "$LOG/bench.log"
    add "benchmark: reference exit $ref_rc, ours exit $ours_rc (ratio = ours / reference)"
    while IFS= read -r line; do add "    $line"; done <<<"$table"
else
    add "benchmark: not run (no .bench/overhead.py)"
fi

# --- C twin and Cython floor of the benchmark ----------------------------------------------------
if [ -f .bench/overhead_c.c ] && [ -f .bench/k.cu ] && command -v nvcc >/dev/null; then
    say "benchmark floor: the same driver calls from C, and a bare Cython call"
    (cd .bench && nvcc -cubin -arch=sm_90 -o k.cubin k.cu && nvcc -O2 -o overhead_c overhead_c.c -lcuda \
        && ./overhead_c) >"$WORK/bench_c.txt" 2>&1
    cat "$WORK/bench_c.txt" | tee -a "$LOG/bench.log"
    while IFS= read -r line; do add "    C: $line"; done < <(grep -v '^$' "$WORK/bench_c.txt" | head -n 20)
    if [ -f .bench/floor.pyx ]; then
        (cd .bench && env -u PYTHONPATH "$PY" -c "from Cython.Build import cythonize; from setuptools import setup, Extension; setup(ext_modules=cythonize([Extension('floor', ['floor.pyx'])]), script_args=['build_ext', '--inplace', '-q'])" >/dev/null 2>&1 \
         && for fn in get_current get_current_gil noop; do
                ns=$(env -u PYTHONPATH "$PY" -c "import timeit, floor; n=2000000; print(round(min(timeit.repeat(floor.$fn, number=n, repeat=5)) / n * 1e9, 1))")
                echo "floor.$fn: $ns ns" | tee -a "$LOG/bench.log"
                add "    floor.$fn: $ns ns"
            done) || add "    floor: could not build floor.pyx"
    fi
fi

# --- summary -------------------------------------------------------------------------------------
{
    echo
    echo "==== gpu_check summary ($(date -u +%FT%TZ), $REPO)"
    for line in "${SUMMARY[@]}"; do echo "$line"; done
    if [ ${#FAILED[@]} -eq 0 ]; then
        echo "RESULT: all steps passed"
    else
        echo "RESULT: FAILED: $(printf '%s; ' "${FAILED[@]}")"
    fi
} | tee "$LOG/summary.txt"
rm -rf "$WORK"
[ ${#FAILED[@]} -eq 0 ]
