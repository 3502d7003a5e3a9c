"""Array views and copies made in kernels: a.reshape(...), a.view(dtype), a.T,
a.transpose(axes), a.copy() of a global array, and numba's carray/farray over a CPointer.
Shapes, byte strides and elements against NumPy's for the same operation on the host; the
errors numba raises (ValueError, NotImplementedError) where NumPy or numba refuse."""
import ctypes
import itertools
import random

import numpy as np
import pytest

from cutwin import cuda
from cutwin.errors import CompileError, KernelError


def _view_kernel(make_view, ndim):
    """A kernel writing the view's shape, strides and elements (C order) to its outputs."""
    loops = "\n".join("    " * (1 + d) + "for i%d in range(v.shape[%d]):" % (d, d) for d in range(ndim))
    idx = ", ".join("i%d" % d for d in range(ndim)) or "()"
    src = ("def k(a, arg, shape, strides, out):\n"
           "    v = %s\n"
           "    for d in range(%d):\n"
           "        shape[d] = v.shape[d]\n"
           "        strides[d] = v.strides[d]\n"
           "    n = 0\n"
           "%s\n"
           "%sout[n] = v[%s]\n"
           "%sn += 1\n") % (make_view, ndim, loops, "    " * (1 + ndim), idx, "    " * (1 + ndim))
    scope = {"np": np}
    exec(src, scope)
    return cuda.jit(scope["k"])


def _run_view(make_view, a, arg, expect):
    """Runs the view in a kernel (strided arrays go as device views: host arrays travel as
    contiguous copies)."""
    k = _view_kernel(make_view, expect.ndim)
    shape = np.zeros(max(expect.ndim, 1), np.int64)
    strides = np.zeros(max(expect.ndim, 1), np.int64)
    out = np.zeros(max(expect.size, 1), expect.dtype)
    k[1, 1](a, arg, shape, strides, out)
    assert tuple(shape[:expect.ndim]) == expect.shape
    np.testing.assert_array_equal(out[:expect.size], expect.ravel(order="C"))
    return tuple(strides[:expect.ndim])


def _shape_with_inferred(rng, shape):
    total = int(np.prod(shape))
    dims = []
    rest = total
    for _ in range(rng.randint(1, 4) - 1):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = rng.choice(divisors)
        dims.append(d)
        rest //= d
    dims.append(rest)
    rng.shuffle(dims)
    if rng.random() < 0.4:
        dims[rng.randrange(len(dims))] = -1
    return tuple(dims)


def test_reshape_matches_numpy(cutwin_backend):
    rng = random.Random(7)
    for trial in range(10):
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 3)))
        a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape) * 3 + 1
        new = _shape_with_inferred(rng, shape)
        expect = a.reshape(new)
        strides = _run_view("a.reshape(arg)", a, new, expect)
        assert strides == expect.strides, (shape, new)


def test_reshape_of_int_varargs_and_six_dims(cutwin_backend):
    a = np.arange(24, dtype=np.float64).reshape((1, 8, 1, 1, 3, 1))
    _run_view("a.reshape(arg)", a, 24, a.reshape(24))
    _run_view("a.reshape(4, arg)", a, 6, a.reshape(4, 6))
    _run_view("a.reshape((arg, 1, 3))", a, 8, a.reshape(8, 1, 3))
    _run_view("a.reshape(-1, arg)", np.arange(25.0).reshape(5, 5), 5, np.arange(25.0).reshape(5, 5))


def test_reshape_of_empty_arrays(cutwin_backend):
    a = np.array([], dtype=np.float64)
    _run_view("a.reshape(arg)", a, (1, 0, 2), a.reshape(1, 0, 2))
    _run_view("a.reshape(arg)", a, 0, a.reshape(0))


