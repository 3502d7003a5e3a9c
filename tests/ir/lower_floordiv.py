# Python floor division on integers: the divisor 0 and -1 never reach the hardware
# divide (x86 traps on them), and the quotient is adjusted towards negative infinity.
# RUN: --kernel k --sig "void(int64[:], int64, int64)" --dump-after=lower --no-boundscheck
from numba import cuda

@cuda.jit
def k(out, a, b):
    out[0] = a // b

# CHECK-LABEL: define void @k__a1Ai64_i64_i64(
# CHECK: %[[ZERO:.*]] = icmp eq i64 %{{.*}}, 0
# CHECK: %[[NEG1:.*]] = icmp eq i64 %{{.*}}, -1
# CHECK: %[[SAFE:.*]] = select i1 %{{.*}}, i64 1, i64
# CHECK: sdiv i64 %{{.*}}, %[[SAFE]]
# CHECK: srem i64 %{{.*}}, %[[SAFE]]
# CHECK: select i1 %[[ZERO]], i64 0,
# CHECK-NOT: cutwin.error.raise
