from numba import cuda
import cmath


@cuda.jit
def cmath_bitexact(z128, z64, out128, out64):
    """The cmath functions (libdevice underneath) in complex128 and complex64 on 10^5
    inputs whose real and imaginary parts are random bit patterns, extreme magnitudes,
    neighbours of multiples of pi/2, values near +-1 and special values. Checked by
    digests of the GPU's results."""
    i = cuda.grid(1)
    if i < z128.size:
        a = z128[i]
        out128[0, i] = cmath.sqrt(a)
        out128[1, i] = cmath.exp(a)
        out128[2, i] = cmath.log(a)
        out128[3, i] = cmath.log10(a)
        out128[4, i] = cmath.sin(a)
        out128[5, i] = cmath.cos(a)
        out128[6, i] = cmath.tan(a)
        out128[7, i] = cmath.asin(a)
        out128[8, i] = cmath.acos(a)
        out128[9, i] = cmath.atan(a)
        out128[10, i] = cmath.sinh(a)
        out128[11, i] = cmath.cosh(a)
        out128[12, i] = cmath.tanh(a)
        out128[13, i] = cmath.asinh(a)
        out128[14, i] = cmath.acosh(a)
        out128[15, i] = cmath.atanh(a)
        out128[16, i] = complex(cmath.phase(a), abs(a))
        b = z64[i]
        out64[0, i] = cmath.sqrt(b)
        out64[1, i] = cmath.exp(b)
        out64[2, i] = cmath.log(b)
        out64[3, i] = cmath.log10(b)
        out64[4, i] = cmath.sin(b)
        out64[5, i] = cmath.cos(b)
        out64[6, i] = cmath.tan(b)
        out64[7, i] = cmath.asin(b)
        out64[8, i] = cmath.acos(b)
        out64[9, i] = cmath.atan(b)
        out64[10, i] = cmath.sinh(b)
        out64[11, i] = cmath.cosh(b)
        out64[12, i] = cmath.tanh(b)
        out64[13, i] = cmath.asinh(b)
        out64[14, i] = cmath.acosh(b)
        out64[15, i] = cmath.atanh(b)
        out64[16, i] = complex(cmath.phase(b), abs(b))
