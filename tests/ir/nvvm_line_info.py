# Line information on the NVVM path: the printed LLVM 7 dialect carries each
# instruction's source location (!dbg), the kernel's DISubprogram and a line-tables-only
# compile unit, and declares debug metadata version 3.1; libNVVM then writes `.loc`
# directives for the kernel's lines into the PTX, without marking it a debug target (the
# driver would compile that without optimisation).
# RUN: --kernel k --sig "void(float32[::1], float32[::1])" --dump-after=gpu-nvvm-ir,gpu-ptx --codegen nvvm --no-boundscheck
from numba import cuda

@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * 2.0

# CHECK-LABEL: *** NVVM IR after gpu-nvvm-ir ***
# CHECK: define void @"k__a1Cf32_a1Cf32"({{.*}}) !dbg ![[SP:[0-9]+]] {
# CHECK: load float, {{.*}}, !dbg ![[LOAD:[0-9]+]]
# CHECK: !nvvmir.version = !{![[VERSION:[0-9]+]]}
# CHECK: !llvm.dbg.cu = !{![[CU:[0-9]+]]}
# CHECK-DAG: ![[SP]] = distinct !DISubprogram(name: "k", {{.*}}line: 10, {{.*}}unit: ![[CU]])
# CHECK-DAG: ![[CU]] = distinct !DICompileUnit({{.*}}emissionKind: DebugDirectivesOnly)
# CHECK-DAG: ![[LOAD]] = !DILocation(line: 13, column: 19, scope: ![[SP]])
# CHECK-DAG: ![[VERSION]] = !{i32 2, i32 0, i32 3, i32 1}
# CHECK-LABEL: *** PTX after gpu-ptx ***
# CHECK: .target sm_90{{$}}
# CHECK-NOT: .section .debug_info
# CHECK: .loc {{[0-9]+}} 13 19
# CHECK: .file {{[0-9]+}} "{{.*}}nvvm_line_info.py"
