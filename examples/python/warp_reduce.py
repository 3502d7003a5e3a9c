"""Sum of an array with warp shuffles: each thread folds a strided slice, each warp adds
its 32 values in five shfl_down_sync steps, and lane 0 of every warp adds the warp's
total to the result with one atomic. The warp's sums are exact to check: lane 0's order
of additions is fixed, only the atomics' order varies.

    python examples/python/warp_reduce.py [n]
"""
import sys

import numpy as np

from cutwin import cuda

FULL = 0xFFFFFFFF


@cuda.jit
def warp_sums(x, warp_totals, total):
    i = cuda.grid(1)
    v = 0.0
    j = i
    while j < x.size:
        v += x[j]
        j += cuda.gridsize(1)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        warp_totals[i // 32] = v
        cuda.atomic.add(total, 0, v)


def main(n=1_000_000):
    x = np.random.default_rng(3).uniform(-1, 1, n)
    blocks, threads = 64, 256
    warps = blocks * threads // 32
    warp_totals = np.zeros(warps)
    total = np.zeros(1)
    warp_sums[blocks, threads](x, warp_totals, total)
    # NumPy model of one warp: thread slices, then the shuffle tree (lane l adds lane l + offset)
    slices = np.zeros(blocks * threads)
    for start in range(0, n, blocks * threads):
        chunk = x[start:start + blocks * threads]
        slices[:chunk.size] += chunk
    v = slices.reshape(warps, 32)
    offset = 16
    while offset:
        v = v + np.concatenate([v[:, offset:], v[:, 32 - offset:]], axis=1)
        offset //= 2
    np.testing.assert_array_equal(warp_totals, v[:, 0])
    np.testing.assert_allclose(total[0], x.sum(), rtol=1e-12, atol=1e-9)
    print("warp_reduce: %d elements OK" % n)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
