from numba import cuda


@cuda.jit
def python_operators(a, b, out):
    """Integer operators with Python semantics on int64."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        y = b[i]
        out[0, i] = x << (y & 7)
        out[1, i] = x >> (y & 7)
        out[2, i] = (x & y) ^ (x | 3)
        out[3, i] = ~x
        out[4, i] = (y & 7) ** 3 - x
        out[5, i] = min(x, y, 0) + max(x, y)
        out[6, i] = abs(x) - abs(y)
        out[7, i] = 1 if -5 < x <= y else 0
        out[8, i] = x if x > 0 and y > 0 else (y if x > 0 or y > 0 else -1)
