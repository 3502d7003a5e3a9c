; sim-address-spaces: loads, stores and atomics through global pointers (address space 1)
; are marked as never reaching shared memory (address space 3) and the other way round, in
; a domain of their own, beside what they were marked with before; other accesses (the
; thread's own memory, address space 0) and calls stay as they were.
; RUN: --step sim-address-spaces
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @k(ptr addrspace(1) %x, ptr addrspace(3) %s, ptr %own, i64 %i) {
entry:
  %from = getelementptr inbounds float, ptr addrspace(1) %x, i64 %i
  %v = load float, ptr addrspace(1) %from, align 4, !noalias !0
  %to = getelementptr inbounds float, ptr addrspace(3) %s, i64 %i
  store float %v, ptr addrspace(3) %to, align 4
  %n = atomicrmw add ptr addrspace(3) %s, i32 1 seq_cst, align 4
  store i32 %n, ptr %own, align 4
  call void @helper(ptr addrspace(1) %x)
  ret void
}

declare void @helper(ptr addrspace(1))

!cutwin.kernels = !{!3}
!3 = !{ptr @k}
!0 = !{!1}
!1 = distinct !{!1, !2, !"kept values"}
!2 = distinct !{!2, !"cutwin.frames"}

; CHECK: %v = load float, ptr addrspace(1) %from, align 4, !alias.scope ![[GLOBAL:[0-9]+]], !noalias ![[KEPTANDSHARED:[0-9]+]]
; CHECK: store float %v, ptr addrspace(3) %to, align 4, !alias.scope ![[SHARED:[0-9]+]], !noalias ![[GLOBAL]]
; CHECK: %n = atomicrmw add ptr addrspace(3) %s, i32 1 seq_cst, align 4, !alias.scope ![[SHARED]], !noalias ![[GLOBAL]]
; CHECK: store i32 %n, ptr %own, align 4{{$}}
; CHECK: call void @helper(ptr addrspace(1) %x){{$}}
; CHECK-DAG: ![[GLOBAL]] = !{![[GLOBALSCOPE:[0-9]+]]}
; CHECK-DAG: ![[SHARED]] = !{![[SHAREDSCOPE:[0-9]+]]}
; CHECK-DAG: ![[KEPTANDSHARED]] = !{!{{[0-9]+}}, ![[SHAREDSCOPE]]}
; CHECK-DAG: ![[GLOBALSCOPE]] = distinct !{![[GLOBALSCOPE]], ![[DOMAIN:[0-9]+]], !"global memory"}
; CHECK-DAG: ![[SHAREDSCOPE]] = distinct !{![[SHAREDSCOPE]], ![[DOMAIN]], !"shared memory"}
; CHECK-DAG: ![[DOMAIN]] = distinct !{![[DOMAIN]], !"cutwin.address.spaces"}
