"""Sum of an array: each block reduces its elements in shared memory (a tree of
halving strides), the host adds the per-block partial sums.

    python examples/python/block_sum.py [n]
"""
import sys

import numpy as np

from cutwin import cuda, float32

THREADS = 256


@cuda.jit
def block_sums(x, partial):
    s = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    stride = THREADS // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]


def total(x):
    blocks = (x.size + THREADS - 1) // THREADS
    partial = cuda.device_array(blocks, np.float32)
    block_sums[blocks, THREADS](cuda.to_device(x), partial)
    return float(partial.copy_to_host().astype(np.float64).sum())


def main(n=1_000_000):
    x = np.random.default_rng(2).uniform(-1, 1, n).astype(np.float32)
    np.testing.assert_allclose(total(x), x.astype(np.float64).sum(), rtol=1e-4, atol=1e-3)
    print("block_sum: %d elements OK" % n)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
