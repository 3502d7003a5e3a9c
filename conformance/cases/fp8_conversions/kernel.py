from numba import cuda
from numba.cuda._internal.cuda_fp8 import fp8_e4m3, fp8_e5m2


@cuda.jit
def fp8_conversions(x, out):
    """float32 and float64 to CUDA's 8-bit floats and back: round to nearest even, the
    constructors saturating to the largest finite value (NaN stays NaN)."""
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = cuda.float32(fp8_e4m3(x[i]))
        out[1, i] = cuda.float32(fp8_e5m2(x[i]))
        out[2, i] = cuda.float32(fp8_e4m3(cuda.float64(x[i])))
        out[3, i] = cuda.float32(fp8_e5m2(cuda.float64(x[i])))
