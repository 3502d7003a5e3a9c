; inline: calls of functions marked "cutwin-inline" (inline='always') are replaced by their
; bodies, transitively; the mark goes, and a marked function left without callers is
; deleted. A marked function's recursive call stays; unmarked calls stay.
; RUN: --step inline
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define internal void @dev.leaf.1__f32(ptr addrspace(1) %p, float %v) #0 {
  store float %v, ptr addrspace(1) %p
  ret void
}

define internal void @dev.mid.2__f32(ptr addrspace(1) %p, float %v) #0 {
  %w = fadd float %v, 1.0
  call void @dev.leaf.1__f32(ptr addrspace(1) %p, float %w)
  ret void
}

define internal void @dev.self.3__i64(i64 %n) #0 {
  %more = icmp sgt i64 %n, 0
  br i1 %more, label %again, label %done
again:
  %m = sub i64 %n, 1
  call void @dev.self.3__i64(i64 %m)
  br label %done
done:
  ret void
}

define internal void @dev.plain.4__f32(ptr addrspace(1) %p, float %v) {
  store float %v, ptr addrspace(1) %p
  ret void
}

define void @k__a1Cf32(ptr addrspace(1) %a.data, float %x) {
  call void @dev.mid.2__f32(ptr addrspace(1) %a.data, float %x)
  call void @dev.self.3__i64(i64 3)
  call void @dev.plain.4__f32(ptr addrspace(1) %a.data, float %x)
  ret void
}
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

attributes #0 = { "cutwin-inline" }

; CHECK-LABEL: *** IR after inline ***
; CHECK-NOT: define internal void @dev.leaf
; CHECK-NOT: define internal void @dev.mid
; CHECK: define internal void @dev.self.3__i64(i64 %n) {
; CHECK: call void @dev.self.3__i64(i64 %m)
; CHECK: define internal void @dev.plain.4__f32
; CHECK: define void @k__a1Cf32(
; CHECK-NEXT: %w.i = fadd float %x, 1.000000e+00
; CHECK-NEXT: store float %w.i, ptr addrspace(1) %a.data
; CHECK: call void @dev.plain.4__f32(
; CHECK-NOT: cutwin-inline
