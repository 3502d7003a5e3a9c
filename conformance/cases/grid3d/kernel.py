from numba import cuda


@cuda.jit
def grid3d(out):
    x, y, z = cuda.grid(3)
    nx, ny, nz = cuda.gridsize(3)
    if z < out.shape[0] and y < out.shape[1] and x < out.shape[2]:
        flat = (cuda.blockIdx.z * cuda.gridDim.y + cuda.blockIdx.y) * cuda.gridDim.x + cuda.blockIdx.x
        out[z, y, x] = x + 100 * y + 10000 * z + 1000000 * flat + (nx * ny * nz) % 7
