/// Simulator lowering of the kernel IR: every `cutwin.*` call becomes a read of the
/// thread context or a call into the scheduler, shared-memory globals become offsets into
/// the block's shared buffer, and entry points are generated that unpack the packed
/// argument buffer (one thread per call, or a whole block as a loop when the kernel never
/// synchronises).
#pragma once

#include "backend_sim/sanitize_accesses.h"
#include "frontend/ir/kernel_ir.h"

#include <llvm/IR/Module.h>

namespace cutwin::sim {

struct SimLoweringResult {
  uint64_t staticSharedBytes = 0;
  bool usesBarrier = false;                  ///< false: threads of a block may run as a plain loop
  bool usesGridSync = false;                 ///< the launch is cooperative: all blocks stay resident
  std::vector<SharedArrayInfo> sharedArrays; ///< where the shared arrays went (sanitizer reports)
  std::vector<AccessSite> accessSites;       ///< step sim-sanitize's
};

SimLoweringResult lowerIntrinsicsForSim(llvm::Module &m, const ir::KernelInfo &info);

} // namespace cutwin::sim
