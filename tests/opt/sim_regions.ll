; sim-regions: a kernel waiting at block barriers becomes a function that runs one thread
; from a resume point to its next barrier (returning it; 4294967295 when the thread is
; done). A value used after a barrier is computed again there when the context and the
; arguments give it (the thread index), kept in the thread's frame otherwise (the running
; sum, from a load), or once per block where every thread holds it alike (the loop's
; counter: two cells, a region reading the one its round's parity names and writing the
; other where it stops); entries loop over the block's threads per region (and fibers
; call the barrier between regions, counting the parity), returning where all threads
; stopped if that is one place (an AND and an OR of the stops, equal then), -2 (mixed)
; otherwise. Alias scopes tell the optimiser that the kernel's own accesses reach neither
; the frame's kept values, nor where threads stopped, nor the cells.
; RUN: --step sim-regions
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%cutwin.ctx = type { [3 x i32], [3 x i32], [3 x i32], [3 x i32], ptr, ptr, ptr, i64, ptr, i32, i32, ptr, ptr, ptr }

define void @k(ptr %ctx, ptr %out, i64 %rounds) #0 {
entry:
  %tidp = getelementptr inbounds %cutwin.ctx, ptr %ctx, i32 0, i32 0, i32 0
  %tid = load i32, ptr %tidp, align 4
  %t = zext i32 %tid to i64
  %slot = getelementptr inbounds i64, ptr %out, i64 %t
  %first = load i64, ptr %slot, align 8
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i64 [ %first, %entry ], [ %sum, %loop ]
  %sum = add i64 %acc, %t
  call void @cutwin_sim_barrier(ptr %ctx, i32 7)
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %rounds
  br i1 %more, label %loop, label %done

done:
  store i64 %sum, ptr %slot, align 8
  ret void
}

declare void @cutwin_sim_barrier(ptr, i32)

attributes #0 = { "cutwin-kernel-code" }

!cutwin.kernels = !{!0}
!0 = !{ptr @k}

