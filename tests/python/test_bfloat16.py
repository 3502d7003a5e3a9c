"""bfloat16 in kernels (numba-cuda's __nv_bfloat16): arrays of ml_dtypes' dtype and scalars,
`bfloat16(x)` from floats and integers rounded once to nearest even, +, -, *, / rounded
once from the exact result (as the GPU's bf16 instructions), unary minus, comparisons
(NaN != x), conversions to integers toward zero (saturating, NaN to 0), numba's promotion
(with float32 float32, with int32 bfloat16) and cutwin's (with a 64-bit integer float64,
where numba-cuda truncates the bfloat16). Oracle: exact rational arithmetic rounded to the
nearest bfloat16 by hand, independent of the kernels' float32 route and of ml_dtypes."""
import math
from fractions import Fraction

import numpy as np
import pytest

from cutwin import cuda
from cutwin.cuda import bfloat16, float32

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = ml_dtypes.bfloat16


def round_to_bfloat16(q):
    """The bits of the bfloat16 nearest to q (a Fraction, or a float: inf and NaN kept),
    ties to even, by exact arithmetic."""
    if isinstance(q, float):
        if math.isnan(q):
            return 0x7FFF
        if math.isinf(q):
            return 0xFF80 if q < 0 else 0x7F80
        negative = math.copysign(1.0, q) < 0
        q = Fraction(q)
    else:
        negative = q < 0
    q = abs(q)
    sign = 0x8000 if negative else 0
    if q == 0:
        return sign
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    quantum = Fraction(2) ** (max(e, -126) - 7)  # 8 significant bits; subnormals below 2^-126
    n, rest = divmod(q, quantum)
    if rest * 2 > quantum or (rest * 2 == quantum and n % 2):
        n += 1
    value = n * quantum
    if value >= Fraction(2) ** 128:
        return sign | 0x7F80
    bits = int(np.array([float(value)], np.float32).view(np.uint32)[0]) >> 16  # exact in float32
    return sign | bits


def bf16_values(bits):
    return np.asarray(bits, np.uint16).view(BF16)


def to_float64(a):
    with np.errstate(invalid="ignore"):  # ml_dtypes warns on casting its NaNs
        return np.asarray(a).astype(np.float64)


def random_bfloat16(n, seed):
    """n bfloat16 bit patterns over the whole range: normal, subnormal, zeros, inf, NaN."""
    return np.random.default_rng(seed).integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16)


def check_bits(got, want_bits, what):
    got = np.asarray(got).view(np.uint16)
    want = np.asarray(want_bits, np.uint16)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, "%s: %d differ, first at %d: %#06x against %#06x" % (what, bad.size, bad[0], got[bad[0]],
                                                                             want[bad[0]])


@cuda.jit
def arithmetic(a, b, add, sub, mul, div, neg):
    i = cuda.grid(1)
    if i < a.size:
        x, y = a[i], b[i]
        add[i] = x + y
        sub[i] = x - y
        mul[i] = x * y
        div[i] = x / y
        neg[i] = -x


def exact_result(op, x, y):
    if any(math.isnan(v) or math.isinf(v) for v in (x, y)) or (op == "/" and y == 0):
        with np.errstate(all="ignore"):  # IEEE special cases: float64 gives them exactly
            r = {"+": np.float64(x) + y, "-": np.float64(x) - y, "*": np.float64(x) * y,
                 "/": np.float64(x) / np.float64(y)}[op]
        return round_to_bfloat16(float(r))
    fx, fy = Fraction(x), Fraction(y)
    r = {"+": fx + fy, "-": fx - fy, "*": fx * fy, "/": fx / fy if fy else None}[op]
    if r == 0:  # the sign of an exact zero, as IEEE: -0 only from -0 + -0, -0 - +0 and signed products
        return round_to_bfloat16(float({"+": np.float64(x) + y, "-": np.float64(x) - y, "*": np.float64(x) * y,
                                        "/": np.float64(x) / y}[op]))
    return round_to_bfloat16(r)


