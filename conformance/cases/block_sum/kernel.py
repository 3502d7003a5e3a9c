from numba import cuda, float32

THREADS = 256


@cuda.jit
def block_sum(x, partial):
    """Per-block tree sum in shared memory: partial[b] = sum of block b's elements."""
    s = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.shape[0] else float32(0)
    cuda.syncthreads()
    stride = THREADS // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
