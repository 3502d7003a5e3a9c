"""The GPU's floating-point behaviour both backends reproduce (docs/numerics.md): the NaNs
abs and negation return (measured on an H200: float64 keeps the sign and quiets, float32
gives 0x7fffffff), float64 -> float32 keeping a NaN's payload, and fastmath's float32
division and functions taking the approximation instructions (within their documented
error bounds of the exact results, and not equal to the precise versions everywhere)."""
import math

import numpy as np

from cutwin import cuda


@cuda.jit
def signs64(x, neg, ab, narrowed):
    i = cuda.grid(1)
    if i < x.size:
        neg[i] = -x[i]
        ab[i] = abs(x[i])
        narrowed[i] = np.float32(x[i])


@cuda.jit
def signs32(x, neg, ab):
    i = cuda.grid(1)
    if i < x.size:
        neg[i] = -x[i]
        ab[i] = abs(x[i])


def test_float64_nan_sign_and_quiet_bit(cutwin_backend):
    raw = np.array([0xfff2cfde5d3efaf1, 0x7ff0000000000001, 0x7ff8000000000002, 0xfff8000000000000,
                    0x3ff0000000000000, 0x8000000000000000], np.uint64)
    x = raw.view(np.float64)
    neg, ab, narrowed = np.zeros_like(x), np.zeros_like(x), np.zeros(x.size, np.float32)
    signs64.forall(x.size)(x, neg, ab, narrowed)
    quiet = np.where(np.isnan(x), raw | np.uint64(1 << 51), raw)
    finite = ~np.isnan(x)
    want_neg = np.where(finite, raw ^ np.uint64(1 << 63), quiet)
    want_abs = np.where(finite, raw & np.uint64((1 << 63) - 1), quiet)
    assert neg.view(np.uint64).tolist() == want_neg.tolist()
    assert ab.view(np.uint64).tolist() == want_abs.tolist()
    # float64 -> float32: sign, quiet bit and the payload's top 22 bits (as x86 and the GPU do)
    top = ((raw >> np.uint64(29)) & np.uint64(0x3fffff)).astype(np.uint32)
    want32 = ((raw >> np.uint64(32)) & np.uint64(0x80000000)).astype(np.uint32) | np.uint32(0x7fc00000) | top
    got32 = narrowed.view(np.uint32)
    assert got32[:4].tolist() == want32[:4].tolist()
    assert narrowed[4:].tolist() == [1.0, -0.0]


def test_float32_abs_and_neg_of_nan_are_canonical(cutwin_backend):
    raw = np.array([0xffc12345, 0x7f800001, 0x7fc00000, 0x3f800000], np.uint32)
    x = raw.view(np.float32)
    neg, ab = np.zeros_like(x), np.zeros_like(x)
    signs32.forall(x.size)(x, neg, ab)
    assert neg.view(np.uint32).tolist() == [0x7fffffff, 0x7fffffff, 0x7fffffff, 0xbf800000]
    assert ab.view(np.uint32).tolist() == [0x7fffffff, 0x7fffffff, 0x7fffffff, 0x3f800000]


@cuda.jit
def nan_chains(x, y, out32, wide, signs, picked):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i] * y[i] + np.float32(1.0)  # a chain of float32 operations
        b = math.sqrt(a * np.float32(2.0)) - np.float32(3.0)
        out32[i] = b  # stored
        wide[i] = np.float64(b * np.float32(0.5))  # widened
        signs[i] = math.copysign(np.float32(1.0), a - b)  # lends its sign
        picked[i] = a if y[i] > 0 else b  # through a select


