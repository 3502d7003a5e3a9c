"""Cases of whole programs and control: grid sync, matrix products, block reductions, 3D
grids, device functions, integer division, typing, loops, local arrays, faults, barriers
and threads that wait for threads."""
from fractions import Fraction

import numpy as np

from case_data import GRID_SYNC, NEP50, NO_FMA, blocks, case, rng
from exact_arith import fma


@case
def grid_sync_heat():
    n, niter, tpb = 1001, 300, 128
    data = np.zeros(n)
    data[500] = 10000.0
    data[120:130] = 50.0
    bufs = [data.copy(), data.copy()]
    for step in range(niter):
        src, dst = bufs[step % 2], bufs[1 - step % 2]
        # dst[i] = src[i] + 0.25 * ((src[i-1] - 2 src[i]) + src[i+1]): the kernel's order; the
        # multiply-add contracts, so the expectation fuses it too (exactly, via fractions).
        lap = (src[:-2] - 2 * src[1:-1]) + src[2:]
        dst[1:-1] = [float(Fraction(s) + Fraction(0.25) * Fraction(l)) for s, l in zip(src[1:-1], lap)]
        dst[0], dst[-1] = src[0], src[-1]
    return dict(kernel="grid_sync_heat", grid=[blocks(n, tpb)], block=[tpb],
                args=[("buf_0", data), ("buf_1", np.zeros(n)), ("niter", ("int64", niter))],
                expect={"buf_0": (bufs[0], {}), "buf_1": (bufs[1], {})},
                description="1-D heat equation, one grid sync per step across 8 blocks (cooperative launch)",
                numba_sim_difference=GRID_SYNC)


@case
def grid_sync_sessionize():
    r = rng(31)
    n, tpb = 896, 64
    users = np.sort(r.integers(0, 40, n)).astype(np.int32)
    gaps = r.choice([10, 60, 600, 4000], n, p=[0.4, 0.3, 0.2, 0.1])
    stamps = np.cumsum(gaps).astype(np.int64)
    boundary = np.ones(n, bool)
    boundary[1:] = (users[1:] != users[:-1]) | (np.diff(stamps) > 1800)
    starts = np.flatnonzero(boundary)
    # Every block needs a boundary thread (a block that only returns never reaches the grid
    # barrier, and the barrier could not complete on a GPU).
    assert all(boundary[b * tpb:(b + 1) * tpb].any() for b in range(blocks(n, tpb)))
    expect = starts[np.searchsorted(starts, np.arange(n), side="right") - 1].astype(np.int64)
    return dict(kernel="grid_sync_sessionize", grid=[blocks(n, tpb)], block=[tpb],
                args=[("user_id", users), ("timestamp", stamps), ("results", np.full(n, -1, np.int64))],
                expect={"results": (expect, {})},
                description="numba's sessionize example: boundary threads label, sync the grid, fill their sessions",
                numba_sim_difference=GRID_SYNC)


@case
def matmul_naive():
    r = rng(2)
    m, k, n = 37, 23, 41
    A = r.uniform(-1, 1, (m, k)).astype(np.float32)
    B = r.uniform(-1, 1, (k, n)).astype(np.float32)
    # float32 products accumulated sequentially in float64, as the kernel does.
    prods = (A[:, :, None] * B[None, :, :]).astype(np.float32)
    acc = np.zeros((m, n), np.float64)
    for p in range(k):
        acc = acc + prods[:, p, :].astype(np.float64)
    return dict(kernel="matmul", grid=[blocks(m, 16), blocks(n, 16)], block=[16, 16],
                args=[("A", A), ("B", B), ("C", np.zeros((m, n), np.float32))],
                expect={"C": (acc.astype(np.float32), {})},
                description="naive 2-D matmul, non-square (37x23 @ 23x41)",
                numba_sim_difference=NEP50)


