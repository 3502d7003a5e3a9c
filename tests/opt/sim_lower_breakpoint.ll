; sim-lower: a breakpoint becomes the host callback with the thread context, its site and
; its frame; it needs no fibers, so the kernel keeps its thread loop (the block entry).
; RUN: --step sim-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %slot = alloca i32
  %frame = alloca [1 x ptr]
  store ptr %slot, ptr %frame
  %t = call i32 @cutwin.tid.x()
  store i32 %t, ptr %slot
  call void @cutwin.breakpoint(i32 0, ptr %frame)
  ret void
}
declare i32 @cutwin.tid.x()
declare void @cutwin.breakpoint(i32, ptr)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after sim-lower ***
; CHECK: define internal void @k__a1Ci32(ptr %ctx,
; CHECK: call void @cutwin_sim_breakpoint(ptr %ctx, i32 0, ptr %frame)
; CHECK: define void @cutwin.sim.block(
; CHECK-NOT: @cutwin.breakpoint(
