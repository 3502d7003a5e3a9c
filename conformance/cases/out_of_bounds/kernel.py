from numba import cuda


@cuda.jit
def out_of_bounds(x, out):
    """Off by one: reads x[i + 1] for the last element."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] + x[i + 1]
