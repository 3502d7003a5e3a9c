#!/usr/bin/env python3
"""cuda.reduce: cutwin against numba-cuda in the same run, each in its own process, on the
same data: 16 M float64 summed from a device array, host time per call including the
result's copy back (what `sum_reduce(d_arr)` costs a program). Best of 20 after warm-up;
both results checked against NumPy. Prints a Markdown table.

    python bench/reduce.py [--n 16777216] [--backend gpu|sim] [--numba gpu|sim|none]
"""
import argparse
import sys

from child_run import run_child

CHILD = r"""
import json, sys, time
import numpy as np
np.row_stack = np.vstack
impl, n, backend = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if impl == "cutwin":
    from cutwin import cuda
    cuda.use_backend(backend)
else:
    from numba import cuda

@cuda.reduce
def sum_reduce(a, b):
    return a + b

x = np.random.default_rng(0).uniform(0, 1, n)
d = cuda.to_device(x)
got = sum_reduce(d)  # compile, warm up
cuda.synchronize()
times = []
for _ in range(20 if backend == "gpu" else 3):
    t = time.perf_counter()
    got = sum_reduce(d)
    times.append(time.perf_counter() - t)
print(json.dumps({"ms": min(times) * 1e3, "value": float(got), "exact": float(np.sum(x))}))
"""


def run(impl, n, backend):
    return run_child(CHILD, impl, n, backend)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1 << 24)
    p.add_argument("--backend", default="gpu")
    p.add_argument("--numba", default="gpu")
    a = p.parse_args()
    c = run("cutwin", a.n, a.backend)
    rel = abs(c["value"] - c["exact"]) / abs(c["exact"])
    print("| float64 elements | cutwin (%s) ms | numba-cuda ms | cutwin faster by | cutwin rel. error |" % a.backend)
    print("|---|---|---|---|---|")
    if a.numba == "none":
        print("| %d | %.4f | - | - | %.1e |" % (a.n, c["ms"], rel))
        return
    nb = run("numba", a.n, a.numba)
    print("| %d | %.4f | %.4f | %.1fx | %.1e |" % (a.n, c["ms"], nb["ms"], nb["ms"] / c["ms"], rel))
    if rel > 1e-9 or abs(nb["value"] - nb["exact"]) / abs(nb["exact"]) > 1e-9:
        sys.exit(1)


if __name__ == "__main__":
    main()
