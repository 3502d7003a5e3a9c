"""Complex numbers in kernels: complex64/complex128 arrays and scalars, arithmetic with
numba's typing (complex64 with float32 stays complex64; with int32 or float64 it becomes
complex128), .real/.imag/.conjugate(), abs, complex(), imaginary literals and the cmath
module. NumPy and Python's cmath are the oracles."""
import cmath
import math

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import TypingError


@cuda.jit
def arithmetic(a, b, out, mag, parts):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = -x
        out[i, 5] = x.conjugate()
        out[i, 6] = complex(x.real, 2.0)
        out[i, 7] = x * 2 + 0.5j
        mag[i] = abs(x)
        parts[i, 0] = x.real
        parts[i, 1] = x.imag
        parts[i, 2] = x == y
        parts[i, 3] = x != y


def complex_data(n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n) + 1j * rng.standard_normal(n)


def test_complex128_arithmetic(cutwin_backend):
    a, b = complex_data(300, 1), complex_data(300, 2)
    b[7] = a[7]
    b[8] = 0  # division by zero gives nan, nan (numba raises only on the CPU)
    out = np.zeros((300, 8), np.complex128)
    mag, parts = np.zeros(300), np.zeros((300, 4))
    arithmetic.forall(300)(a, b, out, mag, parts)
    with np.errstate(all="ignore"):
        q = a / b
    exact = [a + b, a - b, None, None, -a, a.conj(), a.real + 2j, a * 2 + 0.5j]
    for k, e in enumerate(exact):
        if e is not None:
            np.testing.assert_array_equal(out[:, k], e)
    np.testing.assert_allclose(out[:, 2], a * b, rtol=1e-15, atol=1e-15)
    ok = np.arange(300) != 8
    np.testing.assert_allclose(out[ok, 3], q[ok], rtol=1e-15, atol=1e-15)
    assert np.isnan(out[8, 3].real) and np.isnan(out[8, 3].imag)
    np.testing.assert_allclose(mag, np.abs(a), rtol=4.5e-16)
    np.testing.assert_array_equal(parts[:, 0], a.real)
    np.testing.assert_array_equal(parts[:, 1], a.imag)
    np.testing.assert_array_equal(parts[:, 2], a == b)
    np.testing.assert_array_equal(parts[:, 3], a != b)


@cuda.jit
def mixed(z, f, k, same, wide):
    i = cuda.grid(1)
    if i < z.size:
        same[i] = z[i] + f[i]        # complex64 + float32 -> complex64
        wide[i] = z[i] * k[i] - 1.0  # complex64 * int32 -> complex128


def test_complex64_typing_follows_numba(cutwin_backend):
    z = complex_data(100, 3).astype(np.complex64)
    f = np.linspace(-1, 1, 100, dtype=np.float32)
    k = np.arange(100, dtype=np.int32) - 50
    same, wide = np.zeros(100, np.complex64), np.zeros(100, np.complex128)
    mixed.forall(100)(z, f, k, same, wide)
    np.testing.assert_array_equal(same, z + f)  # float32 arithmetic on each part
    np.testing.assert_array_equal(wide, z.astype(np.complex128) * k - 1.0)
    ir = mixed.inspect_llvm("void(complex64[::1], float32[::1], int32[::1], complex64[::1], complex128[::1])")
    assert "fadd float" in ir


@cuda.jit
def scale_by(out, z, c):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = z[i] * c


def test_complex_scalar_arguments(cutwin_backend):
    z = complex_data(64, 4)
    out = np.zeros_like(z)
    scale_by.forall(64)(out, z, 2 - 1j)  # a Python complex: complex128
    np.testing.assert_allclose(out, z * (2 - 1j), rtol=1e-15, atol=1e-15)
    z64, out64 = z.astype(np.complex64), np.zeros(64, np.complex64)
    scale_by.forall(64)(out64, z64, np.complex64(0.5 + 0.25j))  # a NumPy scalar keeps complex64
    np.testing.assert_allclose(out64, z64 * np.complex64(0.5 + 0.25j), rtol=1e-6, atol=1e-6)


