from numba import cuda


@cuda.jit
def vadd(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]
