#include "backend_sim/shared_raise.h"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <vector>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// How many error exits share one call: each shared block's phis have this many entries, so
/// that neither the exits (LCSSA: exits × values) nor the phis' sizes (SimplifyCFG and
/// others look incoming values up one by one) grow with the kernel.
constexpr size_t kSitesPerRaise = 64;

void share(Function *raise, Function &f, ArrayRef<CallInst *> calls) {
  if (calls.size() < 2)
    return;
  BasicBlock *shared = BasicBlock::Create(f.getContext(), "raise.shared", &f);
  IRBuilder<> b(shared);
  std::vector<Value *> args;
  for (Argument &a : raise->args())
    args.push_back(b.CreatePHI(a.getType(), unsigned(calls.size()), "raise." + std::to_string(a.getArgNo())));
  CallInst *one = b.CreateCall(raise, args);
  one->setAttributes(calls.front()->getAttributes());
  std::vector<DILocation *> where;
  for (CallInst *c : calls)
    if (DILocation *l = c->getDebugLoc().get())
      where.push_back(l);
  if (!where.empty()) // a location covering every site (a call in a function with debug info needs one)
    one->setDebugLoc(DILocation::getMergedLocations(where));
  b.CreateUnreachable();
  for (CallInst *c : calls) {
    BasicBlock *from = c->getParent();
    for (unsigned i = 0; i < args.size(); ++i)
      cast<PHINode>(args[i])->addIncoming(c->getArgOperand(i), from);
    Instruction *end = c->getNextNode();
    BranchInst::Create(shared, end)->setDebugLoc(c->getDebugLoc());
    end->eraseFromParent();
    c->eraseFromParent();
  }
}

} // namespace

void shareRaiseCalls(Module &m) {
  Function *raise = m.getFunction("cutwin_sim_raise");
  if (!raise)
    return;
  for (Function &f : m) {
    std::vector<CallInst *> calls; // in block order: the IR comes out the same every time
    for (BasicBlock &bb : f)
      if (auto *end = dyn_cast<UnreachableInst>(bb.getTerminator()))
        if (auto *call = dyn_cast_or_null<CallInst>(end->getPrevNode()))
          if (call->getCalledFunction() == raise)
            calls.push_back(call);
    for (size_t first = 0; first + 1 < calls.size(); first += kSitesPerRaise)
      share(raise, f, {calls.data() + first, std::min(kSitesPerRaise, calls.size() - first)});
  }
}

} // namespace cutwin::sim
