#include "backend_sim/canonical_nan.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <vector>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// Whether `i` computes a new float32 value (a NaN it returns is the GPU's canonical one).
bool computesFloat32(const Instruction &i) {
  if (!i.getType()->isFloatTy())
    return false;
  if (auto *bo = dyn_cast<BinaryOperator>(&i))
    return bo->getOpcode() != Instruction::FNeg;
  if (isa<FPTruncInst>(i))
    return true;
  if (auto *ii = dyn_cast<IntrinsicInst>(&i)) {
    switch (ii->getIntrinsicID()) {
    case Intrinsic::fabs:
    case Intrinsic::copysign:
    case Intrinsic::ssa_copy:
      return false; // sign-bit operations
    default:
      return true;
    }
  }
  // A host helper (directed rounding, approximation tables) computes; a function defined
  // in the module (a device function, libdevice's) returns what its own operations made.
  if (auto *ci = dyn_cast<CallInst>(&i))
    if (Function *callee = ci->getCalledFunction())
      return callee->isDeclaration();
  return false;
}

} // namespace

void canonicalizeFloat32NaNs(Module &m) {
  LLVMContext &c = m.getContext();
  Constant *canonical = ConstantFP::get(Type::getFloatTy(c), APFloat(APFloat::IEEEsingle(), APInt(32, 0x7fffffffu)));
  std::vector<Instruction *> work;
  for (Function &f : m)
    for (BasicBlock &bb : f)
      for (Instruction &i : bb)
        if (computesFloat32(i))
          work.push_back(&i);
  for (Instruction *i : work) {
    IRBuilder<> b(i->getNextNode());
    auto *isNan = cast<Instruction>(b.CreateFCmpUNO(i, i));
    auto *sel = cast<Instruction>(b.CreateSelect(isNan, canonical, i));
    i->replaceUsesWithIf(sel, [&](Use &u) { return u.getUser() != isNan && u.getUser() != sel; });
  }
}

} // namespace cutwin::sim
