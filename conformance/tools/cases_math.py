"""Cases of math: libdevice functions in both precisions, Python's operators, FMA
contraction and bfloat16's roundings."""
from fractions import Fraction

import mpmath
import numpy as np

from case_data import NO_FMA, blocks, case, rng
from exact_arith import correctly_rounded_f64, fma, round_bfloat16


@case
def math_f64():
    r = rng(11)
    n = 2048
    x = r.uniform(-10, 10, n)
    x[:6] = [0.0, -0.0, 1e-300, np.pi / 2, 1e5, -7.5]
    y = r.uniform(0.5, 3, n)
    v = x
    approx = correctly_rounded_f64([
        (mpmath.sin, v), (mpmath.cos, v), (mpmath.tan, v), (mpmath.exp, v / 4),
        (mpmath.log, np.abs(v) + 1e-3), (mpmath.power, np.abs(v), y), (mpmath.atan2, v, y), (mpmath.tanh, v)])
    exact = np.stack([np.sqrt(np.abs(v)), np.floor(v) + np.ceil(v) + np.fabs(v), v / y, np.mod(v, y),
                      np.floor_divide(v, y)])
    return dict(kernel="math_f64", grid=[blocks(n, 256)], block=[256],
                args=[("x", x), ("y", y), ("approx", np.zeros(approx.shape)), ("exact", np.zeros(exact.shape))],
                expect={"approx": (approx, {"max_ulp": 4}), "exact": (exact, {})},
                description="float64 math: libdevice within 4 ulp of NumPy; + - * / sqrt floor % // exact",
                numba_sim_difference="numba's simulator evaluates math.exp with CPython's math module, "
                                     "which raises OverflowError where the GPU returns inf")


@case
def math_f32():
    r = rng(12)
    n = 2048
    x = r.uniform(-5, 5, n).astype(np.float32)
    x[:4] = [0.5, -0.5, 1.0, 3.0]
    y = r.uniform(0.5, 2, n).astype(np.float32)
    v = x.astype(np.float64)
    approx = correctly_rounded_f64([(mpmath.sin, v), (mpmath.cos, v), (mpmath.exp, v), (mpmath.log, np.abs(v)),
                                    (mpmath.power, np.abs(v), y.astype(np.float64))]).astype(np.float32)
    exact = np.stack([np.sqrt(np.abs(x)), x / y, np.mod(x, y), fma(x, y, -x)]).astype(np.float32)
    return dict(kernel="math_f32", grid=[blocks(n, 256)], block=[256],
                args=[("x", x), ("y", y), ("approx", np.zeros(approx.shape, np.float32)),
                      ("exact", np.zeros(exact.shape, np.float32))],
                expect={"approx": (approx, {"max_ulp": 4}), "exact": (exact, {})},
                description="float32 math stays float32: libdevice within 4 ulp of the correctly rounded "
                            "value; sqrt / % exact; v * y - v contracted to an fma",
                numba_sim_difference=NO_FMA)


@case
def python_operators():
    r = rng(13)
    n = 1000
    a = r.integers(-1000, 1000, n, dtype=np.int64)
    b = r.integers(-1000, 1000, n, dtype=np.int64)
    s = b & 7
    out = np.stack([a << s, a >> s, (a & b) ^ (a | 3), ~a, s ** 3 - a,
                    np.minimum(np.minimum(a, b), 0) + np.maximum(a, b), np.abs(a) - np.abs(b),
                    ((-5 < a) & (a <= b)).astype(np.int64),
                    np.where((a > 0) & (b > 0), a, np.where((a > 0) | (b > 0), b, -1))])
    return dict(kernel="python_operators", grid=[blocks(n, 128)], block=[128],
                args=[("a", a), ("b", b), ("out", np.zeros(out.shape, np.int64))],
                expect={"out": (out, {})},
                description="shifts, bit operations, **, min/max/abs, chained comparisons, and/or")


@case
def fma_contraction():
    r = rng(14)
    n = 512
    a, b, c, d = (r.uniform(-2, 2, n).astype(np.float32) for _ in range(4))
    # The expected output is what numba-cuda computes on a GPU (conformance/gpu/
    # record_with_numba_cuda.py): NVVM contracts multiply-adds, so only hardware can say
    # which ones. Here only the inputs are written; `recorded_on_gpu` keeps the expected
    # file out of the NumPy regeneration.
    return dict(kernel="fma_contraction", grid=[blocks(n, 128)], block=[128],
                args=[("a", a), ("b", b), ("c", c), ("d", d), ("out", np.zeros((16, n), np.float32))],
                expect={"out": (None, {})}, recorded_on_gpu=True,
                description="multiply-add contraction as numba-cuda does it on the GPU (goldens recorded on an H200)",
                numba_sim_difference=NO_FMA)


