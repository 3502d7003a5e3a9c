#include "backend_sim/approx_inline.h"

#include "backend_sim/approx_tables.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <string>

namespace cutwin::sim {

using namespace llvm;

namespace {

/// Builds one compiled instruction: `fast` blocks that may give up by branching to `slow`,
/// which calls the host helper with the same operands.
class UnitBuilder {
public:
  UnitBuilder(Module &m, Type *t, const std::string &name)
      : m_(m), c_(m.getContext()), b_(c_), t_(t) {
    bool f32 = t->isFloatTy();
    auto *fty = f32 ? FunctionType::get(t, {t, t}, false) : FunctionType::get(t, {t}, false);
    f_ = Function::Create(fty, GlobalValue::InternalLinkage, name, m);
    f_->addFnAttr(Attribute::AlwaysInline);
    f_->addFnAttr(Attribute::NoUnwind);
    entry_ = BasicBlock::Create(c_, "entry", f_);
    slow_ = BasicBlock::Create(c_, "slow", f_);
    done_ = BasicBlock::Create(c_, "done", f_);
    b_.SetInsertPoint(entry_);
  }

  IRBuilder<> &b() { return b_; }
  Value *arg(unsigned k) { return f_->getArg(k); }

  /// Continues in a new block when `ok` holds, else takes the host path.
  void require(Value *ok, const char *what) {
    BasicBlock *next = BasicBlock::Create(c_, what, f_, slow_);
    b_.CreateCondBr(ok, next, slow_);
    b_.SetInsertPoint(next);
  }

  /// The view of table `t` (approx_tables.h), once its blocks pointer is set.
  Value *view(ApproxTable t) { return b_.CreateConstInBoundsGEP2_32(viewsType(), views(), 0, unsigned(t)); }

  /// Entry `i` (i32) of the table whose view is `v`: the host path where the table is not
  /// open, the entry's chunk not decoded, or its block raw.
  Value *entry(Value *v, Value *i) {
    Type *ptr = b_.getPtrTy(), *i8 = b_.getInt8Ty(), *i32 = b_.getInt32Ty(), *i64 = b_.getInt64Ty();
    LoadInst *blocks = b_.CreateAlignedLoad(ptr, b_.CreateStructGEP(viewType(), v, 0), Align(8));
    blocks->setAtomic(AtomicOrdering::Acquire);
    require(b_.CreateIsNotNull(blocks), "open");
    Value *ready = b_.CreateAlignedLoad(ptr, b_.CreateStructGEP(viewType(), v, 1), Align(8));
    Value *shift = b_.CreateAlignedLoad(i32, b_.CreateStructGEP(viewType(), v, 2), Align(4));
    Value *chunk = b_.CreateZExt(b_.CreateLShr(i, shift), i64);
    LoadInst *flag = b_.CreateAlignedLoad(i8, b_.CreateInBoundsGEP(i8, ready, chunk), Align(1));
    flag->setAtomic(AtomicOrdering::Acquire);
    require(b_.CreateICmpNE(flag, b_.getInt8(0)), "decoded");
    Value *blk = b_.CreateInBoundsGEP(blockType(), blocks, b_.CreateZExt(b_.CreateLShr(i, 6), i64));
    Value *first = b_.CreateAlignedLoad(i32, b_.CreateStructGEP(blockType(), blk, 0), Align(8));
    Value *least = b_.CreateAlignedLoad(i32, b_.CreateStructGEP(blockType(), blk, 1), Align(4));
    Value *plane0 = b_.CreateAlignedLoad(i64, b_.CreateStructGEP(blockType(), blk, 2), Align(8));
    Value *plane1 = b_.CreateAlignedLoad(i64, b_.CreateStructGEP(blockType(), blk, 3), Align(8));
    require(b_.CreateICmpNE(least, b_.getInt32(uint32_t(kRawBlock))), "packed");
    // bits 1..r of the planes: all ones shifted right by 63 - r, bit 0 cleared
    Value *r = b_.CreateAnd(i, 63);
    Value *below = b_.CreateAnd(b_.CreateLShr(b_.getInt64(~uint64_t(0)), b_.CreateZExt(b_.CreateSub(b_.getInt32(63), r), i64)),
                                b_.getInt64(~uint64_t(1)));
    auto count = [&](Value *plane) {
      Value *n = b_.CreateUnaryIntrinsic(Intrinsic::ctpop, b_.CreateAnd(plane, below));
      return b_.CreateTrunc(n, i32);
    };
    Value *e = b_.CreateAdd(first, b_.CreateMul(least, r));
    e = b_.CreateAdd(e, count(plane0));
    return b_.CreateAdd(e, b_.CreateShl(count(plane1), 1));
  }

