"""float16 in kernels: arrays and scalars of it, +, -, *, / and unary minus in half
precision (numba-cuda's operators), comparisons, conversions to and from every other
scalar type, numba's promotion (half with int8 stays half; with float32 or wider
integers it widens), and a contracted a*b + c rounded once as the GPU's fma.rn.f16.
Oracles: NumPy's float16 (each operation rounded once from the exact result) and, for
the fma, exact rational arithmetic rounded to the nearest half by hand."""
import math
from fractions import Fraction

import numpy as np
import pytest

from cutwin import cuda


def halves(n, seed):
    """n float16 values over the whole range: normal, subnormal, zeros, infinities, NaN."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16)
    return bits.view(np.float16)


def same_bits(got, want):
    """Bit-exact, NaNs compared as NaNs (which NaN: tests/python/test_float16_gpu on the GPU)."""
    g, w = np.asarray(got), np.asarray(want)
    both_nan = np.isnan(g) & np.isnan(w)
    bad = ~both_nan & (g.view(np.uint16) != w.view(np.uint16))
    assert not bad.any(), "%d differ, first at %d: %r against %r" % (bad.sum(), np.argmax(bad), g[bad][:4],
                                                                       w[bad][:4])


@cuda.jit
def arith(a, b, add, sub, mul, div, neg):
    i = cuda.grid(1)
    if i < a.size:
        x, y = a[i], b[i]
        add[i] = x + y
        sub[i] = x - y
        mul[i] = x * y
        div[i] = x / y
        neg[i] = -x


def test_operators_round_as_numpy_float16(cutwin_backend):
    n = 1 << 14
    a, b = halves(n, 1), halves(n, 2)
    outs = [np.zeros(n, np.float16) for _ in range(5)]
    with np.errstate(all="ignore"):
        arith[n // 128, 128](a, b, *outs)
        for got, want in zip(outs, [a + b, a - b, a * b, a / b, -a]):
            same_bits(got, want)


@cuda.jit
def compare(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x, y = a[i], b[i]
        out[i, 0] = x < y
        out[i, 1] = x <= y
        out[i, 2] = x > y
        out[i, 3] = x >= y
        out[i, 4] = x == y
        out[i, 5] = x != y


def test_comparisons(cutwin_backend):
    n = 4096
    a, b = halves(n, 3), halves(n, 4)
    b[::3] = a[::3]  # equal pairs too
    out = np.zeros((n, 6), np.bool_)
    compare[n // 128, 128](a, b, out)
    want = np.stack([a < b, a <= b, a > b, a >= b, a == b, a != b], axis=1)
    np.testing.assert_array_equal(out, want)


def nearest_half(q):
    """The float16 nearest to the rational q, ties to even (by hand: an oracle)."""
    if q == 0:
        return np.float16(0)
    guess = np.float16(float(q))
    if np.isinf(guess):
        return guess if abs(q) >= 65520 else np.float16(np.copysign(65504, float(q)))
    base = int(guess.view(np.uint16))
    cands = []
    for d in (-1, 0, 1):
        h = np.uint16((base + d) & 0xFFFF).view(np.float16)
        if np.isfinite(h) and not np.isnan(h):
            cands.append(h)
    best = min(cands, key=lambda h: (abs(Fraction(float(h)) - q), int(h.view(np.uint16)) & 1))
    if abs(q) >= 65520:  # past the last midpoint: overflow
        return np.float16(np.copysign(np.inf, float(q)))
    return best


@cuda.jit
def fused(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * b[i] + c[i]  # contracted to one fma, as on the GPU


def test_multiply_add_is_one_fma_rounded_once(cutwin_backend):
    rng = np.random.default_rng(5)
    n = 1 << 13
    # finite values whose products and sums land everywhere, midpoints included
    a = (rng.standard_normal(n) * 8).astype(np.float16)
    b = (rng.standard_normal(n) * 8).astype(np.float16)
    c = (rng.standard_normal(n) * 64).astype(np.float16)
    # exact midpoint cases: a*b = 1 + 2^-11 (between 1 and 1+2^-10), nudged by a tiny c
    a[:64], b[:64] = np.float16(1 + 2 ** -10), np.float16(1 - 2 ** -11)
    c[:64] = np.float16(2 ** -24) * np.where(np.arange(64) % 2, 1, -1).astype(np.float16)
    a[64:72], b[64:72], c[64:72] = np.float16(255.9), np.float16(256), np.float16(-8)  # near overflow
    # triples (bits) whose exact result rounds differently through float32 first
    tricky = [(15616, 50012, 4), (16719, 50688, 32771), (50272, 18832, 13), (48337, 17920, 3),
              (51264, 50472, 29), (49160, 16448, 32770), (17762, 16805, 36159), (50304, 49556, 2)]
    for k, (x, y, z) in enumerate(tricky):
        a[72 + k], b[72 + k], c[72 + k] = (np.uint16(v).view(np.float16) for v in (x, y, z))
    out = np.zeros(n, np.float16)
    fused[n // 128, 128](a, b, c, out)
    want = [nearest_half(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))) for x, y, z in zip(a, b, c)]
    same_bits(out, np.array(want, np.float16))


@cuda.jit
def from_half(a, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        i8[i] = x
        u8[i] = x
        i16[i] = x
        u16[i] = x
        i32[i] = x
        u32[i] = x
        i64[i] = x
        u64[i] = x
        f32[i] = x
        f64[i] = x


def test_conversions_from_half_to_every_type(cutwin_backend):
    n = 4096
    types = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float32,
             np.float64]
    a = np.clip(np.random.default_rng(6).standard_normal(n) * 50, -127, 127).astype(np.float16)  # every type's range
    for x in (a, np.abs(a)):  # unsigned targets are checked with the non-negative halves
        outs = [np.zeros(n, t) for t in types]
        from_half[n // 128, 128](x, *outs)
        for t, o in zip(types, outs):
            if x is a and np.issubdtype(t, np.unsignedinteger):
                continue
            # numba-cuda converts float16 to integers with cvt.rni: to the nearest, ties to even
            want = x.astype(t) if not np.issubdtype(t, np.integer) else np.rint(x.astype(np.float64)).astype(t)
            np.testing.assert_array_equal(o, want, err_msg=str(t))


@cuda.jit
def to_half(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = i8[i]
        out[i, 1] = u8[i]
        out[i, 2] = i16[i]
        out[i, 3] = u16[i]
        out[i, 4] = i32[i]
        out[i, 5] = u32[i]
        out[i, 6] = i64[i]
        out[i, 7] = u64[i]
        out[i, 8] = f32[i]
        out[i, 9] = f64[i]


def test_conversions_to_half_from_every_type(cutwin_backend):
    n = 4096
    rng = np.random.default_rng(7)
    types = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float32,
             np.float64]
    ins = []
    for t in types:
        if np.issubdtype(t, np.integer):
            info = np.iinfo(t)
            lo, hi = max(info.min, -100000), min(info.max, 100000)  # past 65504 too: infinity
            ins.append(rng.integers(lo, hi, n, endpoint=True).astype(t))
        else:
            ins.append((rng.standard_normal(n) * 10.0 ** rng.integers(-9, 6, n)).astype(t))
    out = np.zeros((n, len(types)), np.float16)
    with np.errstate(over="ignore"):
        to_half[n // 128, 128](*ins, out)
        for k, x in enumerate(ins):
            same_bits(out[:, k], x.astype(np.float16))


@cuda.jit
def promoted(h, i8, i16, f32, out):
    i = cuda.grid(1)
    if i < h.size:  # float32 outputs: a half result shows its rounding to half
        out[i, 0] = h[i] * i8[i]  # float16 with int8: float16
        out[i, 1] = h[i] * i16[i]  # with int16: float32
        out[i, 2] = h[i] * f32[i]  # with float32: float32
        out[i, 3] = h[i] * h[i]  # float16


def test_promotion_follows_numba(cutwin_backend):
    n = 1024
    rng = np.random.default_rng(8)
    h = rng.standard_normal(n).astype(np.float16)
    i8 = rng.integers(-100, 100, n).astype(np.int8)
    i16 = rng.integers(-3000, 3000, n).astype(np.int16)
    f32 = rng.standard_normal(n).astype(np.float32)
    out = np.zeros((n, 4), np.float32)
    promoted[n // 128, 128](h, i8, i16, f32, out)
    wide = h.astype(np.float32)
    np.testing.assert_array_equal(out[:, 0], (h * i8.astype(np.float16)).astype(np.float32))
    np.testing.assert_array_equal(out[:, 1], wide * i16.astype(np.float32))
    np.testing.assert_array_equal(out[:, 2], wide * f32)
    np.testing.assert_array_equal(out[:, 3], (h * h).astype(np.float32))
    assert not np.array_equal(out[:, 0], wide * i8)  # the half rounding is visible


@cuda.jit("void(float16[:], float16)")
def scaled(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * s


def test_scalar_arguments_and_signatures(cutwin_backend):
    a = np.arange(16, dtype=np.float16)
    scaled[1, 16](a, np.float16(0.5))
    same_bits(a, np.arange(16, dtype=np.float16) * np.float16(0.5))
    d = cuda.to_device(np.ones(16, np.float16))
    scaled[1, 16](d, 3.0)  # a Python float becomes the signature's float16
    same_bits(d.copy_to_host(), np.full(16, 3, np.float16))


@pytest.mark.parametrize("value", [0.1, 65504.0, 70000.0, -1e-8, 6e-8])
def test_python_floats_round_to_the_nearest_half(value, cutwin_backend):
    b = np.ones(1, np.float16)
    scaled[1, 1](b, value)
    with np.errstate(over="ignore"):
        same_bits(b, np.array([np.float16(value)]))


@cuda.jit
def math_on_half(x, same, widened):
    i = cuda.grid(1)
    if i < x.size:
        h = x[i]
        # numba-cuda's float16 overloads are the cuda.fp16 functions, in float16
        same[i, 0] = math.sin(h) == cuda.fp16.hsin(h) or math.isnan(math.sin(h))
        same[i, 1] = math.sqrt(h) == cuda.fp16.hsqrt(h) or math.isnan(math.sqrt(h))
        same[i, 2] = math.floor(h) == cuda.fp16.hfloor(h) or math.isnan(h)
        same[i, 3] = math.exp(h) == cuda.fp16.hexp(h) or math.isnan(h)
        widened[i] = math.atan(h)  # no float16 overload: computed in float32


def test_math_functions_on_half(cutwin_backend):
    x = halves(4096, 9)
    same = np.zeros((x.size, 4), np.bool_)
    widened = np.zeros(x.size, np.float32)
    math_on_half[32, 128](x, same, widened)
    assert same.all()
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(widened, np.arctan(x.astype(np.float32)), rtol=1e-6)
