; gpu-nvvm-ir: intrinsics newer than LLVM 7 are printed as the ones it has - roundeven
; (bfloat16 hrint and the _rn conversions to integers) as rint, the same rounding in the
; default rounding mode (found by the fuzzer: the printer refused the kernel).
; RUN: --step gpu-nvvm-ir --codegen nvvm
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare float @llvm.roundeven.f32(float)

define void @k__a1Cf32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) {
entry:
  %x = load float, ptr addrspace(1) %a.data
  %r = call float @llvm.roundeven.f32(float %x)
  store float %r, ptr addrspace(1) %a.data
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** NVVM IR after gpu-nvvm-ir ***
; CHECK-NOT: roundeven
; CHECK: declare float @"llvm.rint.f32"(float)
; CHECK: call float @"llvm.rint.f32"(float
