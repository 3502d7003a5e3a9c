"""CUDA's 8-bit floats (numba-cuda's fp8_e5m2, fp8_e4m3, fp8_e8m0, their two- and
four-element forms fp8x2_* / fp8x4_*, and the cvt_* storage conversions of cuda_fp8.h). Oracles: ml_dtypes' float8_e5m2 / float8_e4m3fn conversions
(round to nearest, ties to even) for E5M2 and E4M3 - clipped to the largest finite value
where the conversion saturates - and, for E8M0, the powers of two computed in Python
(toward zero or up, as the header's conversions round)."""
import math

import ml_dtypes
import numpy as np
import pytest

from cutwin import cuda
from cutwin.cuda.fp8 import (cvt_bfloat16raw_to_e8m0, cvt_double2_to_e8m0x2, cvt_double2_to_fp8x2,
                             cvt_double_to_e8m0, cvt_double_to_fp8, cvt_e8m0_to_bf16raw, cvt_float2_to_e8m0x2,
                             cvt_float2_to_fp8x2, cvt_float_to_e8m0, cvt_float_to_fp8, fp8_e4m3, fp8_e5m2,
                             fp8_e8m0, fp8_interpretation_t, fp8x2_e4m3, fp8x2_e5m2, fp8x2_e8m0, fp8x4_e4m3,
                             fp8x4_e5m2, fp8x4_e8m0, saturation_t)
from cutwin.errors import CompileError
from cutwin.types import bfloat16, float16, float32, float64, int8, int32, int64, uint8, uint16, uint64

FORMATS = {"e4m3": (ml_dtypes.float8_e4m3fn, 448.0), "e5m2": (ml_dtypes.float8_e5m2, 57344.0)}


def _inputs():
    """Every finite E4M3 and E5M2 value, the midpoints around them, and values across the
    whole float32 range (tiny, huge, infinities)."""
    vals = [np.arange(256, dtype=np.uint8).view(t).astype(np.float32) for t, _ in FORMATS.values()]
    vals = np.concatenate(vals)
    vals = vals[np.isfinite(vals)]
    s = np.sort(np.unique(vals))
    mids = ((s[1:].astype(np.float64) + s[:-1]) / 2).astype(np.float32)
    rng = np.random.default_rng(3)
    wide = (rng.standard_normal(2000) * 10.0 ** rng.integers(-12, 12, 2000)).astype(np.float32)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, 1e-30, -1e-30, 3e38, -3e38, 464.0, 465.0, 61440.0, 61439.0],
                     np.float32)
    return np.concatenate([s, mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf), wide, edges])


def _expected_bits(x, fmt, satfinite):
    t, maxnorm = FORMATS[fmt]
    y = np.clip(x, -maxnorm, maxnorm) if satfinite else x
    return y.astype(t).view(np.uint8)


