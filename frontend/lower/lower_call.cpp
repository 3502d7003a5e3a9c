// Lowering of calls: casts, device functions, cuda.* intrinsics, math.* and builtins.
#include "frontend/builtins/builtin.h"
#include "frontend/ir/libdevice_signatures.h"
#include "frontend/lower/lowerer.h"

#include "frontend/builtins/math.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/sema/builtins.h"

#include <algorithm>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <limits>

namespace cutwin::ir {

using namespace llvm;

Value *Lowerer::lowerCall(const fe::CallExpr &c) {
  const fe::ExprInfo &ci = info(c);
  setLoc(c.loc);
  if (ci.callee)
    return lowerDeviceCall(c, ci);
  if (ci.foreign)
    return lowerForeignCall(c, ci);
  if (!ci.function || !ci.function->lower) // range(), cuda.const.array_like: read by their users
    throw Error(std::string("internal error: call of '") + (ci.function ? ci.function->name : "?") +
                "' has no lowering of its own");
  return (this->*ci.function->lower)(c, ci); // a builtin of the registry (frontend/builtins/)
}

Value *Lowerer::lowerDeviceCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  llvm::Function *callee = declareFunction(*ci.callee);
  std::vector<Value *> args;
  for (size_t i = 0; i < ci.callee->argTypes.size(); ++i) {
    const Type &t = ci.callee->argTypes[i];
    if (fe::isStaticType(t))
      continue;
    if (const fe::Expr *a = ci.boundArgs[i])
      args.push_back(lowerAs(*a, t));
    else // the parameter's default
      args.push_back(convert(constant(*ci.boundDefaults[i], ci.boundDefaults[i]->type()),
                             ci.boundDefaults[i]->type(), t));
  }
  args.push_back(errRecord_);
  setLoc(c.loc);
  return b_.CreateCall(callee, args);
}

Value *Lowerer::lowerForeignCall(const fe::CallExpr &c, const fe::ExprInfo &ci) {
  const fe::Symbol &sym = *ci.foreign;
  const fe::Signature &sig = sym.foreignSignature;
  auto *ptr = PointerType::get(ctx_, 0);
  bool returns = sig.ret.isScalar();
  std::vector<llvm::Type *> params;
  std::vector<Value *> args;
  AllocaInst *ret = nullptr;
  if (!sym.foreignCAbi) { // numba's ABI: the result through a pointer, a status returned
    ret = entryAlloca(returns ? memType(sig.ret.scalar) : llvm::Type::getInt8Ty(ctx_),
                      sym.foreignName + ".ret");
    params.push_back(ptr);
    args.push_back(ret);
  }
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Type &want = sig.args[i];
    if (want.pointer) { // the data pointer of the array or CPointer passed, as a generic address
      Value *arr = lowerExpr(*c.args[i]);
      params.push_back(ptr);
      args.push_back(b_.CreateAddrSpaceCast(arrayField(arr, 0, 0), ptr));
      continue;
    }
    Value *v = lowerAs(*c.args[i], want);
    if (want.isBool())
      v = b_.CreateZExt(v, memType(Scalar::Bool));
    params.push_back(v->getType());
    args.push_back(v);
  }
  llvm::Type *resultType = !sym.foreignCAbi ? llvm::Type::getInt32Ty(ctx_)
                           : returns        ? memType(sig.ret.scalar)
                                            : llvm::Type::getVoidTy(ctx_);
  auto *ft = FunctionType::get(resultType, params, false);
  FunctionCallee callee = mod_.getOrInsertFunction(sym.foreignName, ft);
  if (auto *f = dyn_cast<llvm::Function>(callee.getCallee()); !f || f->getFunctionType() != ft)
    spec_->file().error(c.loc, "foreign device function '" + sym.foreignName +
                                   "' is declared twice with different signatures");
  out_.info.foreign.emplace(sym.foreignName, c.loc);
  for (auto &f : sym.foreignLink)
    if (std::find(out_.info.link.begin(), out_.info.link.end(), f) == out_.info.link.end())
      out_.info.link.push_back(f);
  setLoc(c.loc);
  Value *result = b_.CreateCall(callee, args); // numba's status is ignored, as numba does
  if (!returns)
    return nullptr;
  Value *v = sym.foreignCAbi ? result : b_.CreateLoad(ret->getAllocatedType(), ret);
  return sig.ret.isBool() ? b_.CreateICmpNE(v, ConstantInt::get(v->getType(), 0)) : v;
}

Value *Lowerer::minMax(bool isMax, ArrayRef<Value *> vals, Scalar t) {
  // Python's min/max: the first of equal candidates wins; a NaN operand is kept only
  // when it comes first (comparisons with NaN are false).
  Value *acc = vals[0];
  for (size_t i = 1; i < vals.size(); ++i) {
    Value *better = compare(isMax ? fe::CmpOp::Gt : fe::CmpOp::Lt, vals[i], acc, t);
    acc = b_.CreateSelect(better, vals[i], acc);
  }
  return acc;
}

