/// Error records of launches not yet checked. Each launch gets its own zeroed record (a
/// slot of a pool in device memory), so that GPU launches can be asynchronous: errors
/// surface at the next synchronisation (Device::synchronize, a copy to the host), as
/// CUDA's asynchronous errors do, and name the launch that faulted first.
///
/// Host threads share a device: a fault belongs to the host thread that launched the
/// kernel. Any thread's check reads every finished launch's record (so that slots come
/// free), but throws only its own first fault; another thread's waits for that thread's
/// next check. A launch still being submitted is left alone until it is.
#pragma once

#include "frontend/ir/error_record.h"
#include "frontend/ir/kernel_ir.h"
#include "runtime/backend.h"

#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace cutwin::rt {

class LaunchTracker {
public:
  explicit LaunchTracker(Backend &b);
  ~LaunchTracker();

  /// A zeroed record for a launch of `info` by this thread (checks pending launches if
  /// the pool is full).
  ir::ErrorRecord *acquire(std::shared_ptr<const ir::KernelInfo> info);
  /// The launch that owns `record` is on its stream (on the simulator: has finished), so
  /// a synchronisation makes its record final.
  void submitted(ir::ErrorRecord *record);
  /// A launch that threw instead of running to its end (refused, or ended in the
  /// debugger): what its record holds is not reported later.
  void forget(ir::ErrorRecord *record);
  /// Waits for the device; throws the first error this thread's launches recorded since
  /// its last check.
  void check();

private:
  struct Launch {
    uint32_t slot;
    std::shared_ptr<const ir::KernelInfo> info;
    std::thread::id owner;
    bool submitted;
  };
  struct Fault {
    ir::ErrorRecord record;
    std::shared_ptr<const ir::KernelInfo> info;
  };
  static constexpr uint32_t kSlots = 4096;

  /// Reads and clears the records of `done`, then returns
  /// their slots to the pool and keeps each thread's first fault.
  void collect(std::vector<Launch> &done);

  Backend &b_;
  ir::ErrorRecord *records_ = nullptr;      ///< device memory, kSlots records
  std::vector<Launch> launches_;            ///< in the order they were acquired
  std::vector<uint32_t> free_;              ///< free slots, reused last-freed first
  std::map<std::thread::id, Fault> faults_; ///< each thread's first unreported fault
  std::mutex mu_;                           ///< guards the members above
  std::mutex checking_;                     ///< held through a check
};

} // namespace cutwin::rt
