from numba import cuda

horner = cuda.declare_device("horner3", "float64(float64, float64, float64, float64, float64)")
clamp_index = cuda.declare_device("clamp_index", "int32(int32, int32)")
mean = cuda.declare_device("mean_f32", "float32(float32, float32)")


@cuda.jit(link=["horner.cu"])
def foreign_device_functions(x, coef, y, idx, m):
    """Calls three functions from a linked .cu file (found beside this file)."""
    i = cuda.grid(1)
    if i < x.size:
        y[i] = horner(x[i], coef[0], coef[1], coef[2], coef[3])
        idx[i] = clamp_index(i - 50, 200)
        m[i] = mean(x[i], x[x.size - 1 - i])
