; sim-regions without bounds checks: a kept integer that may be the same in every thread
; when the threads resume (the running sum: from a load) is read from the `leaders`
; copies when the body is given them, from its own frame slot otherwise (the loop's
; counter, the same in every thread by construction, is kept once per block instead); the regions entry
; checks each round whether every thread's slot holds the first thread's value (the
; `agree` loop) and runs the resume point's loop over the threads with the first thread's
; copies (`alike`: the optimiser sees one value for all threads) or with none (`unlike`).
; Fibers and the mixed loop pass none.
; RUN: --step sim-regions --no-boundscheck

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%cutwin.ctx = type { [3 x i32], [3 x i32], [3 x i32], [3 x i32], ptr, ptr, ptr, i64, ptr, i32, i32, ptr, ptr, ptr }

define void @k(ptr %ctx, ptr %out, i64 %rounds) #0 {
entry:
  %tidp = getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 0, i32 0
  %tid = load i32, ptr %tidp, align 4
  %t = zext i32 %tid to i64
  %slot = getelementptr inbounds i64, ptr %out, i64 %t
  %first = load i64, ptr %slot, align 8
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i64 [ %first, %entry ], [ %sum, %loop ]
  %sum = add i64 %acc, %t
  call void @cutwin_sim_barrier(ptr %ctx, i32 7)
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %rounds
  br i1 %more, label %loop, label %done

done:
  store i64 %sum, ptr %slot, align 8
  ret void
}

declare void @cutwin_sim_barrier(ptr, i32)

attributes #0 = { "cutwin-kernel-code" }

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK: define internal i32 @k(ptr %ctx, ptr %out, i64 %rounds, i32 %resume, ptr %stopped, ptr %leaders, i32 %parity)
; CHECK: after.barrier:
; CHECK: %i.block = load i64, ptr
; CHECK-NEXT: [[COPY:%[0-9]+]] = getelementptr inbounds i8, ptr %leaders, i64 0
; CHECK-NEXT: [[GIVEN:%[0-9]+]] = icmp ne ptr %leaders, null
; CHECK-NEXT: %kept.from = select i1 [[GIVEN]], ptr [[COPY]], ptr %frame.slot
; CHECK-NEXT: %sum.kept = load i64, ptr %kept.from, align 8, !alias.scope
; CHECK: define void @cutwin.sim.thread(
; CHECK: call i32 @k({{.*}}, i32 %resume, ptr %stopped.at, ptr null, i32 %parity)
; CHECK: define i32 @cutwin.sim.regions(
; CHECK: %leaders = alloca [4 x i64], align 8
; CHECK: region.1:
; CHECK: %leader = load i64, ptr
; CHECK: store i64 %leader, ptr
; CHECK: br label %agree
; CHECK: region.1.alike:
; CHECK: region.1.unlike:
; CHECK: call i32 @k({{.*}}, i32 0, ptr %{{[0-9]+}}, ptr null, i32 %parity)
; CHECK: agree:
; CHECK: %differ = phi i64
; CHECK: agreed:
; CHECK-NEXT: [[SETTLED:%[0-9]+]] = freeze i64 %{{[0-9]+}}
; CHECK-NEXT: %agree{{[0-9]*}} = icmp eq i64 [[SETTLED]], 0
; CHECK-NEXT: br i1 %agree{{[0-9]*}}, label %region.1.alike, label %region.1.unlike
; CHECK: call i32 @k({{.*}}, i32 1, ptr %{{[0-9]+}}, ptr %leaders, i32 %parity)
; CHECK: call i32 @k({{.*}}, i32 1, ptr %{{[0-9]+}}, ptr null, i32 %parity)
; CHECK: call i32 @k({{.*}}, i32 %from, ptr %{{[0-9]+}}, ptr null, i32 %parity)