@cuda.jit
def _convert_all(x, bits_nosat, bits_sat, back):
    i = cuda.grid(1)
    if i < x.size:
        bits_nosat[i, 0] = cvt_float_to_fp8(x[i], saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        bits_nosat[i, 1] = cvt_float_to_fp8(x[i], saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        bits_sat[i, 0] = cvt_float_to_fp8(x[i], saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        bits_sat[i, 1] = cvt_double_to_fp8(float64(x[i]), saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        back[i, 0] = float32(fp8_e4m3(x[i]))  # the constructor saturates
        back[i, 1] = float32(fp8_e5m2(float64(x[i])))


def test_e4m3_and_e5m2_round_to_nearest_even_and_saturate(cutwin_backend):
    x = _inputs()
    n = x.size
    nosat, sat = np.zeros((n, 2), np.uint8), np.zeros((n, 2), np.uint8)
    back = np.zeros((n, 2), np.float32)
    _convert_all[(n + 127) // 128, 128](x, nosat, sat, back)
    for col, fmt in enumerate(("e4m3", "e5m2")):
        t, _ = FORMATS[fmt]
        for got, satfinite in ((nosat[:, col], False), (sat[:, col], True)):
            want = _expected_bits(x, fmt, satfinite)
            nan = np.isnan(want.view(t).astype(np.float32))
            np.testing.assert_array_equal(got[~nan], want[~nan], err_msg="%s satfinite=%s" % (fmt, satfinite))
            # NaN: E4M3's 0x7f (with the sign), E5M2's infinity-free overflow only with NOSAT
            assert np.isnan(got[nan].view(t).astype(np.float32)).all()
        # the constructor saturates, and the float32 of an fp8 is exact
        np.testing.assert_array_equal(back[:, col], _expected_bits(x, fmt, True).view(t).astype(np.float32))


def test_nan_gives_nan_in_every_format(cutwin_backend):
    @cuda.jit
    def k(out, bits):
        nan = float32(float("nan"))
        out[0] = float32(fp8_e5m2(nan))
        out[1] = float32(fp8_e4m3(nan))
        out[2] = float32(fp8_e8m0(nan))
        out[3] = float64(fp8_e4m3(nan))
        out[4] = float32(float16(fp8_e5m2(nan)))
        bits[0] = cvt_float_to_fp8(nan, saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        bits[1] = cvt_float_to_fp8(nan, saturation_t.NOSAT, fp8_interpretation_t.E4M3)

    out, bits = np.zeros(5, np.float32), np.zeros(2, np.uint8)
    k[1, 1](out, bits)
    assert np.isnan(out).all()
    assert bits.tolist() == [0x7F, 0x7F]  # the canonical NaN of both formats


def _e8m0_bits(x, satfinite, up):
    """The E8M0 (2^(bits - 127)) of float32 x: the power of two at or above |x| (up) or at
    or below it (toward zero, through bfloat16), clamped to 2^-127; NaN 0xff; overflow 0xff
    unless saturating (0xfe)."""
    if math.isnan(x):
        return 0xFF
    a = abs(float(x))
    if math.isinf(a):
        e = 128
    elif a == 0:
        e = -127
    else:
        m, k = math.frexp(a)  # a = m 2^k, 0.5 <= m < 1
        e = (k - 1) if (m == 0.5 or not up) else k
        if not up:  # toward zero through bfloat16: below 2^-126 the exponent field is 0
            e = max(e, -127) if a >= 2.0 ** -126 else -127
        e = max(e, -127)
    if e > 127:
        return 0xFE if satfinite else 0xFF
    return e + 127


@cuda.jit
def _e8m0_all(x, up_nosat, up_sat, zero_sat, ctor, from_double):
    i = cuda.grid(1)
    if i < x.size:
        up_nosat[i] = cvt_float_to_e8m0(x[i], saturation_t.NOSAT, 2)  # cudaRoundPosInf
        up_sat[i] = cvt_float_to_e8m0(x[i], saturation_t.SATFINITE, 2)
        zero_sat[i] = cvt_float_to_e8m0(x[i], saturation_t.SATFINITE, 1)  # cudaRoundZero
        ctor[i] = float32(fp8_e8m0(x[i]))
        from_double[i] = cvt_double_to_e8m0(float64(x[i]), saturation_t.SATFINITE, 2)


def test_e8m0_rounds_to_powers_of_two(cutwin_backend):
    rng = np.random.default_rng(5)
    x = np.concatenate([(rng.standard_normal(3000) * 10.0 ** rng.integers(-38, 38, 3000)).astype(np.float32),
                        np.float32(2.0) ** np.arange(-127, 128, dtype=np.float32),
                        np.array([0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4e38,
                                  np.nextafter(np.float32(2.0 ** 127), np.float32(np.inf))], np.float32)])
    n = x.size
    outs = [np.zeros(n, np.uint8) for _ in range(3)] + [np.zeros(n, np.float32), np.zeros(n, np.uint8)]
    _e8m0_all[(n + 127) // 128, 128](x, *outs)
    up_nosat, up_sat, zero_sat, ctor, from_double = outs
    assert up_nosat.tolist() == [_e8m0_bits(v, False, True) for v in x]
    assert up_sat.tolist() == [_e8m0_bits(v, True, True) for v in x]
    assert zero_sat.tolist() == [_e8m0_bits(v, True, False) for v in x]
    assert from_double.tolist() == up_sat.tolist()  # float64 holds the float32 exactly
    want = np.array([_e8m0_bits(v, True, True) for v in x], np.uint8).view(ml_dtypes.float8_e8m0fnu)
    np.testing.assert_array_equal(ctor, want.astype(np.float32))


def test_e8m0_storage_round_trips_through_bfloat16_raw(cutwin_backend):
    @cuda.jit
    def k(bits, raw, back_zero, back_up):
        i = cuda.grid(1)
        if i < bits.size:
            r = cvt_e8m0_to_bf16raw(bits[i])
            raw[i] = r.x
            back_zero[i] = cvt_bfloat16raw_to_e8m0(r, saturation_t.NOSAT, 1)
            back_up[i] = cvt_bfloat16raw_to_e8m0(r, saturation_t.NOSAT, 2)

    bits = np.arange(256, dtype=np.uint8)
    raw, bz, bu = np.zeros(256, np.uint16), np.zeros(256, np.uint8), np.zeros(256, np.uint8)
    k[2, 128](bits, raw, bz, bu)
    want = bits.view(ml_dtypes.float8_e8m0fnu).astype(ml_dtypes.bfloat16).view(np.uint16).copy()
    want[255] = 0x7FFF  # the canonical bfloat16 NaN
    np.testing.assert_array_equal(raw, want)
    np.testing.assert_array_equal(bz, bits)
    np.testing.assert_array_equal(bu, bits)


def test_integers_to_and_from_fp8(cutwin_backend):
    @cuda.jit
    def k(n, e4m3, e5m2, e8m0, to_int, to_u8, to_i8):
        i = cuda.grid(1)
        if i < n.size:
            v = n[i]
            e4m3[i] = float32(fp8_e4m3(v))
            e5m2[i] = float32(fp8_e5m2(int64(v)))
            e8m0[i] = float32(fp8_e8m0(v))
            to_int[i] = int32(fp8_e4m3(v))
            to_u8[i] = uint8(fp8_e5m2(v))
            to_i8[i] = int8(fp8_e5m2(v))

    n = np.arange(-70000, 70000, 37, dtype=np.int32)
    outs = [np.zeros(n.size, np.float32) for _ in range(3)] + [np.zeros(n.size, np.int32), np.zeros(n.size, np.uint8),
                                                                np.zeros(n.size, np.int8)]
    k[(n.size + 127) // 128, 128](n, *outs)
    e4m3, e5m2, e8m0, to_int, to_u8, to_i8 = outs
    f = n.astype(np.float32)
    want4 = _expected_bits(f, "e4m3", True).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    want5 = _expected_bits(f, "e5m2", True).view(ml_dtypes.float8_e5m2).astype(np.float32)
    np.testing.assert_array_equal(e4m3, want4)
    np.testing.assert_array_equal(e5m2, want5)
    np.testing.assert_array_equal(e8m0, [2.0 ** (_e8m0_bits(float(v), True, True) - 127) for v in n.astype(np.float64)])
    np.testing.assert_array_equal(to_int, np.trunc(want4).astype(np.int32))
    np.testing.assert_array_equal(to_u8, np.clip(np.trunc(want5), 0, 255).astype(np.uint8))
    np.testing.assert_array_equal(to_i8, np.clip(np.trunc(want5), -128, 127).astype(np.int8))


def test_every_constructor_and_conversion_type(cutwin_backend):
    @cuda.jit
    def k(out, ints):
        x = fp8_e4m3(float16(2.5))
        y = fp8_e5m2(bfloat16(-3.0))
        z = fp8_e8m0(uint16(5))
        out[0] = float32(x)
        out[1] = float32(float16(x))
        out[2] = float32(bfloat16(y))
        out[3] = float64(z)
        out[4] = float32(fp8_e4m3(y))  # one format to another
        ints[0] = uint64(z)
        ints[1] = int64(y)
        ints[2] = bool(fp8_e4m3(float32(0.0)))
        ints[3] = bool(z)

    out, ints = np.zeros(5), np.zeros(4, np.int64)
    k[1, 1](out, ints)
    assert out.tolist() == [2.5, 2.5, -3.0, 8.0, -3.0]
    assert ints.tolist() == [8, -3, 0, 1]


def test_fp8_has_no_arithmetic():
    @cuda.jit
    def k(out):
        a = fp8_e4m3(float32(1.5))
        out[0] = float32(a + a)

    with pytest.raises(CompileError, match="unsupported operand types for \\+: 'fp8_e4m3' and 'fp8_e4m3'"):
        k[1, 1](np.zeros(1, np.float32))


def test_cvt_arguments_must_be_constants():
    @cuda.jit
    def k(out, mode):
        out[0] = cvt_float_to_fp8(float32(1.0), mode, fp8_interpretation_t.E4M3)

    with pytest.raises(CompileError, match="saturation must be a constant saturation_t"):
        k[1, 1](np.zeros(1, np.uint8), 1)


def test_fp8_is_supported():
    assert cuda.is_fp8_supported()


# The two- and four-element forms: each element converted as the scalar constructor (and
# the scalar cvt) converts it, the first element in the lowest byte.

def _packed(byte_columns):
    """The little-endian integer of each row's bytes."""
    out = np.zeros(byte_columns[0].shape, np.uint64)
    for k, col in enumerate(byte_columns):
        out |= col.astype(np.uint64) << np.uint64(8 * k)
    return out


def _ctor_bits(x, fmt):
    """The scalar constructor's bits (saturating; E8M0 rounds up) of each float32 in x."""
    if fmt == "e8m0":
        return np.array([_e8m0_bits(v, True, True) for v in x], np.uint8)
    return _expected_bits(x, fmt, True)


@cuda.jit
def _vector_ctors(x, pairs, quads, pairs64, quads64, back2, back4):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a, b, c, d = x[i, 0], x[i, 1], x[i, 2], x[i, 3]
        v2, v4 = cuda.float32x2(a, b), cuda.float32x4(a, b, c, d)
        w2 = cuda.float64x2(float64(a), float64(b))
        w4 = cuda.float64x4(float64(a), float64(b), float64(c), float64(d))
        p, q = fp8x2_e4m3(v2), fp8x4_e4m3(v4)
        pairs[i, 0], quads[i, 0] = p.__x, q.__x
        pairs[i, 1], quads[i, 1] = fp8x2_e5m2(v2).__x, fp8x4_e5m2(v4).__x
        pairs[i, 2], quads[i, 2] = fp8x2_e8m0(v2).__x, fp8x4_e8m0(v4).__x
        pairs64[i, 0], quads64[i, 0] = fp8x2_e4m3(w2).__x, fp8x4_e4m3(w4).__x
        pairs64[i, 1], quads64[i, 1] = fp8x2_e5m2(w2).__x, fp8x4_e5m2(w4).__x
        pairs64[i, 2], quads64[i, 2] = fp8x2_e8m0(w2).__x, fp8x4_e8m0(w4).__x
        f2, f4 = cuda.float32x2(p), cuda.float32x4(fp8x4_e8m0(v4))
        back2[i, 0], back2[i, 1] = f2.x, f2.y
        back4[i, 0], back4[i, 1], back4[i, 2], back4[i, 3] = f4.x, f4.y, f4.z, f4.w


def test_fp8_vectors_convert_element_by_element(cutwin_backend):
    x = _inputs()
    x = x[: x.size // 4 * 4].reshape(-1, 4)
    n = x.shape[0]
    pairs, pairs64 = np.zeros((n, 3), np.uint16), np.zeros((n, 3), np.uint16)
    quads, quads64 = np.zeros((n, 3), np.uint32), np.zeros((n, 3), np.uint32)
    back2, back4 = np.zeros((n, 2), np.float32), np.zeros((n, 4), np.float32)
    _vector_ctors[(n + 127) // 128, 128](x, pairs, quads, pairs64, quads64, back2, back4)
    for col, fmt in enumerate(("e4m3", "e5m2", "e8m0")):
        bits = [_ctor_bits(x[:, k], fmt) for k in range(4)]
        np.testing.assert_array_equal(pairs[:, col], _packed(bits[:2]), err_msg=fmt)
        np.testing.assert_array_equal(quads[:, col], _packed(bits), err_msg=fmt)
        # float64 holds each float32 exactly: the same bits
        np.testing.assert_array_equal(pairs64[:, col], pairs[:, col], err_msg=fmt)
        np.testing.assert_array_equal(quads64[:, col], quads[:, col], err_msg=fmt)
    e4m3 = _expected_bits(x[:, :2], "e4m3", True).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    np.testing.assert_array_equal(back2, e4m3)
    e8m0 = np.stack([_ctor_bits(x[:, k], "e8m0") for k in range(4)], axis=1).view(ml_dtypes.float8_e8m0fnu)
    np.testing.assert_array_equal(back4, e8m0.astype(np.float32))


@cuda.jit
def _cvt_pairs(x, fp8, e8m0):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = cuda.float32x2(x[i, 0], x[i, 1])
        w = cuda.float64x2(float64(x[i, 0]), float64(x[i, 1]))
        fp8[i, 0] = cvt_float2_to_fp8x2(v, saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        fp8[i, 1] = cvt_float2_to_fp8x2(v, saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        fp8[i, 2] = cvt_double2_to_fp8x2(w, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        fp8[i, 3] = cvt_double2_to_fp8x2(w, saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        e8m0[i, 0] = cvt_float2_to_e8m0x2(v, saturation_t.NOSAT, 2)  # cudaRoundPosInf
        e8m0[i, 1] = cvt_double2_to_e8m0x2(w, saturation_t.SATFINITE, 1)  # cudaRoundZero


def test_cvt_pairs_are_the_scalar_cvts_of_each_element(cutwin_backend):
    x = _inputs()
    x = x[: x.size // 2 * 2].reshape(-1, 2)
    n = x.shape[0]
    fp8, e8m0 = np.zeros((n, 4), np.uint16), np.zeros((n, 2), np.uint16)
    _cvt_pairs[(n + 127) // 128, 128](x, fp8, e8m0)
    for col, fmt, sat in ((0, "e4m3", False), (1, "e5m2", True), (2, "e5m2", False), (3, "e4m3", True)):
        t, _ = FORMATS[fmt]
        want = [_expected_bits(x[:, k], fmt, sat) for k in range(2)]
        got = [(fp8[:, col] >> (8 * k)).astype(np.uint8) for k in range(2)]
        for k in range(2):
            nan = np.isnan(want[k].view(t).astype(np.float32))
            np.testing.assert_array_equal(got[k][~nan], want[k][~nan], err_msg="%s sat=%s" % (fmt, sat))
            assert np.isnan(got[k][nan].view(t).astype(np.float32)).all()
    for col, sat, up in ((0, False, True), (1, True, False)):
        want = [np.array([_e8m0_bits(v, sat, up) for v in x[:, k]], np.uint8) for k in range(2)]
        np.testing.assert_array_equal(e8m0[:, col], _packed(want))


def test_fp8_vector_default_constructor_and_errors(cutwin_backend):
    @cuda.jit
    def k(out):
        out[0] = fp8x2_e5m2().__x
        out[1] = fp8x4_e8m0().__x

    out = np.full(2, 7, np.uint32)
    k[1, 1](out)
    assert out.tolist() == [0, 0]  # value-initialised, as numba's shim constructs them

    @cuda.jit
    def wrong_count(out):
        out[0] = fp8x2_e4m3(cuda.float32x4(1.0, 2.0, 3.0, 4.0)).__x

    with pytest.raises(CompileError, match=r"fp8x2_e4m3\(\) takes a float32x2 or a float64x2, not float32x4"):
        wrong_count[1, 1](np.zeros(1, np.uint16))

    @cuda.jit
    def wrong_target(out):
        v = cuda.float64x2(fp8x2_e4m3(cuda.float32x2(1.0, 2.0)))
        out[0] = v.x

    with pytest.raises(CompileError, match=r"does not convert a fp8x2_e4m3 \(a float32x2 does\)"):
        wrong_target[1, 1](np.zeros(1))

    @cuda.jit
    def wrong_pair(out):
        out[0] = cvt_float2_to_fp8x2(cuda.float64x2(1.0, 2.0), saturation_t.NOSAT, fp8_interpretation_t.E4M3)

    with pytest.raises(CompileError, match=r"cvt_float2_to_fp8x2\(\) takes a float32x2, not float64x2"):
        wrong_pair[1, 1](np.zeros(1, np.uint16))
