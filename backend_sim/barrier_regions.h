/// Step sim-regions: a kernel whose threads wait only at block barriers is cut at them into
/// regions, so that a block runs as one loop over its threads per region instead of as
/// fibers. The kernel becomes a function that runs one thread from a resume point (its
/// start, or just after barrier r) to the next barrier and returns r, or kRegionDone; what
/// a thread keeps across a barrier lives in its frame (ThreadContext::frames: a slot per
/// value and local array, laid out slot by slot with the block's threads side by side, so
/// that consecutive threads' copies are adjacent and a region's loop vectorises).
///
/// Entry kRegionsEntry(ctx, args, state, r) runs every thread of the block from resume point
/// r, storing where each stopped in state[thread]; with r = kRegionsMixed each thread runs
/// from its own state (those done skipped), in thread order. It returns where they stopped
/// when all stopped at one place (else kRegionsMixed). The scheduler checks between
/// rounds that the live threads all wait at one barrier, as it does for fibers: the split
/// needs no proof that barriers are block-uniform, and the results are those of fibers run
/// in thread order. kThreadEntry is rebuilt on the same function (a loop calling the
/// barrier callback between regions) for the schedules only fibers can run (CUTWIN_SIM_SEED,
/// CUTWIN_SIM_THREADS=fibers).
///
/// Kernels keep fibers when they are compiled for debugging or with the sanitizer, use
/// warp operations, grid sync, waiting loops (sim-spin) or breakpoints, call recursively a
/// function that waits at a barrier, or (found after the functions that wait are inlined,
/// which leaves the IR valid for fibers) have a local array of run-time size, an indirect
/// call, a barrier left outside the kernel, or exception-handling or token values.
#pragma once

#include "frontend/ir/kernel_ir.h"

#include <llvm/IR/Module.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cutwin::sim {

/// A thread returned from the kernel (a resume point otherwise).
inline constexpr uint32_t kRegionDone = UINT32_MAX;
/// kRegionsEntry's `r` when threads resume from different points, or some are done.
inline constexpr uint32_t kRegionsMixed = UINT32_MAX - 1;

/// Returns where the threads stopped when all stopped at one place (kRegionDone: all
/// returned), kRegionsMixed otherwise.
using RegionsEntryFn = uint32_t (*)(struct ThreadContext *, const void *args, uint32_t *state, uint32_t r);

struct BarrierRegions {
  bool split = false;              ///< false: the kernel runs as fibers (why says why)
  std::string why;                 ///< what kept it on fibers
  uint64_t frameBytes = 0;         ///< a thread's frame
  uint64_t localBytes = 0;         ///< of which local arrays
  std::vector<uint32_t> sites;     ///< resume point r ≥ 1: the site of the barrier it follows ([0]: 0)
  std::vector<uint32_t> frameKept; ///< per resume point ≥ 1: values kept in the frame across it
};

/// The step. Runs after sim-lower (the barriers are host-callback calls, kThreadEntry exists).
BarrierRegions splitAtBarriers(llvm::Module &m, const ir::KernelInfo &info);

/// The line the step prints after the IR.
std::string describe(const BarrierRegions &r);

} // namespace cutwin::sim
