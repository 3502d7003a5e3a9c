# kernel: k  signature: void(float32[:])
# expect: 12:17: error: cuda.declare_device() names 'twice it', which is not a C identifier
# (found by mutation: LLVM's NVPTX aborted the process on the symbol)
from numba import cuda

twice = cuda.declare_device("twice it", "float32(float32)")


@cuda.jit
def k(a):
    i = cuda.grid(1)
    a[i] = twice(a[i])
