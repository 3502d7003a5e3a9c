; sim-half-to-int: a saturating conversion of a float16 to an integer goes through float32
; (exact), signed and unsigned, scalar and vector; one from float32 is left alone.
; RUN: --step sim-half-to-int
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i16 @k(half %h, <4 x half> %v, float %x) {
entry:
  %s = call i16 @llvm.fptosi.sat.i16.f16(half %h)
  %u = call i64 @llvm.fptoui.sat.i64.f16(half %h)
  %w = call <4 x i32> @llvm.fptosi.sat.v4i32.v4f16(<4 x half> %v)
  %f = call i16 @llvm.fptosi.sat.i16.f32(float %x)
  %t = trunc i64 %u to i16
  %a = add i16 %s, %t
  %b = add i16 %a, %f
  ret i16 %b
}

declare i16 @llvm.fptosi.sat.i16.f16(half)
declare i64 @llvm.fptoui.sat.i64.f16(half)
declare <4 x i32> @llvm.fptosi.sat.v4i32.v4f16(<4 x half>)
declare i16 @llvm.fptosi.sat.i16.f32(float)

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK-LABEL: *** IR after sim-half-to-int ***
; CHECK: [[H:%[0-9]+]] = fpext half %h to float
; CHECK-NEXT: %s = call i16 @llvm.fptosi.sat.i16.f32(float [[H]])
; CHECK-NEXT: [[H2:%[0-9]+]] = fpext half %h to float
; CHECK-NEXT: %u = call i64 @llvm.fptoui.sat.i64.f32(float [[H2]])
; CHECK-NEXT: [[V:%[0-9]+]] = fpext <4 x half> %v to <4 x float>
; CHECK-NEXT: %w = call <4 x i32> @llvm.fptosi.sat.v4i32.v4f32(<4 x float> [[V]])
; CHECK-NEXT: %f = call i16 @llvm.fptosi.sat.i16.f32(float %x)
; CHECK-NOT: f16(
; CHECK: ret i16 %b
