#include "backend_sim/canonical_nan.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <vector>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// Whether `i` is a float64 fabs or fneg (which the GPU computes as an addition with
/// operand modifiers: a NaN comes out quieted, its sign untouched).
bool isSignOpFloat64(const Instruction &i) {
  if (!i.getType()->isDoubleTy())
    return false;
  if (isa<UnaryOperator>(i))
    return cast<UnaryOperator>(i).getOpcode() == Instruction::FNeg;
  auto *ii = dyn_cast<IntrinsicInst>(&i);
  return ii && ii->getIntrinsicID() == Intrinsic::fabs;
}

/// float32 and float16: the types whose computed NaNs are the GPU's canonical one.
bool canonicalNanType(const Type *t) { return t->isFloatTy() || t->isHalfTy(); }

/// Whether `i` computes a new float32 or float16 value (a NaN it returns is the GPU's
/// canonical one).
bool computesCanonical(const Instruction &i) {
  if (!canonicalNanType(i.getType()))
    return false;
  if (isa<BinaryOperator>(i) || isa<UnaryOperator>(i)) // fneg too: the GPU adds with a modifier
    return true;
  if (isa<FPTruncInst>(i)) // cvt.rn.f16.f32/f64: the canonical NaN
    return i.getType()->isHalfTy();
  if (auto *ii = dyn_cast<IntrinsicInst>(&i)) {
    switch (ii->getIntrinsicID()) {
    case Intrinsic::copysign:
    case Intrinsic::ssa_copy: return false; // bit operations
    default: return true;                   // fabs too, as fneg
    }
  }
  // A host helper (directed rounding, approximation tables) computes; a function defined
  // in the module (a device function, libdevice's) returns what its own operations made.
  if (auto *ci = dyn_cast<CallInst>(&i))
    if (Function *callee = ci->getCalledFunction())
      return callee->isDeclaration();
  return false;
}

/// Whether use `u` of a float32 (float16) value cannot observe which NaN the value is: the
/// user computes a result of the same type from it (a NaN in gives a NaN out, itself made canonical
/// where it is observed), compares it, or converts it to an integer (payload-blind). A
/// NaN's bits matter only where they leave arithmetic: stored, passed, selected, widened,
/// reinterpreted, or lent their sign (copysign).
bool blindToNanBits(const Use &u) {
  auto *user = dyn_cast<Instruction>(u.getUser());
  if (!user)
    return false;
  if (isa<FCmpInst>(user) || isa<FPToSIInst>(user) || isa<FPToUIInst>(user))
    return true;
  Type *t = u.get()->getType();
  if (isa<BinaryOperator>(user) || isa<UnaryOperator>(user))
    return user->getType() == t;
  auto *ii = dyn_cast<IntrinsicInst>(user);
  if (!ii)
    return false;
  switch (ii->getIntrinsicID()) {
  case Intrinsic::fma:
  case Intrinsic::fmuladd:
  case Intrinsic::sqrt:
  case Intrinsic::fabs:
  case Intrinsic::minnum:
  case Intrinsic::maxnum:
  case Intrinsic::floor:
  case Intrinsic::ceil:
  case Intrinsic::trunc:
  case Intrinsic::rint:
  case Intrinsic::nearbyint:
  case Intrinsic::round:
  case Intrinsic::roundeven: return ii->getType() == t;
  case Intrinsic::fptosi_sat:
  case Intrinsic::fptoui_sat: return true;
  default: return false;
  }
}

} // namespace

void applyGpuNanRules(Module &m) {
  LLVMContext &c = m.getContext();
  Constant *canonical32 =
      ConstantFP::get(Type::getFloatTy(c), APFloat(APFloat::IEEEsingle(), APInt(32, 0x7fffffffu)));
  Constant *canonical16 =
      ConstantFP::get(Type::getHalfTy(c), APFloat(APFloat::IEEEhalf(), APInt(16, 0x7fffu)));
  std::vector<Instruction *> f32, f64;
  for (Function &f : m)
    for (BasicBlock &bb : f)
      for (Instruction &i : bb) {
        if (computesCanonical(i))
          f32.push_back(&i);
        else if (isSignOpFloat64(i))
          f64.push_back(&i);
      }
  // The canonical NaN where a result's bits are observed; a chain of arithmetic needs it
  // once, at its end (a select per operation lengthened every float32 dependency chain).
  for (Instruction *i : f32) {
    if (llvm::all_of(i->uses(), blindToNanBits))
      continue;
    IRBuilder<> b(i->getNextNode());
    auto *isNan = cast<Instruction>(b.CreateFCmpUNO(i, i));
    auto *sel =
        cast<Instruction>(b.CreateSelect(isNan, i->getType()->isHalfTy() ? canonical16 : canonical32, i));
    i->replaceUsesWithIf(
        sel, [&](Use &u) { return u.getUser() != isNan && u.getUser() != sel && !blindToNanBits(u); });
  }
  for (Instruction *i : f64) {
    IRBuilder<> b(i->getNextNode());
    Value *x = i->getOperand(0);
    Value *quiet =
        b.CreateBitCast(b.CreateOr(b.CreateBitCast(x, b.getInt64Ty()), uint64_t(1) << 51), b.getDoubleTy());
    auto *sel = cast<Instruction>(b.CreateSelect(b.CreateFCmpUNO(x, x), quiet, i));
    i->replaceUsesWithIf(sel, [&](Use &u) { return u.getUser() != sel; });
  }
}

} // namespace cutwin::sim
