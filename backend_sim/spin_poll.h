/// Forward progress for threads that wait for other threads, and a way out of loops that
/// may never end. On a GPU since Volta every
/// thread makes progress of its own (independent thread scheduling): a thread may spin on
/// a flag another thread of its block sets, or take a lock another holds. The simulator
/// runs a block's threads one at a time, each until it blocks; a thread that spins would
/// never let the setter run. This step finds the loops that may wait for another thread
/// and puts a `cutwin.spin` poll on each back edge; the simulator's lowering turns it into
/// a countdown whose end yields the fiber to the others of its block (and makes the kernel
/// run as fibers).
///
/// A loop may wait for another thread when whether it ends depends on a location it reads
/// again in each iteration: a load of global or shared memory (not of the thread's own
/// local arrays) or an atomic at an address the same in every iteration, or a call that may
/// read memory; followed through values and, where a value the exit depends on is chosen
/// by control flow in the loop (a phi), through the loop's branch conditions; unless the
/// exit also depends on a value the thread computes from one iteration to the next (a
/// counter, a search's bounds): such a loop ends by its own progress. Loops over `range`
/// and binary searches get no poll; loops with a barrier or warp operation already yield
/// there.
#pragma once

namespace llvm {
class Module;
}

namespace cutwin::sim {

/// Inserts `cutwin.spin(line)` before the back edges of the loops that may wait for
/// another thread, and `cutwin.poll(line)` before those of the other loops whose length
/// ScalarEvolution cannot bound (`while True:`, searches: they ask whether the launch was
/// interrupted, interrupts.h); returns how many loops it marked as waiting.
unsigned insertSpinPolls(llvm::Module &m);

} // namespace cutwin::sim