@cuda.jit
def cmath_functions(z, out, flags, pol):
    i = cuda.grid(1)
    if i < z.size:
        v = z[i]
        out[i, 0] = cmath.exp(v)
        out[i, 1] = cmath.log(v)
        out[i, 2] = cmath.log10(v)
        out[i, 3] = cmath.sqrt(v)
        out[i, 4] = cmath.sin(v)
        out[i, 5] = cmath.cos(v)
        out[i, 6] = cmath.tan(v)
        out[i, 7] = cmath.sinh(v)
        out[i, 8] = cmath.cosh(v)
        out[i, 9] = cmath.tanh(v)
        out[i, 10] = cmath.rect(abs(v), cmath.phase(v))
        r, p = cmath.polar(v)
        pol[i, 0] = r
        pol[i, 1] = p
        flags[i, 0] = cmath.isnan(v)
        flags[i, 1] = cmath.isinf(v)
        flags[i, 2] = cmath.isfinite(v)


def test_cmath_functions(cutwin_backend):
    z = np.random.default_rng(5).uniform(-3, 3, 400) + 1j * np.random.default_rng(6).uniform(-3, 3, 400)
    z[0], z[1], z[2] = complex(float("nan"), 1), complex(float("inf"), 0), -4 + 0j
    out = np.zeros((400, 11), np.complex128)
    flags, pol = np.zeros((400, 3), np.bool_), np.zeros((400, 2))
    cmath_functions.forall(400)(z, out, flags, pol)
    fs = [cmath.exp, cmath.log, cmath.log10, cmath.sqrt, cmath.sin, cmath.cos, cmath.tan, cmath.sinh, cmath.cosh,
          cmath.tanh, lambda v: cmath.rect(abs(v), cmath.phase(v))]
    for k, f in enumerate(fs):
        want = np.array([f(v) for v in z[2:]])
        np.testing.assert_allclose(out[2:, k], want, rtol=1e-13, atol=1e-14, err_msg="function %d" % k)
    np.testing.assert_allclose(pol[2:, 0], np.abs(z[2:]), rtol=4.5e-16)
    np.testing.assert_allclose(pol[2:, 1], np.angle(z[2:]), rtol=4.5e-16)
    np.testing.assert_array_equal(flags[:3], [[True, False, False], [False, True, False], [False, False, True]])
    assert out[2, 3] == 2j  # sqrt(-4)


def test_unsupported_operations_are_typing_errors():
    @cuda.jit
    def ordered(r, a, b):
        r[0] = a[0] < b[0]

    @cuda.jit
    def floor_div(r, a, b):
        r[0] = a[0] // b[0]

    @cuda.jit
    def store_complex(r):
        r[0] = 1j

    @cuda.jit
    def add_complex(r, z):
        r[0] += z[0]

    z = np.zeros(1, np.complex128)
    with pytest.raises(TypingError):
        ordered[1, 1](np.zeros(1, np.bool_), z, z)
    with pytest.raises(TypingError):
        floor_div[1, 1](z, z, z)
    # numba has no complex-to-real conversion: an element store of one is a typing error
    # at the store's position, not an internal error.
    line = store_complex.py_func.__code__.co_firstlineno + 2
    with pytest.raises(TypingError, match=r"test_complex.py:%d:\d+: error: cannot store complex128 into an array of "
                                          r"float32" % line):
        store_complex[1, 1](np.zeros(1, np.float32))
    with pytest.raises(TypingError, match="cannot store complex128 into an array of float64"):
        add_complex[1, 1](np.zeros(1), z)


@cuda.jit
def inverse_functions(z, w, out):
    i = cuda.grid(1)
    if i < z.size:
        v = z[i]
        out[i, 0] = cmath.asin(v)
        out[i, 1] = cmath.acos(v)
        out[i, 2] = cmath.atan(v)
        out[i, 3] = cmath.asinh(v)
        out[i, 4] = cmath.acosh(v)
        out[i, 5] = cmath.atanh(v)
        out[i, 6] = v ** w[i]
        out[i, 7] = v ** 2


