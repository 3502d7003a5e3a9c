; sim-regions on a warp operation: the thread leaves its request (operation, mask, value,
; lane operand) in its WarpLane and stops; where it resumes it loads the result the
; scheduler computed for the warp's lanes. On fibers the thread entry calls the warp
; callback with the request and stores the result.
; RUN: --step sim-regions
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%cutwin.ctx = type { [3 x i32], [3 x i32], [3 x i32], [3 x i32], ptr, ptr, ptr, i64, ptr, i32, i32, ptr, ptr, ptr }

define void @k(ptr %ctx, ptr %out) #0 {
entry:
  %tidp = getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 0, i32 0
  %tid = load i32, ptr %tidp, align 4
  %t = zext i32 %tid to i64
  %slot = getelementptr inbounds i64, ptr %out, i64 %t
  %v = load i64, ptr %slot, align 8
  %r = call i64 @cutwin_sim_warp(ptr %ctx, i32 3, i32 -1, i64 %v, i32 1, i32 5)
  %sum = add i64 %r, %v
  store i64 %sum, ptr %slot, align 8
  ret void
}

declare i64 @cutwin_sim_warp(ptr, i32, i32, i64, i32, i32)

attributes #0 = { "cutwin-kernel-code" }

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK: # *** sim-regions: 2 regions, a frame of 8 bytes per thread (0 of local arrays), values kept after each stop: 1 ***
; CHECK: @cutwin.sim.barrier.sites = private constant [2 x i32] [i32 0, i32 5]
; CHECK: @cutwin.sim.barrier.warps = private constant [2 x i8] c"\00\01"
; CHECK: define internal i32 @k(ptr %ctx, ptr %out, i32 %resume, ptr %stopped, ptr %leaders, i32 %parity)
; CHECK: %lanes = load ptr, ptr
; CHECK: %v = load i64, ptr %slot
; CHECK: store i64 %v, ptr %frame.slot
; The request, at the lane's offsets 0 (operation), 4 (mask), 8 (value), 16 (lane operand):
; CHECK: %[[LANE:[0-9]+]] = getelementptr inbounds i8, ptr %lanes, i64 %{{[0-9]+}}
; CHECK-NEXT: %[[OP:[0-9]+]] = getelementptr inbounds i8, ptr %[[LANE]], i64 0
; CHECK-NEXT: store i32 3, ptr %[[OP]]
; CHECK: store i32 -1, ptr
; CHECK: store i64 %v, ptr
; CHECK: store i32 1, ptr
; CHECK: store i32 1, ptr %stopped
; CHECK-NEXT: ret i32 1
; CHECK: after.warp:
; CHECK: %v.kept = load i64, ptr %frame.slot
; CHECK: %[[RES:[0-9]+]] = getelementptr inbounds i8, ptr %{{[0-9]+}}, i64 24
; CHECK-NEXT: %warp.result = load i64, ptr %[[RES]]
; CHECK: %sum = add i64 %warp.result, %v.kept
; CHECK: define void @cutwin.sim.thread(
; CHECK: warp:
; CHECK: %{{[0-9]+}} = call i64 @cutwin_sim_warp(ptr %0, i32 %{{[0-9]+}}, i32 %{{[0-9]+}}, i64 %{{[0-9]+}}, i32 %{{[0-9]+}}, i32 %site)
; CHECK: store i64 %{{[0-9]+}}, ptr
