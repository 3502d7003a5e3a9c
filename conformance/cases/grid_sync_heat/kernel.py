from numba import cuda


@cuda.jit
def grid_sync_heat(buf_0, buf_1, niter):
    """Explicit 1-D heat diffusion with fixed ends, one grid-wide barrier per step: each
    thread owns one element and reads its neighbours, which other blocks wrote."""
    i = cuda.grid(1)
    grid = cuda.cg.this_grid()
    n = buf_0.size
    k = 0.25
    for step in range(niter):
        if step % 2 == 0:
            src, dst = buf_0, buf_1
        else:
            src, dst = buf_1, buf_0
        if i < n:
            if 0 < i < n - 1:
                dst[i] = src[i] + k * (src[i - 1] - 2 * src[i] + src[i + 1])
            else:
                dst[i] = src[i]
        grid.sync()
