/// Faults of simulated threads: the first error of a launch goes into its error record, and
/// a memory fault (SIGSEGV, SIGBUS) inside JIT code becomes such an error (an illegal
/// address, or a stack overflow at a fiber's guard page) and unwinds to the block runner
/// instead of ending the process. Faults anywhere else go to the handler installed before.
#pragma once

#include "backend_sim/thread_context.h"
#include "frontend/ir/error_record.h"

#include <csetjmp>
#include <cstddef>
#include <cstdint>

namespace cutwin::sim {

struct BlockState;

/// Records a fault of thread `tid` of block `ctaid` in `rec` unless one is there already
/// (the first error of a launch wins): kind (KernelErrorKind), site and three payload words.
void recordError(ir::ErrorRecord *rec, const uint32_t tid[3], const uint32_t ctaid[3], uint32_t kind,
                 uint32_t site, int64_t a, int64_t b, int64_t c);

/// Ends the calling simulated thread after its error was recorded: its fiber is abandoned,
/// or the block's thread loop unwinds.
[[noreturn]] void endFaultedThread(ThreadContext *tc);

/// What an OS thread is running, for the fault handler: set while JIT code runs.
struct ActiveKernel {
  const ThreadContext *tc = nullptr;
  BlockState *block = nullptr;
  sigjmp_buf *escape = nullptr;   ///< where a fault unwinds to (the block runner's frame)
  const char *stackLow = nullptr; ///< fiber mode: lowest usable byte of the fiber's stack
  size_t stackBytes = 0;
};
/// This OS thread's: the block runners set it around JIT code.
ActiveKernel &activeKernel();
/// The simulated thread whose code this OS thread runs now (null outside JIT code).
const ThreadContext *runningThread();

/// Installs the fault handler once per process, and an alternate signal stack once per
/// thread (a fiber that overflowed its stack cannot run the handler on it).
void prepareFaultHandling();

/// Where a block's runner lands after a jump out of its threads. The runners save their
/// jump point without the signal mask (saving it is a system call per block); a fault's
/// handler jumps out with SIGSEGV and SIGBUS blocked, so they are unblocked here.
void landedAfterJump();

} // namespace cutwin::sim
