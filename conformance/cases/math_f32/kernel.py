from numba import cuda
import math


@cuda.jit
def math_f32(x, y, approx, exact):
    """libdevice functions (approx) and IEEE-exact operations (exact) on float32."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        approx[0, i] = math.sin(v)
        approx[1, i] = math.cos(v)
        approx[2, i] = math.exp(v)
        approx[3, i] = math.log(math.fabs(v))
        approx[4, i] = math.pow(math.fabs(v), y[i])
        exact[0, i] = math.sqrt(math.fabs(v))
        exact[1, i] = v / y[i]
        exact[2, i] = v % y[i]
        exact[3, i] = v * y[i] - v
