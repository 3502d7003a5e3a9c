# A grid sync as the kernel's first statement: gpu-lower splits the entry block to elect
# the block's leader, and the call to the grid barrier must land in the block that now
# holds the sync (it once stayed in the old entry block: "Instruction has bogus parent").
# RUN: --kernel k --sig "void(float64[::1])" --dump-after=gpu-lower --emit=ptx
from numba import cuda

@cuda.jit
def k(a):
    cuda.cg.this_grid().sync()
    a[0] = 1.0

# CHECK-LABEL: *** IR after gpu-lower ***
# CHECK: entry:
# CHECK: br i1 {{.*}}, label %grid_init, label %grid_init.done
# CHECK: grid_init.done:
# CHECK: call void @llvm.nvvm.barrier0()
# CHECK-NEXT: br label %entry.after_grid_init
# CHECK: entry.after_grid_init:
# CHECK-NOT: {{^[A-Za-z0-9._]+:}}
# CHECK: call void @cutwin.gpu.grid_sync()
# CHECK: define internal void @cutwin.gpu.grid_sync()
