"""Argument unpacking in kernels, `f(*t)`: a tuple's elements as positional arguments of
builtins and device functions, anywhere among the other arguments, the tuple evaluated
once. Python, calling the same functions on the host, is the oracle."""
import cmath
import math

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError


@cuda.jit(device=True)
def weigh(a, b, c, d=100.0):
    return a + 10 * b + 1000 * c + d


@cuda.jit(device=True)
def bump(counter):
    # a side effect: the tuple made by this call must be evaluated once per unpacking
    old = cuda.atomic.add(counter, 0, 1)
    return (old, old + 0.5)


def test_unpacking_into_builtins_and_device_functions(cutwin_backend):
    @cuda.jit
    def k(t, x, out):
        z = complex(*cmath.polar(x))  # numba's test: a call's tuple unpacked
        out[0] = z.real
        out[1] = z.imag
        out[2] = weigh(*t)  # all the arguments
        out[3] = weigh(1.0, *t[:2])  # after positional ones
        out[4] = weigh(*(2.0, 3.0), 4.0, d=0.0)  # before positional ones, with a keyword
        out[5] = math.hypot(*t[1:])
        out[6] = max(*t, 0.5)

    for t, x in [((1.0, 2.0, 3.0), 2.5 - 1j), ((-1.5, 0.25, 4.0), -3j)]:
        out = np.zeros(7)
        k[1, 1](t, x, out)
        want = [complex(*cmath.polar(x)).real, complex(*cmath.polar(x)).imag, weigh.py_func(*t),
                weigh.py_func(1.0, *t[:2]), weigh.py_func(*(2.0, 3.0), 4.0, d=0.0), math.hypot(*t[1:]),
                max(*t, 0.5)]
        np.testing.assert_allclose(out, want, rtol=1e-15)


def test_the_unpacked_tuple_is_evaluated_once(cutwin_backend):
    @cuda.jit
    def k(counter, out):
        out[0] = weigh(*bump(counter), 7.0)
        out[1] = weigh(*bump(counter), *bump(counter)[:1])

    counter = np.zeros(1, np.int64)
    out = np.zeros(2)
    k[1, 1](counter, out)
    assert counter[0] == 3
    np.testing.assert_array_equal(out, [weigh.py_func(0, 0.5, 7.0), weigh.py_func(1, 1.5, 2)])


def test_unpacking_needs_a_tuple(cutwin_backend):
    @cuda.jit
    def k(a, out):
        out[0] = weigh(*a)

    with pytest.raises(CompileError, match="argument unpacking .* takes a tuple, not array"):
        k[1, 1](np.zeros(3), np.zeros(1))

    @cuda.jit
    def too_many(t, out):
        out[0] = weigh(*t)

    with pytest.raises(CompileError):
        too_many[1, 1]((1.0, 2.0, 3.0, 4.0, 5.0), np.zeros(1))
