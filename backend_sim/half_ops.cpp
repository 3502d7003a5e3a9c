#include "backend_sim/half_ops.h"

#include "backend_sim/half_conversions.h"
#include "backend_sim/host_callbacks.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <cmath>
#include <vector>

namespace cutwin::sim {

using namespace llvm;

void roundHalfFmaOnce(Module &m) {
  std::vector<IntrinsicInst *> fmas;
  for (Function &f : m)
    for (BasicBlock &bb : f)
      for (Instruction &i : bb)
        if (auto *ii = dyn_cast<IntrinsicInst>(&i))
          if ((ii->getIntrinsicID() == Intrinsic::fma || ii->getIntrinsicID() == Intrinsic::fmuladd) &&
              ii->getType()->isHalfTy())
            fmas.push_back(ii);
  if (fmas.empty())
    return;
  IRBuilder<> b(m.getContext());
  Type *i16 = b.getInt16Ty();
  Function *helper = declareHostCallback(m, HostCallback::FmaF16);
  for (IntrinsicInst *ii : fmas) {
    b.SetInsertPoint(ii);
    Value *args[3];
    for (unsigned k = 0; k < 3; ++k)
      args[k] = b.CreateBitCast(ii->getArgOperand(k), i16);
    Value *r = b.CreateBitCast(b.CreateCall(helper, args), ii->getType());
    ii->replaceAllUsesWith(r);
    ii->eraseFromParent();
  }
}

} // namespace cutwin::sim

namespace {

using cutwin::sim::bitsOfHalf;
using cutwin::sim::halfFromBits;

/// The value of `bits` as a double, with infinity standing for 2^16 (where rounding
/// overflows): the midpoint between 65504 and it is the overflow threshold.
double extended(uint16_t bits) {
  double d = double(halfFromBits(bits));
  return std::isinf(d) ? std::copysign(65536.0, d) : d;
}

} // namespace

extern "C" uint16_t cutwin_sim_fma_f16(uint16_t a, uint16_t b, uint16_t c) {
  double p = double(halfFromBits(a)) * double(halfFromBits(b)); // exact: 22 significant bits
  double z = double(halfFromBits(c));
  double s = p + z;
  if (std::isnan(s))
    return 0x7fff;
  if (std::isinf(s)) // an infinite operand
    return bitsOfHalf(_Float16(s));
  // s + e is the exact result (Knuth's TwoSum).
  double bb = s - p;
  double e = (p - (s - bb)) + (z - bb);
  uint16_t h = bitsOfHalf(_Float16(s)); // s rounded to half: right unless s is a midpoint
  if (e == 0 || extended(h) == s)
    return h;
  // The half on s's other side: one step from h towards s (h may be the infinity).
  bool awayFromZero = std::fabs(s) > std::fabs(extended(h));
  uint16_t other = uint16_t(awayFromZero ? h + 1 : h - 1);
  if ((h & 0x7fff) == 0x7c00) // h overflowed: the other side is the largest finite half
    other = uint16_t((h & 0x8000) | 0x7bff);
  if ((extended(h) + extended(other)) / 2 != s)
    return h; // not a midpoint: the rounding of s is the rounding of s + e
  // A midpoint of two halves: the exact value lies on e's side of it.
  bool hIsUpper = extended(h) > extended(other);
  return (e > 0) == hIsUpper ? h : other;
}
