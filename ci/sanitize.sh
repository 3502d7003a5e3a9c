#!/usr/bin/env bash
# The sanitized build: the compiler, runtime and simulator, their C++ tests, the `cutwin`
# command and the libFuzzer target built by clang 16 with AddressSanitizer and
# UndefinedBehaviorSanitizer (and coverage for the fuzzer) in build-san/, then the tests
# that exercise them: GoogleTest suites, the conformance suite (simulator, and PTX through
# ptxas), textual IR tests, the mutation fuzzer, the fuzzer's seeds and regression inputs.
# Any sanitizer report fails its test. ci/test.sh runs it after the main tests; alone it
# needs what ci/setup.sh installs. Environment: SAN_BUILD_DIR (default build-san).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${SAN_BUILD_DIR:-build-san}"
cuda_home="${CUDA_HOME:-}"
if [ -z "$cuda_home" ] && command -v nvcc >/dev/null 2>&1; then
  cuda_home="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
fi
cuda_home="${cuda_home:-/usr/local/cuda}"

# -O1 keeps reports exact and the build quick; -g1: file:line in every report.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCUTWIN_SANITIZE=address,undefined -DCUTWIN_FUZZ=ON -DCUTWIN_BUILD_PYTHON=OFF \
  -DCUTWIN_CUDA_HOME="$cuda_home" >/dev/null
cmake --build "$build_dir" --target cutwin_cli cutwin_tests cutwin_fuzz_compile

export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-16/bin/llvm-symbolizer}"
# (docs: their tables are checked by the main build; gdb and the CMake package: not
# instrumented for a sanitizer's runtime)
ctest --test-dir "$build_dir" --output-on-failure -j 2 -E '^(docs|gdb|package)\.'
