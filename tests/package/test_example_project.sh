#!/usr/bin/env bash
# A separate CMake project finds cutwin with find_package(cutwin) (from the build tree),
# builds a program against it, and runs its tests: the program and a conformance test
# registered with cutwin_add_conformance_test.
set -euo pipefail
src="$1"; cutwin_dir="$2"; work="$3"
rm -rf "$work"
cmake -S "$src" -B "$work" -G Ninja -Dcutwin_DIR="$cutwin_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work"
ctest --test-dir "$work" --output-on-failure
