/// Stopping a simulator launch from outside: Ctrl-C (SIGINT) and the watchdog
/// (CUTWIN_SIM_TIMEOUT seconds, or the launch's own limit). While a launch runs it holds an
/// rt::InterruptScope (runtime/interrupt_scope.h): SIGINT then only sets a flag, and a
/// Ctrl-C that came during the launch is reported as the launch's own.
/// The launch notices within microseconds: loops of unknown length poll (`cutwin.poll`,
/// spin_poll.cpp), waiting loops poll as they yield, and the schedulers look between blocks
/// and between a block's rounds. The thread that notices records the error -
/// KernelErrorKind::Interrupted or Timeout, with the loop's line - and the launch ends as it
/// ends for a fault: the process keeps working and the next launch runs.
#pragma once

#include "cutwin/errors.h"

#include <chrono>
#include <cstdint>

namespace cutwin::sim {

struct ThreadContext;
struct BlockState;

/// A launch's time limit, if any.
struct LaunchDeadline {
  std::chrono::steady_clock::time_point at;
  std::chrono::steady_clock::duration limit;
};

/// If the launch must stop: records the error for thread `tc` (`line`: the loop it was in,
/// 0 if none) and returns true; the caller ends the thread as after a fault.
bool recordInterrupt(const ThreadContext &tc, const BlockState &bs, uint32_t line);

} // namespace cutwin::sim