def test_float32_nan_is_canonical_wherever_its_bits_show(cutwin_backend):
    # A NaN made by float32 arithmetic is 0x7fffffff on the GPU, however it was made; the
    # simulator makes it so where the bits can be seen (stores, widening, copysign's sign,
    # selects), not after every operation of a chain.
    raw = np.array([0xffc12345, 0x7f800001, 0xff800002, 0x7fc00000, 0x3f800000, 0xc0000000], np.uint32)
    x = raw.view(np.float32)
    y = np.array([2.0, -1.0, 3.0, 0.5, 4.0, 1.0], np.float32)
    out32, wide = np.zeros_like(x), np.zeros(x.size, np.float64)
    signs, picked = np.zeros_like(x), np.zeros_like(x)
    nan_chains.forall(x.size)(x, y, out32, wide, signs, picked)
    nan = np.isnan(x)
    assert np.all(out32.view(np.uint32)[nan] == 0x7fffffff)
    assert np.all(wide.view(np.uint64)[nan] == 0x7fffffffe0000000)
    assert np.all(signs[nan] == 1.0)
    assert np.all(picked.view(np.uint32)[nan] == 0x7fffffff)
    # ordinary values pass untouched: x = 1 gives a = 5, b = sqrt(10) - 3
    a = np.float32(1.0) * np.float32(4.0) + np.float32(1.0)
    b = np.sqrt(a * np.float32(2.0)) - np.float32(3.0)
    assert out32[4] == b and picked[4] == a and signs[4] == 1.0
    # x = -2 with y = 1: a = -1, sqrt(-2) is NaN: made by arithmetic from ordinary values
    assert out32.view(np.uint32)[5] == 0x7fffffff and signs[5] == 1.0


def make_math(fastmath):
    @cuda.jit(fastmath=fastmath)
    def k(x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[0, i] = x[i] / y[i]
            out[1, i] = math.sin(x[i])
            out[2, i] = math.exp(x[i])
            out[3, i] = math.log(y[i])
            out[4, i] = math.sqrt(y[i])
    return k


def test_fastmath_takes_the_approximation_instructions(cutwin_backend):
    rng = np.random.default_rng(12)
    x = rng.uniform(-3, 3, 4096).astype(np.float32)
    y = rng.uniform(0.5, 4, 4096).astype(np.float32)
    fast, precise = np.zeros((5, x.size), np.float32), np.zeros((5, x.size), np.float32)
    make_math(True).forall(x.size)(x, y, fast)
    make_math(False).forall(x.size)(x, y, precise)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    exact = [xd / yd, np.sin(xd), np.exp(xd), np.log(yd), np.sqrt(yd)]
    # PTX's bounds: div.approx 2 ulp, sin.approx 2^-20.9 absolute, ex2/lg2 2^-22 relative or
    # absolute (plus the scaling's rounding), sqrt.approx about 1 ulp
    bounds = [(2.5e-7, 0), (0, 6e-7), (4e-7, 1e-6), (0, 3e-7), (2.5e-7, 0)]
    for row, (want, (rtol, atol)) in enumerate(zip(exact, bounds)):
        assert np.allclose(fast[row], want, rtol=rtol, atol=atol), row
        # the precise versions are correctly rounded or within an ulp or two
        assert np.allclose(precise[row], want, rtol=2.5e-7, atol=0), row
    # the approximations differ from the precise results somewhere in 4096 inputs
    for row in range(1, 4):
        assert (fast[row] != precise[row]).any(), row


def test_multiply_adds_fuse_only_when_optimising(cutwin_backend):
    """x * y + z is one fused multiply-add (rounded once) where numba-cuda's NVVM fuses it
    (-opt=3), and a product rounded before the sum at opt=False (-opt=0). Oracle: exact
    rational arithmetic rounded once, and Python's two roundings."""
    from fractions import Fraction

    def body(a, out):
        out[0] = a[0] * a[1] + a[2]

    fused, unfused = cuda.jit(body), cuda.jit(opt=False)(body)
    a = np.array([1 + 2.0 ** -30, 1 - 2.0 ** -30, -1.0])
    out = np.zeros(1)
    fused[1, 1](a, out)
    assert out[0] == float(Fraction(a[0]) * Fraction(a[1]) + Fraction(a[2]))  # -2**-60
    unfused[1, 1](a, out)
    assert out[0] == a[0] * a[1] + a[2] == 0.0
