; sim-libdevice: the libdevice functions a kernel calls are linked in, rewritten for the
; CPU: __nvvm_reflect answered, no NVVM intrinsic or inline PTX left.
; RUN: --step sim-libdevice
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Cf32(ptr %ctx, ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %x = load float, ptr addrspace(1) %a.data
  %s = call float @__nv_sinf(float %x)
  store float %s, ptr addrspace(1) %a.data
  ret void
}
declare float @__nv_sinf(float)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** IR after sim-libdevice ***
; CHECK: call float @__nv_sinf(float %x)
; CHECK: define internal float @__nv_sinf(float
; CHECK-NOT: llvm.nvvm
; CHECK-NOT: __nvvm_reflect
; CHECK-NOT: asm
