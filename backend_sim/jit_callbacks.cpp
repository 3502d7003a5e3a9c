// The host callbacks JIT-compiled kernels call to wait (barriers, grid sync, warp
// operations, spin-waits), stop for the debugger and raise errors (host_callbacks.h declares
// them): a fiber records why it waits and switches to the block's scheduler (scheduler.cpp).
#include "backend_sim/debug_stops.h"
#include "backend_sim/fiber.h"
#include "backend_sim/host_callbacks.h"
#include "backend_sim/kernel_faults.h"

#include <atomic>
#include <csetjmp>

using cutwin::sim::Fiber;
using cutwin::sim::ThreadContext;

extern "C" void cutwin_sim_barrier(ThreadContext *tc, uint32_t site) {
  Fiber *f = tc->fiber;
  if (!f)
    return; // a kernel compiled as a loop has no barriers
  f->state = Fiber::State::AtBarrier;
  f->site = site;
  cutwin::sim::yieldToScheduler(f);
}

using cutwin::sim::endFaultedThread;

extern "C" void cutwin_sim_poll(ThreadContext *tc, uint32_t line) {
  if (cutwin::sim::recordInterrupt(*tc, *tc->block, line))
    endFaultedThread(tc);
}

extern "C" void cutwin_sim_spin(ThreadContext *tc, uint32_t line) {
  if (cutwin::sim::recordInterrupt(*tc, *tc->block, line)) // (a spinning thread may wait forever)
    endFaultedThread(tc);
  Fiber *f = tc->fiber; // kernels with a waiting loop run as fibers
  f->state = Fiber::State::Spinning;
  f->spinLine = line;
  cutwin::sim::yieldToScheduler(f);
}

extern "C" void cutwin_sim_grid_sync(ThreadContext *tc, uint32_t site) {
  Fiber *f = tc->fiber; // kernels that sync the grid always run as fibers
  f->state = Fiber::State::AtGridBarrier;
  f->site = site;
  cutwin::sim::yieldToScheduler(f);
}

namespace {
/// Thread `tc` stops for the debugger: its fiber switches to the scheduler, which calls the
/// handler; a thread loop calls it here, on the block runner's stack.
void stopThread(ThreadContext *tc, cutwin::sim::PendingStop stop) {
  Fiber *f = tc->fiber;
  if (!f) {
    const cutwin::sim::SimKernel &k = *tc->block->kernel;
    cutwin::sim::BreakpointEvent e = cutwin::sim::stopEvent(k, *tc, stop);
    if (!cutwin::sim::stopInLoop(*tc, e))
      siglongjmp(*tc->block->jmp, 1); // the launch ends (the block runner returns)
    return;
  }
  f->state = Fiber::State::AtBreakpoint;
  f->stop = std::move(stop);
  cutwin::sim::yieldToScheduler(f);
}
} // namespace

extern "C" void cutwin_sim_breakpoint(ThreadContext *tc, uint32_t site, void *const *) {
  const cutwin::ir::BreakpointSite &s = tc->block->kernel->breakpoints[site];
  cutwin::sim::PendingStop stop;
  stop.site = site;
  if (s.kind != cutwin::ir::StopKind::Breakpoint) { // a line or return event
    auto cause = cutwin::sim::lineStop(s, *tc, stop.lineBreaks);
    if (!cause)
      return;
    stop.cause = *cause;
  }
  stopThread(tc, std::move(stop));
}

extern "C" void cutwin_sim_watch_store(ThreadContext *tc, const void *address, uint64_t size) {
  auto hit = cutwin::sim::watchedStore(*tc, address, size);
  if (!hit || !tc->debugTop || tc->debugTop->site >= tc->block->kernel->breakpoints.size())
    return;
  cutwin::sim::PendingStop stop;
  stop.site = tc->debugTop->site;
  stop.cause = cutwin::sim::StopCause::Watch;
  stop.watch = std::move(*hit);
  stopThread(tc, std::move(stop));
}

extern "C" uint64_t cutwin_sim_warp(ThreadContext *tc, uint32_t op, uint32_t mask, uint64_t value, uint32_t b,
                                    uint32_t site) {
  Fiber *f = tc->fiber; // (only fibers call it: split kernels' lanes meet in the scheduler)
  f->state = Fiber::State::AtWarp;
  f->site = site;
  f->warp = cutwin::sim::WarpRequest{op, mask, value, b};
  cutwin::sim::yieldToScheduler(f);
  return f->warpResult;
}

extern "C" void cutwin_sim_raise(ThreadContext *tc, cutwin::ir::ErrorRecord *rec, uint32_t kind,
                                 uint32_t site, int64_t a, int64_t b, int64_t c) {
  cutwin::sim::recordError(rec, tc->tid, tc->ctaid, kind, site, a, b, c);
  tc->block->abort->store(true, std::memory_order_relaxed);
  endFaultedThread(tc);
}