@case
def matmul_tiled():
    r = rng(3)
    m, k, n, tpb = 40, 56, 24, 16
    A = r.uniform(-1, 1, (m, k)).astype(np.float32)
    B = r.uniform(-1, 1, (k, n)).astype(np.float32)
    kk = blocks(k, tpb) * tpb
    Ap = np.zeros((m, kk), np.float32)
    Bp = np.zeros((kk, n), np.float32)
    Ap[:, :k] = A
    Bp[:k, :] = B
    acc = np.zeros((m, n), np.float32)
    for p in range(kk):  # tmp += sA * sB is contracted to an fma (docs/numerics.md)
        acc = fma(np.broadcast_to(Ap[:, p, None], (m, n)), np.broadcast_to(Bp[None, p, :], (m, n)), acc)
    return dict(kernel="matmul_tiled", grid=[blocks(n, tpb), blocks(m, tpb)], block=[tpb, tpb],
                args=[("A", A), ("B", B), ("C", np.zeros((m, n), np.float32))],
                expect={"C": (acc, {})},
                description="shared-memory tiled matmul with barriers, non-square (40x56 @ 56x24), "
                            "fused multiply-add accumulation",
                numba_sim_difference=NO_FMA)


@case
def block_sum():
    r = rng(4)
    n, t = 10000, 256
    x = r.uniform(-1, 1, n).astype(np.float32)
    nb = blocks(n, t)
    s = np.zeros(nb * t, np.float32)
    s[:n] = x
    s = s.reshape(nb, t)
    stride = t // 2
    while stride > 0:
        s[:, :stride] = s[:, :stride] + s[:, stride:2 * stride]
        stride //= 2
    return dict(kernel="block_sum", grid=[nb], block=[t],
                args=[("x", x), ("partial", np.zeros(nb, np.float32))],
                expect={"partial": (s[:, 0].copy(), {})},
                description="shared-memory tree sum per block (the reduction order is fixed)")


def tree_sums(x, t):
    """Each block of `t` elements summed as the kernels' shared-memory tree does (float32)."""
    nb = blocks(len(x), t)
    s = np.zeros(nb * t, np.float32)
    s[:len(x)] = x
    s = s.reshape(nb, t)
    stride = t // 2
    while stride > 0:
        s[:, :stride] = s[:, :stride] + s[:, stride:2 * stride]
        stride //= 2
    return s[:, 0].copy()


@case
def reduce_across_devices():
    """A sum split over four devices: each sums its chunk per block, the partial sums come
    to device 0 by peer copies, and one block there adds them in a fixed order."""
    r = rng(40)
    t, sizes = 256, [5120, 5120, 5120, 3000]
    chunks = [r.uniform(-1, 1, n).astype(np.float32) for n in sizes]
    partials = [tree_sums(c, t) for c in chunks]
    gathered = np.concatenate(partials)
    runs = np.zeros(t, np.float32)  # thread j adds gathered[j], gathered[j + t], ... in order
    for j in range(len(gathered)):
        runs[j % t] = runs[j % t] + gathered[j]
    total = tree_sums(runs, t)
    arrays, steps, offset = [], [], 0
    for k, (c, p) in enumerate(zip(chunks, partials)):
        arrays += [("x%d" % k, k, c), ("p%d" % k, k, np.zeros(len(p), np.float32))]
        steps.append({"device": k, "kernel": "block_sums", "grid": [len(p)], "block": [t],
                      "args": ["x%d" % k, "p%d" % k]})
    for k, p in enumerate(partials):
        steps.append({"copy": "gathered", "from": "p%d" % k, "offset": offset})
        offset += len(p)
    arrays += [("gathered", 0, np.zeros(len(gathered), np.float32)), ("total", 0, np.zeros(1, np.float32))]
    steps.append({"device": 0, "kernel": "sum_partials", "grid": [1], "block": [t], "args": ["gathered", "total"]})
    return dict(devices=4, arrays=arrays, steps=steps,
                expect={"gathered": (gathered, {}), "total": (total, {})},
                description="a float32 sum split over four devices: per-block tree sums on each, peer copies "
                            "of the partial sums to device 0, one block adding them in a fixed order")


