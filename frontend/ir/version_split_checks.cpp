#include "frontend/ir/version_split_checks.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <optional>

namespace cutwin::ir {

using namespace llvm;

namespace {

/// IRCE's mark on the latch branch of the loops it cloned; ours on a loop versioned here
/// (on all three copies: none is versioned again when the pipeline revisits the function).
constexpr const char *kIrceClone = "irce.loop.clone";
constexpr const char *kVersioned = "cutwin.split.versioned";

bool marked(const Loop &l, const char *kind) {
  const BasicBlock *latch = l.getLoopLatch();
  return latch && latch->getTerminator()->getMetadata(kind);
}

/// A comparison inside the loop (not one that exits it) of an induction variable stepping
/// by ±1 with a value the loop does not change.
struct Check {
  ICmpInst *cmp;
  const SCEVAddRecExpr *iv;
  unsigned ivOperand; ///< 0 or 1
};

std::optional<Check> findCheck(Loop &l, ScalarEvolution &se) {
  for (BasicBlock *bb : l.blocks()) {
    auto *br = dyn_cast<BranchInst>(bb->getTerminator());
    if (!br || !br->isConditional() || l.isLoopExiting(bb))
      continue;
    auto *cmp = dyn_cast<ICmpInst>(br->getCondition());
    if (!cmp || cmp->isEquality() || !l.contains(cmp) || !cmp->getOperand(0)->getType()->isIntegerTy())
      continue;
    for (unsigned k = 0; k < 2; ++k) {
      auto *iv = dyn_cast<SCEVAddRecExpr>(se.getSCEV(cmp->getOperand(k)));
      if (!iv || iv->getLoop() != &l || !iv->isAffine() || !l.isLoopInvariant(cmp->getOperand(1 - k)))
        continue;
      auto *step = dyn_cast<SCEVConstant>(iv->getStepRecurrence(se));
      if (step && (step->getAPInt().isOne() || step->getAPInt().isAllOnes()))
        return Check{cmp, iv, k};
    }
  }
  return std::nullopt;
}

/// `l`'s loop ID without IRCE's "do not vectorise" (a copy of its own, the copies being
/// loops of their own).
void allowVectorising(Loop &l) {
  MDNode *id = l.getLoopID();
  if (!id)
    return;
  SmallVector<Metadata *, 4> keep{nullptr};
  for (unsigned i = 1; i < id->getNumOperands(); ++i) {
    auto *n = dyn_cast<MDNode>(id->getOperand(i));
    auto *name = n && n->getNumOperands() ? dyn_cast<MDString>(n->getOperand(0)) : nullptr;
    if (!name || name->getString() != "llvm.loop.vectorize.enable")
      keep.push_back(id->getOperand(i));
  }
  MDNode *fresh = MDNode::getDistinct(l.getHeader()->getContext(), keep);
  fresh->replaceOperandWith(0, fresh);
  l.setLoopID(fresh);
}

/// A copy of `l` (and its preheader `ph`) entered from `from`, leaving to `l`'s exit block
/// `exit` (its LCSSA phis taking the copy's values), `check` replaced by `value`.
Loop *copyWithCheck(Loop &l, BasicBlock *ph, BasicBlock *from, BasicBlock *exit, ICmpInst *check, bool value,
                    LoopInfo &li, DominatorTree &dt) {
  ValueToValueMapTy map;
  SmallVector<BasicBlock *, 16> blocks;
  Loop *copy = cloneLoopWithPreheader(ph, from, &l, map, value ? ".true" : ".false", &li, &dt, blocks);
  remapInstructionsInBlocks(blocks, map);
  for (PHINode &phi : exit->phis())
    for (unsigned i = 0, n = phi.getNumIncomingValues(); i < n; ++i)
      if (l.contains(phi.getIncomingBlock(i))) {
        Value *v = phi.getIncomingValue(i);
        auto it = map.find(v);
        Value *copied = it == map.end() ? v : static_cast<Value *>(it->second);
        phi.addIncoming(copied, cast<BasicBlock>(map[phi.getIncomingBlock(i)]));
      }
  auto *cmp = cast<ICmpInst>(map[check]);
  cmp->replaceAllUsesWith(ConstantInt::getBool(cmp->getContext(), value));
  cmp->eraseFromParent();
  allowVectorising(*copy);
  return copy;
}

/// Versions one loop of `f` (IRCE's, not yet versioned, with a check); false if none is left.
bool versionOne(Function &f, FunctionAnalysisManager &fam) {
  DominatorTree dt(f);
  LoopInfo li(dt);
  ScalarEvolution se(f, fam.getResult<TargetLibraryAnalysis>(f), fam.getResult<AssumptionAnalysis>(f), dt,
                     li);
  for (Loop *l : li.getLoopsInPreorder()) {
    if (!l->isInnermost() || !marked(*l, kIrceClone) || marked(*l, kVersioned))
      continue;
    l->getLoopLatch()->getTerminator()->setMetadata(kVersioned, MDNode::get(f.getContext(), {}));
    simplifyLoop(l, &dt, &li, &se, nullptr, nullptr, false);
    formLCSSA(*l, dt, &li, &se);
    BasicBlock *ph = l->getLoopPreheader(), *exit = l->getUniqueExitBlock();
    std::optional<Check> check = findCheck(*l, se);
    const SCEV *taken = se.getBackedgeTakenCount(l);
    // (An induction variable narrower than the count, a truncation of the loop's, may wrap
    // more than once between the first and the last iteration: no test at the ends tells.)
    if (!ph || !exit || !l->hasDedicatedExits() || !check || isa<SCEVCouldNotCompute>(taken) ||
        se.getTypeSizeInBits(check->iv->getType()) < se.getTypeSizeInBits(taken->getType()))
      return true;
    const SCEV *firstIv = check->iv->getStart(), *lastIv = check->iv->evaluateAtIteration(taken, se);
    SCEVExpander expander(se, f.getParent()->getDataLayout(), "split.check");
    Instruction *at = ph->getTerminator();
    if (!expander.isSafeToExpandAt(firstIv, at) || !expander.isSafeToExpandAt(lastIv, at))
      return true;
    // In the preheader: the check at the first and last iteration, and whether the
    // induction variable runs from one to the other without wrapping.
    Type *ty = check->cmp->getOperand(check->ivOperand)->getType();
    Value *first = expander.expandCodeFor(firstIv, ty, at);
    Value *last = expander.expandCodeFor(lastIv, ty, at);
    IRBuilder<> b(at);
    Value *bound = check->cmp->getOperand(1 - check->ivOperand);
    auto checkAt = [&](Value *iv) {
      return check->ivOperand == 0 ? b.CreateICmp(check->cmp->getPredicate(), iv, bound)
                                   : b.CreateICmp(check->cmp->getPredicate(), bound, iv);
    };
    Value *atFirst = checkAt(first);
    Value *atLast = checkAt(last);
    bool up = cast<SCEVConstant>(check->iv->getStepRecurrence(se))->getAPInt().isOne();
    CmpInst::Predicate inOrder = check->cmp->isSigned() ? CmpInst::ICMP_SLE : CmpInst::ICMP_ULE;
    Value *noWrap = up ? b.CreateICmp(inOrder, first, last) : b.CreateICmp(inOrder, last, first);
    Value *agree = b.CreateICmpEQ(atFirst, atLast);
    Value *both = b.CreateAnd(noWrap, agree);
    Value *constant = b.CreateFreeze(both, "split.check.constant"); // (a poison bound: any copy)
    Value *which = b.CreateFreeze(atFirst, "split.check.value");
    // The dispatch: ph chooses, the loop gets a preheader of its own, then the copies.
    BasicBlock *loopPh = SplitEdge(ph, l->getHeader(), &dt, &li);
    loopPh->setName(l->getHeader()->getName() + ".checked.ph");
    BasicBlock *choose = BasicBlock::Create(f.getContext(), "split.check.choose", &f, loopPh);
    dt.addNewBlock(choose, ph);
    if (Loop *outer = l->getParentLoop())
      outer->addBasicBlockToLoop(choose, li);
    Loop *whenTrue = copyWithCheck(*l, loopPh, choose, exit, check->cmp, true, li, dt);
    Loop *whenFalse = copyWithCheck(*l, loopPh, choose, exit, check->cmp, false, li, dt);
    ph->getTerminator()->eraseFromParent();
    BranchInst::Create(choose, loopPh, constant, ph);
    BranchInst::Create(whenTrue->getLoopPreheader(), whenFalse->getLoopPreheader(), which, choose);
    dt.changeImmediateDominator(exit, ph);
    return true;
  }
  return false;
}

} // namespace

PreservedAnalyses VersionSplitChecksPass::run(Function &f, FunctionAnalysisManager &fam) {
  bool changed = false;
  while (versionOne(f, fam))
    changed = true;
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace cutwin::ir
