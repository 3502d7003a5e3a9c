; gpu-libdevice (NVPTX): libdevice's functions are linked in and reflection is answered
; as libNVVM answers it (no __nvvm_reflect call left).
; RUN: --step gpu-libdevice
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Cf32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) {
entry:
  %x = load float, ptr addrspace(1) %a.data
  %s = call float @__nv_sinf(float %x)
  store float %s, ptr addrspace(1) %a.data
  ret void
}
declare float @__nv_sinf(float)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** IR after gpu-libdevice ***
; CHECK: define {{.*}}float @__nv_sinf(float
; CHECK-NOT: call i32 @__nvvm_reflect