@case
def grid3d():
    shape = (5, 6, 7)
    block, grid = (4, 2, 1), (2, 3, 5)
    out = np.zeros(shape, np.int64)
    nx, ny, nz = (grid[0] * block[0], grid[1] * block[1], grid[2] * block[2])
    for z in range(shape[0]):
        for y in range(shape[1]):
            for x in range(shape[2]):
                bx, by, bz = x // block[0], y // block[1], z // block[2]
                flat = (bz * grid[1] + by) * grid[0] + bx
                out[z, y, x] = x + 100 * y + 10000 * z + 1000000 * flat + (nx * ny * nz) % 7
    return dict(kernel="grid3d", grid=list(grid), block=list(block),
                args=[("out", np.zeros(shape, np.int64))],
                expect={"out": (out, {})},
                description="3-D grid: cuda.grid(3), cuda.gridsize(3), blockIdx/gridDim in z, y, x")


@case
def device_functions():
    r = rng(6)
    n = 100
    pts = r.uniform(-2, 2, (n, 2))
    lo, hi = -1.0, 1.0
    x, y = pts[:, 0], pts[:, 1]
    return dict(kernel="device_functions", grid=[1], block=[128],
                args=[("pts", pts), ("lo", ("float64", lo)), ("hi", ("float64", hi)),
                      ("out_clamped", np.zeros(n)), ("out_r", np.zeros(n)), ("out_p", np.zeros(n)),
                      ("out_n", np.zeros(n, np.int64))],
                expect={"out_clamped": (np.clip(x, lo, hi), {}),
                        "out_r": (np.sqrt(fma(x, x, y * y)), {}),  # x*x + y*y contracts
                        "out_p": (x * y, {}),
                        "out_n": ((pts > 0).sum(axis=1).astype(np.int64), {})},
                description="device functions: early returns, tuple returns, array arguments",
                numba_sim_difference=NO_FMA)


@case
def int_floordiv_mod():
    r = rng(7)
    n = 2000
    a = r.integers(-10**6, 10**6, n, dtype=np.int64)
    b = r.integers(-1000, 1000, n, dtype=np.int64)
    b[::50] = 0
    a[1] = np.iinfo(np.int64).max
    a[2], b[2] = np.iinfo(np.int64).min, -1  # overflows: numba-cuda defines MIN // -1 = MIN % -1 = 0
    a[3], b[3] = np.iinfo(np.int64).min, 1
    with np.errstate(divide="ignore", over="ignore"):
        q64 = np.floor_divide(a, b)
        r64 = np.mod(a, b)
        x = np.mod(a, 1000)
        y = np.mod(b, 37) - 18
        q32 = np.floor_divide(x, y)
        r32 = np.mod(x, y)
    q64[2] = r64[2] = 0  # numba-cuda's int_divmod_signed: "we return 0, 0 instead"
    small = (a & 0xFF) * 3 - 500
    z = lambda: np.zeros(n, np.int64)
    return dict(kernel="int_floordiv_mod", grid=[blocks(n, 128)], block=[128],
                args=[("a", a), ("b", b), ("q64", z()), ("r64", z()), ("q32", z()), ("r32", z()),
                      ("small", z())],
                expect={"q64": (q64, {}), "r64": (r64, {}), "q32": (q32, {}), "r32": (r32, {}),
                        "small": (small, {})},
                description="integer // and % with negative operands and zero divisors (NumPy semantics), "
                            "and MIN // -1 (0, as numba-cuda defines it)",
                numba_sim_difference="numba's simulator runs the kernel on NumPy integers, where MIN // -1 "
                                     "wraps to MIN; compiled numba-cuda returns 0 (its int_divmod_signed)")


@case
def float_typing():
    r = rng(8)
    rows, cols = 64, 100
    x = r.uniform(0, 1, (rows, cols)).astype(np.float32)
    t = np.zeros(rows, np.float64)
    s = np.zeros(rows, np.float32)
    for k in range(cols):
        t = t + x[:, k].astype(np.float64)
        s = s + x[:, k]
    mixed = x[:, 0].astype(np.float64) * np.arange(1, rows + 1, dtype=np.float64)
    return dict(kernel="float_typing", grid=[1], block=[64],
                args=[("x", x), ("sums64", np.zeros(rows)), ("sums32", np.zeros(rows, np.float32)),
                      ("mixed", np.zeros(rows))],
                expect={"sums64": (t, {}), "sums32": (s, {}), "mixed": (mixed, {})},
                description="float32 vs float64 typing: literal 0. accumulates in float64",
                numba_sim_difference=NEP50)