def test_operators_round_once_from_the_exact_result(cutwin_backend):
    n = 4096
    a, b = random_bfloat16(n, 1), random_bfloat16(n, 2)
    outs = [np.zeros(n, BF16) for _ in range(5)]
    arithmetic[n // 128, 128](bf16_values(a), bf16_values(b), *outs)
    xs = to_float64(bf16_values(a))
    ys = to_float64(bf16_values(b))
    for op, got in zip("+-*/", outs):
        want = [exact_result(op, float(x), float(y)) for x, y in zip(xs, ys)]
        # a NaN result is the canonical 0x7fff, as the GPU's bf16 instructions give it
        check_bits(got, want, op)
    check_bits(outs[4], a ^ 0x8000, "unary minus flips the sign bit")


@cuda.jit
def from_floats(f32, f64, out32, out64):
    i = cuda.grid(1)
    if i < f32.size:
        out32[i] = bfloat16(f32[i])
        out64[i] = bfloat16(f64[i])


def test_conversions_from_floats_round_once(cutwin_backend):
    rng = np.random.default_rng(3)
    f64 = np.concatenate([
        rng.standard_normal(2000) * 10.0 ** rng.integers(-45, 39, 2000),
        [0.0, -0.0, np.inf, -np.inf, np.nan, 3.3961e38, 3.39e38, 1e-40, -1e-45, 9.2e-41],
    ])
    # float64 values just beside a bfloat16 tie: a route through float32 rounds them twice
    ties = to_float64(bf16_values(random_bfloat16(500, 4)))
    ties = ties[np.isfinite(ties) & (np.abs(ties) > 1e-37) & (np.abs(ties) < 1e38)]
    for k in (1, -1):
        f64 = np.concatenate([f64, ties * (1 + 2.0 ** -8) + k * np.abs(ties) * 2.0 ** -30])
    f32 = f64.astype(np.float32)
    out32, out64 = np.zeros(f64.size, BF16), np.zeros(f64.size, BF16)
    with np.errstate(all="ignore"):
        from_floats[(f64.size + 127) // 128, 128](f32, f64, out32, out64)
    check_bits(out32, [round_to_bfloat16(float(v)) for v in f32], "float32")
    check_bits(out64, [round_to_bfloat16(float(v)) for v in f64], "float64")


@cuda.jit
def from_integers(i32, i64, u64, o32, o64, ou64):
    i = cuda.grid(1)
    if i < i32.size:
        o32[i] = bfloat16(i32[i])
        o64[i] = bfloat16(i64[i])
        ou64[i] = bfloat16(u64[i])


def test_conversions_from_integers_round_once(cutwin_backend):
    rng = np.random.default_rng(5)
    n = 2048
    i64 = rng.integers(-(1 << 63), (1 << 63) - 1, n, dtype=np.int64) >> rng.integers(0, 63, n)
    # integers one above a bfloat16 tie (8 significant bits, then 1, then zeros, then a 1)
    near = (np.int64(0x181) << rng.integers(20, 54, n // 4)) + 1
    i64 = np.concatenate([i64, near, -near, [0, 1, -1, 789, (1 << 63) - 1, -(1 << 63)]])
    i32 = (i64 >> 32).astype(np.int32)
    u64 = i64.view(np.uint64)
    outs = [np.zeros(i64.size, BF16) for _ in range(3)]
    from_integers[(i64.size + 127) // 128, 128](i32, i64, u64, *outs)
    check_bits(outs[0], [round_to_bfloat16(Fraction(int(v))) for v in i32], "int32")
    check_bits(outs[1], [round_to_bfloat16(Fraction(int(v))) for v in i64], "int64")
    check_bits(outs[2], [round_to_bfloat16(Fraction(int(v))) for v in u64], "uint64")


@cuda.jit
def to_integers(a, i8, i32, u16, i64, f64, flag):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        i8[i] = x
        i32[i] = x
        u16[i] = x
        i64[i] = x
        f64[i] = x
        flag[i] = x


def test_conversions_to_integers_truncate_and_saturate(cutwin_backend):
    bits = random_bfloat16(4096, 6)
    a = bf16_values(bits)
    i8, i32, u16, i64 = (np.zeros(a.size, t) for t in (np.int8, np.int32, np.uint16, np.int64))
    f64, flag = np.zeros(a.size), np.zeros(a.size, np.bool_)
    to_integers[32, 128](a, i8, i32, u16, i64, f64, flag)
    x = to_float64(a)
    np.testing.assert_array_equal(f64.view(np.uint64), x.view(np.uint64))  # exact
    np.testing.assert_array_equal(flag, x != 0)  # NaN is true, as numba's (bits & 0x7fff) != 0
    for got, t in ((i8, np.int8), (i32, np.int32), (u16, np.uint16), (i64, np.int64)):
        info = np.iinfo(t)
        want = [0 if math.isnan(v) else min(max(int(v), info.min), info.max) if math.isfinite(v)
                else (info.max if v > 0 else info.min) for v in x]
        np.testing.assert_array_equal(got, np.array(want, t), err_msg=str(t))


@cuda.jit
def compare(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x, y = a[i], b[i]
        out[i, 0] = x == y
        out[i, 1] = x != y
        out[i, 2] = x < y
        out[i, 3] = x <= y
        out[i, 4] = x > y
        out[i, 5] = x >= y


def test_comparisons_as_floats(cutwin_backend):
    a, b = random_bfloat16(4096, 7), random_bfloat16(4096, 8)
    b[::3] = a[::3]  # equal pairs too
    out = np.zeros((4096, 6), np.bool_)
    compare[32, 128](bf16_values(a), bf16_values(b), out)
    x, y = to_float64(bf16_values(a)), to_float64(bf16_values(b))
    with np.errstate(invalid="ignore"):
        want = np.stack([x == y, x != y, x < y, x <= y, x > y, x >= y], 1)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def mixed(a, f, i, w, out_f32, out_bf16, out_f64):
    k = cuda.grid(1)
    if k < a.size:
        out_f32[k] = a[k] + f[k]  # float32
        out_bf16[k] = a[k] * i[k]  # bfloat16 (int32 converted, rounded once)
        out_f64[k] = a[k] + w[k]  # float64 (numba-cuda would truncate a[k] to int64)


def test_promotion_with_other_types(cutwin_backend):
    rng = np.random.default_rng(9)
    n = 1024
    a = (rng.standard_normal(n) * 100).astype(BF16)
    f = rng.standard_normal(n).astype(np.float32)
    i = rng.integers(-300, 300, n).astype(np.int32)
    w = rng.integers(-(1 << 40), 1 << 40, n)
    out_f32, out_bf16, out_f64 = np.zeros(n, np.float32), np.zeros(n, BF16), np.zeros(n)
    mixed[8, 128](a, f, i, w, out_f32, out_bf16, out_f64)
    x = to_float64(a)
    np.testing.assert_array_equal(out_f32, a.astype(np.float32) + f)
    check_bits(out_bf16, [round_to_bfloat16(Fraction(float(p)) * int(q)) for p, q in zip(x, i)], "bfloat16 * int32")
    np.testing.assert_array_equal(out_f64, x + w.astype(np.float64))


@cuda.jit("void(bfloat16, float32[::1])")
def scalar_argument(v, out):
    out[0] = float32(v)
    out[1] = float32(bfloat16(3.14))


def test_scalar_arguments_and_constants_round_to_nearest(cutwin_backend):
    out = np.zeros(2, np.float32)
    scalar_argument[1, 1](1.00390625, out)  # a tie between 1 and 1 + 2^-7: to even, 1
    assert out[0] == 1.0
    assert out[1] == np.float32(np.uint16(round_to_bfloat16(3.14)).view(BF16))
    scalar_argument[1, 1](BF16(-2.5), out)
    assert out[0] == -2.5


def test_is_bfloat16_supported_and_the_type_names():
    assert cuda.is_bfloat16_supported()
    assert cuda.bfloat16 is bfloat16
    assert bfloat16.dtype == np.dtype(BF16)


@cuda.jit(debug=True)
def stops_with_a_bfloat16(a, out):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i] * bfloat16(2.0)
        if i == 3:
            breakpoint()
        out[i] = v


def test_the_debugger_shows_and_changes_bfloat16_variables():
    from cutwin import debug

    a = np.arange(8).astype(BF16)
    out = np.zeros(8, BF16)
    seen = []

    def look(stop):
        vs = stop.variables
        seen.append((float(vs["v"]), vs["a"].dtype, float(vs["a"][5])))
        stop.set("v", -1.5)  # what the thread goes on with

    with cuda.use_backend("sim"), debug.on_breakpoint(look):
        stops_with_a_bfloat16[1, 8](a, out)
    assert seen == [(6.0, np.dtype(BF16), 5.0)]
    want = a.astype(np.float32) * 2
    want[3] = -1.5
    np.testing.assert_array_equal(out.astype(np.float32), want)