def fma_patterns(dtype):
    r = rng(14)
    n = 512
    a, b, c, d = (r.uniform(-2, 2, n).astype(np.float32).astype(dtype) for _ in range(4))
    return dict(kernel="fma_patterns", grid=[blocks(n, 128)], block=[128],
                args=[("a", a), ("b", b), ("c", c), ("d", d), ("out", np.zeros((14, n), dtype)),
                      ("out2", np.zeros(n, dtype))],
                expect={"out": (None, {})}, recorded_on_gpu=True,
                description="multiply-add contraction patterns in %s (goldens recorded on an H200)" % np.dtype(dtype).name,
                numba_sim_difference=NO_FMA)


@case
def fma_patterns_f32():
    return fma_patterns(np.float32)


@case
def fma_patterns_f64():
    return dict(fma_patterns(np.float64), module="../fma_patterns_f32/kernel.py")


def bfloat16_operation(op, x, y):
    """x op y for bfloat16 operands, rounded once from the exact result."""
    x, y = float(x), float(y)
    special = not (np.isfinite(x) and np.isfinite(y)) or (op == "/" and y == 0)
    with np.errstate(all="ignore"):
        ieee = {"+": np.float64(x) + y, "-": np.float64(x) - y, "*": np.float64(x) * y, "/": np.float64(x) / y}[op]
    if special or ieee == 0:  # infinities, NaN and the sign of a zero: float64 has them exactly
        return round_bfloat16(float(ieee))
    fx, fy = Fraction(x), Fraction(y)
    return round_bfloat16({"+": fx + fy, "-": fx - fy, "*": fx * fy, "/": fx / fy}[op])


@case
def bfloat16_ops():
    r = rng(17)
    n = 2048
    bits = r.integers(0, 1 << 16, (2, n), dtype=np.uint32) << 16
    x, y = bits.astype(np.uint32).view(np.float32)  # bfloat16 values: every pattern, NaN among them
    ties = x.astype(np.float64)[np.isfinite(x) & (np.abs(x) > 1e-37) & (np.abs(x) < 1e38)][: n // 2]
    w = np.concatenate([ties * (1 + 2.0 ** -8) + np.abs(ties) * 2.0 ** -30,
                        ties * (1 + 2.0 ** -8) - np.abs(ties) * 2.0 ** -30])
    w = np.resize(w, n)
    k = (np.int64(0x181) << r.integers(9, 54, n)) + r.choice([1, -1, 0], n)
    k = np.where(r.integers(0, 2, n) == 1, -k, k)
    out = np.zeros((6, n), np.float32)
    for i in range(n):
        for row, op in enumerate("+-*/"):
            out[row, i] = bfloat16_operation(op, x[i], y[i])
        out[4, i] = round_bfloat16(float(w[i]))
        out[5, i] = round_bfloat16(Fraction(int(k[i])))
    return dict(kernel="bfloat16_ops", grid=[blocks(n, 128)], block=[128],
                args=[("x", x), ("y", y), ("w", w), ("k", k), ("out", np.zeros((6, n), np.float32))],
                expect={"out": (out, {})},
                description="bfloat16 + - * / rounded once from the exact result (NaN 0x7fff), and float64 "
                            "and int64 beside bfloat16 ties converted with one rounding",
                numba_sim_difference="numba's simulator has no bfloat16 (numba.cuda.bfloat16 is None there)")


def fp8_values_and_midpoints():
    """Every finite E4M3 and E5M2 value as float32, sorted, and the midpoints between
    neighbours (the ties, which round to even)."""
    import ml_dtypes
    every = np.concatenate([np.arange(256, dtype=np.uint8).view(t).astype(np.float32)
                            for t in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2)])
    s = np.unique(every[np.isfinite(every)])
    s[s == 0] = 0.0  # (which zero np.unique keeps of -0 and +0 depends on NumPy's version)
    return s, ((s[1:].astype(np.float64) + s[:-1]) / 2).astype(np.float32)


