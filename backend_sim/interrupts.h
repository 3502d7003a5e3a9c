/// Stopping a simulator launch from outside: Ctrl-C (SIGINT) and the watchdog
/// (CUTWIN_SIM_TIMEOUT seconds). While a launch runs it holds an InterruptScope: SIGINT
/// then only sets a flag (between launches it goes to the handler that was there before,
/// and a Ctrl-C that came during the launch is reported as the launch's own).
/// The launch notices within microseconds: loops of unknown length poll (`cutwin.poll`,
/// spin_poll.cpp), waiting loops poll as they yield, and the schedulers look between blocks
/// and between a block's rounds. The thread that notices records the error -
/// KernelErrorKind::Interrupted or Timeout, with the loop's line - and the launch ends as it
/// ends for a fault: the process keeps working and the next launch runs.
#pragma once

#include "cutwin/errors.h"

#include <chrono>
#include <cstdint>
#include <optional>

namespace cutwin::sim {

struct ThreadContext;
struct BlockState;

/// A launch's time limit, if any.
struct LaunchDeadline {
  std::chrono::steady_clock::time_point at;
  std::chrono::steady_clock::duration limit;
};

/// Held while a launch runs (nestable, from any thread).
class InterruptScope {
public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope &) = delete;
  InterruptScope &operator=(const InterruptScope &) = delete;
  /// Did Ctrl-C come while this scope was held? (Consumes it.)
  bool interrupted();
};

/// Why the launch `bs` belongs to must stop now, if it must (Interrupted or Timeout).
std::optional<KernelErrorKind> interruptOf(const BlockState &bs);

/// If the launch must stop: records the error for thread `tc` (`line`: the loop it was in,
/// 0 if none) and returns true; the caller ends the thread as after a fault.
bool recordInterrupt(const ThreadContext &tc, const BlockState &bs, uint32_t line);

} // namespace cutwin::sim
