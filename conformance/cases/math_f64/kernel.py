from numba import cuda
import math


@cuda.jit
def math_f64(x, y, approx, exact):
    """libdevice functions (approx) and IEEE-exact operations (exact) on float64."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        approx[0, i] = math.sin(v)
        approx[1, i] = math.cos(v)
        approx[2, i] = math.tan(v)
        approx[3, i] = math.exp(v / 4)
        approx[4, i] = math.log(abs(v) + 1e-3)
        approx[5, i] = math.pow(abs(v), y[i])
        approx[6, i] = math.atan2(v, y[i])
        approx[7, i] = math.tanh(v)
        exact[0, i] = math.sqrt(abs(v))
        exact[1, i] = math.floor(v) + math.ceil(v) + math.fabs(v)
        exact[2, i] = v / y[i]
        exact[3, i] = v % y[i]
        exact[4, i] = v // y[i]
