"""cuda.reduce / cuda.Reduce on every selected backend: against NumPy, and bit for bit
against a NumPy model of the same parallel tree (so the simulator and the GPU agree)."""
import math

import numpy as np
import pytest

from cutwin import cuda
from cutwin.cuda import reduction


@cuda.reduce
def add(a, b):
    return a + b


@cuda.jit(device=True)
def hypot_acc(a, b):
    return math.sqrt(a * a + b * b)


largest = cuda.Reduce(lambda x, y: max(x, y))
norm = cuda.Reduce(hypot_acc)


def tree_model(x, op):
    """The reduction's order of operations: strided folds per thread, a halving tree per
    block over its live threads, the same again over the partials."""
    def one_pass(x, blocks):
        n, threads = x.size, reduction.THREADS
        stride = blocks * threads
        partials = []
        for b in range(blocks):
            sm = []
            for t in range(threads):
                i = b * threads + t
                if i >= n:
                    break
                acc = x[i]
                for j in range(i + stride, n, stride):
                    acc = op(acc, x[j])
                sm.append(acc)
            valid, s = len(sm), threads // 2
            while s > 0:
                for t in range(min(s, valid - s) if valid > s else 0):
                    sm[t] = op(sm[t], sm[t + s])
                valid, s = min(valid, s), s // 2
            partials.append(sm[0])
        return np.array(partials, x.dtype)
    blocks = min((x.size + reduction.THREADS - 1) // reduction.THREADS, reduction.MAX_BLOCKS)
    p = one_pass(x, blocks)
    return one_pass(p, 1)[0] if blocks > 1 else p[0]


def test_sum_matches_numpy_and_the_tree_bit_for_bit(cutwin_backend):
    x = np.random.default_rng(0).uniform(-1, 1, 300_001)
    got = add(x)
    assert isinstance(got, np.float64)
    np.testing.assert_allclose(got, x.sum(), rtol=1e-12)
    assert got == tree_model(x, lambda a, b: a + b)


def test_integers_lambdas_and_device_functions(cutwin_backend):
    r = np.random.default_rng(1)
    ints = r.integers(-1000, 1000, 70_000).astype(np.int32)
    assert add(ints) == ints.sum() and isinstance(add(ints), np.int32)
    f = r.standard_normal(5000).astype(np.float32)
    assert largest(f) == f.max()
    np.testing.assert_allclose(norm(f), np.sqrt((f.astype(np.float64) ** 2).sum()), rtol=1e-4)


def test_size_init_res_and_device_input(cutwin_backend):
    x = np.arange(1, 1001, dtype=np.float64)
    assert add(x, size=10) == 55
    assert add(x, init=0.5) == x.sum() + 0.5
    assert add(np.zeros(0), init=7) == 7
    d = cuda.to_device(x)
    res = cuda.device_array(3)
    assert add(d, res=res) is None
    assert res.copy_to_host()[0] == x.sum()
    with pytest.raises(TypeError, match="1-D"):
        add(np.zeros((2, 2)))


def test_function_named_like_a_local_of_the_generated_kernel(cutwin_backend):
    # The generated kernel has locals s, sm, acc, v: a reduction of that name still works.
    @cuda.reduce
    def s(a, b):
        return a * b

    sm = cuda.Reduce(lambda acc, v: acc - v)
    x = np.arange(1, 11, dtype=np.int64)
    assert s(x, init=1) == math.factorial(10)  # init (default 0) is folded in, as in numba
    assert sm(np.array([5, 1, 1], dtype=np.int64), init=0) == 5 - 1 - 1 - 0
