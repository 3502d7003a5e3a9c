# The NVPTX path's PTX carries line directives only: `.loc` for the kernel's lines, and a
# target without `debug` (the driver compiles debug targets without optimisation).
# RUN: --kernel k --sig "void(float32[::1])" --emit=ptx --no-boundscheck
from numba import cuda

@cuda.jit
def k(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * 2.0

# CHECK: .target sm_90{{$}}
# CHECK: .loc {{[0-9]+}} 10 {{[0-9]+}}
