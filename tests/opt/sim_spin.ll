; sim-spin: a loop whose end depends on a location it reads again each iteration polls on
; its back edge (a flag read by a plain load; a lock taken by compare-and-swap, ended
; through a flag the loop sets to a constant). No such poll in a counted loop, a binary
; search (its bounds are the thread's own progress, though it re-reads its key), a loop
; that waits at a barrier, or a loop over the thread's local array. Loops whose length
; ScalarEvolution cannot bound (the binary search, the endless local loop) poll for
; interrupts instead (`cutwin.poll`); counted loops and loops with a barrier do not.
; RUN: --step sim-spin
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @wait_flag(ptr addrspace(1) %flag) {
entry:
  br label %loop
loop:
  %v = load i32, ptr addrspace(1) %flag
  %zero = icmp eq i32 %v, 0
  br i1 %zero, label %loop, label %done
done:
  ret void
}

define void @take_lock(ptr addrspace(1) %lock, ptr addrspace(1) %total) {
entry:
  br label %head
head:
  %done = phi i1 [ false, %entry ], [ %done.next, %latch ]
  br i1 %done, label %exit, label %try
try:
  %pair = cmpxchg ptr addrspace(1) %lock, i32 0, i32 1 seq_cst seq_cst
  %old = extractvalue { i32, i1 } %pair, 0
  %got = icmp eq i32 %old, 0
  br i1 %got, label %critical, label %latch
critical:
  %t = load i32, ptr addrspace(1) %total
  %t1 = add i32 %t, 1
  store i32 %t1, ptr addrspace(1) %total
  %r = atomicrmw xchg ptr addrspace(1) %lock, i32 0 seq_cst
  br label %latch
latch:
  %done.next = phi i1 [ true, %critical ], [ false, %try ]
  br label %head
exit:
  ret void
}

define void @counted(ptr addrspace(1) %a, i64 %n) {
entry:
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
  %p = getelementptr i32, ptr addrspace(1) %a, i64 %k
  store i32 1, ptr addrspace(1) %p
  %k1 = add i64 %k, 1
  %more = icmp slt i64 %k1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}

define i64 @binary_search(ptr addrspace(1) %a, ptr addrspace(1) %key, i64 %n) {
entry:
  br label %head
head:
  %lo = phi i64 [ 0, %entry ], [ %lo.next, %body ]
  %hi = phi i64 [ %n, %entry ], [ %hi.next, %body ]
  %open = icmp slt i64 %lo, %hi
  br i1 %open, label %body, label %done
body:
  %sum = add i64 %lo, %hi
  %mid = sdiv i64 %sum, 2
  %p = getelementptr i32, ptr addrspace(1) %a, i64 %mid
  %v = load i32, ptr addrspace(1) %p
  %k = load i32, ptr addrspace(1) %key
  %less = icmp slt i32 %v, %k
  %mid1 = add i64 %mid, 1
  %lo.next = select i1 %less, i64 %mid1, i64 %lo
  %hi.next = select i1 %less, i64 %hi, i64 %mid
  br label %head
done:
  ret i64 %lo
}

define void @wait_with_barrier(ptr addrspace(1) %flag) {
entry:
  br label %loop
loop:
  call void @cutwin.barrier(i32 0)
  %v = load i32, ptr addrspace(1) %flag
  %zero = icmp eq i32 %v, 0
  br i1 %zero, label %loop, label %done
done:
  ret void
}

define void @local_only(i64 %n) {
entry:
  %a = alloca [4 x i32]
  br label %loop
loop:
  %v = load i32, ptr %a
  %zero = icmp eq i32 %v, 0
  br i1 %zero, label %loop, label %done
done:
  ret void
}

declare void @cutwin.barrier(i32) convergent

!cutwin.kernels = !{!0}
!0 = !{ptr @wait_flag}

; CHECK-LABEL: *** IR after sim-spin ***
; CHECK-LABEL: define void @wait_flag(
; CHECK: %zero = icmp eq i32 %v, 0
; CHECK-NEXT: call void @cutwin.spin(i32 0)
; CHECK-NEXT: br i1 %zero, label %loop, label %done
; CHECK-LABEL: define void @take_lock(
; CHECK: latch:
; CHECK-NEXT: %done.next = phi i1 [ true, %critical ], [ false, %try ]
; CHECK-NEXT: call void @cutwin.spin(i32 0)
; CHECK-NEXT: br label %head
; CHECK-LABEL: define void @counted(
; CHECK-NOT: cutwin.{{spin|poll}}
; CHECK-LABEL: define i64 @binary_search(
; CHECK-NOT: cutwin.spin
; CHECK: call void @cutwin.poll(i32 0)
; CHECK-NEXT: br label %head
; CHECK-LABEL: define void @wait_with_barrier(
; CHECK-NOT: cutwin.{{spin|poll}}
; CHECK-LABEL: define void @local_only(
; CHECK-NOT: cutwin.spin
; CHECK: call void @cutwin.poll(i32 0)
; CHECK-NEXT: br i1 %zero, label %loop, label %done
; CHECK-LABEL: declare void @cutwin.barrier
