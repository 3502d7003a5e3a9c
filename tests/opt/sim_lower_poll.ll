; sim-lower of an interrupt poll (a loop of unbounded length): the thread context's second
; countdown (field 10) goes down by one; at zero it starts again at 4096 and the thread asks
; whether the launch was interrupted (cutwin_sim_poll with the loop's line). Unlike a
; waiting loop's poll it keeps the kernel a thread loop: the block entry stays.
; RUN: --step sim-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  br label %loop
loop:
  %v = load i32, ptr addrspace(1) %a.data
  %zero = icmp eq i32 %v, 0
  call void @cutwin.poll(i32 12)
  br i1 %zero, label %loop, label %done
done:
  ret void
}
declare void @cutwin.poll(i32)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after sim-lower ***
; CHECK: loop:
; CHECK: [[SLOT:%[0-9]+]] = getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 10
; CHECK-NEXT: [[LEFT:%[0-9]+]] = load i32, ptr [[SLOT]]
; CHECK-NEXT: [[DOWN:%[0-9]+]] = sub i32 [[LEFT]], 1
; CHECK-NEXT: [[END:%[0-9]+]] = icmp eq i32 [[DOWN]], 0
; CHECK-NEXT: [[NEXT:%[0-9]+]] = select i1 [[END]], i32 4096, i32 [[DOWN]]
; CHECK-NEXT: store i32 [[NEXT]], ptr [[SLOT]]
; CHECK-NEXT: br i1 [[END]]
; CHECK: call void @cutwin_sim_poll(ptr %ctx, i32 12)
; CHECK: define void @cutwin.sim.block(ptr noalias %0, ptr noalias %1)
