from numba import cuda


@cuda.jit
def matmul(A, B, C):
    """C = A @ B, one thread per output element, accumulating in float64."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp
