; contract: a product used only by additions is fused into each (numba-cuda's NVVM rule);
; one that has another use (a store) is not.
; RUN: --step contract
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Cf32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err, float %b, float %c) {
entry:
  %x = load float, ptr addrspace(1) %a.data
  %p = fmul float %x, %b
  %s = fadd float %p, %c
  store float %s, ptr addrspace(1) %a.data
  %q = fmul float %x, %c
  %t = fadd float %q, %b
  store float %t, ptr addrspace(1) %a.data
  store float %q, ptr addrspace(1) %a.data
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** IR after contract ***
; CHECK: call float @llvm.fma.f32(float %x, float %b, float %c)
; CHECK: %q = fmul float %x, %c
; CHECK-NEXT: %t = fadd float %q, %b
