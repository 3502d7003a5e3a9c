# Multiply-add contraction (the `contract` step): a product is fused into the additions
# and subtractions that use it only if it then disappears; the left product wins.
# RUN: --kernel k --sig "void(float32[::1], float32, float32, float32, float32)" --dump-after=contract --no-boundscheck
from numba import cuda

@cuda.jit
def k(out, x, y, z, w):
    out[0] = x * y + z
    out[1] = z - x * w
    out[2] = y * y + z * z
    p = w * w
    out[3] = p + x
    out[4] = p * 2.0
    out[5] = (x + 1.0) * y

# CHECK-LABEL: *** IR after contract ***
# CHECK: call float @llvm.fma.f32(float %x, float %y, float %z)
# CHECK: %[[NX:.*]] = fneg float %x
# CHECK: call float @llvm.fma.f32(float %[[NX]], float %w, float %z)
# CHECK: %[[ZZ:.*]] = fmul float %z, %z
# CHECK: call float @llvm.fma.f32(float %y, float %y, float %[[ZZ]])
# p is also doubled, so p + x stays unfused; (x + 1.0) * y is computed in float64 and has
# no addition after it:
# CHECK: %[[P:.*]] = fmul float %w, %w
# CHECK: fadd float %[[P]], %x
# CHECK-NOT: call {{.*}}@llvm.fma
# CHECK: declare float @llvm.fma.f32
