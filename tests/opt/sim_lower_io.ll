; sim-lower: a fault is the host callback cutwin_sim_raise with the thread context (it
; records the fault and aborts the block), print cutwin_sim_print (one line under a lock),
; a float32 approximation unit its table model (here tanh), and a load or store with a
; cache policy a plain load or store of its width.
; RUN: --step sim-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@cutwin.str = private addrspace(4) constant [8 x i8] c"x %lld\0A\00", align 1

define void @k__a1Ci64(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %empty = icmp eq i64 %a.shape0, 0
  br i1 %empty, label %raise, label %ok

raise:
  call void @cutwin.error.raise(ptr addrspace(1) %cutwin.err, i32 1, i32 3, i64 0, i64 0, i64 %a.shape0)
  unreachable

ok:
  %args = alloca [1 x i64], align 8
  %x = load i64, ptr addrspace(1) %a.data
  store i64 %x, ptr %args
  call void @cutwin.print(ptr addrspacecast (ptr addrspace(4) @cutwin.str to ptr), ptr %args)
  %f = sitofp i64 %x to float
  %t = call float @cutwin.approx(i32 5, float %f)
  %tbits = bitcast float %t to i32
  %p = addrspacecast ptr addrspace(1) %a.data to ptr
  %ld = call i64 @cutwin.cache.load(ptr %p, i32 1, i32 64)
  %sum = add i64 %ld, 1
  call void @cutwin.cache.store(ptr %p, i64 %sum, i32 2, i32 64)
  ret void
}
declare void @cutwin.error.raise(ptr addrspace(1), i32, i32, i64, i64, i64)
declare void @cutwin.print(ptr, ptr)
declare float @cutwin.approx(i32, float)
declare i64 @cutwin.cache.load(ptr, i32, i32)
declare void @cutwin.cache.store(ptr, i64, i32, i32)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci64}

; CHECK-LABEL: *** IR after sim-lower ***
; CHECK: define internal void @k__a1Ci64(ptr %ctx,
; CHECK: raise:
; CHECK-NEXT: call void @cutwin_sim_raise(ptr %ctx, ptr addrspace(1) %cutwin.err, i32 1, i32 3, i64 0, i64 0, i64 %a.shape0)
; CHECK-NEXT: unreachable
; CHECK: call void @cutwin_sim_print(ptr addrspacecast (ptr addrspace(4) @cutwin.str to ptr), ptr %args)
; CHECK-NEXT: %f = sitofp i64 %x to float
; CHECK-NEXT: [[T:%[0-9]+]] = call float @cutwin_sim_tanh_approx_f32(float %f)
; CHECK-NEXT: %tbits = bitcast float [[T]] to i32
; CHECK-NEXT: %p = addrspacecast ptr addrspace(1) %a.data to ptr
; CHECK-NEXT: [[L:%[0-9]+]] = load i64, ptr %p, align 8
; CHECK-NEXT: %sum = add i64 [[L]], 1
; CHECK-NEXT: store i64 %sum, ptr %p, align 8
; CHECK-NEXT: ret void
; CHECK-NOT: @cutwin.{{error|print|approx|cache}}
