# libdevice for the CPU: the functions a kernel calls are linked in, __nvvm_reflect is
# resolved, and no NVVM intrinsic or inline PTX remains.
# RUN: --kernel k --sig "void(float32[:], float32)" --dump-after=sim-libdevice --no-boundscheck
from numba import cuda
import math

@cuda.jit
def k(out, x):
    out[0] = math.sin(x) + math.exp(x)

# CHECK-LABEL: define internal float @__nv_sinf(float
# CHECK-LABEL: define internal float @__nv_expf(float
# CHECK-NOT: llvm.nvvm
# CHECK-NOT: __nvvm_reflect
# CHECK-NOT: asm
