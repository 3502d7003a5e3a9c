# Lowering of indexing: cuda.grid(1) from special registers, wraparound and bounds checks
# raising through the error channel with the index, axis and extent.
# RUN: --kernel vadd --sig "void(float32[::1], float32[::1], float32[::1])" --dump-after=cleanup
from numba import cuda

@cuda.jit
def vadd(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

# CHECK-LABEL: define void @vadd__a1Cf32_a1Cf32_a1Cf32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %b.data, i64 %b.shape0, i64 %b.stride0, ptr addrspace(1) %out.data, i64 %out.shape0, i64 %out.stride0, ptr addrspace(1) %cutwin.err)
# CHECK: call i32 @cutwin.tid.x()
# CHECK: call i32 @cutwin.ntid.x()
# CHECK: call i32 @cutwin.ctaid.x()
# CHECK: icmp slt i64 %{{.*}}, 0
# CHECK: icmp ult i64 %{{.*}}, %a.shape0
# CHECK: call void @cutwin.error.raise(ptr addrspace(1) %cutwin.err, i32 1, i32 0, i64 %{{.*}}, i64 0, i64 %a.shape0)
# CHECK-NEXT: unreachable
# CHECK: fadd float
# CHECK: store float
# CHECK: declare void @cutwin.error.raise(ptr addrspace(1), i32, i32, i64, i64, i64) #[[ATTR:[0-9]+]]
# CHECK: attributes #[[ATTR]] = { cold noreturn nounwind }
