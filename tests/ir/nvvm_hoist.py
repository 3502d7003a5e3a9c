# Before printing the NVVM dialect (step gpu-nvvm-ir), loop-invariant arithmetic leaves the
# loop even from a conditional block: here the row offset i * a.shape[1], guarded by
# `i < a.shape[0]`, is computed once before the loop header instead of every iteration.
# RUN: --kernel k --sig "void(float32[:,::1], float64[::1])" --dump-after=gpu-nvvm-ir --codegen nvvm --no-boundscheck
from numba import cuda

@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    s = 0.0
    for t in range(a.shape[1]):
        if i < a.shape[0]:
            s += a[i, t]
    out[0] = s

# CHECK-LABEL: *** NVVM IR after gpu-nvvm-ir ***
# CHECK: define void @"k__a2Cf32_a1Cf64"
# CHECK: = mul i64
# CHECK-NEXT: br label %[[HEAD:bb[0-9]+]]
# CHECK: [[HEAD]]:
# CHECK-NOT: mul i64
# CHECK: load float
# CHECK-NOT: mul i64
# CHECK: br label %[[HEAD]]
