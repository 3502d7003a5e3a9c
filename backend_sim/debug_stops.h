/// The debugger's view of a simulated block at a stop: the event a stopped thread makes, the
/// state of the block's other threads, and the handler's answer (go on, or end the launch).
/// A fiber stops in the scheduler; a thread of a block run as a loop stops in place, the
/// threads before it exited and those after it not started.
#pragma once

#include "backend_sim/breakpoints.h"
#include "backend_sim/fiber.h"
#include "backend_sim/scheduler.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cutwin::sim {

/// The stop `s` of thread `tc` (its block's threads not yet filled in).
BreakpointEvent stopEvent(const SimKernel &k, const ThreadContext &tc, const PendingStop &s);
/// What LaunchError says when the debugger ended the launch at `e`.
std::string endedInDebugger(const BreakpointEvent &e);
/// Where each of a block's `n` fibers is, for the debugger's thread table.
void describeThreads(const SimKernel &k, const std::vector<Fiber> &fibers, uint32_t n,
                     std::vector<ThreadAtStop> &out);
/// A thread or block index as kernel errors write it: "(5,0,0)".
std::string indexText(const uint32_t v[3]);
/// Where the threads of a stopped block were, in words (a launch Ctrl-C or the watchdog
/// ended; the thread that noticed is in state "stopped"): "1 stopped in the loop at line 12
/// (thread (5,0,0)), 31 at the barrier at line 15".
std::string threadsInWords(const std::vector<ThreadAtStop> &threads);
/// Hands `e` (a stop of one of the block's fibers) to the process's breakpoint handler with
/// the state of the block's `n` threads (and of the other resident blocks); throws
/// LaunchError if the handler ends the launch.
void stopFiber(const SimKernel &k, BreakpointEvent &e, const BlockState &bs, const std::vector<Fiber> &fibers,
               uint32_t n);
/// Debug kernels: the debugger sees fiber `f` before an error the scheduler found (or a
/// memory fault) ends the launch, as at a post-mortem stop of the kernel's own checks.
void postMortem(const SimKernel &k, const BlockState &bs, const Fiber &f, const std::vector<Fiber> &fibers,
                uint32_t n, std::string reason);
/// A stop in a kernel whose threads run as a loop (no barriers). Returns false if the
/// handler ended the launch (the message is in the block's state).
bool stopInLoop(const ThreadContext &tc, BreakpointEvent &e);

} // namespace cutwin::sim