  /// Ends the fast path with `result`; the host path calls the helper with operation code
  /// `op`. Returns the finished function.
  Function *finish(Value *result, int op) {
    BasicBlock *fastEnd = b_.GetInsertBlock();
    b_.CreateBr(done_);
    b_.SetInsertPoint(slow_);
    bool f32 = t_->isFloatTy();
    Type *i32 = b_.getInt32Ty();
    FunctionCallee h = f32 ? m_.getOrInsertFunction("cutwin_sim_approx_f32", t_, i32, t_, t_)
                           : m_.getOrInsertFunction("cutwin_sim_approx_f64", t_, i32, t_);
    if (auto *fn = dyn_cast<Function>(h.getCallee()))
      fn->setDoesNotThrow();
    Value *slowResult = f32 ? b_.CreateCall(h, {b_.getInt32(op), arg(0), arg(1)})
                            : b_.CreateCall(h, {b_.getInt32(op), arg(0)});
    b_.CreateBr(done_);
    b_.SetInsertPoint(done_);
    PHINode *phi = b_.CreatePHI(t_, 2);
    phi->addIncoming(result, fastEnd);
    phi->addIncoming(slowResult, slow_);
    b_.CreateRet(phi);
    return f_;
  }

private:
  StructType *viewType() {
    if (auto *t = StructType::getTypeByName(c_, "cutwin.approx.view"))
      return t;
    return StructType::create(c_, {b_.getPtrTy(), b_.getPtrTy(), b_.getInt32Ty()}, "cutwin.approx.view");
  }
  StructType *blockType() {
    if (auto *t = StructType::getTypeByName(c_, "cutwin.approx.block"))
      return t;
    return StructType::create(c_, {b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt64Ty(), b_.getInt64Ty()},
                              "cutwin.approx.block");
  }
  ArrayType *viewsType() { return ArrayType::get(viewType(), unsigned(ApproxTable::Count)); }
  GlobalVariable *views() {
    if (auto *g = m_.getGlobalVariable(kApproxViewsSymbol))
      return g;
    return new GlobalVariable(m_, viewsType(), false, GlobalValue::ExternalLinkage, nullptr, kApproxViewsSymbol);
  }

