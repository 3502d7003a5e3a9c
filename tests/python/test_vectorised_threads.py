"""Threads of a barrier-free block run as a loop that LLVM may vectorise on the simulator
(bounds checks off, contiguous arrays: the loop over threads then computes several threads
per instruction). That must not change a bit: libdevice's float32 and float64 functions,
with NaN payloads, infinities and subnormals among the inputs, against the same kernel with
bounds checks on (a loop that does not vectorise) and against NumPy within libdevice's
documented bounds."""
import math

import numpy as np

from cutwin import cuda


def both(kernel):
    """The kernel without bounds checks (its loop may vectorise) and with them (it does not)."""
    return cuda.jit(boundscheck=False)(kernel), cuda.jit(boundscheck=True)(kernel)


# float32 log and float64 exp: libdevice code without host calls
def log_kernel(x, r, mixed):
    i = cuda.grid(1)
    if i < x.size:
        r[i] = math.log(x[i])
        mixed[i] = math.sqrt(x[i]) + x[i] * x[i] - math.floor(x[i])


def exp_kernel(x, r, mixed):
    i = cuda.grid(1)
    if i < x.size:
        r[i] = math.exp(x[i])
        mixed[i] = math.sqrt(x[i]) + x[i] * x[i] - math.floor(x[i])


KERNELS = {np.float32: both(log_kernel), np.float64: both(exp_kernel)}


# Functions whose libdevice code calls host helpers (approximation units, directed
# rounding): their loops vectorise through the helpers' vector variants.
def helpers_kernel(x, y, e, lg, pw):
    i = cuda.grid(1)
    if i < x.size:
        e[i] = math.exp(x[i])
        lg[i] = math.log(y[i])
        pw[i] = math.pow(y[i], x[i])


helpers_unchecked, helpers_checked = both(helpers_kernel)


def inputs(dtype, bits):
    rng = np.random.default_rng(21)
    n = 1 << 14
    raw = rng.integers(0, 1 << bits, n, dtype=np.uint64).astype(np.uint64 if bits == 64 else np.uint32)
    x = raw.view(dtype).copy()
    x[: n // 2] = rng.uniform(-20, 20, n // 2).astype(dtype)
    tiny = np.finfo(dtype).tiny
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, tiny / 4, -tiny, 1.0]
    return x


def test_vectorised_thread_loops_give_the_same_bits(cutwin_backend):
    for dtype, bits in ((np.float32, 32), (np.float64, 64)):
        x = inputs(dtype, bits)
        unchecked, checked = KERNELS[dtype]
        a, b = np.zeros((2, x.size), dtype), np.zeros((2, x.size), dtype)
        unchecked.forall(x.size)(x, *a)
        checked.forall(x.size)(x, *b)
        view = np.uint32 if bits == 32 else np.uint64
        assert (a.view(view) == b.view(view)).all(), dtype
        with np.errstate(all="ignore"):
            ok = np.isfinite(x) & (x > 0) & (x < 80)
            xd = x.astype(np.float64)
            want = np.log(xd[ok]) if bits == 32 else np.exp(xd[ok])
            assert np.allclose(a[0][ok], want, rtol=4e-7 if bits == 32 else 1e-15, atol=0)
            assert np.allclose(a[1][ok], np.sqrt(xd[ok]) + xd[ok] * xd[ok] - np.floor(xd[ok]), rtol=1e-6, atol=0)


def test_vectorised_loops_through_host_helpers_give_the_same_bits(cutwin_backend):
    for dtype, bits in ((np.float32, 32), (np.float64, 64)):
        x = inputs(dtype, bits)
        y = np.abs(inputs(dtype, bits))[::-1].copy()
        a, b = np.zeros((3, x.size), dtype), np.zeros((3, x.size), dtype)
        helpers_unchecked.forall(x.size)(x, y, *a)
        helpers_checked.forall(x.size)(x, y, *b)
        view = np.uint32 if bits == 32 else np.uint64
        assert (a.view(view) == b.view(view)).all(), dtype
        with np.errstate(all="ignore"):
            ok = np.isfinite(x) & (np.abs(x) < 80)
            assert np.allclose(a[0][ok], np.exp(x[ok].astype(np.float64)), rtol=4e-7 if bits == 32 else 1e-15, atol=0)


# Guards on the thread index: the simulator splits the loop over threads so that the part
# where a guard holds runs without it (and vectorised), the rest keeps it. Partial blocks,
# two-sided guards and two-dimensional grids must give what the kernel with bounds checks
# gives (a loop that is not split), and leave every element outside the guard untouched.
def window_kernel(x, lo, n, out):
    i = cuda.grid(1)
    if i >= lo and i < n:
        out[i] = math.exp(x[i]) + i


def grid2d_kernel(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = math.log(a[i, j]) * j + i


window_unchecked, window_checked = both(window_kernel)
grid2d_unchecked, grid2d_checked = both(grid2d_kernel)


def test_split_thread_loops_keep_their_guards(cutwin_backend):
    for dtype in (np.float32, np.float64):
        x = np.random.default_rng(3).uniform(-10, 10, 1200).astype(dtype)
        for lo, n in ((0, 1000), (37, 1000), (5, 6), (700, 1200)):
            outs = []
            for kernel in (window_unchecked, window_checked):
                out = np.full(1200, -7, dtype)
                kernel[13, 96](x, lo, n, out)  # 1248 threads, the last block partly past n
                outs.append(out)
            assert (outs[0][:lo] == -7).all() and (outs[0][n:] == -7).all(), (lo, n)
            assert (outs[0].view(np.uint8) == outs[1].view(np.uint8)).all(), (dtype, lo, n)
            xd = x[lo:n].astype(np.float64)
            assert np.allclose(outs[0][lo:n], np.exp(xd) + np.arange(lo, n), rtol=1e-6), (dtype, lo, n)
        a = np.random.default_rng(4).uniform(0.5, 4, (45, 70)).astype(dtype)
        outs = []
        for kernel in (grid2d_unchecked, grid2d_checked):
            out = np.full((45, 70), -7, dtype)
            kernel[(4, 5), (16, 16)](a, out)  # 64 x 80 threads over 45 x 70 elements
            outs.append(out)
        assert (outs[0].view(np.uint8) == outs[1].view(np.uint8)).all(), dtype
        i, j = np.meshgrid(np.arange(45), np.arange(70), indexing="ij")
        assert np.allclose(outs[0], np.log(a.astype(np.float64)) * j + i, rtol=1e-5), dtype
