"""Basic slicing in kernels (`a[i:j]`, `a[::-2, k]`, `a[t]` with a tuple): the view's shape
and elements against NumPy's for random slices of C, F and strided arrays of 1-3
dimensions, with constant and run-time bounds; stores into slices; the errors."""
import random

import numpy as np
import pytest

from cutwin import cuda


def _rand_slice(rng, n):
    def bound():
        return rng.choice([None, rng.randint(-n - 3, n + 3)])

    step = rng.choice([None, 1, 2, 3, -1, -2, -4])
    return slice(bound(), bound(), step)


def _text(s):
    part = lambda v: "" if v is None else str(v)  # noqa: E731
    return "%s:%s%s" % (part(s.start), part(s.stop), "" if s.step is None else ":" + str(s.step))


def _view_kernel(index_text, ndim_view):
    loops = "\n".join("    " * (1 + d) + "for i%d in range(v.shape[%d]):" % (d, d) for d in range(ndim_view))
    idx = ", ".join("i%d" % d for d in range(ndim_view))
    src = ("def view_of(a, shape, out):\n"
           "    v = a[%s]\n"
           "    for d in range(%d):\n"
           "        shape[d] = v.shape[d]\n"
           "    k = 0\n"
           "%s\n"
           "%sout[k] = v[%s]\n"
           "%sk += 1\n") % (index_text, ndim_view, loops, "    " * (1 + ndim_view), idx, "    " * (1 + ndim_view))
    scope = {}
    exec(src, scope)
    return cuda.jit(scope["view_of"])


def _arrays(rng, ndim):
    shape = tuple(rng.randint(1, 7) for _ in range(ndim))
    base = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    yield base
    yield np.asfortranarray(base)
    big = np.arange(np.prod(shape) * 2 ** ndim, dtype=np.float64).reshape(tuple(2 * s for s in shape))
    yield big[tuple(slice(None, None, 2) for _ in shape)]  # strided (layout A)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_random_slices_match_numpy(cutwin_backend, ndim):
    rng = random.Random(1234 + ndim)
    for trial in range(12):
        for a in _arrays(rng, ndim):
            parts, index = [], []
            for d in range(ndim):
                if rng.random() < 0.25 and d < ndim - 1:
                    i = rng.randint(-a.shape[d], a.shape[d] - 1)
                    parts.append(str(i))
                    index.append(i)
                else:
                    s = _rand_slice(rng, a.shape[d])
                    parts.append(_text(s))
                    index.append(s)
            if rng.random() < 0.3 and ndim > 1:  # trailing dimensions left whole
                parts, index = parts[:-1], index[:-1]
            want = a[tuple(index)]
            kern = _view_kernel(", ".join(parts), want.ndim)
            shape = np.zeros(max(want.ndim, 1), np.int64)
            out = np.full(max(want.size, 1), -1.0)
            d_a = cuda.to_device(a)
            kern[1, 1](d_a, shape, out)
            assert tuple(shape[:want.ndim]) == want.shape, (a.shape, parts)
            np.testing.assert_array_equal(out[:want.size], want.ravel(order="C"), err_msg=str(parts))


def test_runtime_bounds_and_steps(cutwin_backend):
    @cuda.jit
    def k(a, lo, hi, st, shape, out):
        v = a[lo:hi:st]
        shape[0] = v.size
        for i in range(v.size):
            out[i] = v[i]

    a = np.arange(11, dtype=np.int32)
    rng = random.Random(7)
    for _ in range(200):
        lo, hi = rng.randint(-14, 14), rng.randint(-14, 14)
        st = rng.choice([1, 2, 5, -1, -3, 12, -12])
        shape, out = np.zeros(1, np.int64), np.zeros(11, np.int32)
        k[1, 1](a, lo, hi, st, shape, out)
        want = a[lo:hi:st]
        assert shape[0] == want.size
        np.testing.assert_array_equal(out[:want.size], want)


def test_slice_views_write_through_and_pass_to_device_functions(cutwin_backend):
    @cuda.jit(device=True)
    def total(v):
        s = 0.0
        for i in range(v.size):
            s += v[i]
        return s

    @cuda.jit
    def k(m, out):
        i = cuda.grid(1)
        if i < m.shape[0]:
            out[i] = total(m[i, 1::2])
            row = m[i, :]
            row[0] = -1.0

    m = np.arange(24.0).reshape(4, 6)
    want = m[:, 1::2].sum(axis=1)
    out = np.zeros(4)
    k[1, 4](m, out)
    np.testing.assert_array_equal(out, want)
    assert (m[:, 0] == -1).all()


def test_assigning_numbers_and_arrays_to_slices(cutwin_backend):
    @cuda.jit
    def k(m, src):
        m[0, 1:4] = 7
        m[1, ::-2] = 2.5
        m[2:4, 0:2] = src
        m[3] = m[1]  # a row into another row (no overlap)

    m = np.zeros((5, 6))
    src = np.array([[1.0, 2.0], [3.0, 4.0]])
    want = m.copy()
    want[0, 1:4] = 7
    want[1, ::-2] = 2.5
    want[2:4, 0:2] = src
    want[3] = want[1]
    k[1, 1](m, src)
    np.testing.assert_array_equal(m, want)


def test_slice_errors(cutwin_backend):
    @cuda.jit
    def zero_step(a, s):
        a[::s][0] = 1

    with pytest.raises(ValueError, match="slice step cannot be zero"):
        zero_step[1, 1](np.zeros(4), 0)

    @cuda.jit
    def wrong_shape(a):
        a[0:3] = a[4:6]

    with pytest.raises(ValueError, match="another shape"):
        wrong_shape[1, 1](np.zeros(8))

    @cuda.jit
    def overlapping(a):
        a[1:5] = a[0:4]

    with pytest.raises(ValueError, match="overlaps"):
        overlapping[1, 1](np.zeros(8))


def test_shared_memory_slices(cutwin_backend):
    @cuda.jit
    def k(out):
        buf = cuda.shared.array(16, dtype=np.int32)
        tid = cuda.threadIdx.x
        buf[tid] = tid
        cuda.syncthreads()
        evens = buf[::2]
        if tid < evens.size:
            out[tid] = evens[tid] + buf[8:][0]

    out = np.zeros(8, np.int32)
    k[1, 16](out)
    np.testing.assert_array_equal(out, np.arange(0, 16, 2) + 8)


def test_tuple_variable_as_index(cutwin_backend):
    @cuda.jit
    def k(a, out):
        ij = cuda.grid(2)
        if ij[0] < a.shape[0] and ij[1] < a.shape[1]:
            out[ij] = a[ij] * 2

    a = np.arange(12.0).reshape(3, 4)
    out = np.zeros_like(a)
    k[(1, 1), (4, 4)](a, out)
    np.testing.assert_array_equal(out, a * 2)
