; sim-regions without bounds checks, more kept integers than leader copies: a resume point
; gives its first four kept integers (of any width) a copy each, 8 bytes apart in
; `leaders`; the fifth reads its own slot. A value kept across two stops has a copy at each,
; numbered per resume point.
; RUN: --step sim-regions --no-boundscheck
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%cutwin.ctx = type { [3 x i32], [3 x i32], [3 x i32], [3 x i32], ptr, ptr, ptr, i64, ptr, i32, i32, ptr, ptr, ptr }

define void @k(ptr %ctx, ptr %in, ptr %out) #0 {
entry:
  %a = load i64, ptr %in, align 8
  %p1 = getelementptr inbounds i8, ptr %in, i64 8
  %b = load i32, ptr %p1, align 4
  %p2 = getelementptr inbounds i8, ptr %in, i64 16
  %c = load i8, ptr %p2, align 1
  %p3 = getelementptr inbounds i8, ptr %in, i64 24
  %d = load i16, ptr %p3, align 2
  %p4 = getelementptr inbounds i8, ptr %in, i64 32
  %e = load i64, ptr %p4, align 8
  call void @cutwin_sim_barrier(ptr %ctx, i32 3)
  %b64 = zext i32 %b to i64
  %c64 = zext i8 %c to i64
  %d64 = zext i16 %d to i64
  %s1 = add i64 %a, %b64
  %s2 = add i64 %s1, %c64
  %s3 = add i64 %s2, %d64
  %s4 = add i64 %s3, %e
  store i64 %s4, ptr %out, align 8
  call void @cutwin_sim_barrier(ptr %ctx, i32 4)
  %o1 = getelementptr inbounds i8, ptr %out, i64 8
  store i64 %e, ptr %o1, align 8
  ret void
}

declare void @cutwin_sim_barrier(ptr, i32)

attributes #0 = { "cutwin-kernel-code" }

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK: values kept after each stop: 5, 1 ***
; CHECK: after.barrier:
; CHECK: getelementptr inbounds i8, ptr %leaders, i64 0
; CHECK: %a.kept = load i64, ptr %kept.from, align 8
; CHECK: getelementptr inbounds i8, ptr %leaders, i64 8
; CHECK: %b.kept = load i32, ptr %kept.from{{[0-9]+}}, align 4
; CHECK: getelementptr inbounds i8, ptr %leaders, i64 16
; CHECK: %c.kept = load i8, ptr %kept.from{{[0-9]+}}, align 1
; CHECK: getelementptr inbounds i8, ptr %leaders, i64 24
; CHECK: %d.kept = load i16, ptr %kept.from{{[0-9]+}}, align 2
; CHECK-NEXT: %e.kept = load i64, ptr %frame.slot{{[0-9]+}}, align 8
; CHECK: after.barrier1:
; CHECK-NEXT: getelementptr inbounds i8, ptr %leaders, i64 0
; CHECK: %e.kept{{[0-9]+}} = load i64, ptr %kept.from{{[0-9]+}}, align 8
; CHECK: define i32 @cutwin.sim.regions(
; CHECK: region.1:
; CHECK: %leader = load i64, ptr
; CHECK: store i64 %leader, ptr
; CHECK: %leader{{[0-9]+}} = load i32, ptr
; CHECK: %leader{{[0-9]+}} = load i8, ptr
; CHECK: %leader{{[0-9]+}} = load i16, ptr
; CHECK-NOT: %leader{{[0-9]+}} = load i64
; CHECK: br label %agree
; CHECK: region.2:
; CHECK: %leader{{[0-9]+}} = load i64, ptr
; CHECK: freeze i64
