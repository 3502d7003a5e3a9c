from numba import cuda
import math


@cuda.jit(device=True)
def clamp(v, lo, hi):
    if v < lo:
        return lo
    elif v > hi:
        return hi
    return v


@cuda.jit(device=True)
def polar(x, y):
    return math.sqrt(x * x + y * y), x * y


@cuda.jit(device=True)
def count_positive(row):
    n = 0
    for j in range(row.shape[0]):
        if row[j] > 0:
            n += 1
    return n


@cuda.jit
def device_functions(pts, lo, hi, out_clamped, out_r, out_p, out_n):
    i = cuda.grid(1)
    if i < pts.shape[0]:
        out_clamped[i] = clamp(pts[i, 0], lo, hi)
        r, p = polar(pts[i, 0], pts[i, 1])
        out_r[i] = r
        out_p[i] = p
        out_n[i] = count_positive(pts[i])
