; gpu-lower: threadIdx.x becomes the NVVM special-register read, the barrier bar.sync 0,
; a waiting loop's poll and an interrupt poll (the simulator's) nothing, and the kernel is
; annotated as an entry point.
; RUN: --step gpu-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %t = call i32 @cutwin.tid.x()
  call void @cutwin.barrier(i32 0)
  call void @cutwin.spin(i32 7)
  call void @cutwin.poll(i32 7)
  %i = zext i32 %t to i64
  %p = getelementptr i32, ptr addrspace(1) %a.data, i64 %i
  store i32 %t, ptr addrspace(1) %p
  ret void
}
declare i32 @cutwin.tid.x()
declare void @cutwin.barrier(i32)
declare void @cutwin.spin(i32)
declare void @cutwin.poll(i32)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after gpu-lower ***
; CHECK: {{%[0-9]+}} = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NEXT: call void @llvm.nvvm.barrier0()
; CHECK-NEXT: zext i32
; CHECK-NOT: @cutwin.
; CHECK: !nvvm.annotations = !{![[A:[0-9]+]]}
; CHECK: ![[A]] = !{ptr @k__a1Ci32, !"kernel", i32 1}
