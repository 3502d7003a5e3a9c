# Simulator lowering of a kernel with barriers: threads become fibers that call into the
# scheduler at each barrier; shared arrays become offsets into the block's buffer.
# RUN: --kernel k --sig "void(float32[::1])" --dump-after=sim-lower --no-boundscheck
from numba import cuda, float32

@cuda.jit
def k(a):
    s = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    s[i] = a[i]
    cuda.syncthreads()
    a[i] = s[63 - i]

# CHECK-LABEL: define void @k__a1Cf32(ptr %ctx,
# CHECK: %shared.base = load ptr, ptr %{{.*}}
# CHECK: addrspacecast ptr %{{.*}} to ptr addrspace(3)
# CHECK: call void @cutwin_sim_barrier(ptr %ctx, i32 0)
# CHECK-NOT: addrspace(3) global
# CHECK-LABEL: define void @cutwin.sim.thread(ptr noalias %0, ptr noalias %1)
# CHECK: call void @k__a1Cf32(ptr %0,
