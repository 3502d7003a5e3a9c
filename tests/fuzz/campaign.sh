#!/usr/bin/env bash
# A campaign of the libFuzzer target (tests/fuzz/fuzz_compile.cpp, built by ci/sanitize.sh):
# WORKERS processes for SECONDS, from the seed corpus (tests/fuzz/seed_corpus.py writes it
# and the dictionary) and OUT/corpus, which it grows and keeps for the next campaign.
# Findings (crashes, sanitizer reports, leaks, timeouts, out-of-memory) go to OUT/findings;
# the last lines say how many executions ran and what was found (docs/robustness.md).
#
#   campaign.sh FUZZER SEEDS_DIR DICT OUT WORKERS SECONDS
set -euo pipefail
fuzzer=$1 seeds=$2 dict=$3 out=$4 workers=$5 seconds=$6
mkdir -p "$out/corpus" "$out/findings"
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Every finding is kept and the campaign goes on (fork mode: a process per job).
"$fuzzer" -fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -dict="$dict" -max_len=4096 \
  -timeout=60 -rss_limit_mb=4000 -max_total_time="$seconds" -artifact_prefix="$out/findings/" \
  "$out/corpus" "$seeds" >"$out/fuzz.log" 2>&1 || true
echo "workers: $workers, seconds: $seconds"
echo "last status: $(grep -E '^#[0-9]+: cov' "$out/fuzz.log" | tail -1)"
echo "findings: $(find "$out/findings" -type f | wc -l)"
find "$out/findings" -type f | head -20
