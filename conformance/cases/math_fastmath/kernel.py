from numba import cuda
import math


@cuda.jit(fastmath=True)
def math_fastmath(x, out):
    """fastmath=True on float32: sin, cos, tan, exp, log, log2, log10 and pow become
    libdevice's __nv_fast_* (the GPU's approximation instructions), division and sqrt the
    approximate instructions, tanh is tanh.approx.f32, and the other functions take their
    flush-to-zero paths.
    The second operand is another input of the same set."""
    i = cuda.grid(1)
    n = x.size
    if i < n:
        a = x[i]
        b = x[(i * 7919 + 17) % n]
        out[0, i] = math.sin(a)
        out[1, i] = math.cos(a)
        out[2, i] = math.tan(a)
        out[3, i] = math.exp(a)
        out[4, i] = math.log(a)
        out[5, i] = math.log2(a)
        out[6, i] = math.log10(a)
        out[7, i] = math.pow(a, b)
        out[8, i] = math.sqrt(a)
        out[9, i] = a / b
        out[10, i] = math.atan2(a, b)
        out[11, i] = math.hypot(a, b)
        out[12, i] = math.expm1(a)
        out[13, i] = math.tanh(a)
