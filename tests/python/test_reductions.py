"""NumPy's whole-array reductions in kernels (np.sum, np.prod, np.mean, np.var, np.std,
np.min/amin, np.max/amax, np.all, np.any, np.nan*, np.count_nonzero and the array methods
of the same names) and numba's literal_unroll over heterogeneous tuples. Oracle: NumPy on
the host. Arrays have at most 7 elements where results are compared exactly: NumPy then
adds in the same order as numba's one pass (its pairwise summation starts at 8)."""
import warnings
from fractions import Fraction

import numpy as np
import pytest

from cutwin import cuda
from cutwin.cuda import literal_unroll
from cutwin.errors import CompileError

NAN, INF = float("nan"), float("inf")

FLOAT_CASES = [
    [1.0, 2.0, 0.0, -0.0, 1.0, -1.5],
    [-0.0, -1.5],
    [-1.5, 2.5, INF],
    [-1.5, 2.5, INF, -INF],
    [NAN, -1.5, 2.5, NAN, 3.0],
    [5.0, NAN, -1.5, NAN],
    [NAN, NAN],
    [0.1, 0.7, 1e-3, 3.3, -2.2, 9.5, 0.25],
]

REDUCTIONS = ["sum", "prod", "mean", "var", "std", "min", "max", "amin", "amax", "all", "any",
              "nanmin", "nanmax", "nanmean", "nansum", "nanprod", "count_nonzero"]


def _reduction_kernel(name):
    fn = getattr(np, name)

    @cuda.jit
    def k(a, out):
        out[0] = fn(a)
    return k


def _numba_var(a):
    """numba's np.var, step by step in Python's float64: the mean of one pass, then one
    pass of squared differences, `ssd += d * d` contracted to one fused multiply-add as
    CUDA's compilers contract it (NumPy subtracts and squares array-wise, and can differ
    in the last bit)."""
    m = 0.0
    for x in a:
        m += x
    m /= len(a)
    ssd = 0.0
    for x in a:
        d = x - m
        if not (np.isfinite(d) and np.isfinite(ssd)):
            ssd += d * d  # NaN or infinity either way
            continue
        ssd = float(Fraction(d) * Fraction(d) + Fraction(ssd))  # fma(d, d, ssd), rounded once
    return ssd / len(a)


@pytest.mark.parametrize("name", REDUCTIONS)
def test_float64_reductions_match_numpy(cutwin_backend, name):
    k = _reduction_kernel(name)
    for case in FLOAT_CASES:
        a = np.array(case, dtype=np.float64)
        out = np.zeros(1, dtype=np.float64)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "All-NaN slice encountered"
            expected = getattr(np, name)(a)
        k[1, 1](a, out)
        if name in ("var", "std"):
            np.testing.assert_allclose(out[0], expected, rtol=4e-16, err_msg="np.%s(%r)" % (name, case))
            exact = _numba_var(case)
            if name == "var":
                np.testing.assert_array_equal(out[0], exact)
            continue
        np.testing.assert_array_equal(out[0], expected, err_msg="np.%s(%r)" % (name, case))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64, np.bool_, np.float32])
@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "all", "any", "count_nonzero", "nansum", "nanprod",
                                  "nanmin", "nanmax"])
def test_integer_bool_and_float32_reductions(cutwin_backend, name, dtype):
    rng = np.random.default_rng(7)
    a = (rng.integers(0, 4, size=(2, 3)) if dtype != np.bool_ else rng.integers(0, 2, size=(2, 3))).astype(dtype)
    expected = getattr(np, name)(a)
    if name in ("sum", "prod", "nansum", "nanprod") and np.issubdtype(dtype, np.integer):
        # numba widens integers to the machine word (NumPy too, on 64-bit Linux)
        assert np.asarray(expected).dtype.itemsize == 8
    out = np.zeros(1, dtype=np.float64)
    _reduction_kernel(name)[1, 1](a, out)
    assert out[0] == float(expected)


@pytest.mark.parametrize("name", ["mean", "var", "std", "nanmean"])
def test_statistics_of_integers_are_float64(cutwin_backend, name):
    a = np.array([[3, 1, 4], [1, 5, 9]], dtype=np.int32)
    out = np.zeros(1, dtype=np.float64)
    _reduction_kernel(name)[1, 1](a, out)
    # numba's std is var ** 0.5 (pow), NumPy's sqrt(var): the last bit may differ
    np.testing.assert_allclose(out[0], getattr(np, name)(a), rtol=4e-16)