@case
def while_break():
    r = rng(9)
    n = 500
    start = r.integers(1, 100000, n, dtype=np.int64)
    start[:4] = [1, 27, 97, 77031]
    steps = np.zeros(n, np.int64)
    peak = np.zeros(n, np.int64)
    for i, v in enumerate(start):
        v = int(v)
        count, top = 0, v
        while v != 1:
            if count >= 500:
                count = -1
                break
            if v % 2 == 0:
                v //= 2
            else:
                v = 3 * v + 1
                top = max(top, v)
            count += 1
        steps[i], peak[i] = count, top
    return dict(kernel="while_break", grid=[blocks(n, 128)], block=[128],
                args=[("start", start), ("steps", np.zeros(n, np.int64)), ("peak", np.zeros(n, np.int64))],
                expect={"steps": (steps, {}), "peak": (peak, {})},
                description="while True with break/continue and an early return")


@case
def local_arrays():
    r = rng(10)
    n, w = 300, 7
    x = r.integers(-1000, 1000, n, dtype=np.int32)
    idx = np.clip(np.arange(n)[:, None] + np.arange(w)[None, :] - w // 2, 0, n - 1)
    med = np.sort(x[idx], axis=1)[:, w // 2].astype(np.int32)
    return dict(kernel="local_arrays", grid=[blocks(n, 64)], block=[64],
                args=[("x", x), ("med", np.zeros(n, np.int32))],
                expect={"med": (med, {})},
                description="per-thread cuda.local.array: insertion-sort median filter")


@case
def out_of_bounds():
    n = 100
    return dict(kernel="out_of_bounds", grid=[1], block=[128],
                args=[("x", np.ones(n, np.float32)), ("out", np.zeros(n, np.float32))],
                compile={"boundscheck": True},
                expect_error={"kind": "IndexOutOfBounds",
                              "contains": "kernel.py:9 in out_of_bounds, thread (99,0,0) block (0,0,0): "
                                          "index 100 out of bounds for axis 0 with size 100"},
                description="an off-by-one read is reported with kernel, line, thread, block, index")


@case
def barrier_divergence():
    return dict(kernel="barrier_divergence", grid=[2], block=[64],
                args=[("x", np.ones(64, np.float32)), ("out", np.zeros(64, np.float32))],
                expect_error={"kind": "BarrierDivergence",
                              "contains": "32 of the block's 64 running threads wait at this barrier"},
                backends=["sim"],
                backends_reason="GPUs do not report barrier divergence; the simulator's detection is the point",
                description="two halves of a block at two different barriers are reported, never merged or hung")


@case
def early_exit_barrier():
    r = rng(12)
    n, t = 7 * 128 + 40, 128
    x = r.uniform(-1, 1, n).astype(np.float32)
    i = np.arange(n)
    base = i - i % t
    last = np.minimum(t - 1, n - 1 - base)
    out = x + x[base + last - i % t]
    return dict(kernel="early_exit_barrier", grid=[blocks(n, t)], block=[t],
                args=[("x", x), ("out", np.zeros(n, np.float32))],
                expect={"out": (out, {})},
                description="threads past the end return before syncthreads(); the rest of the block "
                            "meets there (exited threads leave the barrier's count, as since sm_70)")


@case
def spin_chain():
    r = rng(13)
    n, t = 2 * 48, 48  # small: numba's simulator switches its Python threads every 5 ms
    x = r.uniform(-1, 1, n).astype(np.float32)
    out = np.zeros(n, np.float32)
    for b in range(n // t):  # thread k adds its value to thread k + 1's result, from the top
        acc = np.float32(0)
        for k in range(t - 1, -1, -1):
            acc = x[b * t + k] if k == t - 1 else np.float32(x[b * t + k] + acc)
            out[b * t + k] = acc
    return dict(kernel="spin_chain", grid=[n // t], block=[t],
                args=[("x", x), ("out", np.zeros(n, np.float32))],
                expect={"out": (out, {})},
                description="each thread spins on a flag the next thread of its block sets, then adds that "
                            "thread's result to its own: threads make progress independently (sm_70)")


