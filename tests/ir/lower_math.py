# Math functions are libdevice calls on both backends; exact operations are LLVM
# intrinsics; float-to-int conversion saturates.
# RUN: --kernel k --sig "void(float32[:], float32)" --dump-after=cleanup --no-boundscheck
from numba import cuda, int32
import math

@cuda.jit
def k(out, x):
    out[0] = math.sin(x)
    out[1] = math.sqrt(x)
    out[2] = x % 2.5
    out[3] = int32(x)

# CHECK-LABEL: define void @k__a1Af32_f32(
# CHECK: call float @__nv_sinf(float %x)
# CHECK: call float @llvm.sqrt.f32(float %x)
# CHECK: call double @__nv_fmod(double
# CHECK: call i32 @llvm.fptosi.sat.i32.f32(float %x)
# CHECK: declare float @__nv_sinf(float) #[[M:[0-9]+]]
# CHECK: attributes #[[M]] = { nounwind willreturn memory(none) }
