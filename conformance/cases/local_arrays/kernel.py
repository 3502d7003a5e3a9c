from numba import cuda, int32

WINDOW = 7


@cuda.jit
def local_arrays(x, med):
    """Median of a 7-wide window (clamped at the edges) by insertion sort in a local array."""
    i = cuda.grid(1)
    n = x.shape[0]
    if i >= n:
        return
    buf = cuda.local.array(WINDOW, int32)
    for k in range(WINDOW):
        j = min(max(i + k - WINDOW // 2, 0), n - 1)
        buf[k] = x[j]
    for k in range(1, WINDOW):
        v = buf[k]
        m = k - 1
        while m >= 0 and buf[m] > v:
            buf[m + 1] = buf[m]
            m -= 1
        buf[m + 1] = v
    med[i] = buf[WINDOW // 2]
