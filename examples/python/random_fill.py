"""Random numbers in kernels: one xoroshiro128+ state per thread, each thread writes a
uniform float64 in [0, 1). The same seed gives the same numbers on every backend (and in
numba-cuda); another seed gives others.

    python examples/python/random_fill.py [threads]
"""
import sys

import numpy as np

from cutwin import cuda
from cutwin.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float64

BLOCK = 128


@cuda.jit
def fill_uniform(states, data):
    i = cuda.grid(1)
    if i < data.size:
        data[i] = xoroshiro128p_uniform_float64(states, i)


def draw(n, seed):
    blocks = (n + BLOCK - 1) // BLOCK
    states = create_xoroshiro128p_states(blocks * BLOCK, seed=seed)
    data = cuda.device_array(n, np.float64)
    fill_uniform[blocks, BLOCK](states, data)
    return data.copy_to_host()


def main(n=1 << 16):
    a, again, other = draw(n, 1), draw(n, 1), draw(n, 2)
    assert ((a >= 0) & (a < 1)).all()
    np.testing.assert_array_equal(a, again)  # reproducible
    assert (a != other).mean() > 0.99  # another seed, another stream
    # Uniform: the mean and variance of n samples lie within 5 standard errors of 1/2, 1/12.
    assert abs(a.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
    assert abs(a.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / n)
    print("random_fill: %d numbers OK" % n)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 16)
