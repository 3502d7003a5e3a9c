#include "backend_sim/spin_poll.h"

#include "frontend/ir/intrinsics.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

#include <set>
#include <vector>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// The intrinsic `call` is (none for other calls).
std::optional<ir::Intrinsic> cutwinIntrinsic(const CallBase &call) {
  const Function *callee = call.getCalledFunction();
  if (!callee || !callee->getName().startswith("cutwin."))
    return std::nullopt;
  return ir::lookupIntrinsic(callee->getName());
}

/// Whether `v` has the same value in every iteration of `l`: defined outside it, or
/// computed in it from such values without reading memory (an address recomputed in each
/// iteration, `flag[j]`).
bool sameInEveryIteration(const Value *v, const Loop &l, unsigned depth = 0) {
  auto *i = dyn_cast<Instruction>(v);
  if (!i || !l.contains(i))
    return true;
  if (depth > 8 || isa<PHINode>(i) || i->mayReadOrWriteMemory() || i->mayHaveSideEffects())
    return false;
  for (const Value *op : i->operands())
    if (!sameInEveryIteration(op, l, depth + 1))
      return false;
  return true;
}

/// Whether `i` reads, in each iteration of `l`, one location that another thread may write.
bool readsSharedState(const Instruction &i, const Loop &l) {
  auto oneSharedLocation = [&](const Value *address) {
    const Value *base = getUnderlyingObject(address);
    if (isa<AllocaInst>(base))
      return false; // the thread's own local array or variable
    if (auto *g = dyn_cast<GlobalVariable>(base); g && g->isConstant())
      return false; // constant memory
    return sameInEveryIteration(address, l);
  };
  if (auto *load = dyn_cast<LoadInst>(&i))
    return oneSharedLocation(load->getPointerOperand());
  if (auto *rmw = dyn_cast<AtomicRMWInst>(&i))
    return oneSharedLocation(rmw->getPointerOperand());
  if (auto *cas = dyn_cast<AtomicCmpXchgInst>(&i))
    return oneSharedLocation(cas->getPointerOperand());
  if (auto *call = dyn_cast<CallBase>(&i)) {
    if (isa<DbgInfoIntrinsic>(call))
      return false;
    if (auto id = cutwinIntrinsic(*call))
      return ir::intrinsicInfo(*id).effect != ir::IntrinsicEffect::Pure && call->mayReadFromMemory();
    return call->mayReadFromMemory();
  }
  return false;
}

/// Whether the loop already yields: a barrier, grid sync or warp operation in it.
bool hasSchedulingPoint(const Loop &l) {
  for (const BasicBlock *bb : l.blocks())
    for (const Instruction &i : *bb)
      if (auto *call = dyn_cast<CallBase>(&i))
        if (auto id = cutwinIntrinsic(*call);
            id && ir::intrinsicInfo(*id).effect == ir::IntrinsicEffect::Convergent)
          return true;
  return false;
}

/// Whether the value `phi` (at the head of `l`) takes into the next iteration is computed
/// by the thread from its own values (a counter, a search's bounds): a loop that makes
/// progress of its own, as opposed to one that only observes (a flag set to a constant).
bool carriesOwnProgress(const PHINode &phi, const Loop &l) {
  std::vector<const Value *> work;
  for (unsigned k = 0; k < phi.getNumIncomingValues(); ++k)
    if (l.contains(phi.getIncomingBlock(k)))
      work.push_back(phi.getIncomingValue(k));
  std::set<const Value *> seen{&phi};
  while (!work.empty()) {
    auto *i = dyn_cast<Instruction>(work.back());
    work.pop_back();
    if (!i || !l.contains(i) || !seen.insert(i).second)
      continue;
    if (isa<PHINode>(i) || isa<SelectInst>(i) || isa<CastInst>(i)) { // a choice between values
      for (const Value *op : i->operands())
        if (!isa<SelectInst>(i) || op != cast<SelectInst>(i)->getCondition())
          work.push_back(op);
      continue;
    }
    if (isa<CmpInst>(i) || isa<LoadInst>(i) || isa<AtomicRMWInst>(i) || isa<AtomicCmpXchgInst>(i) ||
        isa<ExtractValueInst>(i) || isa<CallBase>(i))
      continue;  // an observation
    return true; // arithmetic on the loop's values
  }
  return false;
}

