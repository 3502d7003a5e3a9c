; gpu-lower: a fault is a call of cutwin.gpu.raise: the first thread to claim the error
; record (compare-and-swap of its flag 0 -> 1) fills kind, site, thread, block and payload,
; fences and sets the flag to 2; every faulting thread then exits. print is vprintf, a
; float32 approximation unit its PTX instruction, and a load or store with a cache policy
; ld.global/st.global with that policy in inline PTX.
; RUN: --step gpu-lower
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

; CHECK-LABEL: *** IR after gpu-lower ***
; CHECK: define void @k__a1Ci64(
; CHECK: raise:
; CHECK-NEXT: call void @cutwin.gpu.raise(ptr addrspace(1) %cutwin.err, i32 1, i32 3, i64 0, i64 0, i64 %a.shape0)
; CHECK-NEXT: unreachable
; CHECK: {{%[0-9]+}} = call i32 @vprintf(ptr addrspacecast (ptr addrspace(4) @cutwin.str to ptr), ptr %args)
; CHECK-NEXT: %f = sitofp i64 %x to float
; CHECK-NEXT: [[T:%[0-9]+]] = call float asm "tanh.approx.f32 $0, $1;", "=f,f"(float %f)
; CHECK-NEXT: %tbits = bitcast float [[T]] to i32
; CHECK-NEXT: %p = addrspacecast ptr addrspace(1) %a.data to ptr
; CHECK-NEXT: [[A:%[0-9]+]] = ptrtoint ptr %p to i64
; CHECK-NEXT: [[L:%[0-9]+]] = call i64 asm sideeffect "ld.global.cg.b64 $0, [$1];", "=l,l,~{memory}"(i64 [[A]])
; CHECK-NEXT: %sum = add i64 [[L]], 1
; CHECK-NEXT: [[B:%[0-9]+]] = ptrtoint ptr %p to i64
; CHECK-NEXT: call void asm sideeffect "st.global.cs.b64 [$0], $1;", "l,l,~{memory}"(i64 [[B]], i64 %sum)
; CHECK: define internal void @cutwin.gpu.raise(ptr addrspace(1) %0, i32 %1, i32 %2, i64 %3, i64 %4, i64 %5)
; CHECK: cmpxchg ptr addrspace(1) {{%[0-9]+}}, i32 0, i32 1 monotonic monotonic
; CHECK: fill:
; CHECK: store i32 %1, ptr addrspace(1)
; CHECK: store i32 %2, ptr addrspace(1)
; CHECK: store i64 %3, ptr addrspace(1)
; CHECK: store i64 %4, ptr addrspace(1)
; CHECK: store i64 %5, ptr addrspace(1)
; CHECK-NEXT: call void @llvm.nvvm.membar.gl()
; CHECK: store volatile i32 2, ptr addrspace(1)
; CHECK: done:
; CHECK-NEXT: call void asm sideeffect "exit;", ""()
; CHECK-NOT: @cutwin.{{error|print|approx|cache}}
