#!/usr/bin/env bash
# The wheel from ci/wheel.sh (`pip wheel .`) installed into a fresh virtual environment: the
# pytest plugin is registered, the CUTWIN_NUMBA .pth hook works, and the installed package
# passes the launch and error tests (run outside the source tree, so the installed copy is
# imported).
#   test_pip_install.sh SOURCE_DIR WHEELHOUSE WORK [PYTHON]
set -euo pipefail
src="$1"
wheelhouse="$2"
work="$3"
python="${4:-/usr/bin/python3}"
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check "$(ls "$wheelhouse"/cutwin-*.whl | head -n 1)" pytest
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
