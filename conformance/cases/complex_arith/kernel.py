import cmath

from numba import complex64, cuda


@cuda.jit
def complex_arith(a, b, z, exact, approx, trans, single):
    """complex128 arithmetic (exact parts: +, -, conjugate, complex()), the rounded ones
    (*, /), those built on libdevice (abs is hypot, cmath), and complex64 kept single
    precision."""
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        exact[i, 0] = x + y
        exact[i, 1] = x - y
        exact[i, 2] = -x.conjugate()
        exact[i, 3] = complex(y.imag, x.real)
        approx[i, 0] = x * y
        approx[i, 1] = x / y
        trans[i, 0] = abs(x)
        trans[i, 1] = cmath.sqrt(x)
        trans[i, 2] = cmath.exp(x)
        trans[i, 3] = cmath.log(y)
        w = z[i]
        single[i] = w * w + complex64(0.5)