def test_inverse_functions_and_power(cutwin_backend):
    rng = np.random.default_rng(7)
    z = rng.uniform(-3, 3, 500) + 1j * rng.uniform(-3, 3, 500)
    w = rng.uniform(-2, 2, 500) + 1j * rng.uniform(-2, 2, 500)
    z[0], w[0], w[1] = 0, 0, 0  # 0 ** 0 is 1; z ** 0 is 1
    out = np.zeros((500, 8), np.complex128)
    inverse_functions.forall(500)(z, w, out)
    for k, f in enumerate([cmath.asin, cmath.acos, cmath.atan, cmath.asinh, cmath.acosh, cmath.atanh]):
        want = np.array([f(v) for v in z])
        np.testing.assert_allclose(out[:, k], want, rtol=1e-13, atol=1e-14, err_msg="function %d" % k)
    np.testing.assert_allclose(out[:, 6], z ** w, rtol=1e-13)
    np.testing.assert_allclose(out[:, 7], z * z, rtol=1e-14, atol=1e-14)
    assert out[0, 6] == 1 and out[1, 6] == 1


@cuda.jit
def every_cmath_function(z, out):
    i = cuda.grid(1)
    if i < z.size:
        v = z[i]
        out[i, 0] = cmath.sqrt(v)
        out[i, 1] = cmath.log(v)
        out[i, 2] = cmath.log10(v)
        out[i, 3] = cmath.asin(v)
        out[i, 4] = cmath.acos(v)
        out[i, 5] = cmath.atan(v)
        out[i, 6] = cmath.asinh(v)
        out[i, 7] = cmath.acosh(v)
        out[i, 8] = cmath.atanh(v)


def test_branch_cuts_follow_the_sign_of_zero(cutwin_backend):
    # On a branch cut the sign of a zero part picks the side, as C99 and Python's cmath
    # (and so numba) say: asin(2 + 0j) = pi/2 + 1.317j but asin(2 - 0j) = pi/2 - 1.317j.
    pts = []
    for x in (0.5, 1.0, 1.5, 2.0, 3.0):  # the real axis beyond +-1 (asin, acos, atanh, acosh, log, sqrt)
        for sx in (1, -1):
            for zi in (0.0, -0.0):
                pts.append(complex(sx * x, zi))
    for y in (0.5, 1.0, 1.5, 2.0, 3.0):  # the imaginary axis beyond +-i (atan, asinh)
        for sy in (1, -1):
            for zr in (0.0, -0.0):
                pts.append(complex(zr, sy * y))
    z = np.array(pts)
    out = np.zeros((z.size, 9), np.complex128)
    every_cmath_function.forall(z.size)(z, out)
    fs = [cmath.sqrt, cmath.log, cmath.log10, cmath.asin, cmath.acos, cmath.atan, cmath.asinh, cmath.acosh,
          cmath.atanh]
    for k, f in enumerate(fs):
        for j, v in enumerate(z):
            try:
                want = f(v)
            except ValueError:  # a pole (log 0, atanh +-1, atan +-i): inf/nan by C's rules
                continue
            got = out[j, k]
            assert abs(got - want) <= 1e-13 * max(1.0, abs(want)), (f.__name__, v, got, want)
            for g, w in ((got.real, want.real), (got.imag, want.imag)):
                if w != 0:  # the side of the cut: a part's sign
                    assert np.sign(g) == np.sign(w), (f.__name__, v, got, want)


CMATH_SPECIAL = ["sqrt", "exp", "log", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos",
                 "atan", "asinh", "acosh", "atanh"]


def _same_part(got, want, tol):
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or want == 0:
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return abs(got - want) <= tol * abs(want)


@pytest.mark.parametrize("fn", CMATH_SPECIAL)
def test_cmath_special_values_follow_c99(cutwin_backend, fn):
    # Every pair of parts from zeros of both signs, ones, finite values and infinities: the
    # values of C99 Annex G (CPython's tables), signs of zeros included. (With a NaN part,
    # numba-cuda's algorithms and cutwin's give NaN in both parts where C99 keeps one.)
    parts = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e300, -1e-300, float("inf"), float("-inf")]
    zs = np.array([complex(a, b) for a in parts for b in parts])
    src = "def k(z, out):\n    i = cuda.grid(1)\n    if i < z.size:\n        out[i] = cmath.%s(z[i])\n" % fn
    scope = {"cuda": cuda, "cmath": cmath}
    exec(src, scope)
    kern = cuda.jit(scope["k"])
    out = np.zeros_like(zs)
    kern[1, zs.size](zs, out)
    for z, got in zip(zs, out):
        try:
            want = getattr(cmath, fn)(z)
        except (ValueError, OverflowError):
            continue  # a pole: CPython raises where C gives inf/nan
        ok = _same_part(got.real, want.real, 1e-15) and _same_part(got.imag, want.imag, 1e-15)
        assert ok, "cmath.%s(%r) = %r, CPython gives %r" % (fn, z, got, want)


