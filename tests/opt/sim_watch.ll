; sim-watch: in a debug kernel, after each store that may hit a watched element (arrays:
; global, shared or local, atomics too) the armed byte is tested and, with a watchpoint
; set, the host callback gets the thread context, the address and the byte count. The
; variables' slots, the thread context and the entry block (the frame record) are not.
; RUN: --step sim-watch
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define internal void @k(ptr %ctx, ptr addrspace(1) %a.data, i64 %i) {
entry:
  %slot = alloca i64
  %tmp = alloca [4 x i32]
  store i64 0, ptr %slot
  br label %body
body:
  store i64 %i, ptr %slot
  %p = getelementptr inbounds i32, ptr addrspace(1) %a.data, i64 %i
  store i32 7, ptr addrspace(1) %p
  %q = getelementptr inbounds [4 x i32], ptr %tmp, i64 0, i64 %i
  store i32 3, ptr %q
  %old = atomicrmw add ptr addrspace(1) %p, i32 1 monotonic
  %c = getelementptr inbounds i8, ptr %ctx, i64 80
  store ptr null, ptr %c
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK-LABEL: *** IR after sim-watch ***
; CHECK: entry:
; CHECK-NOT: cutwin_sim_watch_store
; CHECK: store i64 %i, ptr %slot
; CHECK-NEXT: %p = getelementptr
; CHECK-NEXT: store i32 7, ptr addrspace(1) %p
; CHECK-NEXT: [[ON:%[0-9]+]] = load atomic i8, ptr @cutwin_sim_debug_armed monotonic, align 1
; CHECK-NEXT: [[W:%[0-9]+]] = and i8 [[ON]], 2
; CHECK-NEXT: [[SET:%[0-9]+]] = icmp ne i8 [[W]], 0
; CHECK-NEXT: br i1 [[SET]], label %[[REPORT:[0-9]+]], label %[[GO:[0-9]+]]
; CHECK: [[REPORT]]:
; CHECK-NEXT: [[A:%[0-9]+]] = addrspacecast ptr addrspace(1) %p to ptr
; CHECK-NEXT: call void @cutwin_sim_watch_store(ptr %ctx, ptr [[A]], i64 4)
; CHECK: store i32 3, ptr %q
; CHECK: call void @cutwin_sim_watch_store(ptr %ctx, ptr %q, i64 4)
; CHECK: atomicrmw add ptr addrspace(1) %p, i32 1 monotonic
; CHECK: call void @cutwin_sim_watch_store(ptr %ctx, ptr {{%[0-9]+}}, i64 4)
; CHECK: store ptr null, ptr %c
; CHECK-NEXT: ret void
