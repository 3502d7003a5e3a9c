; cleanup: SROA, EarlyCSE, InstCombine, SimplifyCFG; the local's stack slot goes away and
; the branch on a constant folds.
; RUN: --step cleanup
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) {
entry:
  %slot = alloca i32
  store i32 7, ptr %slot
  br i1 true, label %then, label %else
then:
  %v = load i32, ptr %slot
  store i32 %v, ptr addrspace(1) %a.data
  ret void
else:
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after cleanup ***
; CHECK: entry:
; CHECK-NEXT: store i32 7, ptr addrspace(1) %a.data
; CHECK-NEXT: ret void
