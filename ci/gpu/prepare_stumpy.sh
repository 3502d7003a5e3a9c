#!/usr/bin/env bash
# Here, before carrying to the GPU machine (which cannot install packages): what stumpy's GPU
# tests need there beyond numba and NumPy. scipy, pandas<3 and dask[distributed] as cp312
# wheels, unpacked (their own tests folders left out) and packed as .device/stumpy-pylib.tar.xz
# (about 28 MB); stumpy's sdist in .device/stumpy-suite. There, from the repository root,
# with dist/ and build-python/ made as docs/gpu_pending.md shows:
#   xz -dc .device/stumpy-pylib.tar.xz | tar -xf - -C .device
#   PYTHONPATH=build-python/python:.device/stumpy-pylib python3 conformance/stumpy/run.py \
#     --backend gpu --work .device/stumpy-suite --expect 142
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${PYTHON:-.venv/bin/python}"
rm -rf .device/stumpy-wheels .device/stumpy-pylib .device/stumpy-pylib.tar.xz
mkdir -p .device/stumpy-wheels .device/stumpy-pylib .device/stumpy-suite
"$python" -m pip download -q --disable-pip-version-check --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux_2_28_x86_64 -d .device/stumpy-wheels scipy "pandas<3" "dask[distributed]"
rm -f .device/stumpy-wheels/numpy-*.whl # the machine's own NumPy stays
for w in .device/stumpy-wheels/*.whl; do
  "$python" -m zipfile -e "$w" .device/stumpy-pylib
done
find .device/stumpy-pylib -type d -name tests -prune -exec rm -rf {} +
tar -C .device -cf - stumpy-pylib | xz -T0 -9 --lzma2=preset=9,dict=64MiB >.device/stumpy-pylib.tar.xz
rm -rf .device/stumpy-wheels .device/stumpy-pylib
version="$("$python" -c 'import sys; sys.path.insert(0, "conformance/stumpy"); import run; print(run.STUMPY_VERSION)')"
[ -f ".device/stumpy-suite/stumpy-$version.tar.gz" ] ||
  "$python" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: -d .device/stumpy-suite \
    "stumpy==$version"
ls -l .device/stumpy-pylib.tar.xz .device/stumpy-suite