def test_reshape_errors_as_numba(cutwin_backend):
    @cuda.jit
    def k(a, s, out):
        out[0] = a.reshape(s)[0, 0]

    a = np.arange(12.0)
    out = np.zeros(1)
    with pytest.raises(KernelError, match="ValueError: total size of new array must be unchanged"):
        k[1, 1](a, (5, 2), out)
    with pytest.raises(KernelError, match="ValueError: multiple negative shape values"):
        k[1, 1](a, (-1, -1), out)
    with pytest.raises(KernelError, match="ValueError: total size of new array must be unchanged"):
        k[1, 1](a, (-1, 5), out)
    # numba reshapes in C order without copying: an F array that is not also C-contiguous
    f = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    with pytest.raises(KernelError, match="NotImplementedError: incompatible shape for array"):
        k[1, 1](f, (4, 3), out)
    # ... and an F array of one row is both
    f1 = np.asfortranarray(np.arange(4.0).reshape(1, 4))
    k[1, 1](f1, (2, 2), out)
    assert out[0] == 0.0
    with pytest.raises(CompileError, match="reshape\\(\\) supports contiguous array only"):
        k[1, 1](cuda.to_device(np.arange(24.0))[::2], (3, 4), out)


@pytest.mark.parametrize("src,dst", [(np.uint8, np.int32), (np.uint8, np.int16), (np.int32, np.uint8),
                                     (np.float32, np.int32), (np.int16, np.float64), (np.float64, np.complex128)])
def test_view_matches_numpy(cutwin_backend, src, dst):
    rng = np.random.default_rng(3)
    base = rng.integers(0, 255, 96, dtype=np.uint8).view(src)
    arrays = [(base, base), (base.reshape(2, -1), base.reshape(2, -1))]
    if np.dtype(src).itemsize == np.dtype(dst).itemsize:
        # a strided view keeps its strides when the size is the same
        arrays.append((base[::2], cuda.to_device(base)[::2]))
    for host, arg in arrays:
        expect = host.view(dst)
        strides = _run_view("a.view(np.%s)" % np.dtype(dst).name, arg, 0, expect)
        assert strides == expect.strides


def test_view_of_a_slice_as_numba_test_does(cutwin_backend):
    @cuda.jit
    def k(b, start, stop, out):
        out[0] = b[start:stop].view(np.int32)[0]

    b = np.arange(256, dtype=np.uint8)
    out = np.zeros(1, np.int32)
    for start in range(0, 256, 4):
        k[1, 1](b, start, start + 4, out)
        assert out[0] == b[start:start + 4].view(np.int32)[0]


def test_view_errors_where_numpy_refuses(cutwin_backend):
    @cuda.jit
    def k(a, out):
        out[0] = a.view(np.int32)[0]

    out = np.zeros(1, np.int32)
    cases = [np.arange(12, dtype=np.uint8)[::2],  # last axis not contiguous
             np.arange(6, dtype=np.uint8),  # 6 bytes are no whole number of int32s
             ]
    for a in cases:
        with pytest.raises(ValueError):
            a.view(np.int32)
        with pytest.raises(KernelError, match="ValueError"):
            k[1, 1](a, out)

    @cuda.jit
    def k3(a, out):
        out[0] = a.view(np.int16)[0]

    a = np.zeros(4, dtype=np.dtype([("x", np.uint8), ("y", np.uint8), ("z", np.uint8)]))
    with pytest.raises(CompileError, match="view\\(\\) of an array of records"):
        k3[1, 1](a, np.zeros(1, np.int16))


