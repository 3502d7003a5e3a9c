#!/usr/bin/env bash
# `pip install .` in a fresh virtual environment builds the C++ core and the extension
# (scikit-build-core), registers the pytest plugin, and the installed package passes the
# launch and error tests (run outside the source tree, so the installed copy is imported).
set -euo pipefail
src="$1"
work="$2"
python="${3:-/usr/bin/python3}"
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check "$src"
"$work/venv/bin/pip" install -q --disable-pip-version-check pytest
cd "$work"
"$work/venv/bin/python" -m pytest --help >"$work/help.txt"
grep -q -- "--cutwin-backend" "$work/help.txt" # the plugin, registered by its entry point
# The switch's .pth hook, read by site at start: numba-cuda-mlir's spelling needs no numba.
CUTWIN_NUMBA=1 CUTWIN_BACKEND=sim "$work/venv/bin/python" -c "
from numba_cuda_mlir import cuda
import cutwin
assert cuda.jit is cutwin.cuda.jit, cuda"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$src/tests/python/test_launch.py" \
  "$src/tests/python/test_errors.py"
