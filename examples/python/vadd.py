"""Vector addition, launched with an explicit grid and with forall.

Written as a numba-cuda program; only the import says cutwin. Run it:
    python examples/python/vadd.py [n]
"""
import sys

import numpy as np

from cutwin import cuda


@cuda.jit
def vadd(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def add_explicit(a, b, threads_per_block=128):
    """Device arrays in, an explicit [blocks, threads] launch, the result copied back."""
    d_a = cuda.to_device(a)
    d_b = cuda.to_device(b)
    d_out = cuda.device_array_like(a)
    blocks = (a.size + threads_per_block - 1) // threads_per_block
    vadd[blocks, threads_per_block](d_a, d_b, d_out)
    return d_out.copy_to_host()


def add_forall(a, b):
    """NumPy arrays in (copied to the device and back), one thread per element."""
    out = np.empty_like(a)
    vadd.forall(a.size)(a, b, out)
    return out


def main(n=100_000):
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    np.testing.assert_array_equal(add_explicit(a, b), a + b)
    np.testing.assert_array_equal(add_forall(a, b), a + b)
    print("vadd: %d elements OK" % n)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