  Module &m_;
  LLVMContext &c_;
  IRBuilder<> b_;
  Type *t_;
  Function *f_;
  BasicBlock *entry_, *slow_, *done_;
};

std::string unitName(const char *kind, int op) { return std::string("cutwin.sim.approx.") + kind + "." + std::to_string(op); }

/// ex2: |x| read to 2^-23 (truncated); entry k mod 2^23 of the table of x's sign, its
/// exponent moved by the integer part (fp_helpers.cpp's approxEx2F32, for normal |x| < 126;
/// below -126 the non-ftz form squares a half-way value, which the host path does).
Function *ex2(UnitBuilder &u, ApproxF32 op) {
  IRBuilder<> &b = u.b();
  Type *i32 = b.getInt32Ty();
  Value *bits = b.CreateBitCast(u.arg(0), i32);
  Value *mag = b.CreateAnd(bits, 0x7fffffff);
  u.require(b.CreateICmpULT(b.CreateSub(mag, b.getInt32(0x00800000)), b.getInt32(0x42fc0000 - 0x00800000)), "normal");
  Value *neg = b.CreateICmpSLT(bits, b.getInt32(0));
  Value *scaled = b.CreateFMul(b.CreateBitCast(mag, b.getFloatTy()), ConstantFP::get(b.getFloatTy(), 0x1p23));
  Value *k = b.CreateFPToUI(scaled, i32); // exact product, truncated
  Value *v = b.CreateSelect(neg, u.view(ApproxTable::Ex2Neg), u.view(ApproxTable::Ex2Pos));
  Value *t = u.entry(v, b.CreateAnd(k, 0x7fffff));
  Value *whole = b.CreateLShr(k, 23);
  Value *exp = b.CreateAnd(b.CreateLShr(t, 23), 0xff);
  Value *r = b.CreateSelect(neg, b.CreateSub(exp, whole), b.CreateAdd(exp, whole));
  Value *normal = b.CreateOr(b.CreateShl(r, 23), b.CreateAnd(t, 0x7fffff));
  // |x| < 126 keeps r within 1..254
  return u.finish(b.CreateBitCast(normal, b.getFloatTy()), int(op));
}

/// The float exponent field and mantissa of a positive or negative normal operand.
struct Parts {
  Value *bits, *sign, *exp, *mant;
};
Parts parts32(IRBuilder<> &b, Value *x) {
  Value *bits = b.CreateBitCast(x, b.getInt32Ty());
  return {bits, b.CreateAnd(bits, 0x80000000u), b.CreateAnd(b.CreateLShr(bits, 23), 0xff), b.CreateAnd(bits, 0x7fffff)};
}

/// rcp: the table at the mantissa, its exponent less x's (approxRcpF32). rcp.approx.f32
/// scales operands above 2^126; the host path does that.
Function *rcp32(UnitBuilder &u, ApproxF32 op) {
  IRBuilder<> &b = u.b();
  Parts p = parts32(b, u.arg(0));
  Value *mag = b.CreateAnd(p.bits, 0x7fffffff);
  uint32_t top = op == ApproxF32::RcpFtz ? 0x7f800000u : 0x7e800001u;
  u.require(b.CreateICmpULT(b.CreateSub(mag, b.getInt32(0x00800000)), b.getInt32(top - 0x00800000)), "normal");
  Value *t = u.entry(u.view(ApproxTable::Rcp32), p.mant);
  Value *r = b.CreateSub(b.CreateAnd(b.CreateLShr(t, 23), 0xff), b.CreateSub(p.exp, b.getInt32(127)));
  Value *normal = b.CreateOr(p.sign, b.CreateOr(b.CreateShl(r, 23), b.CreateAnd(t, 0x7fffff)));
  Value *res = b.CreateSelect(b.CreateICmpSLE(r, b.getInt32(0)), p.sign, normal);
  return u.finish(b.CreateBitCast(res, b.getFloatTy()), int(op));
}

/// rsqrt and sqrt of a positive normal operand: the table of the exponent's parity, the
/// exponent halved (approxRsqrtF32, approxSqrtF32).
Function *root32(UnitBuilder &u, ApproxF32 op, bool reciprocal) {
  IRBuilder<> &b = u.b();
  Parts p = parts32(b, u.arg(0));
  u.require(b.CreateICmpULT(b.CreateSub(p.bits, b.getInt32(0x00800000)), b.getInt32(0x7f800000 - 0x00800000)),
            "positive");
  Value *pow2 = b.CreateSub(p.exp, b.getInt32(127));
  Value *odd = b.CreateAnd(pow2, 1);
  Value *v = b.CreateSelect(b.CreateICmpNE(odd, b.getInt32(0)),
                            u.view(reciprocal ? ApproxTable::Rsqrt32Odd : ApproxTable::Sqrt32Odd),
                            u.view(reciprocal ? ApproxTable::Rsqrt32Even : ApproxTable::Sqrt32Even));
  Value *t = u.entry(v, p.mant);
  Value *half = b.CreateAShr(b.CreateSub(pow2, odd), 1);
  Value *exp = b.CreateAnd(b.CreateLShr(t, 23), 0xff);
  Value *r = reciprocal ? b.CreateSub(exp, half) : b.CreateAdd(exp, half);
  Value *res = b.CreateOr(b.CreateShl(r, 23), b.CreateAnd(t, 0x7fffff));
  return u.finish(b.CreateBitCast(res, b.getFloatTy()), int(op));
}

/// lg2 of a positive normal operand: RZ(e + T0[m]) for e >= 0, RZ((e + 1) + T1[m]) below
/// (approxLg2F32): the sum in double is exact, then truncated to float.
Function *lg2(UnitBuilder &u, ApproxF32 op) {
  IRBuilder<> &b = u.b();
  Parts p = parts32(b, u.arg(0));
  u.require(b.CreateICmpULT(b.CreateSub(p.bits, b.getInt32(0x00800000)), b.getInt32(0x7f800000 - 0x00800000)),
            "positive");
  Value *pow2 = b.CreateSub(p.exp, b.getInt32(127));
  Value *below = b.CreateICmpSLT(pow2, b.getInt32(0));
  Value *v = b.CreateSelect(below, u.view(ApproxTable::Lg2Em1), u.view(ApproxTable::Lg2E0));
  Value *t = u.entry(v, p.mant);
  Value *whole = b.CreateSIToFP(b.CreateSelect(below, b.CreateAdd(pow2, b.getInt32(1)), pow2), b.getDoubleTy());
  Value *sum = b.CreateFAdd(whole, b.CreateFPExt(b.CreateBitCast(t, b.getFloatTy()), b.getDoubleTy()));
  Value *cut = b.CreateAnd(b.CreateBitCast(sum, b.getInt64Ty()), ~((uint64_t(1) << 29) - 1));
  return u.finish(b.CreateFPTrunc(b.CreateBitCast(cut, b.getDoubleTy()), b.getFloatTy()), int(op));
}

/// The high word's exponent field, sign and top mantissa bits of a double.
Parts parts64(IRBuilder<> &b, Value *x) {
  Value *hi = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(x, b.getInt64Ty()), 32), b.getInt32Ty());
  return {hi, b.CreateAnd(hi, 0x80000000u), b.CreateAnd(b.CreateLShr(hi, 20), 0x7ff), b.CreateAnd(hi, 0xfffff)};
}

