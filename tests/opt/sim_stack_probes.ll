; sim-stack-probes: every defined function probes frames larger than a page (a fiber that
; outgrows its stack then hits its guard page), declarations are left alone.
; RUN: --step sim-stack-probes
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Cf32(ptr %ctx, ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  call void @helper()
  ret void
}
declare void @helper()
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Cf32}

; CHECK-LABEL: *** IR after sim-stack-probes ***
; CHECK: define void @k__a1Cf32({{.*}}) #[[K:[0-9]+]]
; CHECK: declare void @helper(){{$}}
; CHECK: attributes #[[K]] = { "cutwin-kernel" "probe-stack"="inline-asm" }
