#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with dist/ (or dist.tar.xz) from
# ci/gpu/bundle.sh: builds the Python package for that machine's Python, then runs
# numba-cuda's own cudapy tests (the installed numba-cuda's) through cutwin
# (conformance/numba_suite/run.py): the GPU selection on the GPU backend, and on the
# simulator for comparison. Tables (and every test's outcome) go to gpu-results/ and,
# with $OUT set, there too. Extra arguments go to run.py (e.g. test file patterns).
# The suite imports filecheck, cffi and ml_dtypes, which that machine lacks: carry
# .device/pylib from ci/gpu/prepare_pylib.sh and put it on PYTHONPATH.
set -uo pipefail
if [ ! -d dist ] && [ -f dist.tar.xz ]; then
  xz -dc dist.tar.xz | tar -xf -
fi
out=gpu-results
mkdir -p "$out"
if [ -z "${CUTWIN_LIBDEVICE:-}" ]; then
  CUTWIN_LIBDEVICE="$(ls /usr/local/cuda*/nvvm/libdevice/libdevice.10.bc 2>/dev/null | head -n 1)"
  export CUTWIN_LIBDEVICE
fi
ci/gpu/build_python.sh >"$out/python_build.txt" 2>&1 || { tail -20 "$out/python_build.txt"; exit 1; }
export PYTHONPATH="$PWD/build-python/python${PYTHONPATH:+:$PYTHONPATH}"
jobs="${JOBS:-$(nproc)}"
status=0
for backend in ${BACKENDS:-gpu sim}; do
  python3 -W ignore conformance/numba_suite/run.py --selection gpu --backend "$backend" --jobs "$jobs" \
    --table "$out/numba_suite_gpu_selection_$backend.md" --records "$out/numba_suite_gpu_selection_$backend.jsonl" \
    "$@" | tail -n 3 || status=1
done
if [ -n "${OUT:-}" ]; then
  cp "$out"/numba_suite_* "$OUT"/ 2>/dev/null
fi
exit $status
