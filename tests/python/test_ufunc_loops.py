"""NumPy ufuncs called in kernels with an output array (`np.less(a, b, out)`): every
comparison, logical, bitwise and complex loop on every type pair they take, on scalars,
C and F arrays, against NumPy's own ufuncs (one thread computes the whole output)."""
import itertools

import numpy as np
import pytest

from cutwin import cuda

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]


def _values(dtype):
    if dtype == "bool":
        return np.array([False, True, True, False, True, False], dtype)
    if dtype.startswith("uint"):
        return np.array([0, 1, 2, 7, np.iinfo(dtype).max, 3], dtype)
    if dtype.startswith("int"):
        return np.array([-1, 0, 1, np.iinfo(dtype).min, np.iinfo(dtype).max, -7], dtype)
    if dtype.startswith("complex"):
        return np.array([-0.5 - 0.5j, 0, 0.5 + 0.5j, 0.5 - 2j, complex(np.nan, 1), 3 + 0j], dtype)
    return np.array([-0.5, 0.0, 0.5, np.nan, np.inf, -2.0], dtype)


def _kernel(name, nin):
    args = ", ".join("a%d" % k for k in range(nin + 1))
    scope = {"np": np}
    exec("def k(%s):\n    np.%s(%s)\n" % (args, name, args), scope)
    return cuda.jit(scope["k"])


def _check(name, inputs, out_dtype):
    kern = _kernel(name, len(inputs))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(*inputs)
    got = np.zeros(np.shape(want), out_dtype)
    kern[1, 1](*inputs, got)
    np.testing.assert_array_equal(got, want.astype(out_dtype), err_msg="%s%s" % (
        name, tuple(getattr(x, "dtype", type(x)) for x in inputs)))


COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("name", COMPARISONS)
def test_comparisons_on_every_type_pair(cutwin_backend, name):
    types_ = INTS + FLOATS + ["bool"]
    for ta, tb in itertools.product(types_, types_):
        a, b = _values(ta), _values(tb)
        with np.errstate(all="ignore"):
            _check(name, (a, b), np.bool_)
    for t in COMPLEX:  # complex numbers order by real part, then imaginary part
        a = _values(t)
        _check(name, (a, a[::-1].copy()), np.bool_)


def test_signed_and_unsigned_64_bit_compare_exactly(cutwin_backend):
    a = np.array([-1, -1, 0, 0, 1, 1, np.iinfo(np.int64).min], np.int64)
    b = np.array([0, 1, 0, 1, 0, 1, np.iinfo(np.uint64).max], np.uint64)
    for name in COMPARISONS:
        _check(name, (a, b), np.bool_)
        _check(name, (b, a), np.bool_)
        _check(name, (np.int64(-1), np.zeros(1, np.uint64)), np.bool_)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor", "logical_not"])
def test_logical_ufuncs(cutwin_backend, name):
    nin = 1 if name == "logical_not" else 2
    for t in INTS + FLOATS + COMPLEX + ["bool"]:
        a = _values(t)
        _check(name, (a,) * nin if nin == 1 else (a, a[::-1].copy()), np.bool_)


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift",
                                  "right_shift"])
def test_bitwise_ufuncs(cutwin_backend, name):
    for t in INTS + ["bool"]:
        if name.endswith("shift") and t == "bool":
            continue
        a = _values(t)
        if name == "invert":
            _check(name, (a,), a.dtype)
            continue
        b = np.array([1, 0, 3, 2, 1, 5], t) if name.endswith("shift") else a[::-1].copy()
        _check(name, (a, b), np.result_type(a, b))


COMPLEX_MATH = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
                "arctanh", "exp", "log", "log2", "log10", "sqrt"]


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_math_ufuncs(cutwin_backend, dtype):
    z = np.array([-0.5 - 0.5j, 0.25j, 0.5 + 0.5j, 2 - 1j, -3 + 0.1j], dtype)
    tol = 1e-5 if dtype == "complex64" else 1e-13
    for name in COMPLEX_MATH:
        kern = _kernel(name, 1)
        got = np.zeros_like(z)
        kern[1, 1](z, got)
        np.testing.assert_allclose(got, getattr(np, name)(z), rtol=tol, atol=tol, err_msg=name)
    for name in ["isnan", "isinf", "isfinite"]:
        w = np.array([complex(np.nan, 0), complex(0, np.inf), 1 + 1j, complex(-np.inf, np.nan)], dtype)
        _check(name, (w,), np.bool_)
    got = np.zeros(z.size, z.real.dtype)
    _kernel("absolute", 1)[1, 1](z, got)
    np.testing.assert_allclose(got, np.abs(z), rtol=tol)
    _check("negative", (z,), z.dtype)


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_min_max_ufuncs_on_complex_and_nan(cutwin_backend, name):
    for t in COMPLEX + FLOATS:
        a = _values(t)
        _check(name, (a, a[::-1].copy()), a.dtype)


def test_ufuncs_on_fortran_and_scalar_inputs(cutwin_backend):
    a = np.asfortranarray(np.linspace(-1, 1, 12).reshape(3, 4))
    out = np.asfortranarray(np.zeros((3, 4)))
    _kernel("arctan2", 2)[1, 1](a, a.T.copy().T, out)
    np.testing.assert_allclose(out, np.arctan2(a, a))
    res = np.zeros(1, np.bool_)
    _kernel("greater", 2)[1, 1](np.float32(0.5), np.int32(0), res)
    assert res[0]
