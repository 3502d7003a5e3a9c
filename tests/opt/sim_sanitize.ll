; sim-sanitize: in a kernel compiled with `sanitize=`, before each access to memory threads
; share or that may be unwritten, a call tells the sanitizer the address, byte count, what
; the access does (1 read, 2 write, 4 atomic, 8 value known, 16 a copy's source, 32 fence)
; with the memory its address space says (<< 8: 1 global, 2 shared, 3 local, 0 unknown),
; the access's site and the bits a store writes. An aligned 4-byte plain load or store of
; shared memory first reads its granule's compact word and written mark (ThreadContext::
; sanitizer, SanitizerFastPath): where they say the access needs nothing or this thread may
; take the word, it stores the word and calls only otherwise. An aligned 4- or 8-byte plain
; load or store of global memory reads its granules' words and written bits through its
; site's allocation (GlobalSite) and takes words with a compare-and-swap (a store after
; storing, remembering what memory held: a failed swap then calls, saying so). The state the checks share, the shadow and the kernel's own
; accesses get alias scopes of their own. A fence calls the sanitizer's fence callback.
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
  store i32 %vo, ptr addrspace(1) %cp, !dbg !9
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
; CHECK: %san.fast = load ptr, ptr {{%[0-9]+}}, align 8, !dbg {{![0-9]+}}, !alias.scope [[STATE:![0-9]+]]
; CHECK: %san.offset = sub i64
; CHECK-NEXT: [[ROT:%[0-9]+]] = call i64 @llvm.fshr.i64(i64 %san.offset, i64 %san.offset, i64 2)
; CHECK: %san.granule = select i1 {{%[0-9]+}}, i64 [[ROT]], i64 0
; CHECK: %san.written = load atomic i64, ptr {{%[0-9]+}} monotonic, align 8, !dbg {{![0-9]+}}, !alias.scope [[SHADOW:![0-9]+]], !noalias [[STATE]]
; CHECK: %san.stamp = load i32
; CHECK: %san.tid = add i32
; CHECK: %san.me = or i64
; CHECK: %san.word = load atomic i64, ptr {{%[0-9]+}} monotonic, align 8, !dbg {{![0-9]+}}, !alias.scope [[SHADOW]], !noalias [[STATE]]
; CHECK: %san.stale = icmp ult i64
; CHECK: %san.mine = icmp eq i64 {{%[0-9]+}}, %san.me
; CHECK: %san.next = select i1 %san.stale
; CHECK: br i1 {{%[0-9]+}}, label %san.quick, label %san.call
; CHECK: san.quick:
; CHECK-NEXT: br i1 %san.mine, label %san.access, label %san.take
; CHECK: san.call:
; CHECK-NEXT: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr {{%[0-9]+}}, i64 4, i32 257, i32 0, i64 0), !dbg
; CHECK: san.take:
; CHECK-NEXT: {{%[0-9]+}} = cmpxchg ptr {{%[0-9]+}}, i64 %san.word, i64 %san.next release monotonic, align 8, !alias.scope [[SHADOW]], !noalias [[STATE]]
; CHECK: san.access:
; CHECK-NEXT: %x = load float, ptr addrspace(1) %p, align 4, !dbg {{![0-9]+}}, !noalias [[DATA:![0-9]+]]
; CHECK: [[B:%[0-9]+]] = bitcast float %x to i32
; CHECK-NEXT: [[V:%[0-9]+]] = zext i32 [[B]] to i64
; CHECK: %san.offset{{[0-9]+}} = sub i64
; CHECK: %san.granule{{[0-9]+}} = select i1
; CHECK: %san.written{{[0-9]+}} = load atomic i32, ptr [[MARK:%[0-9]+]] monotonic, align 4, !dbg {{![0-9]+}}, !alias.scope [[SHADOW]], !noalias [[STATE]]
; CHECK: %san.word{{[0-9]+}} = load atomic i64, ptr [[WORD:%[0-9]+]] monotonic, align 8, !dbg {{![0-9]+}}, !alias.scope [[SHADOW]], !noalias [[STATE]]
; CHECK: %san.stale{{[0-9]+}} = icmp ne i64
; CHECK: %san.mine{{[0-9]+}} = icmp eq i64
; CHECK: [[KEPT:%[0-9]+]] = select i1 {{%[a-z0-9.]+}}, i64 %san.word{{[0-9]+}}, i64 %san.next{{[0-9]+}}
; CHECK-NEXT: br i1 {{%[0-9]+}}, label %[[QUICK:[0-9]+]], label %[[CALL:[0-9]+]]
; CHECK: [[QUICK]]:
; CHECK-NEXT: store atomic i64 [[KEPT]], ptr [[WORD]] monotonic, align 8, !dbg {{![0-9]+}}, !alias.scope [[SHADOW]], !noalias [[STATE]]
; CHECK-NEXT: store atomic i32 {{%[0-9]+}}, ptr [[MARK]] monotonic
; CHECK: [[CALL]]:
; CHECK-NEXT: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr {{%[0-9]+}}, i64 4, i32 522, i32 1, i64 [[V]])
; CHECK: store float %x, ptr addrspace(3) %s, align 4, !dbg {{![0-9]+}}, !noalias [[DATA]]
; CHECK: %san.word{{[0-9]+}} = load atomic i64
; CHECK: br i1 {{%[0-9]+}}, label %[[QUICK2:[0-9]+]], label %[[CALL2:[0-9]+]]
; CHECK: [[QUICK2]]:
; CHECK-NEXT: store atomic i64
; CHECK-NEXT: br label
; CHECK: [[CALL2]]:
; CHECK-NEXT: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr {{%[0-9]+}}, i64 4, i32 513, i32 1, i64 0)
; CHECK-NEXT: br label
; CHECK: {{[0-9]+}}:
; CHECK-NEXT: %back = load float, ptr addrspace(3) %s
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr %q, i64 4, i32 778, i32 2, i64 3)
; CHECK-NEXT: store i32 3, ptr %q
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr %g, i64 4, i32 1, i32 2, i64 0)
; CHECK-NEXT: %y = load i32, ptr %g
; CHECK: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr {{%[0-9]+}}, i64 4, i32 519, i32 2, i64 0)
; CHECK-NEXT: %old = atomicrmw add
; CHECK: call void @cutwin_sim_sanitize_fence(ptr %ctx, i32 2)
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
; CHECK: [[V:%[0-9]+]] = zext i32 %vo to i64
; CHECK: %san.written{{[0-9]+}} = load atomic i64, ptr [[BITS:%[0-9]+]] monotonic
; CHECK: br i1 {{%[0-9]+}}, label %[[QUICK:san.quick[0-9]+]], label %[[CALL:san.call[0-9]+]]
; CHECK: [[QUICK]]:
; CHECK-NEXT: br i1 {{%[0-9]+}}, label %san.marked, label %san.mark
; CHECK: [[CALL]]:
; CHECK-NEXT: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr [[CP:%[0-9]+]], i64 4, i32 266, i32 1, i64 [[V]])
; CHECK-NEXT: br label %[[STORE:san.access[0-9]+]]
; CHECK: san.mark:
; CHECK-NEXT: atomicrmw or ptr [[BITS]], i64 {{%[0-9]+}} monotonic
; CHECK: san.marked:
; CHECK-NEXT: [[OLD:%[0-9]+]] = load i32, ptr addrspace(1) %cp, align 4, !noalias [[DATA]]
; CHECK: [[STORE]]:
; CHECK-NEXT: %san.quickly = phi i1 [ true, %san.marked ], [ false, %[[CALL]] ]
; CHECK-NEXT: %san.before = phi i64
; CHECK-NEXT: store i32 %vo, ptr addrspace(1) %cp, align 4, !dbg {{![0-9]+}}, !noalias [[DATA]]
; CHECK-NEXT: br i1 %san.quickly, label %san.record, label %san.stored
; CHECK: san.late:
; CHECK-NEXT: [[SAME:%[0-9]+]] = icmp eq i64 %san.before, [[V]]
; CHECK-NEXT: [[BITS2:%[0-9]+]] = select i1 [[SAME]], i32 458, i32 330
; CHECK-NEXT: call void @cutwin_sim_sanitize_access(ptr %ctx, ptr [[CP]], i64 4, i32 [[BITS2]], i32 1, i64 [[V]])
; CHECK: {{%[0-9]+}} = cmpxchg ptr {{%[0-9]+}}, i64 %san.word{{[0-9]+}}, i64 %san.next{{[0-9]+}} release monotonic
; CHECK-NOT: cutwin_sim_sanitize_access
; CHECK: define void @entry
; CHECK-NOT: cutwin_sim_sanitize_access
; CHECK: declare void @cutwin_sim_sanitize_access(ptr nocapture readonly, ptr nocapture readonly, i64, i32, i32, i64) [[ATTR:#[0-9]+]]
; CHECK: declare void @cutwin_sim_sanitize_fence(ptr nocapture readonly, i32) [[FENCE:#[0-9]+]]
; CHECK: attributes [[ATTR]] = { nounwind memory(argmem: read, inaccessiblemem: readwrite) }
; CHECK-NEXT: attributes [[FENCE]] = { nounwind }
