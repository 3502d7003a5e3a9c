# Dynamic shared memory: every `cuda.shared.array(0, dtype)` is a view of one external,
# zero-length addrspace(3) array; its length is the launch's dynamic bytes (the
# cutwin.dynamic_shared_size intrinsic) over the item size. On the simulator it sits after
# the static shared arrays (here 10 float32 = 40 bytes, so at offset 48 after alignment).
# RUN: --kernel k --sig "void(float64[::1])" --dump-after=cleanup,sim-lower --no-boundscheck
from numba import cuda, float32, float64

@cuda.jit
def k(out):
    s = cuda.shared.array(10, float32)
    d = cuda.shared.array(0, float64)
    s[0] = 1
    d[0] = s[0]
    out[0] = d.size

# CHECK-LABEL: *** IR after cleanup ***
# CHECK: @cutwin_dynamic_shared = external addrspace(3) global [0 x i8], align 16
# CHECK: %[[BYTES:.*]] = call i32 @cutwin.dynamic_shared_size()
# CHECK: {{udiv|lshr}} {{.*}}%[[BYTES]]{{.*}}, {{8|3}}
# CHECK-LABEL: *** IR after sim-lower ***
# CHECK-NOT: @cutwin_dynamic_shared
# CHECK-DAG: getelementptr inbounds %cutwin.ctx, ptr %{{.*}}, i32 0, i32 7
# CHECK-DAG: getelementptr inbounds i8, ptr %shared.base{{[0-9]*}}, i64 48
