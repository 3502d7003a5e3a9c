; sim-nan: a float32 operation's NaN result becomes the GPU's 0x7fffffff; a float64 fneg
; of a NaN gives the operand quieted, its sign kept; float64 arithmetic is left as it is.
; RUN: --step sim-nan
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Cf32(ptr %ctx, ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err, double %d) "cutwin-kernel" {
entry:
  %x = load float, ptr addrspace(1) %a.data
  %y = fmul float %x, %x
  store float %y, ptr addrspace(1) %a.data
  %n = fneg double %d
  %m = fadd double %n, %d
  store double %m, ptr addrspace(1) %a.data
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** IR after sim-nan ***
; CHECK: %y = fmul float %x, %x
; CHECK-NEXT: [[ISNAN:%[^ ]+]] = fcmp uno float %y, %y
; CHECK-NEXT: select i1 [[ISNAN]], float 0x7FFFFFFFE0000000, float %y
; CHECK: %n = fneg double %d
; CHECK-NEXT: [[BITS:%[0-9]+]] = bitcast double %d to i64
; CHECK-NEXT: [[QUIET:%[0-9]+]] = or i64 [[BITS]], 2251799813685248
; CHECK-NEXT: [[Q:%[0-9]+]] = bitcast i64 [[QUIET]] to double
; CHECK-NEXT: [[DNAN:%[0-9]+]] = fcmp uno double %d, %d
; CHECK-NEXT: [[NEG:%[0-9]+]] = select i1 [[DNAN]], double [[Q]], double %n
; CHECK-NEXT: %m = fadd double [[NEG]], %d
; CHECK-NOT: fcmp uno double %m
