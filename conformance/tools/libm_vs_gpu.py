#!/usr/bin/env python3
"""glibc's libm against the GPU on the inputs of the math_bitexact case, per function and
precision: how many results differ and by how many ulp at most (docs/numerics.md's table).
The GPU's results are the simulator's, after checking them against the case's digests,
which numba-cuda recorded on an H200 (equal digests: the same bits).

    PYTHONPATH=build/python python3 conformance/tools/libm_vs_gpu.py"""
import ctypes
import ctypes.util
import json
import os
import sys

import numpy as np

from check_with_numba_sim import row_digests

CASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases", "math_bitexact")

# row label -> libm name (float64; float32 adds "f")
LIBM = {"sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
        "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
        "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "asinh", "acosh": "acosh",
        "atanh": "atanh", "erf": "erf", "erfc": "erfc", "gamma": "tgamma", "lgamma": "lgamma",
        "atan2": "atan2", "pow": "pow", "hypot": "hypot", "fmod": "fmod", "cbrt": "cbrt"}
BINARY = {"atan2", "pow", "hypot", "fmod"}


def gpu_results():
    from cutwin import cuda
    src = open(os.path.join(CASE, "kernel.py")).read().replace("from numba import cuda", "from cutwin import cuda")
    ns = {}
    exec(compile(src, os.path.join(CASE, "kernel.py"), "exec"), ns)
    x64, x32 = np.load(os.path.join(CASE, "in_x64.npy")), np.load(os.path.join(CASE, "in_x32.npy"))
    out64, out32 = np.zeros((28, x64.size)), np.zeros((28, x32.size), np.float32)
    ns["math_bitexact"].forall(x64.size)(x64, x32, out64, out32)
    with open(os.path.join(CASE, "digests.json")) as fh:
        recorded = json.load(fh)
    assert row_digests(out64) == recorded["out64"] and row_digests(out32) == recorded["out32"], \
        "the simulator no longer reproduces the GPU's digests"
    return x64, x32, out64, out32


def ulps(a, b):
    bits = np.int64 if a.dtype == np.float64 else np.int32
    ia, ib = a.view(bits).astype(object), b.view(bits).astype(object)
    top = 2 ** (63 if a.dtype == np.float64 else 31)
    ia = np.array([-top - v if v < 0 else v for v in ia], dtype=object)
    ib = np.array([-top - v if v < 0 else v for v in ib], dtype=object)
    return np.abs(ia - ib)


def main():
    x64, x32, out64, out32 = gpu_results()
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    with open(os.path.join(CASE, "case.json")) as fh:
        labels = json.load(fh)["expect"]["out64"]["rows"]
    n = x64.size
    j = (np.arange(n) * 7919 + 17) % n
    print("| function | float64: differ | max ulp | float32: differ | max ulp |")
    print("|---|---|---|---|---|")
    for row, label in enumerate(labels):
        cells = []
        for x, gpu, ctype, suffix in ((x64, out64, ctypes.c_double, ""), (x32, out32, ctypes.c_float, "f")):
            if label == "cbrt" or label not in LIBM:
                f = getattr(libm, "cbrt" + suffix)
            else:
                f = getattr(libm, LIBM[label] + suffix)
            binary = label in BINARY
            f.restype, f.argtypes = ctype, [ctype, ctype] if binary else [ctype]
            xs = x.tolist()
            ys = x[j].tolist()
            got = np.array([f(a, b) for a, b in zip(xs, ys)] if binary else [f(a) for a in xs], x.dtype)
            g = gpu[row]
            same = (got == g) | (np.isnan(got) & np.isnan(g))
            differ = int((~same).sum())
            both = ~same & np.isfinite(got) & np.isfinite(g)
            worst = int(ulps(got[both], g[both]).max()) if both.any() else 0
            other = int((~same & ~both).sum())  # inf/NaN against a finite value
            cells += [str(differ), str(worst) + (" (+%d non-finite)" % other if other else "")]
        print("| %s | %s |" % (label, " | ".join(cells)))


if __name__ == "__main__":
    sys.exit(main())
