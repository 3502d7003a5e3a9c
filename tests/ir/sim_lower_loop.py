# Simulator lowering of a kernel without barriers: special registers become loads from
# the thread context, and the whole block runs as a loop over threadIdx z, y, x.
# RUN: --kernel k --sig "void(int32[::1])" --dump-after=sim-lower --no-boundscheck
from numba import cuda

@cuda.jit
def k(a):
    a[cuda.threadIdx.x] = cuda.blockIdx.x

# CHECK: %cutwin.ctx = type { [3 x i32], [3 x i32], [3 x i32], [3 x i32], ptr, ptr, ptr, i64, ptr, i32, i32, ptr, ptr, ptr }
# CHECK-LABEL: define internal void @k__a1Ci32(ptr %ctx,
# CHECK-DAG: getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 0
# CHECK-DAG: getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 1
# CHECK-NOT: @cutwin.tid
# CHECK-LABEL: define void @cutwin.sim.block(ptr noalias %0, ptr noalias %1)
# CHECK: tid.loop:
# CHECK: call void @k__a1Ci32(ptr %0, {{.*}}) #[[INL:[0-9]+]]
# CHECK: attributes #[[INL]] = { alwaysinline }
