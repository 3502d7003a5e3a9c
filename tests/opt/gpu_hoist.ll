; gpu-hoist (libNVVM): the row offset i * n, computed in a conditional block inside the
; loop, moves out of the loop (libNVVM would leave it there).
; RUN: --step gpu-hoist
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Cf32(ptr addrspace(1) %a.data, i64 %n, i64 %i, ptr addrspace(1) %cutwin.err) {
entry:
  br label %head
head:
  %t = phi i64 [ 0, %entry ], [ %t.next, %latch ]
  %c = icmp slt i64 %i, 100
  br i1 %c, label %body, label %latch
body:
  %row = mul i64 %i, %n
  %at = add i64 %row, %t
  %p = getelementptr float, ptr addrspace(1) %a.data, i64 %at
  store float 1.0, ptr addrspace(1) %p
  br label %latch
latch:
  %t.next = add i64 %t, 1
  %done = icmp eq i64 %t.next, %n
  br i1 %done, label %exit, label %head
exit:
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** IR after gpu-hoist ***
; CHECK: entry:
; CHECK: %row = mul i64 %i, %n
; CHECK: head:
; CHECK-NOT: mul i64
; CHECK: exit:
