"""Exact arithmetic for the goldens: IEEE rounding of rationals, fused multiply-adds and
correctly rounded float64 functions, computed without the host's floating point."""
from fractions import Fraction

import mpmath
import numpy as np


def round_fraction(q, dtype):
    """The float of `dtype` nearest to the rational q (ties to even), like IEEE rounding."""
    if q == 0:
        return dtype(0.0)
    mant, emin = (23, -126) if dtype == np.float32 else (52, -1022)
    sign = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    if Fraction(2) ** (e + 1) <= q:
        e += 1
    unit = Fraction(2) ** (max(e, emin) - mant)  # spacing of representable values near q
    m = q / unit
    whole = m.numerator // m.denominator
    rest = m - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1):
        whole += 1
    return dtype(sign * float(whole * unit))


def round_bfloat16(x):
    """The bfloat16 nearest to x (a Fraction, or a float: its exact value; ties to even), as
    the float32 that holds it; a NaN is bfloat16's canonical NaN (0x7fff)."""
    if isinstance(x, float):
        if x != x:
            return np.array([0x7FFF0000], np.uint32).view(np.float32)[0]
        if x in (float("inf"), float("-inf")) or x == 0:
            return np.float32(x)
        x = Fraction(x)
    if x == 0:
        return np.float32(0.0)
    sign = -1 if x < 0 else 1
    q = abs(x)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    unit = Fraction(2) ** (max(e, -126) - 7)  # 8 significant bits, subnormals below 2^-126
    whole, rest = divmod(q, unit)
    if rest * 2 > unit or (rest * 2 == unit and whole % 2 == 1):
        whole += 1
    value = whole * unit
    return np.float32(sign * (float("inf") if value >= Fraction(2) ** 128 else float(value)))


def fma(a, b, c):
    """Fused multiply-add, rounded once, elementwise (the kernels' contracted a*b + c)."""
    a, b, c = np.broadcast_arrays(a, b, c)
    out = np.empty(a.shape, a.dtype)
    for idx in np.ndindex(a.shape):
        x, y, z = float(a[idx]), float(b[idx]), float(c[idx])
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        out[idx] = round_fraction(exact, a.dtype.type)
        if exact == 0 and x * y == 0 and z == 0:  # IEEE: -0 only for (-0) + (-0)
            negative_product = (np.signbit(x) != np.signbit(y))
            out[idx] = -0.0 if negative_product and np.signbit(z) else 0.0
    return out


def correctly_rounded_f64(rows):
    """Rows of float64 function values, each correctly rounded (mpmath at 120 bits): unlike
    NumPy's, whose SIMD paths differ between CPUs by an ulp, they are the same on any host.
    `rows` holds (function, operand arrays...) tuples."""
    out = np.empty((len(rows), len(rows[0][1])))
    with mpmath.workprec(120):
        for k, (fn, *args) in enumerate(rows):
            for j in range(out.shape[1]):
                out[k, j] = float(fn(*(mpmath.mpf(float(a[j])) for a in args)))
    return out


def cbrt(x):
    """The cube root correctly rounded to x's dtype (NumPy's is up to 3 ulp off)."""
    from decimal import Decimal, localcontext
    out = np.empty_like(x)
    with localcontext() as ctx:
        ctx.prec = 80
        for k, v in enumerate(x):
            if v == 0 or not np.isfinite(v):
                out[k] = v
                continue
            root = Decimal(abs(float(v))) ** (Decimal(1) / Decimal(3))
            q = Fraction(root) * (1 if v > 0 else -1)
            out[k] = round_fraction(q, x.dtype.type)
    return out

