"""numba.cuda.libdevice called directly (`from cutwin.cuda import libdevice`): results
through pointer parameters come back as tuples, inputs convert to libdevice's declared
types, errors name the call. NumPy and Python's math are the oracles where a function is
exact; the host-side stubs raise."""
import math

import numpy as np
import pytest

from cutwin import cuda
from cutwin.cuda import libdevice


@cuda.jit
def outputs(x, y, mant, expo, frac, whole, rem, quo, s, c):
    i = cuda.grid(1)
    if i < x.size:
        mant[i], expo[i] = libdevice.frexp(x[i])
        frac[i], whole[i] = libdevice.modf(x[i])
        rem[i], quo[i] = libdevice.remquo(x[i], y[i])
        s[i], c[i] = libdevice.sincos(x[i])


def test_pointer_parameters_come_back_as_results(cutwin_backend):
    rng = np.random.default_rng(3)
    x = rng.uniform(-50, 50, 300)
    y = rng.uniform(0.5, 7, 300)
    x[:4] = [0.0, -0.0, 1e-310, 2.5]
    arrays = [np.zeros(300) for _ in range(8)]
    arrays[1] = np.zeros(300, np.int32)
    arrays[5] = np.zeros(300, np.int32)
    outputs.forall(300)(x, y, *arrays)
    mant, expo, frac, whole, rem, quo, s, c = arrays
    m_ref, e_ref = np.frexp(x)
    assert mant.tolist() == m_ref.tolist() and expo.tolist() == e_ref.tolist()
    f_ref, w_ref = np.modf(x)
    assert frac.tolist() == f_ref.tolist() and whole.tolist() == w_ref.tolist()
    assert rem.tolist() == [math.remainder(a, b) for a, b in zip(x, y)]
    # C's remquo: the quotient's sign and at least its low three bits
    for r, q, a, b in zip(rem.tolist(), quo.tolist(), x.tolist(), y.tolist()):
        n = round((a - r) / b)
        assert abs(q) % 8 == abs(n) % 8 and (q == 0 or (q < 0) == (n < 0))
    assert np.allclose(s, np.sin(x), rtol=0, atol=1e-15) and np.allclose(c, np.cos(x), rtol=0, atol=1e-15)


@cuda.jit
def rounding(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = libdevice.dadd_rd(a[i], b[i])
        out[1, i] = libdevice.dadd_ru(a[i], b[i])
        out[2, i] = libdevice.dmul_rz(a[i], b[i])
        out[3, i] = libdevice.nextafter(a[i], b[i])
        out[4, i] = libdevice.scalbn(a[i], 3)  # an int64 literal converts to int32


def test_directed_rounding_brackets_the_exact_result(cutwin_backend):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(400), rng.standard_normal(400) * 1e-3
    out = np.zeros((5, 400))
    rounding.forall(400)(a, b, out)
    exact = a + b
    assert np.all(out[0] <= exact) and np.all(out[1] >= exact)
    assert np.all((out[1] == out[0]) | (out[1] == np.nextafter(out[0], np.inf)))
    assert np.all(np.abs(out[2]) <= np.abs(a * b) * (1 + 2**-52))
    assert out[3].tolist() == np.nextafter(a, b).tolist()
    assert out[4].tolist() == (a * 8).tolist()


@cuda.jit
def integers(n, m, out):
    i = cuda.grid(1)
    if i < n.size:
        out[0, i] = libdevice.popc(n[i])
        out[1, i] = libdevice.mulhi(n[i], m[i])
        out[2, i] = libdevice.brevll(n[i])
        out[3, i] = libdevice.float_as_int(libdevice.int_as_float(n[i]))


def test_integer_functions(cutwin_backend):
    rng = np.random.default_rng(8)
    n = rng.integers(-2**31, 2**31, 200, dtype=np.int64).astype(np.int32)
    m = rng.integers(-2**31, 2**31, 200, dtype=np.int64).astype(np.int32)
    out = np.zeros((4, 200), np.int64)
    integers.forall(200)(n, m, out)
    assert out[0].tolist() == [bin(v & 0xFFFFFFFF).count("1") for v in n.tolist()]
    assert out[1].tolist() == [(a * b) >> 32 for a, b in zip(n.tolist(), m.tolist())]
    # brevll takes int64: the int32 argument is sign-extended first
    want = [int("{:064b}".format(v & (2**64 - 1))[::-1], 2) for v in n.tolist()]
    assert [v & (2**64 - 1) for v in out[2].tolist()] == want
    assert out[3].tolist() == n.tolist()


def test_host_stubs_raise():
    with pytest.raises(NotImplementedError, match="libdevice.sinf"):
        libdevice.sinf(1.0)


def test_unknown_function_and_arity_are_compile_errors(cutwin_backend):
    @cuda.jit
    def unknown(out):
        out[0] = libdevice.no_such_function(1.0)

    with pytest.raises(cuda.CompileError, match=r"test_libdevice.py:\d+:\d+: .*libdevice has no function "
                                                 r"'no_such_function'"):
        unknown[1, 1](np.zeros(1))

    @cuda.jit
    def arity(out):
        out[0] = libdevice.sinf(1.0, 2.0)

    with pytest.raises(cuda.CompileError, match=r"libdevice.sinf\(\) takes 1 argument, 2 given"):
        arity[1, 1](np.zeros(1))
