/// Which values of a kernel cut at its barriers (sim-regions) every thread of a block holds
/// alike, and whether every stop is reached by all of them together: what lets a value
/// kept across a stop live once per block instead of once per thread (barrier_regions.cpp).
///
/// A divergence analysis in the usual sense (as GPU compilers run it): a value varies
/// between threads if it is read from memory other than the block's own context fields
/// (the thread index is such a read), is the result of a call with effects, or is computed
/// from such a value; a branch on a varying value lets threads take different paths, so
/// that the phis where those paths meet again (its immediate post-dominator, and every
/// block in between) vary too, and a loop some threads may leave earlier than others
/// (such a branch exits it) makes what it computes vary where it is used outside. A stop
/// (a barrier or warp operation: a return of the cut body) inside a block some threads may
/// skip is reached by some threads and not others.
#pragma once

#include <llvm/IR/Function.h>

#include <set>
#include <vector>

namespace cutwin::sim {

/// The context field a load reads through `p` (GEPs with constant indices from the
/// context argument `ctx`), or -1.
int contextField(llvm::Value *p, llvm::Argument *ctx);

struct BlockUniformity {
  /// Every stop is outside the blocks some threads may skip: all threads of a block that
  /// have not returned stop at the same stop, having run the same path from the same
  /// resume point, round after round.
  bool stopsTogether = false;
  std::set<const llvm::Value *> varying; ///< values that may differ between threads
  bool alike(const llvm::Value *v) const { return !varying.count(v); }
};

/// The analysis of `body` (the cut kernel: `ctx` its context, `perThread` its arguments
/// that differ between threads) whose stops end `stopBlocks` (null entries skipped).
BlockUniformity analyseBlockUniformity(llvm::Function &body, llvm::Argument *ctx,
                                       const std::vector<llvm::Argument *> &perThread,
                                       const std::vector<llvm::BasicBlock *> &stopBlocks);

} // namespace cutwin::sim