def test_atan_of_infinity_and_nan(cutwin_backend):
    # C99 leaves the zero's sign open; CPython gives -0, and so does cutwin on both backends
    # (numba-cuda reaches it through the sign of a negated NaN, which the GPU does not keep)
    @cuda.jit
    def k(z, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = cmath.atan(z[i])

    nan, inf = float("nan"), float("inf")
    for dtype in (np.complex64, np.complex128):
        z = np.array([complex(inf, nan), complex(-inf, nan), complex(inf, -nan), complex(-inf, -nan)], dtype)
        out = np.zeros_like(z)
        k[1, 4](z, out)
        for v, got in zip(z, out):
            want = cmath.atan(complex(v))
            assert got.real == np.float32(want.real) if dtype == np.complex64 else got.real == want.real
            assert got.imag == 0 and math.copysign(1, got.imag) == math.copysign(1, want.imag)


def test_real_and_imag_of_complex_arrays_are_writable_views(cutwin_backend):
    """numba's arr.real / arr.imag: strided views of the parts (atomics and stores reach the
    complex array; a real array is its own real part). Oracle: NumPy's views."""
    @cuda.jit
    def k(z, x, sums):
        i = cuda.grid(1)
        if i < z.shape[0]:
            cuda.atomic.add(z.imag, (i, 1), 0.5)
            re = z.real
            re[i, 0] = re[i, 0] * 2
            x.real[i] += 1
        if i == 0:
            sums[0] = z[:, 1:].real.sum()

    z = (np.arange(6) + 1j * np.arange(6, 12)).reshape(3, 2)
    x = np.arange(3.0)
    want = z.copy()
    want.imag[:, 1] += 0.5
    want.real[:, 0] *= 2
    sums = np.zeros(1)
    k[1, 3](z, x, sums)
    np.testing.assert_array_equal(z, want)
    np.testing.assert_array_equal(x, np.arange(3.0) + 1)
    assert sums[0] == want[:, 1:].real.sum()


def test_complex_constructor_keeps_signed_zeros_as_python():
    # complex(a, b) takes the parts as given (CPython's complex_new): complex(1.0, -0.0)
    # is 1-0j, not 1+0j; a complex argument's other part is added, as in Python.
    values = [0.0, -0.0, 1.5, -math.inf, complex(-0.0, -0.0), complex(2.0, -0.0), complex(-1.0, 3.0)]

    @cuda.jit
    def one(a, out):
        out[0] = complex(a)

    @cuda.jit
    def two(a, b, out):
        out[0] = complex(a, b)

    for a in values:
        out = np.zeros(1, np.complex128)
        one[1, 1](a, out)
        np.testing.assert_array_equal(out.view(np.int64), np.array([complex(a)]).view(np.int64), err_msg=repr(a))
        for b in values:
            out = np.zeros(1, np.complex128)
            two[1, 1](a, b, out)
            np.testing.assert_array_equal(out.view(np.int64), np.array([complex(a, b)]).view(np.int64),
                                          err_msg="complex(%r, %r)" % (a, b))


def test_numpy_power_of_complex_numbers_is_the_operator(cutwin_backend):
    # np.power on complex arguments computes what `**` computes (it was an internal error)
    @cuda.jit
    def k(z, w, out):
        i = cuda.grid(1)
        if i < z.size:
            out[0, i] = np.power(z[i], w[i])
            out[1, i] = z[i] ** w[i]

    z = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 2 + 0j], np.complex128)
    w = np.array([0.5 - 1j, 2 + 0j, -1.5 + 0.5j, 3 + 0j], np.complex128)
    out = np.zeros((2, 4), np.complex128)
    k[1, 4](z, w, out)
    np.testing.assert_array_equal(out[0].view(np.int64), out[1].view(np.int64))
    np.testing.assert_allclose(out[0], z ** w, rtol=1e-13)
