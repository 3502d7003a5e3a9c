; sim-half: a float16 fma (contracted or written) becomes the host helper that rounds once,
; on the operands' bits; a float32 fma and float16 arithmetic are left alone (widening them
; to float32 rounds correctly).
; RUN: --step sim-half
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define half @k(half %a, half %b, half %c, float %x) {
entry:
  %f = call half @llvm.fma.f16(half %a, half %b, half %c)
  %g = call half @llvm.fmuladd.f16(half %f, half %b, half %c)
  %s = fadd half %g, %a
  %y = call float @llvm.fma.f32(float %x, float %x, float %x)
  ret half %s
}

declare half @llvm.fma.f16(half, half, half)
declare half @llvm.fmuladd.f16(half, half, half)
declare float @llvm.fma.f32(float, float, float)

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK-LABEL: *** IR after sim-half ***
; CHECK: [[A:%[0-9]+]] = bitcast half %a to i16
; CHECK-NEXT: [[B:%[0-9]+]] = bitcast half %b to i16
; CHECK-NEXT: [[C:%[0-9]+]] = bitcast half %c to i16
; CHECK-NEXT: [[R:%[0-9]+]] = call i16 @cutwin_sim_fma_f16(i16 [[A]], i16 [[B]], i16 [[C]])
; CHECK-NEXT: [[F:%[0-9]+]] = bitcast i16 [[R]] to half
; CHECK: [[G:%[0-9]+]] = call i16 @cutwin_sim_fma_f16(
; CHECK-NEXT: [[GH:%[0-9]+]] = bitcast i16 [[G]] to half
; CHECK-NEXT: %s = fadd half [[GH]], %a
; CHECK-NEXT: %y = call float @llvm.fma.f32(float %x, float %x, float %x)
; CHECK-NEXT: ret half %s
