#!/usr/bin/env bash
# Installs what cutwin needs on a Debian 12 machine and configures + builds it.
# Idempotent: packages already present are not reinstalled.
# Environment: BUILD_DIR (default build), BUILD_TYPE (default RelWithDebInfo).
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
for p in cmake ninja-build g++ ccache gdb clang-format llvm-16-dev llvm-16-tools libtbb-dev libboost-context-dev \
         libzstd-dev googletest libgtest-dev libgmock-dev python3-venv python3-pip python3-dev debootstrap curl xz-utils \
         clang-16 libclang-rt-16-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "ci/setup.sh: installing ${need_pkgs[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

# libdevice comes with the CUDA toolkit (nvcc on PATH, or /usr/local/cuda).
cuda_home="${CUDA_HOME:-}"
if [ -z "$cuda_home" ] && command -v nvcc >/dev/null 2>&1; then
  cuda_home="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
fi
cuda_home="${cuda_home:-/usr/local/cuda}"
if [ ! -f "$cuda_home/nvvm/libdevice/libdevice.10.bc" ]; then
  echo "ci/setup.sh: no libdevice under $cuda_home: install the CUDA toolkit or set CUDA_HOME" >&2
  exit 1
fi

# Python for the package (nanobind, pytest) and the oracles (NumPy for goldens,
# numba-cuda's simulator for cross-checks).
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv .venv
fi
.venv/bin/python -c "import numpy, numba, nanobind, pytest, scikit_build_core, mpmath, filecheck, cffi, ml_dtypes, scipy, pandas, distributed, auditwheel" >/dev/null 2>&1 ||
  .venv/bin/pip install -q --disable-pip-version-check -r ci/requirements.txt

build_dir="${BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DCUTWIN_CUDA_HOME="$cuda_home" -DCUTWIN_PYTHON="$PWD/.venv/bin/python" -DCUTWIN_BUILD_PYTHON=ON >/dev/null
cmake --build "$build_dir"
