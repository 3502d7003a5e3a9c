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


@cuda.jit
def pow_each(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.pow(x[i], 1.7)