@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_transpose_and_T_match_numpy(cutwin_backend, layout):
    base = np.arange(2 * 3 * 4, dtype=np.int64).reshape(2, 3, 4)
    big = np.arange(4 * 6 * 8, dtype=np.int64).reshape(4, 6, 8)
    a = {"C": base, "F": np.asfortranarray(base), "A": big[::2, ::2, ::2]}[layout]
    arg = cuda.to_device(big)[::2, ::2, ::2] if layout == "A" else a
    strides = _run_view("a.T", arg, 0, a.T)
    assert strides == a.T.strides
    for perm in itertools.permutations(range(3)):
        expect = a.transpose(perm)
        strides = _run_view("a.transpose(%d, %d, %d)" % perm, arg, 0, expect)
        assert strides == expect.strides
        strides = _run_view("a.transpose((%d, %d, %d))" % perm, arg, 0, expect)
        assert strides == expect.strides
    _run_view("a.transpose()", arg, 0, a.transpose())
    m = np.arange(6.0).reshape(2, 3)
    _run_view("a.T", m, 0, m.T)
    v = np.arange(5.0)
    _run_view("a.T", v, 0, v.T)


def test_transpose_axes_must_be_a_permutation(cutwin_backend):
    @cuda.jit
    def k(a, out):
        out[0] = a.transpose(0, 0)[0, 0]

    with pytest.raises(CompileError, match="not a permutation"):
        k[1, 1](np.zeros((2, 2)), np.zeros(1))


_REVERSED = np.array([1.5, 2.5, 3.5, 4.5])[::-1]
_GRID = np.arange(12, dtype=np.int16).reshape(3, 4).T


def test_copy_of_global_arrays(cutwin_backend):
    @cuda.jit
    def k(out, out2):
        q = _REVERSED.copy()
        q[0] = -1.0  # the copy is writable and its own
        for i in range(q.shape[0]):
            out[i] = q[i]
        g = _GRID.copy()
        for i in range(g.shape[0]):
            for j in range(g.shape[1]):
                out2[i, j] = g[i, j] + g.strides[0] * 1000 + g.strides[1] * 100000

    out = np.zeros(4)
    out2 = np.zeros((4, 3), np.int64)
    k[1, 1](out, out2)
    expect = _REVERSED.copy()
    expect[0] = -1.0
    np.testing.assert_array_equal(out, expect)
    g = _GRID.copy()
    np.testing.assert_array_equal(out2, g.astype(np.int64) + g.strides[0] * 1000 + g.strides[1] * 100000)


def test_copy_of_run_time_arrays_is_refused(cutwin_backend):
    @cuda.jit
    def k(a, out):
        out[0] = a.copy()[0]

    with pytest.raises(CompileError, match="copy\\(\\) in kernels needs an array whose shape is known"):
        k[1, 1](np.zeros(3), np.zeros(1))


def test_carray_and_farray_over_a_pointer(cutwin_backend):
    from cutwin.cuda import carray, farray

    @cuda.jit("void(CPointer(float32), int64, int64)")
    def k(p, m, n):
        c = carray(p, (m, n))
        f = farray(p, (m, n), dtype=np.float32)
        c[0, 1] += 1.0
        f[1, 0] += 10.0  # C's element 1 too
        c[m - 1, n - 1] = c.strides[0] * 100 + f.strides[1]

    host = np.arange(6, dtype=np.float32)
    d = cuda.to_device(host)
    assert int(d.gpu_data.device_pointer) == d.__cuda_array_interface__["data"][0]  # numba's spelling
    k[1, 1](int(d.gpu_data.device_pointer), 2, 3)
    expect = host.copy()
    expect[1] += 11.0
    expect[5] = 12 * 100 + 8
    np.testing.assert_array_equal(d.copy_to_host(), expect)


def test_carray_host_meaning():
    from cutwin.cuda import carray, farray

    a = np.arange(6, dtype=np.int32)
    p = a.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    np.testing.assert_array_equal(carray(p, (2, 3)), a.reshape(2, 3))
    np.testing.assert_array_equal(farray(p, (2, 3)), a.reshape(3, 2).T)
    with pytest.raises(TypeError, match="mismatching dtype"):
        carray(p, 6, dtype=np.float32)
    with pytest.raises(TypeError, match="explicit dtype"):
        carray(ctypes.c_void_p(a.ctypes.data), 6)
