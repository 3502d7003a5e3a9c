"""The 1-D heat equation with one kernel launch for all time steps: every thread owns one
point of the rod and the whole grid synchronises after each step (cuda.cg.this_grid()),
so blocks see their neighbours' new temperatures. The launch is made cooperative
automatically; all its blocks must fit on the device at once (a 1001-point rod needs 4).

    python examples/python/heat_1d.py [points] [steps]
"""
import sys

import numpy as np

from cutwin import cuda

THREADS = 256


@cuda.jit
def diffuse(buf_0, buf_1, steps, k):
    i = cuda.grid(1)
    grid = cuda.cg.this_grid()
    n = buf_0.size
    for step in range(steps):
        src, dst = (buf_0, buf_1) if step % 2 == 0 else (buf_1, buf_0)
        if 0 < i < n - 1:
            dst[i] = src[i] + k * (src[i - 1] - 2 * src[i] + src[i + 1])
        elif i < n:
            dst[i] = src[i]  # the ends keep their temperature
        grid.sync()


def simulate(data, steps, k=0.25):
    blocks = (data.size + THREADS - 1) // THREADS
    buf_0 = cuda.to_device(data)
    buf_1 = cuda.device_array_like(buf_0)
    diffuse[blocks, THREADS](buf_0, buf_1, steps, k)
    return (buf_0 if steps % 2 == 0 else buf_1).copy_to_host()


def reference(data, steps, k=0.25):
    t = data.copy()
    for _ in range(steps):
        t[1:-1] = t[1:-1] + k * (t[:-2] - 2 * t[1:-1] + t[2:])
    return t


def main(size=1001, steps=2000):
    data = np.zeros(size)
    data[size // 2] = 10000.0  # a hot spot in the middle
    got = simulate(data, steps)
    np.testing.assert_allclose(got, reference(data, steps), rtol=1e-12, atol=1e-9)
    assert abs(got.sum() - data.sum()) < 1e-6 * data.sum()  # heat is conserved (the ends stay cold)
    np.testing.assert_allclose(got, got[::-1], rtol=1e-12, atol=1e-12)  # symmetric about the middle
    print("heat_1d: %d points, %d steps OK" % (size, steps))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
