#!/usr/bin/env bash
# Here, for the GPU machine (which cannot install packages): numba-cuda-mlir's cp312 wheel
# unpacked into .device/mlir-pylib, its shared libraries stripped of debug sections, packed
# as .device/mlir-pylib.tar.xz to carry (it needs only numpy, cuda-bindings and cuda-core,
# which that machine has). There: `xz -dc .device/mlir-pylib.tar.xz | tar -C .device -xf -`
# and put .device/mlir-pylib on PYTHONPATH; bench/python_launch.py then measures it beside
# cutwin and numba-cuda, and conformance/tools/check_with_numba_sim.py replays the
# conformance cases with it (CUTWIN_ORACLE=mlir).
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${PYTHON:-.venv/bin/python}"
version="${MLIR_VERSION:-0.6.0}"
rm -rf .device/mlir-wheels .device/mlir-pylib .device/mlir-pylib.tar.xz
mkdir -p .device/mlir-wheels .device/mlir-pylib
"$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux_2_28_x86_64 -d .device/mlir-wheels "numba-cuda-mlir==$version"
for w in .device/mlir-wheels/*.whl; do
  "$python" -m zipfile -e "$w" .device/mlir-pylib
done
find .device/mlir-pylib -type d -name tests -prune -exec rm -rf {} +
find .device/mlir-pylib -name '*.so*' -type f -exec strip --strip-debug {} + 2>/dev/null || true
tar -C .device -cf - mlir-pylib | xz -T0 -9 --lzma2=preset=9,dict=64MiB >.device/mlir-pylib.tar.xz
rm -rf .device/mlir-wheels .device/mlir-pylib
ls -l .device/mlir-pylib.tar.xz
