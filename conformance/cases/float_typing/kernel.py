from numba import cuda, float32


@cuda.jit
def float_typing(x, sums64, sums32, mixed):
    """t = 0. makes a float64 accumulator even for float32 data; float32(0) keeps float32;
    float32 * int64 promotes to float64."""
    i = cuda.grid(1)
    if i < sums64.shape[0]:
        t = 0.
        s = float32(0.)
        for k in range(x.shape[1]):
            t += x[i, k]
            s += x[i, k]
        sums64[i] = t
        sums32[i] = s
        mixed[i] = x[i, 0] * (i + 1)
