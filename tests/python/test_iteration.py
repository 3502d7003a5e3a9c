"""for loops over what numba's kernels iterate: arrays (elements, or rows of multi-
dimensional ones), uniform tuples, enumerate(...) and zip(...), nested in each other and
with range(...) inside, with break and else. Python runs the same loops as the oracle."""
import numpy as np
import pytest

from cutwin import cuda


@cuda.jit
def loops(x, y, m, cube, out):
    acc = 0.0
    for i, v in enumerate(x):
        acc += i * v
    out[0] = acc
    acc = 0.0
    for a, b in zip(x, y):
        acc += a * b
    out[1] = acc
    acc = 0.0
    for i, (a, b) in enumerate(zip(x, y), -3):
        acc += i + a - b
    out[2] = acc
    acc = 0.0
    for (i, a), b in zip(enumerate(x), y):
        acc += i * a * b
    out[3] = acc
    acc = 0.0
    for r, row in enumerate(m):
        for c, v in enumerate(row):
            acc += (r + 1) * (c + 2) * v
    out[4] = acc
    acc = 0.0
    for t in (1.5, 2.5, 3.0):
        acc += t
    out[5] = acc
    acc = 0.0
    for i, r in zip(range(20, 3, -4), x):
        acc += i * r
    out[6] = acc
    acc = 0.0
    for plane in cube:
        for row in plane:
            for v in row:
                acc = acc * 0.5 + v
    out[7] = acc
    acc = 0.0
    for v in x:
        if v > 2.5:
            break
        acc += v
    else:
        acc = -1.0
    out[8] = acc
    acc = 0.0
    for v in y:
        acc += v
    out[9] = acc


def python_loops(x, y, m, cube):
    out = np.zeros(10)
    out[0] = sum(i * v for i, v in enumerate(x))
    out[1] = sum(a * b for a, b in zip(x, y))
    out[2] = sum(i + a - b for i, (a, b) in enumerate(zip(x, y), -3))
    out[3] = sum(i * a * b for (i, a), b in zip(enumerate(x), y))
    out[4] = sum((r + 1) * (c + 2) * v for r, row in enumerate(m) for c, v in enumerate(row))
    out[5] = 7.0
    out[6] = sum(i * r for i, r in zip(range(20, 3, -4), x))
    acc = 0.0
    for v in cube.ravel():
        acc = acc * 0.5 + v
    out[7] = acc
    acc = 0.0
    for v in x:
        if v > 2.5:
            break
        acc += v
    else:
        acc = -1.0
    out[8] = acc
    out[9] = y.sum()
    return out


@pytest.mark.parametrize("order", ["C", "F"])
def test_loops_over_arrays_tuples_enumerate_and_zip(cutwin_backend, order):
    x = np.arange(5.0) - 1.25
    y = np.arange(7.0) * 2  # longer: zip stops at the shorter
    m = np.asarray(np.arange(12.0).reshape(3, 4), order=order)
    cube = np.asarray(np.arange(24.0).reshape(2, 3, 4) / 7, order=order)
    out = np.zeros(10)
    loops[1, 1](x, y, m, cube, out)
    np.testing.assert_allclose(out, python_loops(x, y, m, cube), rtol=1e-15)


def test_iterating_what_cannot_be_iterated_is_an_error():
    @cuda.jit
    def over_a_mixed_tuple(out):
        for v in (1, 2.5):
            out[0] += v

    with pytest.raises(cuda.CompileError, match="heterogeneous tuple"):
        over_a_mixed_tuple[1, 1](np.zeros(1))
