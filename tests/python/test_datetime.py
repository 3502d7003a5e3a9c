"""NumPy's datetime64 and timedelta64 in kernels, as numba computes them: arrays and
scalar arguments in each unit, datetime - datetime, datetime +- timedelta, timedelta
arithmetic (scaled by integers, divided into float64), comparisons, mixed units in the
finer one, NaT propagating (and comparing false except !=), device arrays and ufuncs.
Oracle: NumPy's own datetime arithmetic."""
import warnings

import numpy as np
import pytest

from cutwin import cuda
from cutwin import types as ct
from cutwin.errors import CompileError


def _dates(unit, n=40, seed=0):
    rng = np.random.default_rng(seed)
    d = (np.datetime64("2001-01-01", unit) + rng.integers(-10 ** 6, 10 ** 6, n).astype("timedelta64[%s]" % unit))
    d[::7] = np.datetime64("NaT")
    return d


@pytest.mark.parametrize("unit", ["D", "h", "s", "ns", "M"])
def test_differences_shifts_and_comparisons_match_numpy(cutwin_backend, unit):
    @cuda.jit
    def k(a, b, shift, diff, moved, back, less, equal, unequal):
        i = cuda.grid(1)
        if i < a.size:
            diff[i] = a[i] - b[i]
            moved[i] = a[i] + shift
            back[i] = shift + b[i] - shift * 2
            less[i] = a[i] < b[i]
            equal[i] = a[i] == b[i]
            unequal[i] = a[i] != b[i]

    a, b = _dates(unit, seed=1), _dates(unit, seed=2)
    b[5] = a[5]
    shift = np.timedelta64(3, unit)
    n = a.size
    diff = np.zeros(n, "timedelta64[%s]" % unit)
    moved, back = np.zeros(n, a.dtype), np.zeros(n, a.dtype)
    less, equal, unequal = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    k[1, 64](a, b, shift, diff, moved, back, less, equal, unequal)
    np.testing.assert_array_equal(diff, a - b)  # NaT where either is NaT (assert_array_equal: NaT == NaT)
    np.testing.assert_array_equal(moved, a + shift)
    np.testing.assert_array_equal(back, shift + b - shift * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(less, a < b)
        np.testing.assert_array_equal(equal, a == b)
        np.testing.assert_array_equal(unequal, a != b)


def test_timedelta_arithmetic_and_mixed_units(cutwin_backend):
    @cuda.jit
    def k(days, hours, total, ratio, scaled, negated):
        i = cuda.grid(1)
        if i < days.size:
            total[i] = days[i] + hours[i]  # in hours, the finer unit
            ratio[i] = days[i] / hours[i]
            scaled[i] = days[i] * 3
            negated[i] = -days[i]

    rng = np.random.default_rng(4)
    days = rng.integers(-500, 500, 30).astype("timedelta64[D]")
    hours = rng.integers(1, 5000, 30).astype("timedelta64[h]")
    days[3] = np.timedelta64("NaT")
    total = np.zeros(30, "timedelta64[h]")
    ratio = np.zeros(30)
    scaled, negated = np.zeros(30, days.dtype), np.zeros(30, days.dtype)
    k[1, 32](days, hours, total, ratio, scaled, negated)
    np.testing.assert_array_equal(total, days + hours)
    np.testing.assert_array_equal(ratio, days / hours)  # NaN with NaT
    np.testing.assert_array_equal(scaled, days * 3)
    np.testing.assert_array_equal(negated, -days)


def test_units_without_a_fixed_ratio_do_not_mix():
    @cuda.jit
    def k(months, days, out):
        out[0] = months[0] - days[0]

    with pytest.raises(CompileError, match="unsupported operand types for -"):
        k[1, 1](np.zeros(1, "datetime64[M]"), np.zeros(1, "datetime64[D]"), np.zeros(1, "timedelta64[D]"))


def test_device_arrays_and_int64_views(cutwin_backend):
    a = _dates("us")
    d = cuda.to_device(a)
    np.testing.assert_array_equal(d.copy_to_host(), a)
    v = d.view(np.int64)
    np.testing.assert_array_equal(v.copy_to_host(), a.view(np.int64))
    assert v.gpu_data == d.gpu_data


def test_ufuncs_over_datetimes(cutwin_backend):
    dt = ct.from_dtype(np.dtype("datetime64[D]"))

    @cuda.vectorize([(dt, dt)])  # the result type from the function: timedelta64[D]
    def since(start, end):
        return end - start

    a, b = _dates("D", seed=3), _dates("D", seed=4)
    got = since(a, b)
    assert got.dtype == np.dtype("timedelta64[D]")
    np.testing.assert_array_equal(got, b - a)
    assert str(ct.parse_signature("void(datetime64[D][:], timedelta64[ns])")) == \
        "void(datetime64[D][:], timedelta64[ns])"
