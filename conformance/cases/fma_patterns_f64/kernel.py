from numba import cuda


@cuda.jit
def fma_patterns(a, b, c, d, out, out2):
    """More multiply-add patterns: single and shared products, both operands products,
    products in variables and across branches, float64 constants promoting float32."""
    i = cuda.grid(1)
    if i >= a.shape[0]:
        return
    x = a[i]
    y = b[i]
    z = c[i]
    w = d[i]
    out[0, i] = x * y + z
    out[1, i] = z + x * w
    out[2, i] = y * z - x
    out[3, i] = z - y * w
    out[4, i] = x * x + y * y
    out[5, i] = z * z - w * w
    out[6, i] = x * z + y * z + w
    p = z * w
    out[7, i] = p + x
    q = (x - y) * (z - w)
    if x > 0:
        out[8, i] = q + y
    else:
        out[8, i] = q - y
    m = x * (z + 1)
    out[9, i] = m + y
    out2[i] = m * 2
    out[10, i] = -(x * (y + 1)) + z
    out[11, i] = (x + 2) * (y + 2) + (z + 2) * (w + 2) + (x + 3) * (w + 3)
    out[12, i] = (x + 4) * (y + 4) - (z + 4) * (w + 4)
    out[13, i] = w - (x + 5) * (y + 5) * (z + 5)
