#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with dist.tar.xz from ci/gpu/bundle.sh
# and .device/pylib from ci/gpu/prepare_pylib.sh carried (and .device/mlir-pylib.tar.xz from
# ci/gpu/prepare_mlir.sh, for numba-cuda-mlir's rows): the runs docs/gpu_pending.md lists,
# one after another, each bounded in time and written to $OUT as it finishes (so that a run
# cut short still brings back what it made). The simulator's core sweep goes first, with
# nothing else running beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-gpu-pending-results}"
. ci/gpu/steps.sh
{
  date -u +%Y-%m-%dT%H:%MZ
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  lscpu | grep -E '^(Model name|CPU\(s\)|Flags)' | cut -c1-200
} >"$out/machine.txt" 2>&1
sweep() {
  for c in ${CORES:-16 8 4 2 1}; do
    echo "== $c cores"
    CUTWIN_BENCH_ONLY=vadd,matmul,histogram,blocksum,warp,barrier stdbuf -oL taskset -c 0-$((c - 1)) \
      dist/bin/cutwin_sim_bench bench/kernels conformance/cases
  done
}
export -f sweep
step sim_bench_cores "${SWEEP_LIMIT:-240}" sweep
step build_python 120 ci/gpu/build_python.sh
export PYTHONPATH="$PWD/build-python/python:$PWD/.device/pylib"
pytest() { python3 -m pytest -q -p no:cacheprovider "$@"; }
export -f pytest
step devices 180 pytest tests/python/test_devices.py tests/python/test_memory_management.py --cutwin-backend=both
step conformance_devices 120 dist/bin/cutwin conformance conformance/cases --backend both --filter reduce_across_devices
step foreign_arrays 120 pytest tests/python/test_foreign_arrays.py tests/python/test_interop.py --cutwin-backend=both
[ -d .device/mlir-pylib ] || { [ -f .device/mlir-pylib.tar.xz ] && xz -dc .device/mlir-pylib.tar.xz | tar -C .device -xf -; }
PYTHONPATH="$PYTHONPATH:$PWD/.device/mlir-pylib" step launch_bench 300 python3 bench/python_launch.py --backend gpu \
  --numba gpu
step kernel_cache 120 pytest tests/python/test_kernel_cache.py --cutwin-backend=both
step cache_bench 60 dist/bin/cutwin_cache_bench bench/kernels conformance/cases
step interrupts 60 pytest tests/python/test_interrupts.py --cutwin-backend=both
step new_language 180 pytest tests/python/test_enums.py tests/python/test_tuples.py \
  tests/python/test_argument_unpacking.py tests/python/test_complex.py tests/python/test_fp8.py \
  tests/python/test_variable_versions.py tests/python/test_print.py tests/python/test_errors.py \
  tests/python/test_launch.py --cutwin-backend=both
CUTWIN_CODEGEN=nvvm step nvvm_bf16_tuples 120 pytest tests/python/test_bf16_functions.py \
  tests/python/test_tuples.py --cutwin-backend=gpu
step numba_goldens 120 python3 -W ignore conformance/tools/check_with_numba_sim.py bfloat16_ops \
  fp8_conversions fp8_vectors datetime_arith array_reductions reduce_across_devices
PYTHONPATH="$PYTHONPATH:$PWD/.device/mlir-pylib" CUTWIN_ORACLE=mlir step mlir_goldens 300 \
  python3 -W ignore conformance/tools/check_with_numba_sim.py
OUT="$out/sanitize" TOOL_TIMEOUT=70 step compute_sanitizer 230 bash conformance/sanitize/compute_sanitizer.sh
cat "$out/steps.txt"
