/// Step sim-regions: a kernel whose threads wait only at block barriers and warp operations
/// is cut at them into regions, so that a block runs as one loop over its threads per
/// region instead of as fibers. The kernel becomes a function that runs one thread from a
/// resume point (its start, or just after stop r) to the next barrier or warp operation and
/// returns r, or kRegionDone; what a thread keeps across a stop lives in its frame
/// (ThreadContext::frames: a slot per value and local array, laid out slot by slot with the
/// block's threads side by side, so that consecutive threads' copies are adjacent and a
/// region's loop vectorises). At a warp operation the thread leaves its request in its
/// WarpLane (ThreadContext::lanes, warp_ops.h) and finds the result there when it resumes.
///
/// Entry kRegionsEntry(ctx, args, state, r, round) runs every thread of the block from
/// resume point r, storing where each stopped in state[thread], and returns where they all
/// stopped if that is one place (else kRegionsMixed); with r = kRegionsMixed each thread
/// not done nor parked runs from its own state, in thread order, and it returns
/// kRegionsMixed. `round`: the block's rounds before this one. A value every thread holds
/// alike at every stop, where all threads stop together (block_uniformity.h), is kept once
/// per block, in two cells: a region reads the one its round's parity names and writes the
/// other where it stops. Between rounds the
/// scheduler does what it does for fibers: completes the warp operations whose lanes have all arrived (in
/// lockstep: all lanes of every warp at one operation, at once), and opens a barrier when
/// every live thread waits at it: the split needs no proof that barriers are block-uniform,
/// and the results are those of fibers run in thread order. kThreadEntry is rebuilt on the
/// same function (a loop calling the barrier or warp callback between regions) for the
/// schedules only fibers can run (CUTWIN_SIM_SEED, CUTWIN_SIM_THREADS=fibers).
///
/// Kernels keep fibers when they are compiled for debugging or with the sanitizer, use grid
/// sync, waiting loops (sim-spin) or breakpoints, call recursively a function that waits,
/// or (found after the functions that wait are inlined, which leaves the IR valid for
/// fibers) have a local array of run-time size, an indirect call, a barrier left outside
/// the kernel, or exception-handling or token values.
#pragma once

#include "frontend/ir/kernel_ir.h"

#include <llvm/IR/Module.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cutwin::sim {

/// A thread returned from the kernel (a resume point otherwise).
inline constexpr uint32_t kRegionDone = UINT32_MAX;
/// kRegionsEntry's `r` when threads resume from different points, or some are done or
/// parked; also the scheduler's word for "not all stopped at one place".
inline constexpr uint32_t kRegionsMixed = UINT32_MAX - 1;
/// Set in a thread's state while it waits and others run (at a barrier, or at a warp
/// operation that cannot complete yet): mixed rounds skip it (kRegionDone has it too).
inline constexpr uint32_t kRegionParked = 0x80000000u;

using RegionsEntryFn = uint32_t (*)(struct ThreadContext *, const void *args, uint32_t *state, uint32_t r,
                                    uint32_t round);

struct BarrierRegions {
  bool split = false;              ///< false: the kernel runs as fibers (why says why)
  std::string why;                 ///< what kept it on fibers
  uint64_t frameBytes = 0;         ///< a thread's frame
  uint64_t localBytes = 0;         ///< of which local arrays
  std::vector<uint32_t> sites;     ///< resume point r ≥ 1: the site of the barrier it follows ([0]: 0)
  std::vector<uint8_t> warp;       ///< resume point r: 1 if it follows a warp operation (else a barrier)
  std::vector<uint32_t> frameKept; ///< per resume point ≥ 1: values kept in the frame across it
  uint32_t blockValues = 0;        ///< kept values once per block (block_uniformity.h)
};

/// The step. Runs after sim-lower (the barriers are host-callback calls, kThreadEntry exists).
BarrierRegions splitAtBarriers(llvm::Module &m, const ir::KernelInfo &info);

/// The line the step prints after the IR.
std::string describe(const BarrierRegions &r);

} // namespace cutwin::sim
