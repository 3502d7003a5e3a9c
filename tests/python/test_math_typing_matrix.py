"""Every math, cmath and NumPy ufunc function kernels support, on every scalar type numba
accepts for it (bool, every integer width, float32, float64), against the function's value
computed by Python/NumPy in float64 (an integer argument converts to a float, as numba's
float64(int64) cases do: never reinterpreted as float bits). float32 arguments keep float32
results, which must be float32 values close to the float64 ones."""
import cmath
import math

import numpy as np
import pytest

from cutwin import cuda

INT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
ALL_TYPES = ["bool"] + INT_TYPES + ["float32", "float64"]

UNARY = ["sqrt", "fabs", "floor", "ceil", "trunc", "exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin",
         "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc",
         "gamma", "lgamma", "radians", "degrees"]
PREDICATES = ["isnan", "isinf", "isfinite"]
BINARY = ["atan2", "hypot", "pow", "fmod", "copysign", "nextafter", "remainder"]


def inputs(dtype):
    if dtype == "bool":
        return np.array([False, True, True, False])
    if dtype.startswith("uint"):
        return np.array([0, 1, 2, 3, 10, 100], dtype)
    if dtype.startswith("int"):
        return np.array([-7, -2, -1, 0, 1, 2, 3, 10, 100], dtype)
    return np.array([-7.5, -1, -0.5, 0, 0.25, 0.5, 1, 2.5, 10, 100], dtype)


def reference(name, *args):
    """The function in float64 by Python's math module; None where Python raises (a pole or
    domain error, where C and the GPU give inf or nan by their own rules)."""
    try:
        with np.errstate(all="ignore"):
            return float(getattr(math, name)(*[float(a) for a in args]))
    except (ValueError, OverflowError, ZeroDivisionError):
        return None


def kernel_source(names, arity):
    """One kernel computing every function of `names` on x (and y), one row each."""
    args = "x[i]" if arity == 1 else "x[i], y[i]"
    rows = "\n".join("        out[%d, i] = math.%s(%s)" % (k, n, args) for k, n in enumerate(names))
    params = "x, out" if arity == 1 else "x, y, out"
    return "def k(%s):\n    i = cuda.grid(1)\n    if i < x.size:\n%s\n" % (params, rows)


def compile_kernel(names, arity):
    import linecache

    text = kernel_source(names, arity)
    filename = "<math matrix %s %d>" % ("-".join(names[:2]), arity)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"cuda": cuda, "math": math}
    exec(compile(text, filename, "exec"), scope)
    return cuda.jit(scope["k"])


UNARY_KERNEL = compile_kernel(UNARY + PREDICATES, 1)
BINARY_KERNEL = compile_kernel(BINARY, 2)


def check_row(name, got, expected_args, dtype, single):
    for j, args in enumerate(expected_args):
        want = reference(name, *args)
        if want is None:
            continue
        if name in PREDICATES:
            assert got[j] == want, (name, dtype, args, got[j])
            continue
        if math.isinf(want) or math.isnan(want):
            assert got[j] == want or (math.isnan(want) and math.isnan(got[j])), (name, dtype, args, got[j])
            continue
        # libdevice: within its documented bounds of the correctly rounded value (4 ulp;
        # 10 for gamma and lgamma) in the result type.
        ulps = 10 if name in ("gamma", "lgamma") else 4
        tol = ulps * np.finfo(np.float32 if single else np.float64).eps
        assert abs(got[j] - want) <= tol * max(abs(want), 1e-30) + (1e-30 if not single else 1e-37), \
            (name, dtype, args, got[j], want)


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_unary_math_functions_on_every_type(cutwin_backend, dtype):
    x = inputs(dtype)
    names = UNARY + PREDICATES
    out = np.zeros((len(names), x.size))
    UNARY_KERNEL[1, 32](x, out)
    single = dtype == "float32"
    for k, name in enumerate(names):
        if single and name not in PREDICATES:
            # A float32 argument gives a float32 result: the stored float64 is one exactly.
            assert np.array_equal(out[k], out[k].astype(np.float32).astype(np.float64), equal_nan=True), name
        check_row(name, out[k], [(v,) for v in x], dtype, single)


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_binary_math_functions_on_every_type(cutwin_backend, dtype):
    x = inputs(dtype)
    y = np.resize(np.array([1, 2, 3, 1], dtype), x.size)
    if dtype == "bool":
        y = np.resize(np.array([True, True, False, True]), x.size)
    out = np.zeros((len(BINARY), x.size))
    BINARY_KERNEL[1, 32](x, y, out)
    for k, name in enumerate(BINARY):
        # numba's float-only binary functions take integer arguments in float32 or float64.
        single = dtype == "float32" or name in ("fmod", "copysign", "nextafter", "remainder") and dtype != "float64"
        if name == "nextafter":
            # One ulp from x toward y in the result type (float32 for float32 arguments;
            # integers take float32 or float64, as numba's first matching case says).
            w64 = np.nextafter(x.astype(np.float64), y.astype(np.float64))
            w32 = np.nextafter(x.astype(np.float32), y.astype(np.float32)).astype(np.float64)
            ok = (out[k] == w32) if dtype == "float32" else (out[k] == w64) | (out[k] == w32)
            assert ok.all(), (dtype, out[k], w64)
            continue
        check_row(name, out[k], list(zip(x, y)), dtype, single)


