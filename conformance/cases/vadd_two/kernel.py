from numba import cuda


@cuda.jit
def vadd_two(a, b, out):
    """out = a + b with two elements per thread, one block-width apart, both loads of
    each pair issued before either store: twice the bytes in flight of one element per
    thread."""
    w = cuda.blockDim.x
    i = cuda.blockIdx.x * 2 * w + cuda.threadIdx.x
    j = i + w
    if j < out.size:
        x0 = a[i]
        y0 = b[i]
        x1 = a[j]
        y1 = b[j]
        out[i] = x0 + y0
        out[j] = x1 + y1
    elif i < out.size:
        out[i] = a[i] + b[i]
