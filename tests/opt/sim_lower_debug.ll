; sim-lower: entering a function compiled for debugging pushes its frame record on the
; thread's debug stack (field 8 of the thread context: the record's `caller` takes the old
; top, the record becomes the top); leaving pops it (the top becomes its `caller`).
; sim_lower_breakpoint.ll has the breakpoint alone.
; RUN: --step sim-lower
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

; CHECK-LABEL: *** IR after sim-lower ***
; CHECK: define internal void @k__a1Ci32(ptr %ctx,
; CHECK: store ptr %vars, ptr %frame.vars
; CHECK-NEXT: [[TOP:%[0-9]+]] = getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 8
; CHECK-NEXT: [[OLD:%[0-9]+]] = load ptr, ptr [[TOP]]
; CHECK-NEXT: store ptr [[OLD]], ptr %frame
; CHECK-NEXT: store ptr %frame, ptr [[TOP]]
; CHECK: call void @cutwin_sim_breakpoint(ptr %ctx, i32 0, ptr %frame)
; CHECK-NEXT: [[TOP2:%[0-9]+]] = getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 8
; CHECK-NEXT: [[CALLER:%[0-9]+]] = load ptr, ptr %frame
; CHECK-NEXT: store ptr [[CALLER]], ptr [[TOP2]]
; CHECK-NEXT: ret void
; CHECK-NOT: @cutwin.{{debug|breakpoint}}
