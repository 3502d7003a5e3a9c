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

// A sanitized build (ci/sanitize.sh): AddressSanitizer is told each switch of stacks.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUTWIN_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(CUTWIN_ASAN)
#define CUTWIN_ASAN 1
#endif
#ifdef CUTWIN_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include <atomic>
#include <csetjmp>
#include <functional>
#include <string>
#include <vector>

namespace cutwin::sim {

namespace bctx = boost::context::detail;

class SanitizerBlock;

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
  size_t stackBytes = 0;          ///< usable bytes from stackLow up
  PendingStop stop;               ///< AtBreakpoint: where and why
  /// AddressSanitizer: the scheduler's stack, which the fiber switches back to.
  const void *schedStackLow = nullptr;
  size_t schedStackBytes = 0;
};

// Switching between a block's scheduler and its fibers. AddressSanitizer must know which
// stack runs (or it takes a fiber's frames for overflows of the thread's stack); elsewhere
// these are jump_fcontext alone.

/// On the fiber, each time it gets the processor: notes the scheduler's stack.
inline void enteredFiber(Fiber *f) {
#ifdef CUTWIN_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &f->schedStackLow, &f->schedStackBytes);
#endif
}

/// The scheduler runs fiber `f` until it waits, ends or faults.
inline void resumeFiber(Fiber &f) {
#ifdef CUTWIN_ASAN
  void *fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, f.stackLow, f.stackBytes);
#endif
  bctx::transfer_t t = bctx::jump_fcontext(f.ctx, &f);
#ifdef CUTWIN_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  f.ctx = t.fctx;
}

/// Fiber `f` waits (barrier, warp operation, spin, debugger stop): back to the scheduler
/// until it is resumed.
inline void yieldToScheduler(Fiber *f) {
#ifdef CUTWIN_ASAN
  void *fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, f->schedStackLow, f->schedStackBytes);
#endif
  bctx::transfer_t t = bctx::jump_fcontext(f->sched, nullptr);
#ifdef CUTWIN_ASAN
  __sanitizer_finish_switch_fiber(fake, &f->schedStackLow, &f->schedStackBytes);
#endif
  f->sched = t.fctx;
}

/// Fiber `f` has ended (its thread returned, or was abandoned after an error): back to the
/// scheduler for good; its stack is reused.
[[noreturn]] inline void leaveFiber(Fiber *f) {
#ifdef CUTWIN_ASAN
  __sanitizer_start_switch_fiber(nullptr, f->schedStackLow, f->schedStackBytes);
#endif
  bctx::jump_fcontext(f->sched, nullptr);
  __builtin_unreachable();
}

/// A fault on fiber `f`: the signal handler is about to jump (siglongjmp) to its scheduler.
inline void jumpingOutOfFiber(const Fiber *f) {
#ifdef CUTWIN_ASAN
  __sanitizer_start_switch_fiber(nullptr, f->schedStackLow, f->schedStackBytes);
#else
  (void)f;
#endif
}

/// The scheduler, where that jump landed.
inline void landedFromFiber() {
#ifdef CUTWIN_ASAN
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
}

/// A stack about to be reused for a new fiber: what instrumented frames of an abandoned
/// one left poisoned is cleared.
inline void reuseFiberStack(const char *low, size_t bytes) {
#ifdef CUTWIN_ASAN
  ASAN_UNPOISON_MEMORY_REGION(low, bytes);
#else
  (void)low, (void)bytes;
#endif
}

/// Per-launch state every thread of a block can reach through its context.
struct BlockState {
  ir::ErrorRecord *err = nullptr;
  std::atomic<bool> *abort = nullptr;
  const LaunchDeadline *deadline = nullptr; ///< the watchdog's time limit, if the launch has one
  uint64_t ctrlCAtStart = 0;                ///< rt::ctrlCCount() when the launch began
  sigjmp_buf *jmp = nullptr;                ///< loop mode: where a raised error unwinds to
  const SimKernel *kernel = nullptr;
  /// Loop mode: set (once) when a breakpoint's handler ended the launch; runGrid throws it.
  std::string *endedInDebugger = nullptr;
  const ThreadContext *faulted = nullptr; ///< the thread whose memory fault stopped the block
  /// Ctrl-C or the watchdog stopped the launch in this block: where its threads were, in words.
  std::string *stopReport = nullptr;
  /// A cooperative launch: the threads of the other resident blocks, for the debugger.
  std::function<void(std::vector<ThreadAtStop> &)> otherBlocks;
  SanitizerBlock *sanitizer = nullptr; ///< kernels compiled with `sanitize=` (sanitizer.h)
};

} // namespace cutwin::sim
