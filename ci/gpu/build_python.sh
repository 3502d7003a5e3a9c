#!/usr/bin/env bash
# On the GPU machine (from the repository root, with dist/ from ci/gpu/bundle.sh): builds
# the Python extension for that machine's Python against dist/lib/libcutwin_core.so (it
# has Python and nanobind but no LLVM headers) and assembles the package in
# build-python/python. Then: PYTHONPATH=build-python/python python3 -m pytest tests/python
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${PYTHON:-$(command -v python3)}"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S python -B build-python "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$python" \
  -DCUTWIN_CORE_LIBRARY="$PWD/dist/lib/libcutwin_core.so" -DCUTWIN_INCLUDE_DIR="$PWD/include" >/dev/null
cmake --build build-python -j "$(nproc)"