CMATH = ["sqrt", "exp", "log", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan",
         "asinh", "acosh", "atanh"]


def _cmath_or_nan(name, v):
    try:
        return getattr(cmath, name)(complex(float(v)))
    except (ValueError, OverflowError):  # a pole: not compared
        return complex("nan")


def test_cmath_functions_on_every_real_type(cutwin_backend):
    # cmath functions of real and integer arguments convert them to complex128.
    rows = "\n".join("        out[%d, i] = cmath.%s(x[i])" % (k, n) for k, n in enumerate(CMATH))
    text = "def k(x, out):\n    i = cuda.grid(1)\n    if i < x.size:\n%s\n" % rows
    import linecache

    filename = "<cmath matrix>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"cuda": cuda, "cmath": cmath}
    exec(compile(text, filename, "exec"), scope)
    k = cuda.jit(scope["k"])
    for dtype in ALL_TYPES:
        x = inputs(dtype)
        out = np.zeros((len(CMATH), x.size), np.complex128)
        k[1, 32](x, out)
        for r, name in enumerate(CMATH):
            want = np.array([_cmath_or_nan(name, v) for v in x])
            ok = ~np.isnan(want)
            tol = 1e-5 if dtype == "float32" else 1e-13
            np.testing.assert_allclose(out[r][ok], want[ok], rtol=tol, atol=tol, err_msg="%s %s" % (name, dtype))


UFUNCS = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
          "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "fabs", "floor",
          "ceil", "trunc", "rint", "deg2rad", "rad2deg", "degrees", "radians"]


def test_numpy_ufuncs_on_every_type(cutwin_backend):
    # The scalar forms of NumPy's float ufuncs: integers compute in float64 (NumPy's 'd'
    # loop for them, as numba picks it), float32 in float32.
    rows = "\n".join("        out[%d, i] = np.%s(x[i])" % (k, n) for k, n in enumerate(UFUNCS))
    text = "def k(x, out):\n    i = cuda.grid(1)\n    if i < x.size:\n%s\n" % rows
    import linecache

    filename = "<ufunc matrix>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"cuda": cuda, "np": np}
    exec(compile(text, filename, "exec"), scope)
    k = cuda.jit(scope["k"])
    for dtype in ALL_TYPES:
        if dtype == "bool":
            continue  # NumPy's float ufuncs on bool use a float16 loop, which numba does not have
        x = inputs(dtype)
        out = np.zeros((len(UFUNCS), x.size))
        k[1, 32](x, out)
        with np.errstate(all="ignore"):
            for r, name in enumerate(UFUNCS):
                # float32 computes in float32 (overflowing where float32 does).
                want = getattr(np, name)(x if dtype == "float32" else x.astype(np.float64)).astype(np.float64)
                tol = 1e-6 if dtype == "float32" else 1e-14
                np.testing.assert_allclose(out[r], want, rtol=tol, atol=1e-300, equal_nan=True,
                                           err_msg="%s %s" % (name, dtype))


