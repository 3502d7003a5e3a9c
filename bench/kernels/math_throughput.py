from numba import cuda
import math


# One libdevice function per kernel, applied to every element: the simulator's math
# throughput (bench/sim_bench.cpp times these against glibc on the same threads).
@cuda.jit
def sin_each(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i])


@cuda.jit
def exp_each(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.exp(x[i])


@cuda.jit
def log_each(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.log(x[i])


# The exponent is an argument of the input's type, so that float32 inputs call powf (a
# float64 literal would make math.pow a float64 pow).
@cuda.jit
def pow_each(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.pow(x[i], y)
