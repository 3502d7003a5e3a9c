#!/usr/bin/env python3
"""The acceptance case of bit-exact math (docs/numerics.md): every libdevice function of the math module and cuda.cbrt in float64
and float32 on 10^5 inputs each, checked by FNV-1a digests of each function's results as
numba-cuda computes them on an H200. Writes conformance/cases/math_bitexact; run it with

    python3 conformance/tools/math_bitexact_case.py
    CUTWIN_PRINT_DIGESTS=1 cutwin conformance --backend both --filter math_bitexact

(the digests printed on a GPU go into conformance/cases/math_bitexact/digests.json)."""
import json
import os

import numpy as np

from case_data import blocks, rng, write

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases")


MATH_BITEXACT_ROWS = ["sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
                      "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "gamma",
                      "lgamma", "atan2", "pow", "hypot", "fmod", "cbrt"]


def math_inputs(r, n, dtype):
    """Inputs for the math functions: random bit patterns, moderate and extreme
    magnitudes, neighbours of multiples of pi/2, values near +-1, special values."""
    f = np.dtype(dtype)
    uint = np.uint32 if f.itemsize == 4 else np.uint64
    big = 127 if f.itemsize == 4 else 1023
    x = np.empty(n, f)
    k = n // 20
    parts = [
        r.integers(0, np.iinfo(uint).max, 8 * k, dtype=uint, endpoint=True).view(f),
        (r.choice([-1, 1], 4 * k) * r.uniform(1, 2, 4 * k) * np.exp2(r.integers(-20, 21, 4 * k))).astype(f),
        (r.choice([-1, 1], 2 * k) * r.uniform(1, 2, 2 * k) * np.exp2(r.integers(big // 2, big, 2 * k))).astype(f),
        (r.choice([-1, 1], k) * r.uniform(1, 2, k) * np.exp2(-r.integers(big // 2, big + 22, k))).astype(f),
        (r.choice([-1, 1], 2 * k) * r.uniform(0.9, 1.1, 2 * k)).astype(f),
    ]
    near = (r.integers(1, 1 << 20, 2 * k) * (np.pi / 2)).astype(f)
    steps = r.integers(-8, 9, 2 * k)
    near = (near.view(uint).astype(np.int64) + steps).astype(uint).view(f)
    parts.append(near)
    used = sum(p.size for p in parts)
    info = np.finfo(f)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 10.0,
                         info.tiny, -info.tiny, info.max, -info.max, info.smallest_subnormal,
                         -info.smallest_subnormal, 1e-300 if f.itemsize == 8 else 1e-30, 710.0, -745.0, 88.7,
                         -103.9, 171.6, 35.0, 0.25, -1e-8, 1e-8], f)
    parts.append(np.resize(specials, n - used))
    x[:] = np.concatenate(parts)
    return x


def math_bitexact():
    r = rng(73)
    n = 100_000
    x64 = math_inputs(r, n, np.float64)
    x32 = math_inputs(r, n, np.float32)
    rows = len(MATH_BITEXACT_ROWS)
    digests_path = os.path.join(CASES, "math_bitexact", "digests.json")
    recorded = {}
    if os.path.exists(digests_path):
        with open(digests_path) as fh:
            recorded = json.load(fh)
    expect = {}
    for name in ("out64", "out32"):
        expect[name] = (None, {"row_digests": recorded.get(name, ["0" * 16] * rows), "rows": MATH_BITEXACT_ROWS})
    return dict(kernel="math_bitexact", grid=[blocks(n, 256)], block=[256],
                args=[("x64", x64), ("x32", x32), ("out64", np.zeros((rows, n))),
                      ("out32", np.zeros((rows, n), np.float32))],
                expect=expect,
                description="every libdevice function of the math module and cuda.cbrt, float64 and float32, on "
                            "10^5 inputs each (random bit patterns, extreme magnitudes, neighbours of multiples "
                            "of pi/2, values near +-1, special values): bit-exact against the digests of "
                            "numba-cuda's results on an H200 (digests.json; CUTWIN_PRINT_DIGESTS=1 prints them)",
                numba_sim_difference="numba's simulator evaluates the math functions with Python's libm, "
                                     "not libdevice")


MATH_FASTMATH_ROWS = ["sin", "cos", "tan", "exp", "log", "log2", "log10", "pow", "sqrt", "divide", "atan2",
                      "hypot", "expm1", "tanh"]


def math_fastmath():
    r = rng(79)
    n = 100_000
    x = math_inputs(r, n, np.float32)
    path = os.path.join(CASES, "math_fastmath", "digests.json")
    recorded = {}
    if os.path.exists(path):
        with open(path) as fh:
            recorded = json.load(fh)
    rows = len(MATH_FASTMATH_ROWS)
    return dict(kernel="math_fastmath", grid=[blocks(n, 256)], block=[256],
                args=[("x", x), ("out", np.zeros((rows, n), np.float32))],
                expect={"out": (None, {"row_digests": recorded.get("out", ["0" * 16] * rows),
                                       "rows": MATH_FASTMATH_ROWS,
                                       "known_differences": {"gpu-nvvm": {
                                           "rows": ["pow", "expm1"],
                                           "why": "cutwin's libNVVM build flushes subnormal operands of "
                                                  "libdevice's plain float32 multiplications where numba-cuda's "
                                                  "build does not (docs/numerics.md)"}}})},
                description="fastmath=True: the float32 functions numba-cuda takes from libdevice's fast versions "
                            "(sin.approx, lg2.approx, ex2.approx, div.approx), division, sqrt (sqrt.approx), tanh "
                            "(tanh.approx) and "
                            "functions on their flush-to-zero paths, on 10^5 inputs: bit-exact against the "
                            "digests of numba-cuda's results on an H200",
                numba_sim_difference="numba's simulator evaluates the math functions with Python's libm, "
                                     "not libdevice")

CMATH_ROWS = ["sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
              "asinh", "acosh", "atanh", "phase+abs"]


def cmath_bitexact():
    r = rng(83)
    n = 100_000
    re64, im64 = math_inputs(r, n, np.float64), math_inputs(r, n, np.float64)
    re32, im32 = math_inputs(r, n, np.float32), math_inputs(r, n, np.float32)
    # pair parts of different kinds (a random pattern with a special value, ...)
    im64, im32 = r.permutation(im64), r.permutation(im32)
    path = os.path.join(CASES, "cmath_bitexact", "digests.json")
    recorded = {}
    if os.path.exists(path):
        with open(path) as fh:
            recorded = json.load(fh)
    z128, z64 = np.empty(n, np.complex128), np.empty(n, np.complex64)
    z128.real, z128.imag = re64, im64  # not re + 1j * im: 1j * inf would put a NaN into the real part
    z64.real, z64.imag = re32, im32
    rows = len(CMATH_ROWS)
    # which NaN an operation on two NaNs returns depends on the compiler's operand order
    # (cutwin's NVPTX and libNVVM builds differ there): NaNs are compared as NaNs
    expect = {name: (None, {"row_digests": recorded.get(name, ["0" * 16] * rows), "rows": CMATH_ROWS,
                            "nans": "any"})
              for name in ("out128", "out64")}
    return dict(kernel="cmath_bitexact", grid=[blocks(n, 256)], block=[256],
                args=[("z128", z128), ("z64", z64), ("out128", np.zeros((rows, n), np.complex128)), ("out64", np.zeros((rows, n), np.complex64))],
                expect=expect,
                description="the cmath functions in complex128 and complex64 on 10^5 inputs each (parts: random "
                            "bit patterns, extreme magnitudes, neighbours of multiples of pi/2, values near +-1, "
                            "special values): bit-exact (NaN payloads aside) between the simulator and the GPU, by "
                            "digests of cutwin's results on an H200",
                numba_sim_difference="numba's simulator evaluates cmath with Python's libm, not libdevice",
                numba_difference="numba-cuda's cmath follows C99 Annex G for infinities and NaNs and its own "
                                 "formulas elsewhere; cutwin's follow the formulas in docs/python.md "
                                 "(the digests are cutwin's GPU results, checked against the simulator)")


if __name__ == "__main__":
    write("math_bitexact", math_bitexact(), root=CASES)
    write("math_fastmath", math_fastmath(), root=CASES)
    write("cmath_bitexact", cmath_bitexact(), root=CASES)
    print("wrote math_bitexact, math_fastmath, cmath_bitexact")
