; sim-regions: a kept value every thread holds alike at every stop, where all threads stop
; together, is kept once per block (block_uniformity.cpp). Here the loop's counter %i is
; (its phi merges a constant and its own increment, the loop's exit depends on arguments
; alone); %pick is not: its phi merges the two sides of a branch on the thread index,
; though both sides give constants; %v is not: it is read from memory.
; RUN: --step sim-regions
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%cutwin.ctx = type { [3 x i32], [3 x i32], [3 x i32], [3 x i32], ptr, ptr, ptr, i64, ptr, i32, i32, ptr, ptr, ptr }

define void @k(ptr %ctx, ptr %out, i64 %n) #0 {
entry:
  %tidp = getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 0, i32 0
  %tid = load i32, ptr %tidp, align 4
  %t = zext i32 %tid to i64
  %slot = getelementptr inbounds i64, ptr %out, i64 %t
  %v = load i64, ptr %out, align 8
  %odd = and i32 %tid, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %one, label %two

one:
  br label %join

two:
  br label %join

join:
  %pick = phi i64 [ 1, %one ], [ 2, %two ]
  br label %loop

loop:
  %i = phi i64 [ 0, %join ], [ %next, %loop ]
  call void @cutwin_sim_barrier(ptr %ctx, i32 3)
  %next = add i64 %i, 1
  %a = add i64 %pick, %i
  %b = add i64 %a, %v
  store i64 %b, ptr %slot, align 8
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %done

done:
  ret void
}

declare void @cutwin_sim_barrier(ptr, i32)

attributes #0 = { "cutwin-kernel-code" }

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK: # *** sim-regions: 2 regions, a frame of 32 bytes per thread (0 of local arrays), values kept after each stop: 3 (1 once per block) ***
; CHECK: entry:
; CHECK: %v = load i64, ptr %out
; CHECK-NEXT: store i64 %v, ptr %frame.slot
; CHECK: join:
; CHECK-NEXT: %pick = phi i64 [ 1, %one ], [ 2, %two ]
; CHECK-NEXT: store i64 %pick, ptr %frame.slot
; CHECK: loop:
; CHECK-NEXT: %i = phi i64 [ 0, %join ], [ %next, %after.barrier ]
; CHECK-NEXT: store i32 1, ptr %stopped
; CHECK-NEXT: %[[CELL:[0-9]+]] = getelementptr inbounds i8, ptr %block.values.next, i64 0
; CHECK-NEXT: store i64 %i, ptr %[[CELL]], align 8, !alias.scope
; CHECK-NEXT: ret i32 1
; CHECK: after.barrier:
; CHECK-DAG: %v.kept = load i64, ptr %frame.slot
; CHECK-DAG: %pick.kept = load i64, ptr %frame.slot
; CHECK-DAG: %i.block = load i64, ptr
; CHECK: %next = add i64 %i.block, 1
