#!/usr/bin/env bash
# Here, before carrying to the GPU machine (which cannot install packages): unpacks the
# pure-Python and cp312 manylinux wheels numba-cuda's test suite needs beyond what that
# machine has (filecheck, cffi and its pycparser, ml_dtypes) into .device/pylib, to be
# carried and put on PYTHONPATH there (ci/gpu/run_numba_suite.sh's caller does).
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=.device/pylib
rm -rf "$dest" .device/wheels
mkdir -p "$dest" .device/wheels
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux_2_28_x86_64 -d .device/wheels filecheck cffi pycparser ml_dtypes
for w in .device/wheels/*.whl; do
  python3 -m zipfile -e "$w" "$dest"
done
du -sh "$dest"
