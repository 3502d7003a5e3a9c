/// Runs a simulated grid: blocks spread over TBB workers; inside a block the threads run
/// as a plain loop (kernels without barriers), region by region between barriers and warp
/// operations (barrier_regions.h), or as fibers that switch at each barrier.
/// Faults and barrier divergence end the launch cleanly through the error record.
#pragma once

#include "backend_sim/barrier_regions.h"
#include "backend_sim/device_limits.h"
#include "backend_sim/thread_context.h"
#include "frontend/ir/error_record.h"
#include "frontend/ir/kernel_ir.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

namespace cutwin::sim {

class SanitizerLaunch;
using EntryFn = void (*)(ThreadContext *, const void *args);

/// A kernel ready to run: JIT entry points plus what the scheduler needs to know.
struct SimKernel {
  std::string name;
  EntryFn threadEntry = nullptr;         ///< one thread (fiber mode)
  EntryFn blockEntry = nullptr;          ///< a whole block as a loop (no barriers)
  RegionsEntryFn regionsEntry = nullptr; ///< a kernel split at its barriers: a block region by region
  uint64_t frameBytes = 0;               ///< split: a thread's frame (ThreadContext::frames)
  std::vector<uint32_t> regionSites;     ///< split: the barrier site of each resume point
  std::vector<uint8_t> regionWarp;       ///< split: 1 where a resume point follows a warp operation
  uint64_t staticSharedBytes = 0;
  size_t stackBytes = 64 * 1024;               ///< per fiber
  uint64_t localBytes = 0;                     ///< local arrays per thread
  bool cooperative = false;                    ///< syncs the grid: every block must be resident at once
  unsigned maxThreadsPerBlock = 0;             ///< launch_bounds' first value (0: the device's limit)
  bool debug = false;                          ///< compiled for debugging: errors stop first (post-mortem)
  std::vector<ir::BreakpointSite> breakpoints; ///< debug kernels: where threads may stop
  std::vector<ir::Site> sites;                 ///< where threads may wait (barriers), for the debugger
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

struct SchedulerOptions {
  unsigned seed = 0; ///< non-zero: shuffle the order fibers run in each round (split kernels too)
  /// CUTWIN_SIM_THREADS=fibers: kernels are compiled uncut (PipelineOptions::simRegions) and
  /// run as fibers, the split kernels' independent reference
  bool fibers = false;
  bool parallel = true;  ///< spread blocks over TBB workers
  size_t stackBytes = 0; ///< fiber stack size; 0: what the kernel needs (CUTWIN_SIM_STACK_KB)
  /// How long a block's threads may all spin without progress before the launch fails as a
  /// livelock (CUTWIN_SIM_SPIN_TIMEOUT, seconds).
  std::chrono::steady_clock::duration spinTimeout = std::chrono::seconds(10);
  /// The watchdog: a launch running longer ends with KernelErrorKind::Timeout
  /// (CUTWIN_SIM_TIMEOUT, seconds; zero: no limit). interrupts.h.
  std::chrono::steady_clock::duration timeout{};
  /// rt::ctrlCCount() when the launch began: a Ctrl-C since stops it (interrupts.h).
  uint64_t ctrlCAtStart = 0;
  /// A kernel compiled with `sanitize=`: this launch's sanitizer state (sanitizer.h).
  SanitizerLaunch *sanitizer = nullptr;
};

/// Checks the configuration against `limits`; throws LaunchError as the GPU would refuse it.
void checkLaunch(const SimKernel &k, Dim3 grid, Dim3 block, uint64_t dynamicShared,
                 const DeviceLimits &limits);

/// Blocks of `block` threads that can be resident at once on the simulated device (as the
/// occupancy calculator computes it from threads and shared memory; registers are not
/// modelled): the largest cooperative launch.
uint64_t maxCooperativeBlocks(const SimKernel &k, Dim3 block, uint64_t dynamicShared,
                              const DeviceLimits &limits);

/// Runs every block; returns after all finished or the first fault. Faults are in `err`;
/// if Ctrl-C or the watchdog stopped the launch, where its blocks and threads were is in
/// `stopReport` (when given).
void runGrid(const SimKernel &k, Dim3 grid, Dim3 block, uint64_t dynamicShared, const void *args,
             ir::ErrorRecord *err, const SchedulerOptions &opts, std::string *stopReport = nullptr);

} // namespace cutwin::sim