/// Whether the conditions that end `l` depend on memory it reads (see the header).
bool exitDependsOnSharedState(const Loop &l) {
  std::vector<const Value *> work;
  auto addConditionsOf = [&](const BasicBlock *bb) {
    const Instruction *t = bb->getTerminator();
    if (auto *br = dyn_cast<BranchInst>(t); br && br->isConditional())
      work.push_back(br->getCondition());
    else if (auto *sw = dyn_cast<SwitchInst>(t))
      work.push_back(sw->getCondition());
  };
  SmallVector<BasicBlock *, 4> exiting;
  l.getExitingBlocks(exiting);
  for (const BasicBlock *bb : exiting)
    addConditionsOf(bb);
  std::set<const Value *> seen;
  bool branchesAdded = false, observes = false;
  while (!work.empty()) {
    const Value *v = work.back();
    work.pop_back();
    auto *i = dyn_cast<Instruction>(v);
    if (!i || !l.contains(i) || !seen.insert(i).second)
      continue; // the same in every iteration
    observes = observes || readsSharedState(*i, l);
    if (auto *phi = dyn_cast<PHINode>(i)) {
      if (phi->getParent() == l.getHeader() && carriesOwnProgress(*phi, l))
        return false; // the loop ends by what the thread computes
      if (!branchesAdded) {
        // A value chosen by control flow depends on the conditions that choose it.
        branchesAdded = true;
        for (const BasicBlock *bb : l.blocks())
          addConditionsOf(bb);
      }
    }
    for (const Value *op : i->operands())
      work.push_back(op);
  }
  return observes;
}

void collect(Loop *l, std::vector<Loop *> &out) {
  out.push_back(l);
  for (Loop *inner : l->getSubLoops())
    collect(inner, out);
}

} // namespace

unsigned insertSpinPolls(Module &m) {
  Function *spin = nullptr, *poll = nullptr;
  unsigned marked = 0;
  TargetLibraryInfoImpl tlii(Triple(m.getTargetTriple()));
  TargetLibraryInfo tli(tlii);
  for (Function &f : m) {
    if (f.isDeclaration())
      continue;
    DominatorTree dt(f);
    LoopInfo li(dt);
    AssumptionCache ac(f);
    ScalarEvolution se(f, tli, ac, dt, li);
    std::vector<Loop *> loops;
    for (Loop *top : li)
      collect(top, loops);
    for (Loop *l : loops) {
      if (hasSchedulingPoint(*l))
        continue;
      bool waits = exitDependsOnSharedState(*l);
      // A loop that neither waits nor has a count ScalarEvolution can bound (`while True:`,
      // a search) asks now and then whether the launch was interrupted (interrupts.h);
      // loops over ranges end by themselves and keep their code as it is.
      if (!waits && !isa<SCEVCouldNotCompute>(se.getSymbolicMaxBackedgeTakenCount(l)))
        continue;
      Function *&callee = waits ? spin : poll;
      if (!callee)
        callee = ir::getIntrinsic(m, waits ? ir::Intrinsic::Spin : ir::Intrinsic::Poll);
      SmallVector<BasicBlock *, 4> latches;
      l->getLoopLatches(latches);
      DebugLoc where = l->getStartLoc();
      auto *line = ConstantInt::get(Type::getInt32Ty(m.getContext()), where ? where.getLine() : 0);
      for (BasicBlock *latch : latches) {
        IRBuilder<> b(latch->getTerminator());
        b.CreateCall(callee, {line})->setDebugLoc(where ? where : latch->getTerminator()->getDebugLoc());
      }
      marked += waits;
    }
  }
  return marked;
}

} // namespace cutwin::sim
