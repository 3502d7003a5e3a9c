; sim-lower without a barrier: threads run as loops, so the block entry point iterates
; threadIdx z, y, x around the (to be inlined) kernel, which becomes internal.
; RUN: --step sim-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %b = call i32 @cutwin.ctaid.y()
  %n = call i32 @cutwin.ntid.z()
  %s = add i32 %b, %n
  store i32 %s, ptr addrspace(1) %a.data
  ret void
}
declare i32 @cutwin.ctaid.y()
declare i32 @cutwin.ntid.z()
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after sim-lower ***
; CHECK: define internal void @k__a1Ci32(ptr %ctx,
; CHECK: getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 1
; CHECK-NEXT: getelementptr inbounds [3 x i32], ptr {{%[0-9]+}}, i32 0, i32 1
; CHECK: getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 2
; CHECK-NEXT: getelementptr inbounds [3 x i32], ptr {{%[0-9]+}}, i32 0, i32 2
; CHECK: define void @cutwin.sim.block(ptr noalias %0, ptr noalias %1)
; CHECK: tid.loop:
; CHECK: call void @k__a1Ci32(ptr %0, {{.*}}) #[[INLINE:[0-9]+]]
; CHECK: attributes #[[INLINE]] = { alwaysinline }
