; sim-sanitize: in a kernel compiled with `sanitize=`, before each access to memory threads
; share or that may be unwritten, a call tells the sanitizer the address, byte count, what
; the access does (1 read, 2 write, 4 atomic, 8 value known, 16 a copy's source, 32 fence)
; with the memory its address space says (<< 8: 1 global, 2 shared, 3 local, 0 unknown),
; the access's site and the bits a store writes. An aligned 4-byte plain access to shared
; memory first reads its cell's words (ThreadContext::sanitizer, SharedFastPath): the call is
; made only where they say the access may race, is not recorded or reads unwritten bytes.
; Volatile accesses and the read a
; compare-and-swap loop begins with (its value the cmpxchg's compare operand, same address)
; count as atomic. A local array begins unwritten. A
; variable's slot, the thread context and constants are not checked; neither are functions
; that are not the kernel's own code (the entry points).
; RUN: --step sim-sanitize
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define internal void @k(ptr %ctx, ptr addrspace(1) %a.data, ptr addrspace(3) %s, ptr %g, i64 %i) #0 {
entry:
  %slot = alloca i64
  %tmp = alloca [4 x i32]
  store i64 0, ptr %slot
  %p = getelementptr inbounds float, ptr addrspace(1) %a.data, i64 %i
  %x = load float, ptr addrspace(1) %p, !dbg !8
  store float %x, ptr addrspace(3) %s, !dbg !9
  %back = load float, ptr addrspace(3) %s, !dbg !9
  %q = getelementptr inbounds [4 x i32], ptr %tmp, i64 0, i64 %i
  store i32 3, ptr %q
  %y = load i32, ptr %g
  %old = atomicrmw add ptr addrspace(3) %s, i32 1 monotonic
  fence seq_cst
  call void @llvm.memcpy.p0.p3.i64(ptr %g, ptr addrspace(3) %s, i64 16, i1 false)
  %cp = getelementptr inbounds i32, ptr addrspace(1) %a.data, i64 1
  %o = load i32, ptr addrspace(1) %cp
  %vo = load volatile i32, ptr addrspace(1) %cp
  %pair = cmpxchg ptr addrspace(1) %cp, i32 %o, i32 %vo monotonic monotonic
  %c = getelementptr inbounds i8, ptr %ctx, i64 80
  store ptr null, ptr %c
  ret void
}

define void @entry(ptr %ctx, ptr %args) {
  %a = load ptr addrspace(1), ptr %args
  store i32 0, ptr %ctx
  call void @k(ptr %ctx, ptr addrspace(1) %a, ptr addrspace(3) null, ptr null, i64 0)
  ret void
}

declare void @llvm.memcpy.p0.p3.i64(ptr, ptr addrspace(3), i64, i1)

attributes #0 = { "cutwin-kernel-code" }

!cutwin.kernels = !{!0}
!0 = !{ptr @k}
!llvm.module.flags = !{!1}
!llvm.dbg.cu = !{!2}
!1 = !{i32 2, !"Debug Info Version", i32 3}
!2 = distinct !DICompileUnit(language: DW_LANG_Python, file: !3, producer: "cutwin", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!3 = !DIFile(filename: "kernel.py", directory: "")
!4 = distinct !DISubprogram(name: "k", scope: !3, file: !3, line: 1, type: !5, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !2)
!5 = !DISubroutineType(types: !6)
!6 = !{}
!8 = !DILocation(line: 4, column: 9, scope: !4)
!9 = !DILocation(line: 5, column: 5, scope: !4)

; CHECK-LABEL: *** IR after sim-sanitize ***
; CHECK: entry:
; CHECK: %tmp = alloca [4 x i32]
; CHECK-NEXT: call void @cutwin_sim_sanitize_local_array(ptr %ctx, ptr %tmp, i64 16, i64 4)
; CHECK-NOT: cutwin_sim_sanitize_access
; CHECK: store i64 0, ptr %slot
; CHECK: [[A:%[0-9]+]] = addrspacecast ptr addrspace(1) %p to ptr
; CHECK-NEXT: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr [[A]], i64 4, i32 257, i32 0, i64 0), !dbg
; CHECK-NEXT: %x = load float, ptr addrspace(1) %p
; CHECK: [[B:%[0-9]+]] = bitcast float %x to i32
; CHECK-NEXT: [[V:%[0-9]+]] = zext i32 [[B]] to i64
; CHECK-NEXT: [[S:%[0-9]+]] = addrspacecast ptr addrspace(3) %s to ptr
; CHECK-NEXT: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr [[S]], i64 4, i32 522, i32 1, i64 [[V]])
; CHECK-NEXT: store float %x, ptr addrspace(3) %s
; CHECK: %san.fast = load ptr, ptr {{%[0-9]+}}
; CHECK: %san.offset = sub i64
; CHECK: %san.granule = select i1 {{%[0-9]+}}, i64 {{%[0-9]+}}, i64 0
; CHECK: %san.me = add i32
; CHECK: %san.tag = load i32
; CHECK: %san.write = load i32
; CHECK: %san.read0 = load i32
; CHECK: %san.read1 = load i32
; CHECK: %san.written = load i32
; CHECK: br i1 {{%[0-9]+}}, label %[[CALL:[0-9]+]], label %[[GO:[0-9]+]]
; CHECK: [[CALL]]:
; CHECK-NEXT: [[R:%[0-9]+]] = addrspacecast ptr addrspace(3) %s to ptr
; CHECK-NEXT: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr [[R]], i64 4, i32 513, i32 1, i64 0)
; CHECK-NEXT: br label %[[GO]]
; CHECK: [[GO]]:
; CHECK-NEXT: %back = load float, ptr addrspace(3) %s
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr %q, i64 4, i32 778, i32 2, i64 3)
; CHECK-NEXT: store i32 3, ptr %q
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr %g, i64 4, i32 1, i32 2, i64 0)
; CHECK-NEXT: %y = load i32, ptr %g
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr {{%[0-9]+}}, i64 4, i32 519, i32 2, i64 0)
; CHECK-NEXT: %old = atomicrmw add
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr null, i64 0, i32 32, i32 2, i64 0)
; CHECK-NEXT: fence seq_cst
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr {{%[0-9]+}}, i64 16, i32 529, i32 2, i64 0)
; CHECK-NEXT: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr %g, i64 16, i32 2, i32 2, i64 0)
; CHECK-NEXT: call void @llvm.memcpy
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr {{%[0-9]+}}, i64 4, i32 261, i32 2, i64 0)
; CHECK-NEXT: %o = load i32
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr {{%[0-9]+}}, i64 4, i32 261, i32 2, i64 0)
; CHECK-NEXT: %vo = load volatile i32
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr {{%[0-9]+}}, i64 4, i32 263, i32 2, i64 0)
; CHECK-NEXT: %pair = cmpxchg
; CHECK-NOT: cutwin_sim_sanitize_access
; CHECK: define void @entry
; CHECK-NOT: cutwin_sim_sanitize_access
; CHECK: declare void @cutwin_sim_sanitize_access(ptr nocapture readonly, ptr nocapture readonly, i64, i32, i32, i64) [[ATTR:#[0-9]+]]
; CHECK: attributes [[ATTR]] = { nounwind memory(argmem: read, inaccessiblemem: readwrite) }