@case
def fp8_conversions():
    import ml_dtypes
    r = rng(79)
    s, mids = fp8_values_and_midpoints()
    wide = (r.standard_normal(1500) * 10.0 ** r.integers(-10, 10, 1500)).astype(np.float32)
    edges = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 448.0, 464.0, -465.0, 57344.0, 61440.0, -1e30, 2e-10],
                     np.float32)
    x = np.concatenate([s, mids, np.nextafter(mids, np.float32(np.inf)), wide, edges])
    out = np.zeros((4, x.size), np.float32)
    for row, (t, top) in enumerate(((ml_dtypes.float8_e4m3fn, 448.0), (ml_dtypes.float8_e5m2, 57344.0))):
        sat = np.clip(x, -top, top)  # the constructors saturate to the largest finite value
        out[row] = sat.astype(t).astype(np.float32)
        out[row + 2] = sat.astype(np.float64).astype(t).astype(np.float32)
    return dict(kernel="fp8_conversions", grid=[blocks(x.size, 128)], block=[128],
                args=[("x", x), ("out", np.zeros((4, x.size), np.float32))],
                expect={"out": (out, {})},
                description="float32 and float64 to fp8_e4m3 and fp8_e5m2 (round to nearest even, saturating "
                            "constructors) and back: every fp8 value, the midpoints, values across float32's "
                            "range (ml_dtypes' conversions)",
                numba_sim_difference="numba's simulator has no fp8 types")


def e8m0_up_bits(x):
    """The E8M0 bits (2^(bits - 127)) the saturating constructor gives each float: the power
    of two at or above |x|, 2^-127 at least, 2^127 at most; NaN 0xff."""
    a = np.abs(x.astype(np.float64))
    m, k = np.frexp(np.where(np.isfinite(a) & (a > 0), a, 1.0))
    e = np.where(m == 0.5, k - 1, k)
    e = np.where(a == 0, -127, np.where(np.isinf(a), 127, e))
    bits = np.clip(e, -127, 127) + 127
    return np.where(np.isnan(a), 0xFF, bits).astype(np.uint8)


@case
def fp8_vectors():
    import ml_dtypes
    r = rng(83)
    s, mids = fp8_values_and_midpoints()
    wide = (r.standard_normal(1200) * 10.0 ** r.integers(-40, 39, 1200)).astype(np.float32)
    edges = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 448.0, 464.0, -465.0, 57344.0, 61440.0, 3e38, 1e-45],
                     np.float32)
    x = np.concatenate([s, mids, wide, edges])
    x = r.permutation(x)[: x.size // 4 * 4].reshape(-1, 4)
    n = x.shape[0]

    def element_bits(col, fmt, from_double):
        if fmt == "e8m0":
            return e8m0_up_bits(x[:, col])
        t, top = {"e4m3": (ml_dtypes.float8_e4m3fn, 448.0), "e5m2": (ml_dtypes.float8_e5m2, 57344.0)}[fmt]
        b = np.clip(x[:, col], -top, top).astype(t).view(np.uint8).copy()
        # NaN (x's is float32's positive quiet NaN): float32's saturating conversion is

        # NaN's two leading mantissa bits (10 here, of which E5M2 keeps 0x7e | 0b10 = 0x7e)
        b[np.isnan(x[:, col])] = 0x7E if (from_double and fmt == "e5m2") else 0x7F
        return b

    pairs, quads = np.zeros((3, n), np.uint16), np.zeros((3, n), np.uint32)
    for row, fmt in enumerate(("e4m3", "e5m2", "e8m0")):
        b = [element_bits(k, fmt, False).astype(np.uint32) for k in range(2)]
        pairs[row] = b[0] | b[1] << 8
        b = [element_bits(k, fmt, True).astype(np.uint32) for k in range(4)]
        quads[row] = b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24
    return dict(kernel="fp8_vectors", grid=[blocks(n, 128)], block=[128],
                args=[("x", x), ("pairs", np.zeros((3, n), np.uint16)), ("quads", np.zeros((3, n), np.uint32))],
                expect={"pairs": (pairs, {}), "quads": (quads, {})},
                description="float32x2 and float64x4 to fp8x2/fp8x4 in E4M3, E5M2 and E8M0 (each element as the "
                            "saturating scalar constructor converts it, the first in the lowest byte): every fp8 "
                            "value, the midpoints, values across float32's range (ml_dtypes' conversions; E8M0's "
                            "powers of two computed exactly)",
                numba_sim_difference="numba's simulator has no fp8 types")
