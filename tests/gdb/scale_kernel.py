from numba import cuda


@cuda.jit(debug=True)
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i] * factor
        a[i] = v
