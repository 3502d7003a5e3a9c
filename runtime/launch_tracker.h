/// Error records of launches not yet checked. Each launch gets its own zeroed record (a
/// slot of a pool in device memory), so that GPU launches can be asynchronous: errors
/// surface at the next synchronisation (Device::synchronize, a copy to the host), as
/// CUDA's asynchronous errors do, and name the launch that faulted first.
#pragma once

#include "frontend/ir/error_record.h"
#include "frontend/ir/kernel_ir.h"
#include "runtime/backend.h"

#include <memory>
#include <mutex>
#include <vector>

namespace cutwin::rt {

class LaunchTracker {
public:
  explicit LaunchTracker(Backend &b);
  ~LaunchTracker();

  /// A zeroed record for a launch of `info` (checks pending launches if the pool is full).
  ir::ErrorRecord *acquire(std::shared_ptr<const ir::KernelInfo> info);
  /// A launch that threw instead of running to its end (refused, or ended in the
  /// debugger): what its record holds is not reported later.
  void forget(ir::ErrorRecord *record);
  /// Waits for the device; throws the first error recorded since the last check.
  void check();

private:
  static constexpr size_t kSlots = 4096;
  Backend &b_;
  ir::ErrorRecord *records_ = nullptr; ///< device memory, kSlots records
  std::vector<std::shared_ptr<const ir::KernelInfo>> pending_;
  std::mutex mu_;
};

} // namespace cutwin::rt
