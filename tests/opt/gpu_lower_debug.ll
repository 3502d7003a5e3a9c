; gpu-lower: a GPU kernel does not stop, so a kernel compiled for debugging loses its
; breakpoints and its frame records' pushes and pops (its variables stay, for cuda-gdb).
; RUN: --step gpu-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %slot = alloca i32
  %vars = alloca [1 x ptr]
  store ptr %slot, ptr %vars
  %frame = alloca { ptr, ptr, i32 }
  %frame.vars = getelementptr inbounds { ptr, ptr, i32 }, ptr %frame, i32 0, i32 1
  store ptr %vars, ptr %frame.vars
  call void @cutwin.debug.enter(ptr %frame)
  %t = call i32 @cutwin.tid.x()
  store i32 %t, ptr %slot
  call void @cutwin.breakpoint(i32 0, ptr %frame)
  call void @cutwin.debug.leave(ptr %frame)
  ret void
}
declare i32 @cutwin.tid.x()
declare void @cutwin.debug.enter(ptr)
declare void @cutwin.debug.leave(ptr)
declare void @cutwin.breakpoint(i32, ptr)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after gpu-lower ***
; CHECK: define void @k__a1Ci32(
; CHECK: store ptr %vars, ptr %frame.vars
; CHECK-NEXT: [[T:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NEXT: store i32 [[T]], ptr %slot
; CHECK-NEXT: ret void
; CHECK-NOT: @cutwin.{{debug|breakpoint}}
