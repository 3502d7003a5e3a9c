from numba import cuda


@cuda.jit
def fma_contraction(a, b, c, d, out):
    """Multiply-add patterns whose rounding shows whether the multiply was fused."""
    i = cuda.grid(1)
    if i >= a.shape[0]:
        return
    x = a[i]
    y = b[i]
    z = c[i]
    w = d[i]
    out[0, i] = x * y + z
    out[1, i] = z + x * y
    out[2, i] = x * y - z
    out[3, i] = z - x * y
    out[4, i] = x * y + z * w
    out[5, i] = x * y - z * w
    out[6, i] = x * y + z * w + x
    p = x * y
    out[7, i] = p + z
    out[8, i] = p - w
    out[9, i] = (x + y) * z + w
    out[10, i] = x * y * z + w
    out[11, i] = -(x * y) + z
    q = x * y
    if z > 0:
        out[12, i] = q + z
    else:
        out[12, i] = q - z
    acc = w
    for k in range(4):
        acc += a[(i + k) % a.shape[0]] * b[(i + 2 * k) % b.shape[0]]
    out[13, i] = acc
    out[14, i] = (x * x + y * y) ** 0.5 if x * x + y * y >= 0 else 0.0
    out[15, i] = x * y + z if w > 0 else z - x * y
