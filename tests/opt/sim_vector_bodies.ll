; sim-vector-bodies: a vector variant the vectoriser used gets a body calling the scalar
; helper lane by lane; the unused ones are removed.
; RUN: --step sim-vector-bodies --no-boundscheck
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Cf32(ptr %ctx, ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %v = load <4 x float>, ptr addrspace(1) %a.data
  %y = call <4 x float> @cutwin_sim_f32op__v4(i32 3, i32 1, <4 x float> %v, <4 x float> %v, <4 x float> zeroinitializer)
  store <4 x float> %y, ptr addrspace(1) %a.data
  ret void
}
declare float @cutwin_sim_f32op(i32, i32, float, float, float)
declare <4 x float> @cutwin_sim_f32op__v4(i32, i32, <4 x float>, <4 x float>, <4 x float>)
declare <8 x float> @cutwin_sim_f32op__v8(i32, i32, <8 x float>, <8 x float>, <8 x float>)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** IR after sim-vector-bodies ***
; CHECK-NOT: cutwin_sim_f32op__v8
; CHECK: define {{.*}}<4 x float> @cutwin_sim_f32op__v4(i32
; CHECK: call float @cutwin_sim_f32op(
; CHECK-NOT: cutwin_sim_f32op__v8
