; sim-address-spaces: in a kernel, loads, stores and atomics through its global array
; arguments are marked as never reaching the block's shared memory (the context's field 4)
; and the other way round, in a domain of their own, beside what they were marked with
; before. Classed by origin, not address space: the shared array converted to the global
; space (as for a device function declared with a signature) is still shared memory. The
; thread's own memory, calls, and functions other than the kernel (a device function not
; yet inlined: its global-space argument may be shared memory) stay as they were.
; RUN: --step sim-address-spaces
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%cutwin.ctx = type { [3 x i32], [3 x i32], [3 x i32], [3 x i32], ptr, ptr, ptr, i64, ptr, i32, i32, ptr, ptr, ptr }

define void @k(ptr %ctx, ptr addrspace(1) %x, ptr %own, i64 %i) {
entry:
  %base.at = getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 4
  %base = load ptr, ptr %base.at, align 8
  %s = addrspacecast ptr %base to ptr addrspace(3)
  %from = getelementptr inbounds float, ptr addrspace(1) %x, i64 %i
  %v = load float, ptr addrspace(1) %from, align 4, !noalias !0
  %to = getelementptr inbounds float, ptr addrspace(3) %s, i64 %i
  store float %v, ptr addrspace(3) %to, align 4
  %n = atomicrmw add ptr addrspace(3) %s, i32 1 seq_cst, align 4
  %as.global = addrspacecast ptr addrspace(3) %s to ptr addrspace(1)
  store i32 %n, ptr addrspace(1) %as.global, align 4
  store i32 %n, ptr %own, align 4
  call void @device(ptr addrspace(1) %as.global)
  ret void
}

define void @device(ptr addrspace(1) %a) {
entry:
  store float 1.0, ptr addrspace(1) %a, align 4
  ret void
}

!cutwin.kernels = !{!3}
!3 = !{ptr @k}
!0 = !{!1}
!1 = distinct !{!1, !2, !"kept values"}
!2 = distinct !{!2, !"cutwin.frames"}

; CHECK-LABEL: define void @k(
; CHECK: %v = load float, ptr addrspace(1) %from, align 4, !alias.scope ![[GLOBAL:[0-9]+]], !noalias ![[KEPTANDSHARED:[0-9]+]]
; CHECK: store float %v, ptr addrspace(3) %to, align 4, !alias.scope ![[SHARED:[0-9]+]], !noalias ![[GLOBAL]]
; CHECK: %n = atomicrmw add ptr addrspace(3) %s, i32 1 seq_cst, align 4, !alias.scope ![[SHARED]], !noalias ![[GLOBAL]]
; CHECK: store i32 %n, ptr addrspace(1) %as.global, align 4, !alias.scope ![[SHARED]], !noalias ![[GLOBAL]]
; CHECK: store i32 %n, ptr %own, align 4{{$}}
; CHECK: call void @device(ptr addrspace(1) %as.global){{$}}
; CHECK-LABEL: define void @device(
; CHECK: store float 1.000000e+00, ptr addrspace(1) %a, align 4{{$}}
; CHECK-DAG: ![[GLOBAL]] = !{![[GLOBALSCOPE:[0-9]+]]}
; CHECK-DAG: ![[SHARED]] = !{![[SHAREDSCOPE:[0-9]+]]}
; CHECK-DAG: ![[KEPTANDSHARED]] = !{!{{[0-9]+}}, ![[SHAREDSCOPE]]}
; CHECK-DAG: ![[GLOBALSCOPE]] = distinct !{![[GLOBALSCOPE]], ![[DOMAIN:[0-9]+]], !"global memory"}
; CHECK-DAG: ![[SHAREDSCOPE]] = distinct !{![[SHAREDSCOPE]], ![[DOMAIN]], !"shared memory"}
; CHECK-DAG: ![[DOMAIN]] = distinct !{![[DOMAIN]], !"cutwin.address.spaces"}
