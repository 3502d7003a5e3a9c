/// Ctrl-C while the process waits on a device: a simulator launch, or a synchronisation
/// with the GPU. A wait holds an InterruptScope; SIGINT then only sets a flag that the
/// wait polls (between waits it goes to the handler that was there before: the host
/// program's, Python's KeyboardInterrupt). Both backends' waits use it, so it sits below
/// them, beside the interface they implement (runtime/backend.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace cutwin::rt {

/// Held while a wait runs (nestable, from any thread).
class InterruptScope {
public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope &) = delete;
  InterruptScope &operator=(const InterruptScope &) = delete;
  /// Did Ctrl-C come since this scope began?
  bool interrupted() const;
  uint64_t start() const { return start_; }

private:
  uint64_t start_; ///< ctrlCCount() when it began
};

/// How many Ctrl-Cs came during waits so far, for polls that run often (a relaxed load).
uint64_t ctrlCCount();

/// Polls `ready` until it is true, spinning for the first millisecond (as the CUDA driver
/// spins in a synchronisation), then sleeping 50 us between polls. A Ctrl-C that comes
/// meanwhile ends the wait with cutwin::Interrupted, whose message is `interrupted`; the
/// work waited for goes on.
void waitInterruptibly(const std::function<bool()> &ready, const std::function<std::string()> &interrupted);

} // namespace cutwin::rt
