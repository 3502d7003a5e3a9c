; gpu-optimize (NVPTX): LLVM O3 with NVPTX's passes; here it folds the constant and
; removes the dead load.
; RUN: --step gpu-optimize
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) {
entry:
  %dead = load i32, ptr addrspace(1) %a.data
  %s = mul i32 6, 7
  store i32 %s, ptr addrspace(1) %a.data
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after gpu-optimize ***
; CHECK: define void @k__a1Ci32(
; CHECK-NEXT: entry:
; CHECK-NEXT: store i32 42, ptr addrspace(1) %a.data
; CHECK-NEXT: ret void