Value *fromHigh(IRBuilder<> &b, Value *hi) {
  return b.CreateBitCast(b.CreateShl(b.CreateZExt(hi, b.getInt64Ty()), 32), b.getDoubleTy());
}

/// rcp.approx.ftz.f64: the unit reads the high word (approxRcpF64).
Function *rcp64(UnitBuilder &u, ApproxF64 op) {
  IRBuilder<> &b = u.b();
  Parts p = parts64(b, u.arg(0));
  u.require(b.CreateICmpULT(b.CreateSub(p.exp, b.getInt32(1)), b.getInt32(0x7fe)), "normal");
  Value *t = u.entry(u.view(ApproxTable::Rcp64), p.mant);
  Value *r = b.CreateSub(b.CreateAnd(b.CreateLShr(t, 20), 0x7ff), b.CreateSub(p.exp, b.getInt32(1023)));
  Value *normal = b.CreateOr(p.sign, b.CreateOr(b.CreateShl(r, 20), b.CreateAnd(t, 0xfffff)));
  Value *hi = b.CreateSelect(b.CreateICmpSLE(r, b.getInt32(0)), p.sign, normal);
  return u.finish(fromHigh(b, hi), int(op));
}

/// rsqrt.approx.ftz.f64 of a positive normal operand (approxRsqrtF64).
Function *rsqrt64(UnitBuilder &u, ApproxF64 op) {
  IRBuilder<> &b = u.b();
  Parts p = parts64(b, u.arg(0));
  u.require(b.CreateICmpULT(b.CreateSub(p.bits, b.getInt32(0x00100000)), b.getInt32(0x7ff00000 - 0x00100000)),
            "positive");
  Value *pow2 = b.CreateSub(p.exp, b.getInt32(1023));
  Value *odd = b.CreateAnd(pow2, 1);
  Value *v = b.CreateSelect(b.CreateICmpNE(odd, b.getInt32(0)), u.view(ApproxTable::Rsqrt64Odd),
                            u.view(ApproxTable::Rsqrt64Even));
  Value *t = u.entry(v, p.mant);
  Value *r = b.CreateSub(b.CreateAnd(b.CreateLShr(t, 20), 0x7ff), b.CreateAShr(b.CreateSub(pow2, odd), 1));
  return u.finish(fromHigh(b, b.CreateOr(b.CreateShl(r, 20), b.CreateAnd(t, 0xfffff))), int(op));
}

} // namespace

Function *compiledApproxF32(Module &m, ApproxF32 op) {
  std::string name = unitName("f32", int(op));
  if (Function *f = m.getFunction(name))
    return f;
  Type *f32 = Type::getFloatTy(m.getContext());
  switch (op) {
  case ApproxF32::Ex2Ftz:
  case ApproxF32::Ex2: {
    UnitBuilder u(m, f32, name);
    return ex2(u, op);
  }
  case ApproxF32::RcpFtz:
  case ApproxF32::Rcp: {
    UnitBuilder u(m, f32, name);
    return rcp32(u, op);
  }
  case ApproxF32::RsqrtFtz:
  case ApproxF32::Rsqrt:
  case ApproxF32::SqrtFtz:
  case ApproxF32::Sqrt: {
    UnitBuilder u(m, f32, name);
    return root32(u, op, op == ApproxF32::RsqrtFtz || op == ApproxF32::Rsqrt);
  }
  case ApproxF32::Lg2Ftz:
  case ApproxF32::Lg2: {
    UnitBuilder u(m, f32, name);
    return lg2(u, op);
  }
  default: return nullptr; // sin, cos, tanh, div: the host path
  }
}

Function *compiledApproxF64(Module &m, ApproxF64 op) {
  std::string name = unitName("f64", int(op));
  if (Function *f = m.getFunction(name))
    return f;
  Type *f64 = Type::getDoubleTy(m.getContext());
  switch (op) {
  case ApproxF64::RcpFtz: {
    UnitBuilder u(m, f64, name);
    return rcp64(u, op);
  }
  case ApproxF64::RsqrtFtz: {
    UnitBuilder u(m, f64, name);
    return rsqrt64(u, op);
  }
  default: return nullptr;
  }
}

} // namespace cutwin::sim
