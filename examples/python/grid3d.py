"""A 3-D grid: a 7-point Laplacian of a volume, one thread per interior cell.

    python examples/python/grid3d.py [nx ny nz]
"""
import sys

import numpy as np

from cutwin import cuda


@cuda.jit
def laplacian(u, out):
    x, y, z = cuda.grid(3)
    nx, ny, nz = u.shape
    if 0 < x < nx - 1 and 0 < y < ny - 1 and 0 < z < nz - 1:
        out[x, y, z] = (u[x - 1, y, z] + u[x + 1, y, z] + u[x, y - 1, z] + u[x, y + 1, z]
                        + u[x, y, z - 1] + u[x, y, z + 1] - 6.0 * u[x, y, z])


def reference(u):
    out = np.zeros_like(u)
    c = u[1:-1, 1:-1, 1:-1]
    out[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
                             + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] - 6.0 * c)
    return out


def main(nx=20, ny=17, nz=12):
    u = np.random.default_rng(3).random((nx, ny, nz))
    out = np.zeros_like(u)
    block = (8, 8, 4)
    grid = tuple((s + b - 1) // b for s, b in zip(u.shape, block))
    laplacian[grid, block](u, out)
    np.testing.assert_allclose(out, reference(u), rtol=1e-12, atol=1e-12)
    print("grid3d: %d x %d x %d OK" % (nx, ny, nz))


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:4]))