def test_reductions_of_views_and_methods(cutwin_backend):
    a = np.arange(24, dtype=np.float64).reshape(4, 6) * 0.5 - 3

    @cuda.jit
    def k(a, out):
        v = a[1:, ::-2]  # a strided view: C order of its own indices
        out[0] = v.sum()
        out[1] = v.prod()
        out[2] = v.min()
        out[3] = v.max()
        out[4] = v.mean()
        out[5] = a[:, 2].var()
        out[6] = a[0].std()
        out[7] = v.all()
        out[8] = v.any()

    out = np.zeros(9)
    k[1, 1](a, out)
    v = a[1:, ::-2]
    # sequential sums in C order of the view (numba's one pass)
    seq_sum = 0.0
    seq_prod = 1.0
    for x in v.ravel():
        seq_sum += x
        seq_prod *= x
    np.testing.assert_array_equal(out, [seq_sum, seq_prod, v.min(), v.max(), seq_sum / v.size, np.var(a[:, 2]),
                                        np.std(a[0]), v.all(), v.any()])


def test_complex_sum_mean_and_var(cutwin_backend):
    a = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], dtype=np.complex128)

    @cuda.jit
    def k(a, out, var):
        out[0] = np.sum(a)
        out[1] = np.mean(a)
        out[2] = np.prod(a)
        var[0] = np.var(a)

    out = np.zeros(3, dtype=np.complex128)
    var = np.zeros(1)
    k[1, 1](a, out, var)
    np.testing.assert_allclose(out, [np.sum(a), np.mean(a), np.prod(a)], rtol=1e-15)
    np.testing.assert_allclose(var[0], np.var(a), rtol=1e-15)


def test_min_of_an_empty_array_raises_value_error(cutwin_backend):
    @cuda.jit
    def k(a, out):
        out[0] = np.min(a)

    with pytest.raises(Exception, match="zero-size array to reduction operation minimum"):
        k[1, 1](np.zeros(0), np.zeros(1))
        cuda.synchronize()


def test_reduction_of_a_non_array_is_a_compile_error():
    @cuda.jit
    def k(out):
        out[0] = np.sum(out[0])

    with pytest.raises(CompileError, match=r"np.sum\(\) needs an array of numbers, not float64"):
        k[1, 1](np.zeros(1))


GLOBAL_CASES = (
    np.float64([1.0, 1.5, INF]),
    np.float64([[1.0, 1.5], [0.5, 2.0]]),
    np.int32([7, 0, 9]),
    np.array([True, False, True]),
    np.array(3),          # a 0-d array
    np.float64([]),       # an empty one
)


def test_literal_unroll_over_a_global_tuple_of_arrays(cutwin_backend):
    @cuda.jit
    def k(out, sizes):
        i = 0
        for arr in literal_unroll(GLOBAL_CASES):
            out[i] = np.count_nonzero(arr)
            sizes[i] = arr.size * 10 + arr.ndim
            i += 1

    out = np.zeros(len(GLOBAL_CASES), dtype=np.int64)
    sizes = np.zeros(len(GLOBAL_CASES), dtype=np.int64)
    k[1, 1](out, sizes)
    assert out.tolist() == [np.count_nonzero(a) for a in GLOBAL_CASES]
    assert sizes.tolist() == [a.size * 10 + a.ndim for a in GLOBAL_CASES]


def test_literal_unroll_over_arguments_and_tuples_written_in_place(cutwin_backend):
    @cuda.jit
    def k(t, out):
        i = 0
        for v in literal_unroll(t):
            out[i] = v * 2
            i += 1
        for w in literal_unroll((1, 2.5, True)):
            out[i] = w + 1
            i += 1
        for x, y in literal_unroll(((1, 2.0), (3.5, 4))):  # unpacked, each pair its own types
            out[i] = x - y
            i += 1

    out = np.zeros(8)
    k[1, 1]((np.int32(3), 1.25, np.float32(0.5)), out)
    assert out.tolist() == [6, 2.5, 1.0, 2, 3.5, 2, -1.0, -0.5]


def test_literal_unroll_in_a_device_function_and_nested(cutwin_backend):
    @cuda.jit(device=True)
    def total(t):
        s = 0.0
        for v in literal_unroll(t):
            for w in literal_unroll(t):
                s += v * w
        return s

    @cuda.jit
    def k(out):
        out[0] = total((1, 2.5, np.float32(4.0)))

    out = np.zeros(1)
    k[1, 1](out)
    assert out[0] == (1 + 2.5 + 4.0) ** 2


def test_literal_unroll_errors():
    @cuda.jit
    def jumps(out):
        for v in literal_unroll((1, 2.0)):
            if v > 1:
                break
            out[0] = v

    with pytest.raises(CompileError, match="'break' in a literal_unroll loop is not supported"):
        jumps[1, 1](np.zeros(1))

    @cuda.jit
    def unknown(out, n):
        t = (n, 2.0)
        for v in literal_unroll(t):
            out[0] += v

    with pytest.raises(CompileError, match="literal_unroll\\(\\) needs a tuple whose length is known"):
        unknown[1, 1](np.zeros(1), 3)


def test_literal_unroll_on_the_host_is_its_argument():
    t = (1, "a", 2.0)
    assert literal_unroll(t) is t
