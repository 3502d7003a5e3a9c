"""cuda.vectorize and cuda.guvectorize against NumPy: loop selection by dtype,
broadcasting over any number of dimensions, C and F inputs, host and device arrays,
`out=`, reduce, lazy typing, core dimensions, several outputs, and the errors."""
import math

import numpy as np
import pytest

from cutwin import cuda
from cutwin.cuda import float32, float64, guvectorize, int32, uint32, vectorize, void

SIGS = [int32(int32, int32), float32(float32, float32), float64(float64, float64)]


def _add(a, b):
    return a + b


def test_loops_keep_the_input_dtype_and_broadcast(cutwin_backend):
    vadd = vectorize(SIGS)(_add)
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32, np.int32):
        for nd in range(1, 6):
            a = (rng.random((3,) * nd) * 100).astype(dtype)
            b = np.asfortranarray(a.T)
            got = vadd(a, b)
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, a + b)
    x = rng.random((4, 3, 1))
    np.testing.assert_allclose(vadd(x, x.transpose(2, 1, 0)), x + x.transpose(2, 1, 0))
    assert vadd(1.5, 2.25) == 3.75 and np.ndim(vadd(1.5, 2.25)) == 0
    np.testing.assert_array_equal(vadd((1.0, 2.0), [3.0, 4.0]), [4.0, 6.0])
    with pytest.raises(TypeError, match="no loop"):
        vadd(np.zeros(2, np.complex128), np.zeros(2, np.complex128))


def test_device_arrays_out_and_streams(cutwin_backend):
    vadd = vectorize(SIGS)(_add)
    x = np.arange(10, dtype=np.int32).reshape(2, 5)
    dx = cuda.to_device(x)
    d = vadd(dx, 1)
    assert isinstance(d, cuda.DeviceNDArray)
    np.testing.assert_array_equal(d.copy_to_host(), x + 1)
    vadd(dx, dx, out=dx)
    np.testing.assert_array_equal(dx.copy_to_host(), x + x)
    out = np.empty(10, np.float32)
    s = cuda.stream()
    vadd(np.arange(10, dtype=np.float32), np.ones(10, np.float32), out=out, stream=s)
    np.testing.assert_array_equal(out, np.arange(10) + 1)
    with pytest.raises(TypeError, match="astype"):
        vadd(cuda.to_device(np.zeros(3, np.int64)), cuda.to_device(np.zeros(3, np.int64)))


def test_reduce_and_lazy_typing(cutwin_backend):
    vadd = vectorize(SIGS)(_add)
    for n in (1, 7, 1025):
        x = np.arange(n, dtype=np.int32)
        r = vadd.reduce(x)
        assert r == x.sum() and r.dtype == np.int32
        assert vadd.reduce(cuda.to_device(x)) == x.sum()

    @vectorize
    def sinc(x):
        if x == 0.0:
            return 1.0
        return math.sin(x * math.pi) / (math.pi * x)

    a = np.linspace(-3, 3, 50)
    np.testing.assert_allclose(sinc(a), np.sinc(a), rtol=1e-12, atol=1e-15)
    assert sinc(a.astype(np.float32)).dtype == np.float64  # the literal 1.0 makes the result float64
    assert sinc.__name__ == "sinc"
    twice = vectorize(lambda x: x + x)
    assert twice(np.arange(3, dtype=np.float32)).dtype == np.float32  # typed for float32 inputs
    assert twice(np.arange(3, dtype=np.int16)).dtype == np.int64  # numba's integer arithmetic


def test_vectorized_function_may_call_device_functions(cutwin_backend):
    @cuda.jit(device=True)
    def scaled(x, s):
        return x * s

    f = vectorize([float64(float64, uint32)])(lambda x, s: scaled(x, s) + 1)
    np.testing.assert_array_equal(f(np.arange(5.0), np.uint32(3)), np.arange(5.0) * 3 + 1)


def _matmul_core(dtype):
    @guvectorize([void(dtype[:, :], dtype[:, :], dtype[:, :])], "(m,n),(n,p)->(m,p)")
    def matmul(A, B, C):
        m, n = A.shape
        n, p = B.shape
        for i in range(m):
            for j in range(p):
                C[i, j] = 0
                for k in range(n):
                    C[i, j] += A[i, k] * B[k, j]

    return matmul


def test_guvectorize_core_dimensions_and_broadcast(cutwin_backend):
    mm = _matmul_core(float64)
    rng = np.random.default_rng(5)
    a, b = rng.random((301, 2, 4)), rng.random((301, 4, 5))
    np.testing.assert_allclose(mm(a, b), np.matmul(a, b))
    a, b = rng.random((3, 7, 2, 4)), rng.random((4, 5))  # loop dimensions broadcast
    np.testing.assert_allclose(mm(a, b), np.matmul(a, b))
    da = cuda.to_device(rng.random((6, 3, 3)))
    out = cuda.device_array((6, 3, 3))
    assert mm(da, da, out=out) is out
    np.testing.assert_allclose(out.copy_to_host(), np.matmul(da.copy_to_host(), da.copy_to_host()))


def test_guvectorize_scalars_and_several_outputs(cutwin_backend):
    @guvectorize(["void(int32, int32[:], int32[:])"], "(),(t)->(t)")
    def scale(a, b, out):
        for i in range(b.size):
            out[i] = a * b[i]

    b = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(scale(np.int64(3), b), 3 * b)  # host inputs are cast

    @guvectorize([(float64[:], float64[:], float64[:])], "(n),(n)->()")
    def dot(x, y, r):
        s = 0.0
        for i in range(x.size):
            s += x[i] * y[i]
        r[0] = s

    x = np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(dot(x, x + 1), (x * (x + 1)).sum(axis=1))

    @guvectorize([void(int32[:], int32[:], float64[:])], "(x)->(x),(x)")
    def copy_and_scale(a, b, c):
        for i in range(a.size):
            b[i] = a[i]
            c[i] = a[i] * 1.5

    a = np.arange(6, dtype=np.int32)
    b, c = copy_and_scale(a)
    np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(c, a * 1.5)
    b2, c2 = np.zeros_like(a), np.zeros(6)
    copy_and_scale(a, b2, c2)
    np.testing.assert_array_equal(c2, a * 1.5)


def test_guvectorize_errors():
    with pytest.raises(TypeError, match="cannot return values"):
        guvectorize([int32(int32[:], int32[:])], "(m)->(m)")(lambda x, y: None)

    @guvectorize([(int32[:], int32[:], int32[:])], "(m),(m)->(m)")
    def f(x, y, z):
        pass

    with pytest.raises(TypeError, match="accepts 2 positional arguments"):
        f(np.arange(5))
    with pytest.raises(ValueError, match="both positional and keyword"):
        f(np.arange(5), np.arange(5), np.arange(5), out=np.arange(5))
    with pytest.raises(TypeError, match="not supported"):
        guvectorize([void(float32[:])], "(x)->(x)", what=True)
