from numba import cuda
import math


@cuda.jit
def math_libdevice(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) + math.exp(x[i]) + math.log(math.fabs(x[i]) + 1.0) + math.pow(x[i], 2.5)
