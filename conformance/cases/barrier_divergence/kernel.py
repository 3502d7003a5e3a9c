from numba import cuda, float32


@cuda.jit
def barrier_divergence(x, out):
    """The two halves of each block wait at two different barriers."""
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    if t < 32:
        s[t] = x[t]
        cuda.syncthreads()
        out[t] = s[31 - t]
    else:
        cuda.syncthreads()
