# Shared arrays become addrspace(3) globals (one per call site); syncthreads is a barrier
# intrinsic carrying its site id.
# RUN: --kernel k --sig "void(float32[::1])" --dump-after=cleanup
from numba import cuda, float32

@cuda.jit
def k(a):
    s = cuda.shared.array(128, float32)
    t = cuda.shared.array((4, 8), float32)
    i = cuda.threadIdx.x
    s[i] = a[i]
    cuda.syncthreads()
    t[1, 2] = s[127 - i]
    cuda.syncthreads()
    a[i] = t[1, 2]

# CHECK: @k.shared.0 = internal addrspace(3) global [128 x float] undef, align 16
# CHECK: @k.shared.1 = internal addrspace(3) global [32 x float] undef, align 16
# CHECK-LABEL: define void @k__a1Cf32(
# CHECK: call void @cutwin.barrier(i32 {{[0-9]+}})
# CHECK: call void @cutwin.barrier(i32 {{[0-9]+}})
# CHECK: declare void @cutwin.barrier(i32) #[[B:[0-9]+]]
# CHECK: attributes #[[B]] = { convergent nounwind }
