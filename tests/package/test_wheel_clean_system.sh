#!/usr/bin/env bash
# The self-contained wheel on a system with none of LLVM, oneTBB, Boost or a CUDA toolkit:
# a minimal Debian 12 root filesystem (debootstrap; kept in WORK/root between runs), chrooted:
#  1. a fresh virtual environment with nothing but `cutwin[cu13]` (libdevice from NVIDIA's
#     pip package; NumPy comes as its dependency) runs every example on the simulator, then,
#     with numba added (not numba-cuda), each again as a numba-cuda program with CUTWIN_NUMBA=1;
#  2. the test suite's oracles and tools are added (ci/requirements.txt, numba-cuda with its
#     CUDA runtime packages) and the package's pytest suite runs on the simulator.
# The root has g++ (the simulator compiles `.cu` files linked into kernels with the host's
# C++ compiler) and nothing of what the wheel must bring itself.
#   test_wheel_clean_system.sh SOURCE_DIR WHEELHOUSE WORK
set -euo pipefail
src="$(realpath "$1")"
wheelhouse="$(realpath "$2")"
work="$(realpath -m "$3")"
root="$work/root"
mirror="${CUTWIN_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
packages="python3,python3-venv,ca-certificates,g++"
wheel="$(ls "$wheelhouse"/cutwin-*.whl | head -n 1)"

if [ "$(cat "$root/.cutwin-packages" 2>/dev/null)" != "$packages" ]; then
  rm -rf "$root"
  mkdir -p "$work"
  debootstrap --variant=minbase --include="$packages" bookworm "$root" "$mirror" \
    >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log"; exit 1; }
  echo "$packages" >"$root/.cutwin-packages"
fi
# What the wheel must not find in the system's folders.
for lib in 'libLLVM*' 'libtbb*' 'libboost_context*' 'libdevice*.bc' 'libnvvm*'; do
  if [ -n "$(find "$root/usr" "$root/lib" "$root/etc" -name "$lib" -print -quit)" ]; then
    echo "the clean system has $lib" >&2
    exit 1
  fi
done
[ ! -e "$root/usr/local/cuda" ] && [ ! -e "$root/usr/bin/nvcc" ]

# What goes in: the wheel, the tests and examples, the host's certificates and resolver
# (pip reaches PyPI from inside as it does from here).
rm -rf "$root/tmp/"* "$root/opt/cutwin-only" "$root/opt/venv"
mkdir -p "$root/tmp/cutwin"
cp "$wheel" "$root/tmp/cutwin/"
cp -r "$src/tests" "$src/examples" "$src/conformance" "$root/tmp/cutwin/"
sed -e 's/^numba-cuda\(.*\)/numba-cuda[cu13]\1/' -e '/^nanobind/d' -e '/^scikit-build-core/d' \
  "$src/ci/requirements.txt" >"$root/tmp/cutwin/requirements.txt"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
cp -L "${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}" "$root/etc/ssl/certs/host-ca.crt"

cleanup() { umount -R "$root/dev" 2>/dev/null || true; umount "$root/proc" 2>/dev/null || true; }
trap cleanup EXIT
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"

chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 CUTWIN_BACKEND=sim \
  PIP_CERT=/etc/ssl/certs/host-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1 /bin/sh -euc '
    cd /tmp/cutwin
    wheel="$(ls cutwin-*.whl)"
    python3 -m venv /opt/cutwin-only
    /opt/cutwin-only/bin/pip install -q "$wheel[cu13]"
    /opt/cutwin-only/bin/python - <<PY
import os, cutwin
print("clean system: cutwin", cutwin.__version__, "libdevice", os.environ["CUTWIN_LIBDEVICE"])
PY
    for f in examples/python/*.py; do
      /opt/cutwin-only/bin/python "$f" >/dev/null || { echo "example $f failed"; exit 1; }
    done
    echo "clean system: $(ls examples/python/*.py | wc -l) examples ran"
    # The same programs as numba-cuda programs (only the import differs), unchanged under
    # CUTWIN_NUMBA=1, with numba installed and numba-cuda not: the .pth hook of the installed
    # wheel serves numba.cuda.
    /opt/cutwin-only/bin/pip install -q numba
    for f in examples/python/*.py; do
      sed -e "s/from cutwin import cuda/from numba import cuda/" -e "s/from cutwin.cuda\./from numba.cuda./" \
        "$f" >/tmp/numba_program.py
      CUTWIN_NUMBA=1 /opt/cutwin-only/bin/python /tmp/numba_program.py | grep -q OK ||
        { echo "example $f as a numba-cuda program failed"; exit 1; }
    done
    echo "clean system: the examples ran as numba-cuda programs with CUTWIN_NUMBA=1 (numba-cuda not installed)"
    # The test helpers of numba-cuda without numba-cuda: the copy numba ships, asking cutwin.
    cat >/tmp/testing_helpers.py <<PY
import unittest
from numba import cuda
from numba.cuda.testing import CUDATestCase, skip_on_cudasim, skip_unless_cudasim
import cutwin
assert cuda.jit is cutwin.cuda.jit

class T(CUDATestCase):
    @skip_on_cudasim("cutwin is not the simulator of numba: this runs")
    def test_runs(self):
        out = cuda.to_device([0])
        @cuda.jit
        def k(o):
            o[0] = 7
        k[1, 1](out)
        self.assertEqual(out.copy_to_host()[0], 7)

    @skip_unless_cudasim("only on the simulator of numba")
    def test_skipped(self):
        raise AssertionError("ran")

r = unittest.TextTestRunner(verbosity=0).run(unittest.defaultTestLoader.loadTestsFromTestCase(T))
assert r.wasSuccessful() and r.testsRun == 2 and len(r.skipped) == 1, r
PY
    CUTWIN_NUMBA=1 /opt/cutwin-only/bin/python /tmp/testing_helpers.py
    echo "clean system: numba.cuda.testing (the copy numba ships) works with CUTWIN_NUMBA=1 without numba-cuda"
    python3 -m venv /opt/venv
    /opt/venv/bin/pip install -q "$wheel[cu13]" -r requirements.txt
    /opt/venv/bin/python -m pytest -q -rs -p no:cacheprovider tests/python
  '
