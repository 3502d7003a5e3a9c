from numba import cuda, float32

TPB = 16


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    ntiles = (A.shape[1] + TPB - 1) // TPB
    tmp = float32(0.)
    for t in range(ntiles):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and tx + t * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + t * TPB]
        if x < B.shape[1] and ty + t * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + t * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp
