#include "backend_sim/block_uniformity.h"

#include "backend_sim/lower_intrinsics.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <tuple>

namespace cutwin::sim {

using namespace llvm;

int contextField(Value *p, Argument *ctx) {
  while (auto *g = dyn_cast<GetElementPtrInst>(p)) {
    if (!g->hasAllConstantIndices())
      return -1;
    if (g->getPointerOperand() != ctx) { // (only an element of the field's own array)
      auto *array = dyn_cast<ArrayType>(g->getSourceElementType());
      if (!array || g->getNumIndices() != 2 || !cast<ConstantInt>(g->getOperand(1))->isZero() ||
          cast<ConstantInt>(g->getOperand(2))->getZExtValue() >= array->getNumElements())
        return -1;
    }
    if (g->getPointerOperand() == ctx) {
      if (g->getSourceElementType() != contextType(ctx->getContext()) || g->getNumIndices() < 2 ||
          !cast<ConstantInt>(g->getOperand(1))->isZero())
        return -1;
      return int(cast<ConstantInt>(g->getOperand(2))->getZExtValue());
    }
    p = g->getPointerOperand();
  }
  return -1;
}

namespace {

/// Context fields every thread of a block reads alike: block index, block and grid sizes,
/// the shared memory, the dynamic shared size, the frames, the lanes (not the thread
/// index, nor the per-thread counters and pointers).
bool blockWideField(int f) { return (f >= 1 && f <= 4) || f == 7 || f == 12 || f == 13; }

/// Whether `i` may give each thread its own value whatever its operands: a read of memory
/// (other than a block-wide context field), a call with effects, an atomic.
bool variesByItself(Instruction &i, Argument *ctx) {
  if (auto *l = dyn_cast<LoadInst>(&i))
    return !l->isSimple() || !blockWideField(contextField(l->getPointerOperand(), ctx));
  if (auto *call = dyn_cast<CallBase>(&i)) {
    auto *intrinsic = dyn_cast<IntrinsicInst>(call);
    if (!intrinsic || intrinsic->mayReadOrWriteMemory() || intrinsic->mayHaveSideEffects() ||
        intrinsic->isConvergent())
      return true;
    switch (intrinsic->getIntrinsicID()) { // (addresses in the thread's own stack)
    case Intrinsic::frameaddress:
    case Intrinsic::returnaddress:
    case Intrinsic::addressofreturnaddress:
    case Intrinsic::sponentry:
    case Intrinsic::stacksave: return true;
    default: return false;
    }
  }
  return i.mayReadOrWriteMemory() || isa<AllocaInst, LandingPadInst>(&i);
}

/// While it lives, every edge of `f` into a block from which no return can be reached (an
/// error's raise: the thread ends the launch) goes to a sibling successor that can reach
/// one instead, so that the post-dominators say where the threads that go on meet again.
class FaultEdgesAside {
public:
  explicit FaultEdgesAside(Function &f) {
    std::set<BasicBlock *> goesOn;
    std::vector<BasicBlock *> back; // (from the returns, backwards)
    for (BasicBlock &b : f)
      if (isa<ReturnInst>(b.getTerminator()))
        back.push_back(&b);
    while (!back.empty()) {
      BasicBlock *b = back.back();
      back.pop_back();
      if (goesOn.insert(b).second)
        back.insert(back.end(), pred_begin(b), pred_end(b));
    }
    for (BasicBlock *b : goesOn) {
      Instruction *t = b->getTerminator();
      BasicBlock *alive = nullptr;
      for (unsigned i = 0; i < t->getNumSuccessors() && !alive; ++i)
        if (goesOn.count(t->getSuccessor(i)))
          alive = t->getSuccessor(i);
      for (unsigned i = 0; alive && i < t->getNumSuccessors(); ++i)
        if (!goesOn.count(t->getSuccessor(i))) {
          moved_.push_back({t, i, t->getSuccessor(i)});
          t->setSuccessor(i, alive);
        }
    }
  }
  ~FaultEdgesAside() {
    for (auto &[t, i, to] : moved_)
      t->setSuccessor(i, to);
  }
  FaultEdgesAside(const FaultEdgesAside &) = delete;
  FaultEdgesAside &operator=(const FaultEdgesAside &) = delete;

private:
  std::vector<std::tuple<Instruction *, unsigned, BasicBlock *>> moved_;
};

} // namespace

BlockUniformity analyseBlockUniformity(Function &body, Argument *ctx,
                                       const std::vector<Argument *> &perThread,
                                       const std::vector<BasicBlock *> &stopBlocks) {
  FaultEdgesAside faultsAside(body);
  DominatorTree dt(body);
  LoopInfo loops(dt);
  PostDominatorTree pdt(body);
  BlockUniformity out;
  std::set<BasicBlock *> skippable; // blocks some threads may skip while others run them
  std::set<Instruction *> branchesSeen;
  std::vector<Value *> work;
  auto vary = [&](Value *v) {
    if (out.varying.insert(v).second)
      work.push_back(v);
  };
  // Threads take different paths from `branch`: the blocks up to where the paths meet
  // again are skippable; the phis there and in between merge different threads' values.
  auto diverge = [&](Instruction *branch) {
    BasicBlock *from = branch->getParent();
    DomTreeNode *node = pdt.getNode(from);
    BasicBlock *meet = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr; // (null: never)
    std::vector<BasicBlock *> ahead(succ_begin(from), succ_end(from));
    std::set<BasicBlock *> between;
    while (!ahead.empty()) {
      BasicBlock *b = ahead.back();
      ahead.pop_back();
      if (b == meet || !between.insert(b).second)
        continue;
      ahead.insert(ahead.end(), succ_begin(b), succ_end(b));
    }
    skippable.insert(between.begin(), between.end());
    if (meet)
      between.insert(meet);
    for (BasicBlock *b : between)
      for (PHINode &phi : b->phis())
        vary(&phi);
    // A loop the branch may leave for some threads only: what it computes differs,
    // where it is used outside, between threads that left at different iterations.
    for (Loop *l = loops.getLoopFor(from); l && (!meet || !l->contains(meet)); l = l->getParentLoop())
      for (BasicBlock *b : l->blocks())
        for (Instruction &i : *b)
          for (User *u : i.users())
            if (auto *user = dyn_cast<Instruction>(u); user && !l->contains(user)) {
              vary(&i);
              break;
            }
  };
  for (Argument *a : perThread)
    vary(a);
  for (BasicBlock &b : body)
    for (Instruction &i : b)
      if (variesByItself(i, ctx))
        vary(&i);
  while (!work.empty()) {
    Value *v = work.back();
    work.pop_back();
    for (User *u : v->users()) {
      auto *i = dyn_cast<Instruction>(u);
      if (!i)
        continue;
      if (isa<BranchInst, SwitchInst>(i)) {
        if (branchesSeen.insert(i).second)
          diverge(i);
        continue;
      }
      if (i->isTerminator() || isa<StoreInst>(i))
        continue;
      vary(i);
    }
  }
  out.stopsTogether = true;
  for (BasicBlock *stop : stopBlocks)
    if (stop && skippable.count(stop))
      out.stopsTogether = false;
  return out;
}

} // namespace cutwin::sim
