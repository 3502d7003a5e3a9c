"""Tuples in kernels: slices with constant bounds (Python's rules for negative and
out-of-range bounds and steps) and equality element by element. Python is the oracle."""
import itertools

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError

BOUNDS = [None, -7, -2, 0, 1, 3, 9]
STEPS = [None, 1, 2, -1, -3]


def _slices():
    for lo, hi, st in itertools.product(BOUNDS, BOUNDS, STEPS):
        yield lo, hi, st


def test_slices_with_constant_bounds(cutwin_backend):
    # One kernel per slice, each writing the slice's length and elements.
    t = (10.0, 11.5, 12.0, 13.25, 14.0)
    for lo, hi, st in _slices():
        text = "%s:%s%s" % ("" if lo is None else lo, "" if hi is None else hi,
                            "" if st is None else ":%d" % st)
        want = t[slice(lo, hi, st)]
        scope = {}
        exec("def k(t, out):\n"
             "    s = t[%s]\n"
             "    out[0] = len(s)\n" % text
             + ("    for i in range(len(s)):\n"
                "        out[1 + i] = s[i]\n" if want else ""), scope)  # (an empty tuple has no elements to index)
        out = np.zeros(6)
        cuda.jit(scope["k"])[1, 1](t, out)
        np.testing.assert_array_equal(out[:1 + len(want)], [len(want), *want], err_msg=text)


def test_slices_of_mixed_tuples_keep_their_types(cutwin_backend):
    @cuda.jit
    def k(t, out):
        a, b = t[1:3]
        c = t[::-2]
        out[0] = a
        out[1] = b
        out[2] = c[0] + c[1] + c[2]
        out[3] = len(t[5:])

    t = (1, 2.5, np.float32(3.5), 4, 5.0)
    out = np.zeros(4)
    k[1, 1](t, out)
    np.testing.assert_array_equal(out, [2.5, 3.5, 5.0 + 3.5 + 1, 0])


def test_slice_bounds_must_be_constants(cutwin_backend):
    @cuda.jit
    def k(t, n, out):
        out[0] = len(t[:n])

    with pytest.raises(CompileError, match="constant bounds"):
        k[1, 1]((1, 2, 3), 2, np.zeros(1))


def test_tuple_equality(cutwin_backend):
    @cuda.jit
    def k(a, b, out):
        out[0] = a == b
        out[1] = a != b
        out[2] = (a[0], (a[1], 2.5)) == (b[0], (b[1], 2.5))
        out[3] = a == (1, 2, 3)  # different lengths: never equal

    for a, b in [((1, 2.0), (1, 2.0)), ((1, 2.0), (1, 3.0)), ((np.int8(-1), 0.5), (-1, 0.5))]:
        got = np.zeros(4, np.bool_)
        k[1, 1](a, b, got)
        np.testing.assert_array_equal(got, [a == b, a != b, (a[0], (a[1], 2.5)) == (b[0], (b[1], 2.5)),
                                            a == (1, 2, 3)])


def test_tuples_holding_functions_and_modules():
    """A tuple may hold functions, types and modules beside run-time values: they have no
    bits to carry, a device function calls through them, and `math, x` as a statement does
    nothing (found by the fuzzer: such a tuple was an internal error)."""
    import math

    @cuda.jit(device=True)
    def apply_first(t):
        return t[0](t[1])

    @cuda.jit
    def k(out, x):
        math, x, np.float32  # a statement of no effect
        out[0] = apply_first((math.sin, x))
        out[1] = apply_first((math.cos, x))
        out[2] = apply_first((np.float32, x))

    out = np.zeros(3)
    k[1, 1](out, 0.5)
    np.testing.assert_array_equal(out, [math.sin(0.5), math.cos(0.5), 0.5])
