from numba import cuda
from numba.cuda._internal.cuda_fp8 import fp8x2_e4m3, fp8x2_e5m2, fp8x2_e8m0, fp8x4_e4m3, fp8x4_e5m2, fp8x4_e8m0


@cuda.jit
def fp8_vectors(x, pairs, quads):
    """float32x2 and float64x4 to CUDA's two- and four-element 8-bit floats: each element
    as the scalar constructor converts it, the first in the lowest byte of `__x`."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = cuda.float32x2(x[i, 0], x[i, 1])
        w = cuda.float64x4(cuda.float64(x[i, 0]), cuda.float64(x[i, 1]), cuda.float64(x[i, 2]),
                           cuda.float64(x[i, 3]))
        pairs[0, i] = fp8x2_e4m3(v).__x
        pairs[1, i] = fp8x2_e5m2(v).__x
        pairs[2, i] = fp8x2_e8m0(v).__x
        quads[0, i] = fp8x4_e4m3(w).__x
        quads[1, i] = fp8x4_e5m2(w).__x
        quads[2, i] = fp8x4_e8m0(w).__x
