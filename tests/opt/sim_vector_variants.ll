; sim-vector-variants (kernels without bounds checks): a host helper becomes readnone and
; speculatable, and each call with constant operation codes lists the vector variants
; the loop vectoriser may call (4, 8 and 16 float lanes), kept alive by llvm.compiler.used.
; RUN: --step sim-vector-variants --no-boundscheck
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Cf32(ptr %ctx, ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %x = load float, ptr addrspace(1) %a.data
  %y = call float @cutwin_sim_f32op(i32 3, i32 1, float %x, float %x, float 0.0)
  store float %y, ptr addrspace(1) %a.data
  ret void
}
declare float @cutwin_sim_f32op(i32, i32, float, float, float)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** IR after sim-vector-variants ***
; CHECK: @llvm.compiler.used = appending global [3 x ptr] [ptr @cutwin_sim_f32op__v4, ptr @cutwin_sim_f32op__v8, ptr @cutwin_sim_f32op__v16]
; CHECK: call float @cutwin_sim_f32op(i32 3, i32 1, float %x, float %x, float 0.000000e+00) #[[CALL:[0-9]+]]
; CHECK: declare <4 x float> @cutwin_sim_f32op__v4(i32, i32, <4 x float>, <4 x float>, <4 x float>)
; CHECK: attributes #[[CALL]] = { "vector-function-abi-variant"="_ZGV_LLVM_N4uuvvv_cutwin_sim_f32op(cutwin_sim_f32op__v4),{{.*}}" }
