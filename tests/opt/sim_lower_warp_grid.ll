; sim-lower: a warp operation is the host callback cutwin_sim_warp with the thread context
; and the same operands (the lanes meet in the scheduler), grid sync cutwin_sim_grid_sync
; with its site, and nanosleep nothing (a simulated thread has no clock to sleep on). Such a
; kernel runs as fibers: it gets the fiber entry point.
; RUN: --step sim-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %v = load i32, ptr addrspace(1) %a.data
  %bits = zext i32 %v to i64
  %down = call i64 @cutwin.warp(i32 2, i32 -1, i64 %bits, i32 1, i32 4)
  call void @cutwin.nanosleep(i32 100)
  call void @cutwin.grid.sync(i32 5)
  %r = trunc i64 %down to i32
  store i32 %r, ptr addrspace(1) %a.data
  ret void
}
declare i64 @cutwin.warp(i32, i32, i64, i32, i32)
declare void @cutwin.nanosleep(i32)
declare void @cutwin.grid.sync(i32)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after sim-lower ***
; CHECK: define void @k__a1Ci32(ptr %ctx,
; CHECK: %bits = zext i32 %v to i64
; CHECK-NEXT: [[W:%[0-9]+]] = call i64 @cutwin_sim_warp(ptr %ctx, i32 2, i32 -1, i64 %bits, i32 1, i32 4)
; CHECK-NEXT: call void @cutwin_sim_grid_sync(ptr %ctx, i32 5)
; CHECK-NEXT: %r = trunc i64 [[W]] to i32
; CHECK: define void @cutwin.sim.thread(ptr noalias %0, ptr noalias %1)
; CHECK-NOT: @cutwin.{{warp|nanosleep|grid}}
