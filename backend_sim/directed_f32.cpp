#include "backend_sim/directed_f32.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <string>

namespace cutwin::sim {

using namespace llvm;

Function *compiledDirectedF32(Module &m, int op, int mode) {
  if ((op != 0 && op != 1 && op != 3 && op != 6) || mode < 1 || mode > 3)
    return nullptr;
  std::string name = "cutwin.sim.f32op." + std::to_string(op) + "." + std::to_string(mode);
  if (Function *f = m.getFunction(name))
    return f;
  LLVMContext &c = m.getContext();
  Type *f32 = Type::getFloatTy(c), *f64 = Type::getDoubleTy(c), *i32 = Type::getInt32Ty(c);
  Function *f = Function::Create(FunctionType::get(f32, {f32, f32, f32}, false), GlobalValue::InternalLinkage,
                                 name, m);
  f->addFnAttr(Attribute::AlwaysInline);
  f->addFnAttr(Attribute::NoUnwind);
  auto *entry = BasicBlock::Create(c, "entry", f);
  auto *fast = BasicBlock::Create(c, "fast", f);
  auto *slow = BasicBlock::Create(c, "slow", f);
  auto *done = BasicBlock::Create(c, "done", f);
  IRBuilder<> b(entry);

  // The exact result is s + e: the product of two floats is exact in double, e is the
  // TwoSum error of the sum.
  Value *a = b.CreateFPExt(f->getArg(0), f64), *bb = b.CreateFPExt(f->getArg(1), f64);
  Value *x = op == 1 || op == 3 ? b.CreateFMul(a, bb) : a;
  Value *y = op == 0 ? bb : op == 6 ? b.CreateFNeg(bb) : op == 3 ? b.CreateFPExt(f->getArg(2), f64)
                                                                : ConstantFP::get(f64, 0.0);
  Value *s = b.CreateFAdd(x, y);
  Value *t = b.CreateFSub(s, x);
  Value *e = b.CreateFAdd(b.CreateFSub(x, b.CreateFSub(s, t)), b.CreateFSub(y, t));
  Value *nearest = b.CreateFPTrunc(s, f32);
  // A finite non-zero nearest float: s too is finite and non-zero.
  Value *inf = ConstantFP::getInfinity(f32);
  Value *ok = b.CreateAnd(b.CreateFCmpONE(nearest, ConstantFP::get(f32, 0.0)),
                          b.CreateFCmpOLT(b.CreateUnaryIntrinsic(Intrinsic::fabs, nearest), inf));
  b.CreateCondBr(ok, fast, slow);

  b.SetInsertPoint(fast);
  Value *nd = b.CreateFPExt(nearest, f64);
  Value *same = b.CreateFCmpOEQ(nd, s);
  Value *zero = ConstantFP::get(f64, 0.0);
  // nearest above (below) the exact value; |e| is below half an ulp of s
  Value *above = b.CreateOr(b.CreateFCmpOGT(nd, s), b.CreateAnd(same, b.CreateFCmpOLT(e, zero)));
  Value *below = b.CreateOr(b.CreateFCmpOLT(nd, s), b.CreateAnd(same, b.CreateFCmpOGT(e, zero)));
  Value *positive = b.CreateFCmpOGT(s, zero);
  Value *down = mode == 1 ? above : mode == 2 ? b.getFalse() : b.CreateAnd(positive, above);
  Value *up = mode == 2 ? below : mode == 1 ? b.getFalse() : b.CreateAnd(b.CreateNot(positive), below);
  // one step toward -inf or +inf in the encoding (the magnitude moves by one)
  Value *bits = b.CreateBitCast(nearest, i32);
  Value *smaller = b.CreateSub(bits, b.getInt32(1)), *larger = b.CreateAdd(bits, b.getInt32(1));
  Value *stepDown = b.CreateSelect(positive, smaller, larger), *stepUp = b.CreateSelect(positive, larger, smaller);
  Value *r = b.CreateSelect(down, stepDown, b.CreateSelect(up, stepUp, bits));
  Value *fastResult = b.CreateBitCast(r, f32);
  b.CreateBr(done);

  b.SetInsertPoint(slow);
  FunctionCallee h = m.getOrInsertFunction("cutwin_sim_f32op", f32, i32, i32, f32, f32, f32);
  if (auto *fn = dyn_cast<Function>(h.getCallee()))
    fn->setDoesNotThrow();
  Value *slowResult =
      b.CreateCall(h, {b.getInt32(op), b.getInt32(mode), f->getArg(0), f->getArg(1), f->getArg(2)});
  b.CreateBr(done);

  b.SetInsertPoint(done);
  PHINode *phi = b.CreatePHI(f32, 2);
  phi->addIncoming(fastResult, fast);
  phi->addIncoming(slowResult, slow);
  b.CreateRet(phi);
  return f;
}

} // namespace cutwin::sim
