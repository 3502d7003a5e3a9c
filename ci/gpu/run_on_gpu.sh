#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with dist/ (or dist.tar.xz) from
# ci/gpu/bundle.sh:
# the GPU tests, the conformance suite on both backends (compared with the goldens), the
# cross-check of the goldens with numba-cuda on the GPU, the Python package (built there
# for its Python) with its tests on both backends, and the benchmarks beside numba-cuda's.
# Results go to ./gpu-results; with $OUT set, the summaries and a tarball of everything
# are copied there (few files: what comes back from the GPU machine is limited).
set -uo pipefail
if [ ! -d dist ] && [ -f dist.tar.xz ]; then
  xz -dc dist.tar.xz | tar -xf -
fi
out=gpu-results
rm -rf "$out"
mkdir -p "$out"
if [ -z "${CUTWIN_LIBDEVICE:-}" ]; then
  CUTWIN_LIBDEVICE="$(ls /usr/local/cuda*/nvvm/libdevice/libdevice.10.bc 2>/dev/null | head -n 1)"
  export CUTWIN_LIBDEVICE
fi
{
  date -u +%Y-%m-%dT%H:%MZ
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
} | tee "$out/gpu.txt"
status=0
# GPU tests; the fatal one last, in its own process (it leaves the CUDA context unusable).
dist/bin/cutwin_gpu_tests --gtest_filter='Gpu.*' 2>&1 | tee "$out/gpu_tests.txt" || status=1
dist/bin/cutwin_gpu_tests --gtest_filter='GpuFatal.*' 2>&1 | tee -a "$out/gpu_tests.txt" || status=1
header() { sed 's/^/# /' "$out/gpu.txt"; } # date, GPU name, driver, compute capability
# Goldens defined by numba-cuda on the GPU are recorded afresh before the suite compares
# cutwin's backends with them (and brought back, to compare with the committed ones).
recorded="rng_normal"
python3 -W ignore conformance/gpu/record_with_numba_cuda.py $recorded | tee "$out/recorded.txt" || status=1
for c in $recorded; do
  mkdir -p "$out/recorded/$c" && cp conformance/cases/$c/expected_*.npy "$out/recorded/$c/"
done
{ header; dist/bin/cutwin conformance conformance/cases --backend both; } | tee "$out/conformance_both.txt" || status=1
{ header; dist/bin/cutwin conformance conformance/cases --backend both --codegen nvvm; } |
  tee "$out/conformance_both_nvvm.txt" || status=1
# the simulator's vectorised thread loops (bounds checks off) on this machine's CPU
{ header; dist/bin/cutwin conformance conformance/cases --backend both --no-boundscheck; } |
  tee "$out/conformance_both_unchecked.txt" || status=1
# numba-cuda runs every case too; sessionize on its own with a time limit: numba's grid
# sync has block thread 0 arrive, and in that case some blocks' thread 0 has returned.
cases=$(ls conformance/cases | grep -v '^grid_sync_sessionize$')
PYTHONUNBUFFERED=1 python3 -W ignore conformance/tools/check_with_numba_sim.py $cases | tee "$out/numba_cuda_gpu.txt" || status=1
PYTHONUNBUFFERED=1 timeout 60 python3 -W ignore conformance/tools/check_with_numba_sim.py grid_sync_sessionize \
  >>"$out/numba_cuda_gpu.txt" 2>&1 || echo "grid_sync_sessionize: numba-cuda did not finish within 60 s (exit $?)" >>"$out/numba_cuda_gpu.txt"
# The Python package, built here for this machine's Python: its tests on both backends.
ci/gpu/build_python.sh >"$out/python_build.txt" 2>&1 || status=1
{ header; PYTHONPATH=build-python/python python3 -m pytest -q -p no:cacheprovider tests/python \
    --cutwin-backend=both 2>&1; } | tee "$out/python_tests.txt" || status=1
# Benchmarks start cold: no driver JIT cache from the runs above (or earlier ones).
export CUDA_CACHE_DISABLE=1
{ header; PYTHONPATH=build-python/python python3 bench/python_launch.py --backend gpu --numba gpu; } |
  tee "$out/python_bench.md" || status=1
{ header; PYTHONPATH=build-python/python python3 bench/rng_states.py --backend gpu --numba gpu; } |
  tee "$out/rng_bench.md" || status=1
{
  header
  PYTHONPATH=build-python/python python3 bench/reduce.py --backend gpu --numba gpu
  echo
  if [ -x dist/bin/cutwin_reduce_ceiling ]; then dist/bin/cutwin_reduce_ceiling; fi
} | tee "$out/reduce_bench.md" || status=1
{
  echo "| benchmark | implementation | kernel ms | compile + first launch ms | note |"
  echo "|---|---|---|---|---|"
  dist/bin/cutwin_gpu_bench . nvptx | tail -n +3
  dist/bin/cutwin_gpu_bench . nvvm | tail -n +3
  PYTHONUNBUFFERED=1 python3 -W ignore bench/numba_bench.py .
} | tee "$out/gpu_bench.md" || status=1
if [ -n "${OUT:-}" ]; then
  tar czf "$OUT/gpu-results.tgz" "$out"
  cp "$out"/conformance_both.txt "$out"/python_tests.txt "$out"/numba_cuda_gpu.txt "$out"/reduce_bench.md \
    "$out"/rng_bench.md "$OUT"/ 2>/dev/null
fi
exit $status
