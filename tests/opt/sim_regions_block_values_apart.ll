; sim-regions: a barrier only the first 16 threads reach (inside a branch on the thread
; index) lets the others go on without it, so threads do not stop together: no value is
; kept once per block, not even the loop's counter, which every thread computes alike
; (block_uniformity.cpp: a stop in a block some threads may skip).
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
  %few = icmp ult i32 %tid, 16
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %latch ]
  br i1 %few, label %wait, label %latch

wait:
  call void @cutwin_sim_barrier(ptr %ctx, i32 3)
  br label %latch

latch:
  %next = add i64 %i, 1
  store i64 %next, ptr %slot, align 8
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %done

done:
  ret void
}

declare void @cutwin_sim_barrier(ptr, i32)

attributes #0 = { "cutwin-kernel-code" }

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK: # *** sim-regions: 2 regions, a frame of 8 bytes per thread (0 of local arrays), values kept after each stop: 1 ***
; CHECK: wait:
; CHECK: store i32 1, ptr %stopped
; CHECK-NEXT: ret i32 1
; CHECK: after.barrier:
; CHECK: %i.kept = load i64, ptr %frame.slot
; CHECK-NOT: block.values
