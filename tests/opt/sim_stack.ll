; sim-stack: a fiber's stack is 32 KiB plus every fixed-size local, in whole pages; the locals
; alone are the thread's local memory (limited as on the GPU).
; RUN: --step sim-stack
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr %ctx, ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %local = alloca [1000 x double]
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; 32768 + 8000 bytes, rounded up to 4096
; CHECK: # *** sim-stack: 40960 bytes per fiber, 8000 bytes of local arrays ***
