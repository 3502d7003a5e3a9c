"""A 3-D array filled with uniform float32 numbers by a 3-D grid with fewer threads than
elements: each thread keeps one RNG state and strides over the array, so the number of
states stays the number of threads.

    python examples/python/random_3d.py [X Y Z]
"""
import sys

import numpy as np

from cutwin import cuda
from cutwin.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32


@cuda.jit
def fill_3d(arr, states):
    sx, sy, sz = cuda.gridsize(3)
    x0, y0, z0 = cuda.grid(3)
    tid = z0 * sy * sx + y0 * sx + x0  # this thread's state
    for i in range(x0, arr.shape[0], sx):
        for j in range(y0, arr.shape[1], sy):
            for k in range(z0, arr.shape[2], sz):
                arr[i, j, k] = xoroshiro128p_uniform_float32(states, tid)


def main(shape=(96, 80, 72)):
    block, grid = (4, 4, 4), (4, 3, 2)
    nthreads = np.prod(block) * np.prod(grid)
    states = create_xoroshiro128p_states(int(nthreads), seed=1)
    arr = cuda.device_array(shape, np.float32)
    arr[...] = -1  # every element must be overwritten
    fill_3d[grid, block](arr, states)
    a = arr.copy_to_host()
    assert ((a >= 0) & (a <= 1)).all()
    assert abs(a.mean() - 0.5) < 5 * np.sqrt(1 / 12 / a.size)
    # Different threads and successive draws give different numbers: float32 rounding
    # alone leaves a few percent of repeats among half a million values.
    assert len(np.unique(a)) > 0.95 * a.size
    print("random_3d: %s OK" % (shape,))


if __name__ == "__main__":
    main(tuple(int(v) for v in sys.argv[1:4]) if len(sys.argv) > 3 else (96, 80, 72))
