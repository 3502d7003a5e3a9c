/// A simulated thread on its own stack (Fiber) and the state every thread of a block
/// reaches through its context (BlockState): the scheduler's, shared with what reads a
/// stopped launch from outside (gdb_view.cpp).
#pragma once

#include "backend_sim/breakpoints.h"
#include "backend_sim/interrupts.h"
#include "backend_sim/scheduler.h"
#include "backend_sim/thread_context.h"
#include "backend_sim/warp_ops.h"
#include "backend_sim/watchpoints.h"
#include "frontend/ir/error_record.h"

#include <boost/context/detail/fcontext.hpp>

#include <atomic>
#include <csetjmp>
#include <functional>
#include <string>
#include <vector>

namespace cutwin::sim {

namespace bctx = boost::context::detail;

/// What a thread that stops for the debugger hands the scheduler: where (a breakpoint site
/// of the kernel) and why.
struct PendingStop {
  uint32_t site = 0;
  StopCause cause = StopCause::Breakpoint;
  std::vector<int> lineBreaks;
  WatchHit watch;
};

/// One simulated thread running on its own stack.
struct Fiber {
  /// Spinning: yielded in a loop that may wait for another thread (`cutwin.spin`); it runs
  /// again in the next round.
  enum class State : uint8_t {
    Ready,
    Spinning,
    AtBarrier,
    AtGridBarrier,
    AtWarp,
    AtBreakpoint,
    Done,
    Faulted
  };
  bctx::fcontext_t ctx = nullptr;   ///< where to resume the fiber
  bctx::fcontext_t sched = nullptr; ///< where to return to the scheduler
  ThreadContext tc{};
  State state = State::Ready;
  uint32_t site = 0;
  uint32_t spinLine = 0;   ///< Spinning: the line of the loop
  WarpRequest warp;        ///< AtWarp: the operation asked for
  uint64_t warpResult = 0; ///< its result, set when the warp completes it
  EntryFn entry = nullptr;
  const void *args = nullptr;
  const char *stackLow = nullptr; ///< lowest usable byte; the guard page is below it
  PendingStop stop;               ///< AtBreakpoint: where and why
};

/// Per-launch state every thread of a block can reach through its context.
struct BlockState {
  ir::ErrorRecord *err = nullptr;
  std::atomic<bool> *abort = nullptr;
  const LaunchDeadline *deadline = nullptr; ///< the watchdog's time limit, if the launch has one
  sigjmp_buf *jmp = nullptr;                ///< loop mode: where a raised error unwinds to
  const SimKernel *kernel = nullptr;
  /// Loop mode: set (once) when a breakpoint's handler ended the launch; runGrid throws it.
  std::string *endedInDebugger = nullptr;
  const ThreadContext *faulted = nullptr; ///< the thread whose memory fault stopped the block
  /// A cooperative launch: the threads of the other resident blocks, for the debugger.
  std::function<void(std::vector<ThreadAtStop> &)> otherBlocks;
};

} // namespace cutwin::sim