; CHECK: # *** sim-regions: 2 regions, a frame of 24 bytes per thread (0 of local arrays), values kept after each stop: 2 (1 once per block) ***
; CHECK: @cutwin.sim.barrier.sites = private constant [2 x i32] [i32 0, i32 7]
; CHECK: define internal i32 @k(ptr %ctx, ptr %out, i64 %rounds, i32 %resume, ptr %stopped, ptr %leaders, i32 %parity)
; CHECK: %frames = load ptr, ptr
; CHECK: %block.values = getelementptr inbounds i8, ptr %frames, i64 %{{[0-9]+}}
; CHECK-NEXT: %[[PARITY:[0-9]+]] = zext i32 %parity to i64
; CHECK-NEXT: %[[NOW:[0-9]+]] = mul i64 %[[PARITY]], 8
; CHECK-NEXT: %[[NEXT:[0-9]+]] = sub i64 8, %[[NOW]]
; CHECK-NEXT: %block.values.now = getelementptr inbounds i8, ptr %block.values, i64 %[[NOW]]
; CHECK-NEXT: %block.values.next = getelementptr inbounds i8, ptr %block.values, i64 %[[NEXT]]
; CHECK: switch i32 %resume, label %entry [
; CHECK-NEXT: i32 1, label %after.barrier
; CHECK: loop:
; CHECK-NEXT: %t{{[0-9]+}} = phi i64 [ %t, %entry ], [ %t.again, %after.barrier ]
; CHECK-NEXT: %i = phi i64 [ 0, %entry ], [ %next, %after.barrier ]
; CHECK: %acc = phi i64 [ %first, %entry ], [ %sum.kept, %after.barrier ]
; CHECK: %sum = add i64 %acc, %t{{[0-9]+}}
; CHECK-NEXT: store i64 %sum, ptr %frame.slot{{[0-9]*}}, align 8, !alias.scope ![[KEPT:[0-9]+]]
; CHECK-NEXT: store i32 1, ptr %stopped, align 4, !alias.scope ![[STATE:[0-9]+]]
; CHECK-NEXT: %[[CELL:[0-9]+]] = getelementptr inbounds i8, ptr %block.values.next, i64 0
; CHECK-NEXT: store i64 %i, ptr %[[CELL]], align 8, !alias.scope ![[WRITES:[0-9]+]], !noalias ![[NOTREADS:[0-9]+]]
; CHECK-NEXT: ret i32 1
; CHECK: after.barrier:
; CHECK-DAG: %i.block = load i64, ptr %{{[0-9]+}}, align 8, !alias.scope ![[READS:[0-9]+]], !noalias ![[NOTWRITES:[0-9]+]]
; CHECK-DAG: getelementptr inbounds i8, ptr %block.values.now, i64 0
; CHECK-DAG: %sum.kept = load i64, ptr %frame.slot
; CHECK-DAG: %tid.again = load i32, ptr %tidp.again
; CHECK-DAG: %t.again = zext i32 %tid.again to i64
; CHECK-DAG: %slot.again = getelementptr inbounds i64, ptr %out, i64 %t.again
; CHECK: %next = add i64 %i.block, 1
; CHECK: done:
; CHECK-NEXT: store i64 %sum.kept, ptr %slot.again, align 8, !noalias ![[ALL:[0-9]+]]
; CHECK-NEXT: store i32 -1, ptr %stopped, align 4, !alias.scope ![[STATE]]
; CHECK-NEXT: ret i32 -1
; CHECK: define void @cutwin.sim.thread(ptr noalias %0, ptr noalias %1)
; CHECK: %parity = phi i32 [ 0, %entry ], [ %parity.next, %barrier ], [ %parity.next, %warp ]
; CHECK: %stopped = call i32 @k({{.*}}, i32 %resume, ptr %stopped.at, ptr null, i32 %parity)
; CHECK-NEXT: %parity.next = xor i32 %parity, 1
; CHECK: call void @cutwin_sim_barrier(ptr %0, i32 %site)
; CHECK: define i32 @cutwin.sim.regions(ptr noalias %0, ptr noalias %1, ptr %2, i32 %3, i32 %4)
; CHECK: %parity = and i32 %4, 1
; CHECK: %stops.and = alloca i32
; CHECK-NEXT: %stops.or = alloca i32
; CHECK-NEXT: switch i32 %3, label %mixed [
; CHECK-NEXT: i32 0, label %region.0
; CHECK-NEXT: i32 1, label %region.1
; CHECK: {{^}}exit:
; CHECK-NEXT: %[[AND:[0-9]+]] = load i32, ptr %stops.and
; CHECK-NEXT: %[[OR:[0-9]+]] = load i32, ptr %stops.or
; CHECK-NEXT: %[[ONE:[0-9]+]] = icmp eq i32 %[[AND]], %[[OR]]
; CHECK-NEXT: %all.stopped = select i1 %[[ONE]], i32 %[[AND]], i32 -2
; CHECK-NEXT: ret i32 %all.stopped
; CHECK: call i32 @k({{.*}}, i32 0, ptr %{{[0-9]+}}, ptr null, i32 %parity) #[[INLINE:[0-9]+]]
; CHECK-NEXT: %[[A:[0-9]+]] = load i32, ptr %stops.and
; CHECK-NEXT: %[[A2:[0-9]+]] = and i32 %[[A]], %stopped
; CHECK-NEXT: store i32 %[[A2]], ptr %stops.and
; CHECK-NEXT: %[[O:[0-9]+]] = load i32, ptr %stops.or
; CHECK-NEXT: %[[O2:[0-9]+]] = or i32 %[[O]], %stopped
; CHECK-NEXT: store i32 %[[O2]], ptr %stops.or
; CHECK: call i32 @k({{.*}}, i32 1, ptr %{{[0-9]+}}, ptr null, i32 %parity) #[[INLINE]]
; CHECK: %from = load i32
; CHECK: icmp ult i32 %from, -2147483648
; CHECK: call i32 @k({{.*}}, i32 %from, ptr %{{[0-9]+}}, ptr null, i32 %parity) #[[NOINLINE:[0-9]+]]
; CHECK-DAG: attributes #[[INLINE]] = { alwaysinline }
; CHECK-DAG: attributes #[[NOINLINE]] = { noinline }
; The kernel's accesses reach neither the kept values, nor the state, nor the block values'
; cells; a region's reads of those cells do not meet its writes:
; CHECK-DAG: ![[ALL]] = !{![[KEPTSCOPE:[0-9]+]], ![[STATESCOPE:[0-9]+]], ![[READSCOPE:[0-9]+]], ![[WRITESCOPE:[0-9]+]]}
; CHECK-DAG: ![[KEPT]] = !{![[KEPTSCOPE]]}
; CHECK-DAG: ![[STATE]] = !{![[STATESCOPE]]}
; CHECK-DAG: ![[READS]] = !{![[READSCOPE]]}
; CHECK-DAG: ![[WRITES]] = !{![[WRITESCOPE]]}
; CHECK-DAG: ![[NOTWRITES]] = !{![[KEPTSCOPE]], ![[STATESCOPE]], ![[WRITESCOPE]]}
; CHECK-DAG: ![[NOTREADS]] = !{![[KEPTSCOPE]], ![[STATESCOPE]], ![[READSCOPE]]}
; CHECK-DAG: ![[KEPTSCOPE]] = distinct !{![[KEPTSCOPE]], ![[DOMAIN:[0-9]+]], !"kept values"}
; CHECK-DAG: ![[STATESCOPE]] = distinct !{![[STATESCOPE]], ![[DOMAIN]], !"where threads stopped"}
; CHECK-DAG: ![[READSCOPE]] = distinct !{![[READSCOPE]], ![[DOMAIN]], !"block values read"}
; CHECK-DAG: ![[WRITESCOPE]] = distinct !{![[WRITESCOPE]], ![[DOMAIN]], !"block values written"}
