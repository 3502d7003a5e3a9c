; sim-optimize: LLVM O2 for the host; here it folds the index arithmetic and removes the
; dead load.
; RUN: --step sim-optimize
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr %ctx, ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %dead = load i32, ptr addrspace(1) %a.data
  %s = add i32 2, 3
  store i32 %s, ptr addrspace(1) %a.data
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after sim-optimize ***
; CHECK: define void @k__a1Ci32(
; CHECK-NEXT: entry:
; CHECK-NEXT: store i32 5, ptr addrspace(1) %a.data
; CHECK-NEXT: ret void
