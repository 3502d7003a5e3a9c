"""cuda.atomic: read-modify-write of one element returning its old value, on global and
shared memory, scalar and tuple indices. The final states are order-independent, so
NumPy (and arithmetic) give them exactly; returned values are checked as multisets."""
import numpy as np
import pytest

from cutwin import cuda, int32
from cutwin.errors import TypingError


@cuda.jit
def histogram(x, bins):
    counts = cuda.shared.array(16, int32)
    t = cuda.threadIdx.x
    if t < 16:
        counts[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(counts, x[i] % 16, 1)
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(bins, t, counts[t])


def test_shared_memory_histogram(cutwin_backend):
    x = np.random.default_rng(1).integers(-5000, 5000, 20000)
    bins = np.zeros(16, np.int32)
    histogram.forall(x.size)(x, bins)
    np.testing.assert_array_equal(bins, np.bincount(x % 16, minlength=16))


@cuda.jit
def tickets(counter, got):
    i = cuda.grid(1)
    if i < got.size:
        got[i] = cuda.atomic.add(counter, 0, 1)


def test_returned_old_values_are_distinct_tickets(cutwin_backend):
    counter, got = np.zeros(1, np.int64), np.zeros(5000, np.int64)
    tickets.forall(5000)(counter, got)
    assert counter[0] == 5000 and sorted(got.tolist()) == list(range(5000))


@cuda.jit
def extremes(x, m, fsum, u):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.max(m, (0, 0), v)
        cuda.atomic.min(m, (0, 1), v)
        cuda.atomic.sub(m, (1, 0), v)
        cuda.atomic.add(fsum, 0, 0.25)      # exact: every partial sum is representable
        cuda.atomic.sub(fsum, 1, 0.5)
        cuda.atomic.max(u, 0, v)           # unsigned: negative values are huge
        cuda.atomic.and_(u, 1, ~(1 << (i % 40)))
        cuda.atomic.or_(u, 2, 1 << (i % 40))
        cuda.atomic.xor(u, 3, i)


def test_max_min_sub_and_bit_operations(cutwin_backend):
    x = np.random.default_rng(2).integers(-10**12, 10**12, 3000)
    m = np.zeros((2, 2), np.int64)
    m[0, 0], m[0, 1] = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    fsum = np.zeros(2, np.float32)
    u = np.zeros(4, np.uint64)
    u[1] = np.uint64(2**64 - 1)
    extremes.forall(x.size)(x, m, fsum, u)
    assert m[0, 0] == x.max() and m[0, 1] == x.min() and m[1, 0] == -x.sum()
    assert fsum.tolist() == [750.0, -1500.0]
    assert u[0] == x.astype(np.uint64).max()
    assert u[1] == np.uint64(2**64 - 1 - (2**40 - 1)) and u[2] == np.uint64(2**40 - 1)
    assert u[3] == np.bitwise_xor.reduce(np.arange(3000, dtype=np.uint64))


@cuda.jit
def wrapping(u, flag, got):
    i = cuda.grid(1)
    if i < got.shape[0]:
        got[i, 0] = cuda.atomic.inc(u, 0, 9)
        got[i, 1] = cuda.atomic.dec(u, 1, 5)
        got[i, 2] = cuda.atomic.exch(u, 2, i)
        got[i, 3] = cuda.atomic.cas(u, 3, 7, 100)
        got[i, 4] = cuda.atomic.compare_and_swap(flag, 0, 1)


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_inc_dec_exch_cas(cutwin_backend, dtype):
    n = 1000
    u, flag = np.zeros(4, dtype), np.zeros(1, dtype)
    u[3] = 7
    got = np.zeros((n, 5), dtype)
    wrapping.forall(n)(u, flag, got)
    assert u[0] == n % 10 and u[1] == [0, 5, 4, 3, 2, 1][n % 6]
    assert u[3] == 100 and (got[:, 3] == 7).sum() == 1  # exactly one thread swapped
    assert flag[0] == 1 and (got[:, 4] == 0).sum() == 1
    assert sorted(got[:, 0].tolist()) == sorted([k % 10 for k in range(n)])  # the values inc saw
    exch = sorted(got[:, 2].tolist() + [int(u[2])])
    assert exch == [0] + list(range(n))  # each value exchanged in exactly once


def test_unsupported_types_are_typing_errors():
    @cuda.jit
    def float_and(a):
        cuda.atomic.and_(a, 0, 1)

    @cuda.jit
    def signed_inc(a):
        cuda.atomic.inc(a, 0, 1)

    with pytest.raises(TypingError, match="and_.*float64"):
        float_and[1, 1](np.zeros(1))
    with pytest.raises(TypingError, match="inc.*int64"):
        signed_inc[1, 1](np.zeros(1, np.int64))


@cuda.jit
def float_extremes(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.max(out, 0, v)
        cuda.atomic.min(out, 1, v)
        cuda.atomic.nanmax(out, 2, v)
        cuda.atomic.nanmin(out, 3, v)
        cuda.atomic.max(out, 4, v)     # starts as NaN: max leaves a NaN element
        cuda.atomic.nanmax(out, 5, v)  # starts as NaN: nanmax replaces it


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_max_min_and_nan_forms(cutwin_backend, dtype):
    x = np.random.default_rng(3).standard_normal(4000).astype(dtype)
    x[::7] = np.nan  # NaN values are ignored by all four
    out = np.array([-np.inf, np.inf, -np.inf, np.inf, np.nan, np.nan], dtype)
    float_extremes.forall(x.size)(x, out)
    finite = x[~np.isnan(x)]
    assert out[0] == finite.max() and out[1] == finite.min()
    assert out[2] == finite.max() and out[3] == finite.min()
    assert np.isnan(out[4]) and out[5] == finite.max()


@cuda.jit
def returned_max(a, got):
    i = cuda.grid(1)
    if i < got.size:
        got[i] = cuda.atomic.max(a, 0, i * 0.5)


def test_float_max_returns_the_old_value(cutwin_backend):
    a, got = np.zeros(1), np.zeros(300)
    returned_max.forall(300)(a, got)
    assert a[0] == 149.5
    assert np.isin(got, np.arange(300) * 0.5).all()  # each saw a value some thread stored (or 0)
    assert got[299] < 149.5  # the thread storing the maximum saw a smaller value
