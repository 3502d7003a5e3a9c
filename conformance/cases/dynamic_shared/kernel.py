from numba import cuda, float32, int32


@cuda.jit
def dynamic_shared(x, out, sizes):
    """Two dynamic shared arrays alias the launch's one buffer: the int32 view reads the
    float32 view's bits; each covers as many elements as the launch's bytes hold."""
    f = cuda.shared.array(0, float32)
    bits = cuda.shared.array(0, int32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    n = cuda.blockDim.x
    f[t] = x[b * n + t]
    cuda.syncthreads()
    out[b * n + t] = f[n - 1 - t]
    if t == 0:
        sizes[b, 0] = f.size
        sizes[b, 1] = bits.size
        sizes[b, 2] = bits[n - 1]
