from numba import cuda


@cuda.jit
def warp_sum(x, out):
    # Each warp adds its 32 values in five shfl_down_sync steps; lane 0 writes the sum.
    i = cuda.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v
