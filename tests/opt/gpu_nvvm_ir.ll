; gpu-nvvm-ir: the module printed in the LLVM 7 dialect libNVVM reads: typed pointers
; (opaque ones as i8*, cast where used), numbered names, NVVM's data layout.
; RUN: --step gpu-nvvm-ir --codegen nvvm
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Cf32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) {
entry:
  %x = load float, ptr addrspace(1) %a.data
  %y = fadd float %x, 1.0
  store float %y, ptr addrspace(1) %a.data
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** NVVM IR after gpu-nvvm-ir ***
; CHECK: target datalayout = "e-p:64:64:64-
; CHECK: define void @"k__a1Cf32"(i8 addrspace(1)* %v0, i64 %v1, i64 %v2, i8 addrspace(1)* %v3) {
; CHECK: [[P:%t[0-9]+]] = bitcast i8 addrspace(1)* %v0 to float addrspace(1)*
; CHECK-NEXT: load float, float addrspace(1)* [[P]], align 4
; CHECK: !nvvmir.version = !{!0}
