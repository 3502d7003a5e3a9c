"""Matrix multiplication: one thread per output element, then 16 x 16 tiles staged in
shared memory. Shapes need not be square or multiples of the tile.

    python examples/python/matmul.py [m k n]
"""
import sys

import numpy as np

from cutwin import cuda, float32

TILE = 16


@cuda.jit
def matmul_naive(A, B, C):
    row, col = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        acc = float32(0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    row, col = cuda.grid(2)
    r = cuda.threadIdx.x  # this thread's row and column inside the tile
    c = cuda.threadIdx.y
    acc = float32(0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        k = t * TILE
        sA[r, c] = A[row, k + c] if row < A.shape[0] and k + c < A.shape[1] else float32(0)
        sB[r, c] = B[k + r, col] if k + r < B.shape[0] and col < B.shape[1] else float32(0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[r, j] * sB[j, c]
        cuda.syncthreads()
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = acc


def multiply(kernel, A, B):
    C = cuda.device_array((A.shape[0], B.shape[1]), np.float32)
    blocks = ((C.shape[0] + TILE - 1) // TILE, (C.shape[1] + TILE - 1) // TILE)
    kernel[blocks, (TILE, TILE)](cuda.to_device(A), cuda.to_device(B), C)
    return C.copy_to_host()


def main(m=100, k=70, n=130):
    rng = np.random.default_rng(1)
    A = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    B = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    expect = A.astype(np.float64) @ B.astype(np.float64)
    for kernel in (matmul_naive, matmul_tiled):
        np.testing.assert_allclose(multiply(kernel, A, B), expect, rtol=1e-4, atol=1e-4)
    print("matmul: (%d x %d) @ (%d x %d) OK" % (m, k, k, n))


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:4]))