Value *Lowerer::roundToDigits(Value *x, Value *nd, Scalar out) {
  // CPython's fallback double_round, as numba-cuda compiles it (in float64): scale by a
  // power of ten, round half to even, scale back; infinities, NaN and a scaling that
  // overflows give x itself.
  auto *f64 = llvm::Type::getDoubleTy(ctx_);
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  auto cst = [&](double v) { return ConstantFP::get(f64, v); };
  auto pow10 = [&](Value *n) { return power(cst(10.0), n, Scalar::F64, Scalar::I64, Scalar::F64); };
  auto rnd = [&](Value *v) { // round(): an int64, back to float64
    return b_.CreateSIToFP(libdeviceCall("llrint", Scalar::F64, {v}, i64), f64);
  };
  Value *zero = ConstantInt::get(i64, 0);
  Value *nonNeg = b_.CreateICmpSGE(nd, zero);
  Value *big = b_.CreateICmpSGT(nd, ConstantInt::get(i64, 22));
  Value *pow1 =
      b_.CreateSelect(nonNeg, pow10(b_.CreateSelect(big, b_.CreateSub(nd, ConstantInt::get(i64, 22)), nd)),
                      pow10(b_.CreateNeg(nd)));
  Value *pow2 = b_.CreateSelect(b_.CreateAnd(nonNeg, big), cst(1e22), cst(1.0));
  Value *y = b_.CreateSelect(nonNeg, b_.CreateFMul(b_.CreateFMul(x, pow1), pow2), fdiv(x, pow1));
  Value *z = rnd(y);
  Value *half =
      b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, b_.CreateFSub(y, z)), cst(0.5));
  z = b_.CreateSelect(half, b_.CreateFMul(cst(2.0), rnd(fdiv(y, cst(2.0)))), z);
  Value *back = b_.CreateSelect(nonNeg, fdiv(fdiv(z, pow2), pow1), b_.CreateFMul(z, pow1));
  Value *ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
        *ay = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y);
  Value *inf = cst(std::numeric_limits<double>::infinity());
  Value *keep = b_.CreateOr(b_.CreateFCmpUEQ(ax, inf), b_.CreateAnd(nonNeg, b_.CreateFCmpOEQ(ay, inf)));
  Value *r = b_.CreateSelect(keep, x, back); // UEQ: NaN keeps x too
  return convertScalar(r, Scalar::F64, out);
}

Value *Lowerer::mathOp(const std::string &name, ArrayRef<Value *> args, ArrayRef<Scalar> argTypes,
                       Scalar out) {
  Scalar in = argTypes[0];

  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    if (!fe::isFloat(in))
      return ConstantInt::getBool(ctx_, name == "isfinite");
    Value *x = args[0];
    if (name == "isnan")
      return b_.CreateFCmpUNO(x, x);
    Value *ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    Value *inf = ConstantFP::getInfinity(x->getType());
    return name == "isinf" ? b_.CreateFCmpOEQ(ax, inf) : b_.CreateFCmpOLT(ax, inf);
  }
  if (name == "radians" || name == "degrees") {
    double k = name == "radians" ? M_PI / 180.0 : 180.0 / M_PI;
    return b_.CreateFMul(ConstantFP::get(args[0]->getType(), k), args[0]);
  }
  if (in == Scalar::F16) // numba-cuda's float16 overloads (math.sin is cuda.fp16.hsin)
    if (auto kind = fe::halfMathKind(name))
      return halfOp(*kind, args);
  if (name == "sqrt")
    return fsqrt(args[0]);
  // numba-cuda's fastmath takes tanh.approx.f32 for float32 tanh, and libdevice's fast
  // float32 versions of these.
  if (out_.info.fastmath && name == "tanh" && in == Scalar::F32)
    return approx(ir::ApproxUnit::Tanh, args[0]);
  static const char *const fast[] = {"cos", "sin", "tan", "exp", "log", "log2", "log10", "pow"};
  if (out_.info.fastmath && out == Scalar::F32 && in == Scalar::F32 &&
      std::find(std::begin(fast), std::end(fast), name) != std::end(fast) &&
      (name != "pow" || argTypes[1] == Scalar::F32))
    return libdeviceCall("fast_" + name, out, args);
  // Exact operations are LLVM intrinsics (IEEE on every target); the rest is libdevice.
  static const std::pair<const char *, llvm::Intrinsic::ID> exact[] = {
      {"fabs", llvm::Intrinsic::fabs},         {"floor", llvm::Intrinsic::floor},
      {"ceil", llvm::Intrinsic::ceil},         {"trunc", llvm::Intrinsic::trunc},
      {"copysign", llvm::Intrinsic::copysign},
  };
  for (auto &[n, id] : exact)
    if (name == n)
      return args.size() == 1 ? b_.CreateUnaryIntrinsic(id, args[0])
                              : b_.CreateBinaryIntrinsic(id, args[0], args[1]);
  if (name == "pow" && fe::isInteger(argTypes[1]))
    return libdeviceCall("powi", out, args); // __nv_powi / __nv_powif (float, int32)
  const fe::MathFunction *m = fe::mathFunction(name);
  return libdeviceCall(m->libdevice, out, args);
}

} // namespace cutwin::ir
