#include "backend_sim/half_to_int.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace cutwin::sim {

using namespace llvm;

void convertHalfToIntThroughFloat(Module &m) {
  std::vector<IntrinsicInst *> conversions;
  for (Function &f : m)
    for (BasicBlock &bb : f)
      for (Instruction &i : bb)
        if (auto *ii = dyn_cast<IntrinsicInst>(&i))
          if ((ii->getIntrinsicID() == Intrinsic::fptosi_sat ||
               ii->getIntrinsicID() == Intrinsic::fptoui_sat) &&
              ii->getArgOperand(0)->getType()->getScalarType()->isHalfTy())
            conversions.push_back(ii);
  IRBuilder<> b(m.getContext());
  for (IntrinsicInst *ii : conversions) {
    b.SetInsertPoint(ii);
    Value *half = ii->getArgOperand(0);
    Type *wide = half->getType()->getWithNewType(b.getFloatTy()); // a vector stays a vector
    Value *r = b.CreateIntrinsic(ii->getIntrinsicID(), {ii->getType(), wide}, {b.CreateFPExt(half, wide)});
    r->takeName(ii);
    ii->replaceAllUsesWith(r);
    ii->eraseFromParent();
  }
}

} // namespace cutwin::sim
