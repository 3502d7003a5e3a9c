; sim-optimize without bounds checks: IRCE splits the loop at `t < k` into a main loop over
; [0, min(k, n)) without the check and a post-loop over the rest that keeps it (false
; there for every t) and is marked not to be vectorised. VersionSplitChecksPass versions
; that post-loop on the check at its first and last iteration: when both agree (they
; always do here), a copy with the check as that constant runs (the `.false` copy: the
; stores of `state` alone, vectorised; the `.true` copy: the add and the store,
; vectorised), the loop as IRCE left it otherwise.
; RUN: --step sim-optimize --no-boundscheck
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @k(ptr noalias %s, ptr noalias %state, i64 %n, i64 %k) "cutwin-kernel" {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %next ]
  %below = icmp ult i64 %t, %k
  br i1 %below, label %add, label %next
add:
  %a = getelementptr inbounds float, ptr %s, i64 %t
  %tk = add nuw nsw i64 %t, %k
  %b = getelementptr inbounds float, ptr %s, i64 %tk
  %x = load float, ptr %a, align 4
  %y = load float, ptr %b, align 4
  %z = fadd float %x, %y
  store float %z, ptr %a, align 4
  br label %next
next:
  %st = getelementptr inbounds i32, ptr %state, i64 %t
  store i32 2, ptr %st, align 4
  %t.next = add nuw nsw i64 %t, 1
  %again = icmp slt i64 %t.next, %n
  br i1 %again, label %loop, label %done
done:
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK-LABEL: *** IR after sim-optimize ***
; CHECK: vector.body:
; CHECK: store <{{[0-9]+}} x i32> <i32 2,
; CHECK: postloop:
; CHECK: %split.check.value = freeze i1
; CHECK: %split.check.constant = freeze i1
; CHECK-NEXT: br i1 %split.check.constant, label %split.check.choose, label %loop.postloop
; CHECK: split.check.choose:
; CHECK: br i1 %split.check.value, label %loop.postloop.true.preheader, label %loop.postloop.false.preheader
; CHECK: loop.postloop.false.preheader:
; CHECK: vector.body{{[0-9]+}}:
; CHECK-NOT: load float
; CHECK: store <{{[0-9]+}} x i32> <i32 2,
; CHECK: loop.postloop.true.preheader:
; CHECK: vector.body{{[0-9]+}}:
; CHECK: fadd <{{[0-9]+}} x float>
; CHECK: store <{{[0-9]+}} x i32> <i32 2,
; CHECK: loop.postloop:
; CHECK: %below.postloop = icmp ult i64 %t.postloop, %k
