#!/usr/bin/env python3
"""Compile time and memory against kernel size: a kernel of N statements compiled and
launched once on the simulator in a fresh interpreter, with bounds checks on and off; N
doubles. Two shapes of statement: "elementwise", `out[i] += a[i] * c` (the thread's own
elements), and "indexed", `out[(i + k) % 64] += a[(i * k) % 64] * c` (indices computed with
Python's modulo: several blocks a statement). Prints seconds (compile and first launch),
the process's peak resident memory, and each size's time over the previous size's (2.0
means linear).

    PYTHONPATH=build/python python bench/compile_size.py [--sizes 500,1000,2000,4000] [--shape elementwise|indexed]
"""
import argparse
import os
import subprocess
import sys
import tempfile

PROGRAM = """
import resource, sys, time
import numpy as np
sys.path.insert(0, {folder!r})
from cutwin import cuda
import kernel_{n}
a, out = np.ones(64), np.zeros(64)
t = time.perf_counter()
cuda.jit(boundscheck={checks})(kernel_{n}.big.py_func)[1, 32](a, out)
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


STATEMENTS = {
    "elementwise": lambda k: "    out[i] += a[i] * %d.0" % (k % 7 + 1),
    "indexed": lambda k: "    out[(i + %d) %% 64] += a[(i * %d) %% 64] * %d.0" % (k, k + 1, k % 7),
}


def kernel_source(n, shape="indexed"):
    lines = ["from cutwin import cuda", "", "", "@cuda.jit", "def big(a, out):", "    i = cuda.grid(1)"]
    lines += [STATEMENTS[shape](k) for k in range(n)]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="500,1000,2000,4000")
    ap.add_argument("--shape", choices=sorted(STATEMENTS), default="elementwise")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    env = dict(os.environ, CUTWIN_BACKEND="sim", CUTWIN_CACHE="0")  # compiled, never loaded from the kernel cache
    with tempfile.TemporaryDirectory() as folder:
        print("| statements | bounds checks | seconds | x previous size | peak MB |")
        print("|---:|---|---:|---:|---:|")
        for checks in (True, False):
            previous = None
            for n in sizes:
                with open(os.path.join(folder, "kernel_%d.py" % n), "w") as f:
                    f.write(kernel_source(n, args.shape))
                program = PROGRAM.format(folder=folder, n=n, checks=checks)
                r = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit(r.stderr[-2000:])
                seconds, peak_kb = r.stdout.split()
                seconds = float(seconds)
                ratio = "%.2f" % (seconds / previous) if previous else "-"
                print("| %d | %s | %.2f | %s | %.0f |" % (n, "on" if checks else "off", seconds, ratio,
                                                         int(peak_kb) / 1024))
                previous = seconds


if __name__ == "__main__":
    main()
