"""Bit and arithmetic intrinsics: cuda.popc, brev, clz, ffs (numba's types: popc/clz keep
the integer type, ffs gives uint32), cuda.fma (one rounding), cuda.cbrt (negative
inputs), cuda.selp, int.bit_count() and the fences. Python integers and NumPy are the
oracles; negative numbers are counted in their two's complement of the type's width."""
import numpy as np
import pytest

from cutwin import cuda


@cuda.jit
def bits(x, pc, lz, fs):
    i = cuda.grid(1)
    if i < x.size:
        pc[i] = cuda.popc(x[i])
        lz[i] = cuda.clz(x[i])
        fs[i] = cuda.ffs(x[i])


def reference(values, width):
    mask = (1 << width) - 1
    pc, lz, fs = [], [], []
    for v in values.tolist():
        u = v & mask
        pc.append(bin(u).count("1"))
        lz.append(width - u.bit_length())
        fs.append((u & -u).bit_length())  # 1-based lowest set bit, 0 for 0
    return pc, lz, fs


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_popc_clz_ffs(cutwin_backend, dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(4)
    x = rng.integers(info.min, info.max, 500, dtype=dtype, endpoint=True)
    x[:4] = [0, info.min, info.max, 1]
    pc, lz, fs = np.zeros_like(x), np.zeros_like(x), np.zeros(x.size, np.uint32)
    bits.forall(x.size)(x, pc, lz, fs)
    want = reference(x, info.bits)
    assert pc.tolist() == want[0] and lz.tolist() == want[1] and fs.tolist() == want[2]


@cuda.jit
def reverse(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = cuda.brev(x[i])


@pytest.mark.parametrize("dtype,width", [(np.uint32, 32), (np.uint64, 64)])
def test_brev(cutwin_backend, dtype, width):
    x = np.random.default_rng(5).integers(0, np.iinfo(dtype).max, 300, dtype=dtype, endpoint=True)
    out = np.zeros_like(x)
    reverse.forall(x.size)(x, out)
    assert out.tolist() == [int(format(int(v), "0%db" % width)[::-1], 2) for v in x]


@cuda.jit
def arithmetic(a, b, c, fused, roots, picks, counts, n):
    i = cuda.grid(1)
    if i < a.size:
        fused[i] = cuda.fma(a[i], b[i], c[i])
        roots[i] = cuda.cbrt(a[i])
        picks[i] = cuda.selp(a[i] > b[i], a[i], b[i])
        counts[i] = n[i].bit_count()
        cuda.threadfence()
        cuda.threadfence_block()
        cuda.threadfence_system()


def test_fma_cbrt_selp_bit_count(cutwin_backend):
    rng = np.random.default_rng(6)
    a, b, c = (rng.standard_normal(400) * 10 for _ in range(3))
    a[:3] = [-27.0, -8.0, 0.0]
    n = rng.integers(-2**62, 2**62, 400)
    fused, roots, picks, counts = np.zeros(400), np.zeros(400), np.zeros(400), np.zeros(400, np.int64)
    arithmetic.forall(400)(a, b, c, fused, roots, picks, counts, n)
    from fractions import Fraction
    exact = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]  # one rounding
    assert fused.tolist() == exact
    np.testing.assert_allclose(roots, np.cbrt(a), rtol=4.5e-16)
    assert roots[:3].tolist() == [-3.0, -2.0, 0.0]
    np.testing.assert_array_equal(picks, np.where(a > b, a, b))
    # numba-cuda counts the two's complement bits (CPython would count those of |v|)
    assert counts.tolist() == [(int(v) & (2**64 - 1)).bit_count() for v in n]


@cuda.jit
def votes(x, out):
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    v = x[b * cuda.blockDim.x + t]
    n = cuda.syncthreads_count(v > 0)
    a = cuda.syncthreads_and(v > -100)
    o = cuda.syncthreads_or(v > 90)
    n2 = cuda.syncthreads_count(v)  # a number is true when nonzero
    if t == 0:
        out[b, 0] = n
        out[b, 1] = a
        out[b, 2] = o
        out[b, 3] = n2


def test_block_votes(cutwin_backend):
    x = np.random.default_rng(8).integers(-100, 100, (6, 128)).astype(np.int32)
    x[2, :] = np.abs(x[2, :]) - 99  # all > -100
    x[3, 5] = 95
    out = np.zeros((6, 4), np.int32)
    votes[6, 128](x.ravel(), out)
    np.testing.assert_array_equal(out[:, 0], (x > 0).sum(axis=1))
    np.testing.assert_array_equal(out[:, 1], (x > -100).all(axis=1))
    np.testing.assert_array_equal(out[:, 2], (x > 90).any(axis=1))
    np.testing.assert_array_equal(out[:, 3], (x != 0).sum(axis=1))


@cuda.jit
def lanes(out):
    t = cuda.threadIdx.x + cuda.blockDim.x * cuda.threadIdx.y
    cuda.nanosleep(100)
    out[t, 0] = cuda.laneid
    out[t, 1] = cuda.warpsize
    out[t, 2] = cuda.lanemask_lt()


def test_laneid_warpsize_lanemask_lt(cutwin_backend):
    out = np.zeros((96, 3), np.int64)
    lanes[1, (24, 4)](out)  # warps are formed from the linear thread index: 24 x 4 threads
    lane = np.arange(96) % 32
    np.testing.assert_array_equal(out[:, 0], lane)
    assert (out[:, 1] == 32).all()
    np.testing.assert_array_equal(out[:, 2], (1 << lane) - 1)
