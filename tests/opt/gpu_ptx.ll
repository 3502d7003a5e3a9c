; gpu-ptx (NVPTX): the kernel becomes a PTX entry reading %tid.x and syncing the block.
; RUN: --step gpu-ptx
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @llvm.nvvm.barrier0()
  store i32 %t, ptr addrspace(1) %a.data
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}
!nvvm.annotations = !{!1}
!1 = !{ptr @k__a1Ci32, !"kernel", i32 1}

; CHECK-LABEL: *** PTX after gpu-ptx ***
; CHECK: .target sm_90
; CHECK: .visible .entry k__a1Ci32(
; CHECK: mov.u32 {{%r[0-9]+}}, %tid.x;
; CHECK: bar.sync 0;
; CHECK: st.global.u32