@cuda.jit
def two_float_min_max(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = max(a[i], b[i])
        out[i, 1] = min(a[i], b[i])
        out[i, 2] = max(a[i], 2)  # a float and an int: Python's rules
        out[i, 3] = max(a[i], b[i], a[i])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_min_and_max_of_two_floats_are_fmin_and_fmax(cutwin_backend, dtype):
    # numba-cuda lowers max(f, g) of two floats to libdevice's fmax (a NaN loses), and
    # other forms by Python's rules (a NaN first wins, the first of equals wins).
    nan, inf = float("nan"), float("inf")
    vals = [nan, -inf, -2.5, -0.0, 0.0, 1.0, inf]
    a = np.array([x for x in vals for _ in vals], dtype)
    b = np.array([y for _ in vals for y in vals], dtype)
    out = np.zeros((a.size, 4), dtype)
    two_float_min_max[1, 64](a, b, out)
    nonzero = ~((a == 0) & (b == 0))  # the sign of a zero result from fmax(+0, -0) is the hardware's
    np.testing.assert_array_equal(out[nonzero, 0], np.fmax(a, b)[nonzero])
    np.testing.assert_array_equal(out[nonzero, 1], np.fmin(a, b)[nonzero])
    py = np.array([max(x, 2) for x in a.tolist()], dtype)
    np.testing.assert_array_equal(out[:, 2], py)
    py3 = np.array([max(x, y, x) for x, y in zip(a.tolist(), b.tolist())], dtype)
    np.testing.assert_array_equal(out[:, 3], py3)


def _fallback_round(x, nd):
    """CPython's fallback double_round, the algorithm numba-cuda compiles for round(x, n)
    (it differs from Python's correctly rounded one: round(2.675, 2) is 2.68 here)."""
    def ipow(a, e):  # float ** int: numba's square-and-multiply, in float64
        r = 1.0
        while e:
            if e & 1:
                r *= a
            e >>= 1
            a *= a
        return r

    if math.isinf(x) or math.isnan(x):
        return x
    if nd >= 0:
        pow1, pow2 = (ipow(10.0, nd - 22), 1e22) if nd > 22 else (ipow(10.0, nd), 1.0)
        y = (x * pow1) * pow2
        if math.isinf(y):
            return x
    else:
        pow1 = ipow(10.0, -nd)
        y = x / pow1
    def llrint(v):  # round() of a float is an int64: it saturates, as the GPU's cvt.rni.s64 does
        return float(min(max(round(v), -2**63), 2**63 - 1))

    z = llrint(y)
    if abs(y - z) == 0.5:
        z = 2.0 * llrint(y / 2.0)
    return (z / pow2) / pow1 if nd >= 0 else z * pow1


@cuda.jit
def round_to_digits(out, x, n):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = round(x[i], n[i])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_round_to_ndigits(cutwin_backend, dtype):
    vals = [0.5, 1.5, 2.675, -2.5, 1234.5678, 0.125, -0.0, 12345.0, 1e300, float("inf"), float("nan")]
    nds = list(range(-4, 12)) + [30, 300, 320]  # 30: beyond int64; 320: the scaling overflows
    x = np.array([v for v in vals for _ in nds], dtype)
    n = np.array([d for _ in vals for d in nds], np.int64)
    out = np.zeros_like(x)
    round_to_digits[2, 256](out, x, n)
    with np.errstate(over="ignore"):
        want = np.array([_fallback_round(float(a), int(d)) for a, d in zip(x, n)]).astype(dtype)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_frexp_modf_ldexp(cutwin_backend, dtype):
    # numba's cases: float32 in float32, float64 and integers in float64; the exponent an int32
    @cuda.jit
    def k(x, m, e, f, w, scaled):
        i = cuda.grid(1)
        if i < x.size:
            m[i], e[i] = math.frexp(x[i])
            f[i], w[i] = math.modf(x[i])
            scaled[i] = math.ldexp(x[i], e[i] - 3)

    x = inputs(dtype)
    if dtype.startswith("float"):
        x = np.concatenate([x, np.array([1e-30, 3e30, -np.inf, np.nan], dtype)])
    ft = np.float32 if dtype == "float32" else np.float64
    m, f, w, scaled = (np.zeros(x.size, ft) for _ in range(4))
    e = np.zeros(x.size, np.int32)
    k[1, 32](x, m, e, f, w, scaled)
    xf = x.astype(ft)
    wm, we = np.frexp(xf)
    wf, ww = np.modf(xf)
    np.testing.assert_array_equal(m, wm)
    np.testing.assert_array_equal(e, we)
    np.testing.assert_array_equal(f, wf)
    np.testing.assert_array_equal(w, ww)
    np.testing.assert_array_equal(scaled, np.ldexp(xf, we - 3))
