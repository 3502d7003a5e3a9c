# Kernels carry DWARF line tables pointing at the .py source.
# RUN: --kernel k --sig "void(float64[:])" --dump-after=lower
from numba import cuda

@cuda.jit
def k(a):
    i = cuda.grid(1)
    a[i] = 2.0 * a[i]

# CHECK: !llvm.dbg.cu = !{![[CU:[0-9]+]]}
# CHECK: ![[CU]] = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: ![[FILE:[0-9]+]], producer: "cutwin"
# CHECK: ![[FILE]] = !DIFile(filename: "lower_debuginfo.py"
# CHECK: distinct !DISubprogram(name: "k", linkageName: "k__a1Af64", scope: ![[FILE]], file: ![[FILE]], line: 6
# CHECK: !DILocalVariable(name: "a", arg: 1, {{.*}}type: ![[ARR:[0-9]+]])
# CHECK: ![[ARR]] = !DICompositeType(tag: DW_TAG_structure_type, name: "array(float64, 1d, A)", {{.*}}size: 192
# CHECK: !DIDerivedType(tag: DW_TAG_member, name: "data"
# CHECK: !DIDerivedType(tag: DW_TAG_member, name: "shape", {{.*}}offset: 64
# CHECK: !DIDerivedType(tag: DW_TAG_member, name: "strides", {{.*}}offset: 128
# CHECK: !DILocalVariable(name: "i"
# CHECK: !DILocation(line: 7, column: {{[0-9]+}}
# CHECK: !DILocation(line: 8, column: {{[0-9]+}}
