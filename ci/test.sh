#!/usr/bin/env bash
# Every test: set up, build, then CTest (GoogleTest suites, textual IR tests, the gdb
# test, the conformance suite, and the oracle cross-checks of the conformance goldens),
# then the sanitized build's tests (ci/sanitize.sh: ASan + UBSan, the libFuzzer target).
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
build_dir="${BUILD_DIR:-build}"
ctest --test-dir "$build_dir" --output-on-failure -j 2
ci/sanitize.sh
