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
