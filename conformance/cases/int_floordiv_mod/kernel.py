from numba import cuda


@cuda.jit
def int_floordiv_mod(a, b, q64, r64, q32, r32, small):
    """Python floor division and modulo, including negatives and zero divisors
    (numba's numpy error model: x // 0 == x % 0 == 0)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        q64[i] = a[i] // b[i]
        r64[i] = a[i] % b[i]
        x = a[i] % 1000
        y = b[i] % 37 - 18
        q32[i] = x // y
        r32[i] = x % y
        small[i] = (a[i] & 0xFF) * 3 - 500
