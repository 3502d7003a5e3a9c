#!/usr/bin/env bash
# Runs the sanitizer corpus (corpus.py) under NVIDIA's compute-sanitizer on a GPU, numba-cuda
# launching the kernels: racecheck, initcheck and memcheck, one process each, then the table
# of what each reported per case (run.py --summarize). Logs and the table go to $OUT (or
# ./sanitize-results). From the repository root, on a machine with a GPU, numba-cuda and the
# CUDA toolkit's compute-sanitizer.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-sanitize-results}"
mkdir -p "$out"
cs="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer /usr/local/cuda*/compute-sanitizer/compute-sanitizer 2>/dev/null | head -n 1)"
{
  date -u +%Y-%m-%dT%H:%MZ
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  python3 -c "import numba_cuda, numba; print('numba-cuda', getattr(numba_cuda, '__version__', '?'), 'numba', numba.__version__)"
  if [ -n "$cs" ]; then "$cs" --version | tail -n 2; else echo "compute-sanitizer: not found"; fi
} 2>&1 | tee "$out/gpu.txt"
[ -n "$cs" ] || exit 1
for tool in racecheck initcheck memcheck; do
  extra=()
  [ "$tool" = racecheck ] && extra=(--racecheck-report hazard)
  CORPUS_CUDA=numba timeout "${TOOL_TIMEOUT:-170}" "$cs" --tool "$tool" --print-limit 100000 "${extra[@]}" \
    python3 -W ignore conformance/sanitize/run.py --plain >"$out/$tool.log" 2>&1
  echo "$tool: exit $?, $(grep -c '^=== case' "$out/$tool.log") cases" | tee -a "$out/gpu.txt"
done
python3 conformance/sanitize/run.py --summarize "$out" | tee "$out/table.md"
