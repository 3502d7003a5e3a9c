#!/usr/bin/env python3
"""What a user waits for before the first kernel runs, each in a fresh interpreter (best of
--repeat): `import cutwin` (with NumPy already imported), then the first simulator launch of
a small kernel (parse, type, lower, JIT, run; the kernel cache off), and again with the
kernel in the kernel cache on disk (a folder of the run's own, written by a first run),
against numba-cuda in the same run where it is installed (`from numba import cuda`, and the
first launch on its simulator). With --wheel, also the wheel's size. Targets: import <=
0.3 s, first launch <= 0.5 s, wheel <= 60 MB.

    PYTHONPATH=build/python python bench/startup.py [--wheel build/wheelhouse/cutwin-*.whl]
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

PROGRAM = """
import time
import numpy as np
t0 = time.perf_counter()
{imports}
t1 = time.perf_counter()

@cuda.jit
def vadd(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

a = np.arange(1000, dtype=np.float32)
out = np.empty_like(a)
vadd[4, 256](a, a, out)
t2 = time.perf_counter()
assert (out == 2 * a).all()
print(t1 - t0, t2 - t1)
"""


def measure(imports, env, repeat):
    best = None
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", PROGRAM.format(imports=imports)], env=env, capture_output=True,
                             text=True)
        if out.returncode != 0:
            return None
        t = tuple(float(x) for x in out.stdout.split())
        best = t if best is None else tuple(min(a, b) for a, b in zip(best, t))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--wheel", default=None)
    args = ap.parse_args()
    env = dict(os.environ, CUTWIN_BACKEND="sim")
    env.pop("CUTWIN_NUMBA", None)
    imports = "import cutwin\nfrom cutwin import cuda"
    cutwin = measure(imports, dict(env, CUTWIN_CACHE="0"), args.repeat)
    with tempfile.TemporaryDirectory() as folder:
        cached_env = dict(env, CUTWIN_CACHE="1", CUTWIN_CACHE_DIR=folder)
        measure(imports, cached_env, 1)  # writes the entry
        cached = measure(imports, cached_env, args.repeat)
    numba = measure("np.row_stack = getattr(np, 'row_stack', np.vstack)\nfrom numba import cuda",
                    dict(env, NUMBA_ENABLE_CUDASIM="1"), args.repeat)
    print("| | import | first launch |")
    print("|---|---:|---:|")
    print("| cutwin (simulator) | %.3f s | %.3f s |" % cutwin)
    if cached:
        print("| cutwin (simulator), the kernel cached | %.3f s | %.3f s |" % cached)
    if numba:
        print("| numba-cuda (its simulator) | %.3f s | %.3f s |" % numba)
        print("| cutwin / numba-cuda | %.2f | %.2f |" % (cutwin[0] / numba[0], cutwin[1] / numba[1]))
    if args.wheel:
        for w in glob.glob(args.wheel):
            print("\nwheel %s: %.1f MB" % (os.path.basename(w), os.path.getsize(w) / 1e6))


if __name__ == "__main__":
    main()
