; gpu-lower: a 32-bit warp shuffle is shfl.sync in inline PTX (its site in a comment, so
; that the printer keeps each call apart), nanosleep nanosleep.u32, and grid sync a call
; of cutwin.gpu.grid_sync: one leader per block (elected by an atomic minimum in shared
; memory, reset at the kernel's entry) adds to a global counter, block 0 adding so that
; the top bit flips once all blocks arrived, and spins until it does, fenced on both sides.
; RUN: --step gpu-lower
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k__a1Ci32(ptr addrspace(1) %a.data, i64 %a.shape0, i64 %a.stride0, ptr addrspace(1) %cutwin.err) "cutwin-kernel" {
entry:
  %v = load i32, ptr addrspace(1) %a.data
  %bits = zext i32 %v to i64
  %down = call i64 @cutwin.warp(i32 2, i32 -1, i64 %bits, i32 1, i32 4)
  call void @cutwin.nanosleep(i32 100)
  call void @cutwin.grid.sync(i32 5)
  %r = trunc i64 %down to i32
  store i32 %r, ptr addrspace(1) %a.data
  ret void
}
declare i64 @cutwin.warp(i32, i32, i64, i32, i32)
declare void @cutwin.nanosleep(i32)
declare void @cutwin.grid.sync(i32)
!cutwin.kernels = !{!0}
!0 = !{ptr @k__a1Ci32}

; CHECK-LABEL: *** IR after gpu-lower ***
; CHECK: define void @k__a1Ci32(
; CHECK: store volatile i32 -1, ptr addrspace(3) @cutwin_grid_leader
; CHECK: call void @llvm.nvvm.barrier0()
; CHECK: %bits = zext i32 %v to i64
; CHECK-NEXT: [[V:%[0-9]+]] = trunc i64 %bits to i32
; CHECK-NEXT: [[S:%[0-9]+]] = call i32 asm sideeffect "shfl.sync.down.b32 $0, $1, $2, 0x1f, $3; // cutwin site 4", "=r,r,r,r,~{memory}"(i32 [[V]], i32 1, i32 -1)
; CHECK-NEXT: [[W:%[0-9]+]] = zext i32 [[S]] to i64
; CHECK-NEXT: call void asm sideeffect "nanosleep.u32 $0;", "r"(i32 100)
; CHECK-NEXT: call void @cutwin.gpu.grid_sync()
; CHECK-NEXT: %r = trunc i64 [[W]] to i32
; CHECK: define internal void @cutwin.gpu.grid_sync()
; CHECK: atomicrmw umin ptr addrspace(3) @cutwin_grid_leader
; CHECK: arrive:
; CHECK: call void @llvm.nvvm.membar.gl()
; CHECK: [[ADD:%[0-9]+]] = select i1 {{%[0-9]+}}, i32 {{%[0-9]+}}, i32 1
; CHECK-NEXT: [[OLD:%[0-9]+]] = atomicrmw add ptr addrspace(1) @cutwin_grid_barrier, i32 [[ADD]]
; CHECK: spin:
; CHECK-NEXT: [[NOW:%[0-9]+]] = load volatile i32, ptr addrspace(1) @cutwin_grid_barrier
; CHECK-NEXT: [[X:%[0-9]+]] = xor i32 [[OLD]], [[NOW]]
; CHECK-NEXT: [[TOP:%[0-9]+]] = and i32 [[X]], -2147483648
; CHECK: released:
; CHECK-NEXT: call void @llvm.nvvm.membar.gl()
; CHECK-NOT: @cutwin.{{warp|nanosleep|grid.sync}}(
