; sim-lower: the kernel gets the thread context as its first parameter, threadIdx.x
; becomes a load from it, the barrier a host callback, and a kernel with a barrier gets
; the fiber entry point (which unpacks the argument buffer).
; RUN: --step sim-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %t = call i32 @cutwin.tid.x()
  call void @cutwin.barrier(i32 0)
  %i = zext i32 %t to i64
  %p = getelementptr i32, ptr addrspace(1) %a.data, i64 %i
  store i32 %t, ptr addrspace(1) %p
  ret void
}
declare i32 @cutwin.tid.x()
declare void @cutwin.barrier(i32)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after sim-lower ***
; CHECK: define void @k__a1Ci32(ptr %ctx, ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err)
; CHECK-NEXT: entry:
; CHECK-NEXT: [[F:%[0-9]+]] = getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 0
; CHECK-NEXT: [[X:%[0-9]+]] = getelementptr inbounds [3 x i32], ptr [[F]], i32 0, i32 0
; CHECK-NEXT: load i32, ptr [[X]], align 4, !range
; CHECK-NEXT: call void @cutwin_sim_barrier(ptr %ctx, i32 0)
; CHECK: define void @cutwin.sim.thread(ptr noalias %0, ptr noalias %1)
; CHECK: getelementptr inbounds i8, ptr %1, i64 24
; CHECK: call void @k__a1Ci32(ptr %0,
; CHECK-NOT: @cutwin.tid.x
; CHECK-NOT: @cutwin.barrier
