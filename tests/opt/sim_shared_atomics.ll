; sim-shared-atomics: an atomic add and a compare-and-swap on shared memory (address space
; 3) become a load, the operation and a store (the old value still their result); the
; same atomic on global memory (address space 1) stays atomic.
; RUN: --step sim-shared-atomics
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @k(ptr addrspace(3) %s, ptr addrspace(1) %g, ptr %out) {
entry:
  %old = atomicrmw add ptr addrspace(3) %s, i32 5 monotonic, align 4
  %pair = cmpxchg ptr addrspace(3) %s, i32 7, i32 9 seq_cst seq_cst, align 4
  %seen = extractvalue { i32, i1 } %pair, 0
  %sum = add i32 %old, %seen
  %g.old = atomicrmw add ptr addrspace(1) %g, i32 %sum monotonic, align 4
  store i32 %g.old, ptr %out, align 4
  ret void
}

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK-LABEL: define void @k(
; CHECK-NEXT: entry:
; CHECK-NEXT: %[[OLD:[0-9]+]] = load i32, ptr addrspace(3) %s, align 4
; CHECK-NEXT: %[[NEW:[a-z0-9]+]] = add i32 %[[OLD]], 5
; CHECK-NEXT: store i32 %[[NEW]], ptr addrspace(3) %s, align 4
; CHECK-NEXT: %[[SEEN:[0-9]+]] = load i32, ptr addrspace(3) %s, align 4
; CHECK-NEXT: %[[EQ:[0-9]+]] = icmp eq i32 %[[SEEN]], 7
; CHECK-NEXT: %[[SWAP:[0-9]+]] = select i1 %[[EQ]], i32 9, i32 %[[SEEN]]
; CHECK-NEXT: store i32 %[[SWAP]], ptr addrspace(3) %s, align 4
; CHECK: %sum = add i32 %[[OLD]],
; CHECK-NEXT: %g.old = atomicrmw add ptr addrspace(1) %g, i32 %sum monotonic, align 4
