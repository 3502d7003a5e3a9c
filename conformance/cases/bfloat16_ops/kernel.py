from numba import cuda


@cuda.jit
def bfloat16_ops(x, y, w, k, out):
    """bfloat16 operators rounded once from the exact result; float64 and int64 converted
    to bfloat16 rounded once (no double rounding through float32)."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = cuda.bfloat16(x[i])
        b = cuda.bfloat16(y[i])
        out[0, i] = cuda.float32(a + b)
        out[1, i] = cuda.float32(a - b)
        out[2, i] = cuda.float32(a * b)
        out[3, i] = cuda.float32(a / b)
        out[4, i] = cuda.float32(cuda.bfloat16(w[i]))
        out[5, i] = cuda.float32(cuda.bfloat16(k[i]))
