; sim-shared-raise: error exits (a raise call, then unreachable) branch to one shared call
; whose arguments phis choose, each from its own block; other calls are left alone.
; RUN: --step sim-shared-raise
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @k(ptr %ctx, ptr addrspace(1) %err, i64 %i, i64 %n, ptr %out) {
entry:
  %ok0 = icmp ult i64 %i, %n
  br i1 %ok0, label %next, label %raise0
raise0:
  call void @cutwin_sim_raise(ptr %ctx, ptr addrspace(1) %err, i32 1, i32 0, i64 %i, i64 0, i64 %n)
  unreachable
next:
  %j = add i64 %i, 1
  %ok1 = icmp ult i64 %j, %n
  br i1 %ok1, label %done, label %raise1
raise1:
  call void @cutwin_sim_raise(ptr %ctx, ptr addrspace(1) %err, i32 1, i32 1, i64 %j, i64 0, i64 %n)
  unreachable
done:
  store i64 %j, ptr %out
  ret void
}

declare void @cutwin_sim_raise(ptr, ptr addrspace(1), i32, i32, i64, i64, i64) noreturn

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK-LABEL: *** IR after sim-shared-raise ***
; CHECK: raise0:
; CHECK-NEXT: br label %raise.shared
; CHECK: raise1:
; CHECK-NEXT: br label %raise.shared
; CHECK: done:
; CHECK-NEXT: store i64 %j, ptr %out
; CHECK-NEXT: ret void
; CHECK: raise.shared:
; CHECK-NEXT: %raise.0 = phi ptr [ %ctx, %raise0 ], [ %ctx, %raise1 ]
; CHECK-NEXT: %raise.1 = phi ptr addrspace(1) [ %err, %raise0 ], [ %err, %raise1 ]
; CHECK-NEXT: %raise.2 = phi i32 [ 1, %raise0 ], [ 1, %raise1 ]
; CHECK-NEXT: %raise.3 = phi i32 [ 0, %raise0 ], [ 1, %raise1 ]
; CHECK-NEXT: %raise.4 = phi i64 [ %i, %raise0 ], [ %j, %raise1 ]
; CHECK-NEXT: %raise.5 = phi i64 [ 0, %raise0 ], [ 0, %raise1 ]
; CHECK-NEXT: %raise.6 = phi i64 [ %n, %raise0 ], [ %n, %raise1 ]
; CHECK-NEXT: call void @cutwin_sim_raise(ptr %raise.0, ptr addrspace(1) %raise.1, i32 %raise.2, i32 %raise.3, i64 %raise.4, i64 %raise.5, i64 %raise.6)
; CHECK-NEXT: unreachable
