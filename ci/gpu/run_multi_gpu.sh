#!/usr/bin/env bash
# Runs on a GPU machine of two or more GPUs, from the repository root, with dist.tar.xz
# from ci/gpu/bundle.sh, .device/pylib from ci/gpu/prepare_pylib.sh and, for stumpy,
# .device/stumpy-pylib.tar.xz and .device/stumpy-suite from ci/gpu/prepare_stumpy.sh
# carried: the tests of several devices (docs/devices.md) on real GPUs, each bounded in
# time and written to $OUT as it finishes, and the peer-copy bandwidth of cutwin, numba-cuda
# and CuPy in the same run.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-gpu-multi-results}"
. ci/gpu/steps.sh
[ -d .device/stumpy-pylib ] || { [ -f .device/stumpy-pylib.tar.xz ] && xz -dc .device/stumpy-pylib.tar.xz | tar -C .device -xf -; }
{
  date -u +%Y-%m-%dT%H:%MZ
  nvidia-smi --query-gpu=index,name,driver_version,compute_cap --format=csv,noheader
  nvidia-smi topo -m
} >"$out/machine.txt" 2>&1
step build_python 120 ci/gpu/build_python.sh
export PYTHONPATH="$PWD/build-python/python:$PWD/.device/pylib"
step devices_pytest 180 python3 -m pytest -q -p no:cacheprovider tests/python/test_devices.py --cutwin-backend=both
step conformance_devices 120 dist/bin/cutwin conformance conformance/cases --backend both --filter reduce_across_devices
step numba_goldens_devices 120 python3 -W ignore conformance/tools/check_with_numba_sim.py reduce_across_devices
step numba_suite_devices 300 python3 -W ignore conformance/numba_suite/run.py --selection gpu --backend gpu \
  --jobs 4 test_multigpu.py test_ipc.py cudadrv/test_context_stack.py cudadrv/test_select_device.py \
  cudadrv/test_reset_device.py
PYTHONPATH="$PYTHONPATH:$PWD/.device/stumpy-pylib" step stumpy_devices 300 python3 conformance/stumpy/run.py \
  --work .device/stumpy-suite --backend gpu -k parallel
step peer_copy_bench 180 python3 bench/peer_copy.py --backend gpu
cat "$out/steps.txt"
