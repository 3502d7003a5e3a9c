/// Versions the loops that inductive range check elimination (IRCE) cloned around a loop's
/// safe range on the comparisons they keep, so that the copy that runs has them as
/// constants and vectorises.
///
/// IRCE splits `for t in [0, n): if t < k: A; B` into a main loop over [0, min(k, n)), where
/// the check is known to pass, and a post-loop over the rest, which keeps the check (false
/// there for every t, as nothing tells the optimiser) and is marked not to be vectorised.
/// In the simulator's thread loops that post-loop is no remainder: it is every thread past
/// the bound (half the block in a tree reduction's first round, more after), run one at a
/// time with A's loads and stores kept behind a branch. This pass tests, before such a
/// loop, the comparison of its induction variable with a loop-invariant bound at the first
/// and at the last iteration: the comparison is monotonic in a range that does not wrap,
/// so when both agree it has that value throughout, and the loop runs as one of two copies
/// where it is the constant true or false (vectorisable); the loop as it was runs
/// otherwise.
#pragma once

#include <llvm/IR/PassManager.h>

namespace cutwin::ir {

struct VersionSplitChecksPass : llvm::PassInfoMixin<VersionSplitChecksPass> {
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &fam);
};

} // namespace cutwin::ir
