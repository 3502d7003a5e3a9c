; gpu-lower: every special register is its NVVM read (tid, ctaid, ntid, nctaid), the dynamic
; shared memory size the %dynamic_smem_size register through inline PTX (NVVM has no
; intrinsic for it). gpu_lower.ll has threadIdx.x.
; RUN: --step gpu-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %tid.y = call i32 @cutwin.tid.y()
  %p0 = getelementptr i32, ptr addrspace(1) %a.data, i64 0
  store i32 %tid.y, ptr addrspace(1) %p0
  %tid.z = call i32 @cutwin.tid.z()
  %p1 = getelementptr i32, ptr addrspace(1) %a.data, i64 1
  store i32 %tid.z, ptr addrspace(1) %p1
  %ctaid.x = call i32 @cutwin.ctaid.x()
  %p2 = getelementptr i32, ptr addrspace(1) %a.data, i64 2
  store i32 %ctaid.x, ptr addrspace(1) %p2
  %ctaid.y = call i32 @cutwin.ctaid.y()
  %p3 = getelementptr i32, ptr addrspace(1) %a.data, i64 3
  store i32 %ctaid.y, ptr addrspace(1) %p3
  %ctaid.z = call i32 @cutwin.ctaid.z()
  %p4 = getelementptr i32, ptr addrspace(1) %a.data, i64 4
  store i32 %ctaid.z, ptr addrspace(1) %p4
  %ntid.x = call i32 @cutwin.ntid.x()
  %p5 = getelementptr i32, ptr addrspace(1) %a.data, i64 5
  store i32 %ntid.x, ptr addrspace(1) %p5
  %ntid.y = call i32 @cutwin.ntid.y()
  %p6 = getelementptr i32, ptr addrspace(1) %a.data, i64 6
  store i32 %ntid.y, ptr addrspace(1) %p6
  %ntid.z = call i32 @cutwin.ntid.z()
  %p7 = getelementptr i32, ptr addrspace(1) %a.data, i64 7
  store i32 %ntid.z, ptr addrspace(1) %p7
  %nctaid.x = call i32 @cutwin.nctaid.x()
  %p8 = getelementptr i32, ptr addrspace(1) %a.data, i64 8
  store i32 %nctaid.x, ptr addrspace(1) %p8
  %nctaid.y = call i32 @cutwin.nctaid.y()
  %p9 = getelementptr i32, ptr addrspace(1) %a.data, i64 9
  store i32 %nctaid.y, ptr addrspace(1) %p9
  %nctaid.z = call i32 @cutwin.nctaid.z()
  %p10 = getelementptr i32, ptr addrspace(1) %a.data, i64 10
  store i32 %nctaid.z, ptr addrspace(1) %p10
  %dyn = call i32 @cutwin.dynamic_shared_size()
  %p11 = getelementptr i32, ptr addrspace(1) %a.data, i64 11
  store i32 %dyn, ptr addrspace(1) %p11
  ret void
}
declare i32 @cutwin.tid.y()
declare i32 @cutwin.tid.z()
declare i32 @cutwin.ctaid.x()
declare i32 @cutwin.ctaid.y()
declare i32 @cutwin.ctaid.z()
declare i32 @cutwin.ntid.x()
declare i32 @cutwin.ntid.y()
declare i32 @cutwin.ntid.z()
declare i32 @cutwin.nctaid.x()
declare i32 @cutwin.nctaid.y()
declare i32 @cutwin.nctaid.z()
declare i32 @cutwin.dynamic_shared_size()
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after gpu-lower ***
; CHECK: [[V0:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; CHECK-NEXT: %p0 = getelementptr i32, ptr addrspace(1) %a.data, i64 0
; CHECK-NEXT: store i32 [[V0]], ptr addrspace(1) %p0
; CHECK: [[V1:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
; CHECK-NEXT: %p1 = getelementptr i32, ptr addrspace(1) %a.data, i64 1
; CHECK-NEXT: store i32 [[V1]], ptr addrspace(1) %p1
; CHECK: [[V2:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; CHECK-NEXT: %p2 = getelementptr i32, ptr addrspace(1) %a.data, i64 2
; CHECK-NEXT: store i32 [[V2]], ptr addrspace(1) %p2
; CHECK: [[V3:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
; CHECK-NEXT: %p3 = getelementptr i32, ptr addrspace(1) %a.data, i64 3
; CHECK-NEXT: store i32 [[V3]], ptr addrspace(1) %p3
; CHECK: [[V4:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
; CHECK-NEXT: %p4 = getelementptr i32, ptr addrspace(1) %a.data, i64 4
; CHECK-NEXT: store i32 [[V4]], ptr addrspace(1) %p4
; CHECK: [[V5:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; CHECK-NEXT: %p5 = getelementptr i32, ptr addrspace(1) %a.data, i64 5
; CHECK-NEXT: store i32 [[V5]], ptr addrspace(1) %p5
; CHECK: [[V6:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
; CHECK-NEXT: %p6 = getelementptr i32, ptr addrspace(1) %a.data, i64 6
; CHECK-NEXT: store i32 [[V6]], ptr addrspace(1) %p6
; CHECK: [[V7:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
; CHECK-NEXT: %p7 = getelementptr i32, ptr addrspace(1) %a.data, i64 7
; CHECK-NEXT: store i32 [[V7]], ptr addrspace(1) %p7
; CHECK: [[V8:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
; CHECK-NEXT: %p8 = getelementptr i32, ptr addrspace(1) %a.data, i64 8
; CHECK-NEXT: store i32 [[V8]], ptr addrspace(1) %p8
; CHECK: [[V9:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
; CHECK-NEXT: %p9 = getelementptr i32, ptr addrspace(1) %a.data, i64 9
; CHECK-NEXT: store i32 [[V9]], ptr addrspace(1) %p9
; CHECK: [[V10:%[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
; CHECK-NEXT: %p10 = getelementptr i32, ptr addrspace(1) %a.data, i64 10
; CHECK-NEXT: store i32 [[V10]], ptr addrspace(1) %p10
; CHECK: [[DS:%[0-9]+]] = call i32 asm "mov.u32 $0, %dynamic_smem_size;", "=r"()
; CHECK-NEXT: %p11 = getelementptr i32, ptr addrspace(1) %a.data, i64 11
; CHECK-NEXT: store i32 [[DS]], ptr addrspace(1) %p11
; CHECK-NOT: @cutwin.
